// The runbooks of docs/operations.md, command by command, against the local stack: a leaked key, a drain in the dead-letter queue, a batch that stays committed, a parked endpoint.
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterEach, describe, expect, it } from 'vitest';
import { environmentNames, tableName } from '#platform/config.ts';
import { queuePair } from '#lib/admin/dead-letters.ts';
import { tableClient } from '#platform/table/client.ts';
import { keys } from '#platform/table/keys.ts';
import { AUTH_CACHE_MS } from '#shared/api-keys/authenticate.ts';
import { commitBatch as commitBatchItem, type DrainJob, getBatch } from '#shared/batches/repository.ts';
import { sendTestEvent } from '#shared/webhooks/test-event.ts';
import { batchWithProducts, commit, connectorCaller, waitForBands, waitForStatus } from './ingest-support.ts';
import { admin, adminJson, deadLetterIds, parkMessage } from './operator-cli.ts';
import { call, newWorkspace } from './support.ts';
import { type Receiver, startReceiver } from './webhook-receiver.ts';

/** Each runbook runs the CLI, a process of its own, several times over: on a busy machine each takes seconds. */
const SLOW = { timeout: 180_000 };

describe('runbook: a key leaked', () => {
  it(
    'finds the key from its plaintext, shows its last use, revokes it, and the key is refused from then on',
    { timeout: AUTH_CACHE_MS + 30_000 },
    async () => {
      const workspace = await newWorkspace('Leaky Seller');
      const leaked = workspace.keys.pwLive;
      expect((await call('/v1/prices/NONE', { key: leaked })).status).not.toBe(401);

      const [found] = await adminJson(['key', 'find', '--key-stdin'], `${leaked}\n`);
      expect(found).toMatchObject({ keyId: workspace.keyIds.pwLive, workspaceId: workspace.workspaceId, revokedAt: null });
      expect(found.lastUsedAt).toEqual(expect.any(String));
      expect(JSON.stringify(found)).not.toContain(leaked);

      const revoked = await adminJson(['key', 'revoke', found.keyId]);
      expect(revoked.revokedAt).toEqual(expect.any(String));
      // Every instance refuses it within a minute (AUTH_CACHE_MS): the gateway served it a moment ago, and remembers it.
      await until(async () => (await call('/v1/prices/NONE', { key: leaked })).status === 401, AUTH_CACHE_MS + 15_000);
      const listed = (await adminJson(['key', 'list', '--workspace', workspace.workspaceId])) as Array<{
        keyId: string;
        revokedAt: string;
      }>;
      expect(listed.find((key) => key.keyId === found.keyId)?.revokedAt).toBe(revoked.revokedAt);
    },
  );
});

describe('runbook: a drain in the dead-letter queue', () => {
  it('lists the parked bands job with its reason, shows its batch, redrives it once, and the batch gets its bands', SLOW, async () => {
    const workspace = await newWorkspace('Parked Bands Seller');
    const batch = await batchWithProducts(connectorCaller(workspace));
    expect((await commit(batch)).status).toBe(202);
    await waitForStatus(batch, 'drained');
    await waitForBands(batch.key, batch.batchId);
    // What a bands job given up leaves: the batch drained, its bands not recomputed, its message parked with the reason.
    await tableClient().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.batch(workspace.workspaceId, batch.batchId),
        UpdateExpression: 'REMOVE bandsRecomputedAt',
      }),
    );
    const stored = await getBatch(workspace.workspaceId, batch.batchId);
    const reason = 'Recomputing bands failed after 3 attempts (an internal fault).';
    const messageId = await parkMessage(
      'drain',
      { workspaceId: workspace.workspaceId, batchId: batch.batchId, jobId: stored?.jobId, sentAt: stored?.committedAt, phase: 'bands' },
      reason,
    );

    const letters = (await adminJson(['dlq', 'list', '--queue', 'drain'])) as Array<{ messageId: string; reason: string; job: unknown }>;
    expect(letters.find((letter) => letter.messageId === messageId)).toMatchObject({
      reason,
      job: { workspaceId: workspace.workspaceId, batchId: batch.batchId, phase: 'bands' },
    });
    // Listing takes nothing off the queue: a second list shows it again.
    expect(await deadLetterIds('drain')).toContain(messageId);

    const listed = (await adminJson(['batch', 'list', '--workspace', workspace.workspaceId, '--status', 'drained'])) as Array<{
      batchId: string;
      connectorId: string;
      recordCount: number;
    }>;
    expect(listed).toEqual([expect.objectContaining({ batchId: batch.batchId, connectorId: workspace.connectorId, recordCount: 3 })]);
    const before = await adminJson(['batch', 'show', '--workspace', workspace.workspaceId, '--batch', batch.batchId]);
    expect(before).toMatchObject({ status: 'drained', bandsRecomputedAt: null, jobId: stored?.jobId, error: null });

    const redriven = await adminJson(['dlq', 'redrive', '--queue', 'drain', '--message', messageId]);
    expect(redriven).toEqual({ queue: 'drain', redriven: [messageId] });
    await waitForBands(batch.key, batch.batchId, { timeoutMs: 60_000 });
    const after = await adminJson(['batch', 'show', '--workspace', workspace.workspaceId, '--batch', batch.batchId]);
    expect(after.bandsRecomputedAt).toEqual(expect.any(String));

    expect(await deadLetterIds('drain')).not.toContain(messageId);
    const again = await admin(['dlq', 'redrive', '--queue', 'drain', '--message', messageId]);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain(`no message ${messageId} in the drain dead-letter queue`);
  });

  it("finds a work queue's dead-letter queue from its redrive policy, as the dlq commands do on AWS from --queue-url", async () => {
    for (const queue of ['drain', 'webhooks'] as const) {
      const url = process.env[queue === 'drain' ? environmentNames.drainQueueUrl : environmentNames.webhooksQueueUrl];
      const deadLetterUrl =
        process.env[queue === 'drain' ? environmentNames.drainDeadLetterQueueUrl : environmentNames.webhooksDeadLetterQueueUrl];
      expect(await queuePair(queue, url)).toEqual({ queueId: queue, url, deadLetterUrl });
    }
  });

  it("purges a failed drain's message, which its batch no longer needs, and leaves the others", SLOW, async () => {
    const workspace = await newWorkspace('Failed Drain Seller');
    const failed = await parkMessage(
      'drain',
      { workspaceId: workspace.workspaceId, batchId: crypto.randomUUID(), jobId: 'job_gone', sentAt: new Date().toISOString() },
      'The drain failed after 3 attempts (an internal fault; quote the batch id to support).',
    );
    const kept = await parkMessage('drain', { workspaceId: workspace.workspaceId, batchId: crypto.randomUUID(), jobId: 'job_kept' });

    expect(await adminJson(['dlq', 'purge', '--queue', 'drain', '--message', failed])).toEqual({ queue: 'drain', purged: [failed] });
    const ids = await deadLetterIds('drain');
    expect(ids).not.toContain(failed);
    expect(ids).toContain(kept);
    const letter = ((await adminJson(['dlq', 'list', '--queue', 'drain'])) as Array<{ messageId: string; reason: string }>).find(
      (candidate) => candidate.messageId === kept,
    );
    expect(letter?.reason).toMatch(/^moved by the queue/);
    await adminJson(['dlq', 'purge', '--queue', 'drain', '--message', kept]);
  });

  it('redrives every webhook message at once, and a second redrive finds nothing to move', SLOW, async () => {
    const workspace = await newWorkspace('Webhook Fault Seller');
    const parked = [
      await parkMessage('webhooks', { kind: 'fanOut', workspaceId: workspace.workspaceId, eventId: 'evt_gone_one' }),
      await parkMessage('webhooks', { kind: 'fanOut', workspaceId: workspace.workspaceId, eventId: 'evt_gone_two' }),
    ];
    expect(await deadLetterIds('webhooks')).toEqual(expect.arrayContaining(parked));

    const redriven = await adminJson(['dlq', 'redrive', '--queue', 'webhooks', '--all']);
    expect(redriven.redriven).toEqual(expect.arrayContaining(parked));
    expect(await deadLetterIds('webhooks')).toEqual(expect.not.arrayContaining([parked[0]]));
    const again = await adminJson(['dlq', 'redrive', '--queue', 'webhooks', '--all']);
    expect(again.redriven).toEqual(expect.not.arrayContaining(parked));
  });
});

describe('runbook: a batch that stays committed', () => {
  it('shows the batch it waits for, whose message is parked; redriving that one drains both, in commit order', SLOW, async () => {
    const workspace = await newWorkspace('Waiting Batch Seller');
    const caller = connectorCaller(workspace);
    // The batch ahead: committed, and its drain message moved to the dead-letter queue by SQS (no reason).
    const ahead = await batchWithProducts(caller);
    const sent: DrainJob[] = [];
    await commitBatchItem(caller, ahead.batchId, async (job) => {
      sent.push(job);
    });
    const messageId = await parkMessage('drain', sent[0]);
    const waiting = await batchWithProducts(caller);
    expect((await commit(waiting)).status).toBe(202);

    // 1. What it waits for.
    const shown = await adminJson(['batch', 'show', '--workspace', workspace.workspaceId, '--batch', waiting.batchId]);
    expect(shown).toMatchObject({ status: 'committed', waitingFor: ahead.batchId, drainAttempts: null });
    const inFlight = (await adminJson(['batch', 'list', '--workspace', workspace.workspaceId, '--status', 'committed'])) as Array<{
      batchId: string;
    }>;
    expect(inFlight.map((entry) => entry.batchId).sort()).toEqual([ahead.batchId, waiting.batchId].sort());
    // 2. The batch ahead is committed, not moving, and its message is parked: the dead-letter runbook redrives it.
    expect(await adminJson(['batch', 'show', '--workspace', workspace.workspaceId, '--batch', ahead.batchId])).toMatchObject({
      status: 'committed',
      waitingFor: null,
    });
    expect(await deadLetterIds('drain')).toContain(messageId);
    expect(await adminJson(['dlq', 'redrive', '--queue', 'drain', '--message', messageId])).toEqual({
      queue: 'drain',
      redriven: [messageId],
    });

    // 3. Both drain, the batch ahead first.
    await waitForStatus(waiting, 'drained', 90_000);
    const [first, second] = await Promise.all([
      getBatch(workspace.workspaceId, ahead.batchId),
      getBatch(workspace.workspaceId, waiting.batchId),
    ]);
    expect(first?.status).toBe('drained');
    expect(String(first?.drainedAt) <= String(second?.drainStartedAt)).toBe(true);
    expect(await adminJson(['batch', 'show', '--workspace', workspace.workspaceId, '--batch', waiting.batchId])).toMatchObject({
      status: 'drained',
      waitingFor: null,
    });
  });

  it(
    'shows the batch it waits for, whose message is in neither queue; putting that one back drains both, in commit order',
    SLOW,
    async () => {
      const workspace = await newWorkspace('Lost Message Seller');
      const caller = connectorCaller(workspace);
      // The batch ahead: committed, and its drain message gone (purged), so it is in no queue at all.
      const ahead = await batchWithProducts(caller);
      await commitBatchItem(caller, ahead.batchId, async () => undefined);
      const waiting = await batchWithProducts(caller);
      expect((await commit(waiting)).status).toBe(202);

      // 1. What it waits for, and 2. the batch ahead, committed, not moving, its message in neither queue.
      expect(await adminJson(['batch', 'show', '--workspace', workspace.workspaceId, '--batch', waiting.batchId])).toMatchObject({
        status: 'committed',
        waitingFor: ahead.batchId,
      });
      expect(await adminJson(['batch', 'show', '--workspace', workspace.workspaceId, '--batch', ahead.batchId])).toMatchObject({
        status: 'committed',
        waitingFor: null,
        drainSeenAt: null,
      });
      expect(await adminJson(['batch', 'requeue', '--workspace', workspace.workspaceId, '--batch', ahead.batchId])).toEqual({
        batchId: ahead.batchId,
        workspaceId: workspace.workspaceId,
        status: 'committed',
        requeued: true,
      });

      // 3. Both drain, the batch ahead first; one that has ended has nothing to put back.
      await waitForStatus(waiting, 'drained', 90_000);
      const [first, second] = await Promise.all([
        getBatch(workspace.workspaceId, ahead.batchId),
        getBatch(workspace.workspaceId, waiting.batchId),
      ]);
      expect(first?.status).toBe('drained');
      expect(String(first?.drainedAt) <= String(second?.drainStartedAt)).toBe(true);
      const ended = await admin(['batch', 'requeue', '--workspace', workspace.workspaceId, '--batch', ahead.batchId]);
      expect(ended.code).toBe(1);
      expect(ended.stderr).toContain('is drained');
    },
  );
});

async function until(test: () => Promise<boolean>, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await test())) {
    if (Date.now() > deadline) throw new Error('the condition was not met in time');
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

let receiver: Receiver | undefined;
afterEach(async () => {
  await receiver?.close();
  receiver = undefined;
});

describe('runbook: a parked endpoint', () => {
  it('redelivers every parked delivery of the endpoint once its receiver is back', SLOW, async () => {
    const workspace = await newWorkspace('Parked Endpoint Seller');
    receiver = await startReceiver();
    receiver.answerEvery(500);
    const endpoint = await adminJson([
      'webhook',
      'create',
      '--workspace',
      workspace.workspaceId,
      '--url',
      receiver.url,
      '--events',
      'batch.drained',
    ]);
    receiver.verifyWith(endpoint.secret);
    // A test event that fails is parked at once.
    const sent = [
      await sendTestEvent(workspace.workspaceId, endpoint.id, Date.now()),
      await sendTestEvent(workspace.workspaceId, endpoint.id, Date.now()),
    ];
    const parkedIds = async () =>
      (
        (await adminJson(['webhook', 'deliveries', endpoint.id, '--workspace', workspace.workspaceId, '--status', 'parked'])) as Array<{
          eventId: string;
        }>
      ).map((delivery) => delivery.eventId);
    await until(async () => (await parkedIds()).length === 2);
    expect((await parkedIds()).sort()).toEqual(sent.map((event) => event.id).sort());

    receiver.answerEvery(200);
    const redelivered = await adminJson(['webhook', 'redeliver', endpoint.id, '--workspace', workspace.workspaceId, '--parked']);
    expect(redelivered).toEqual({ endpointId: endpoint.id, redelivered: expect.any(Array), left: 0 });
    expect([...redelivered.redelivered].sort()).toEqual(sent.map((event) => event.id).sort());
    await receiver.waitFor(() => sent.every((event) => receiver?.events().some((received) => received.id === event.id)));
  });
});
