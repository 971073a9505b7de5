// A workspace's batches drain one at a time, in commit order: a record committed later is never overwritten by one committed before it, whichever drain comes first.
import { DeleteCommand, GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it, vi } from 'vitest';
import { tableName } from '#platform/config.ts';
import { tableClient } from '#platform/table/client.ts';
import { keys } from '#platform/table/keys.ts';
import { takeDrainTurn } from '#shared/batches/drain-turn.ts';
import { failDrain } from '#shared/batches/lease.ts';
import { sendDrainMessage } from '#shared/batches/drain-queue.ts';
import { REQUEUE_AFTER_MS, requeueBatch, requeueLostDrains } from '#shared/batches/drain-watch.ts';
import { commitBatch as commitBatchItem, type DrainJob, getBatch } from '#shared/batches/repository.ts';
import { runDrainJob } from '#shared/pipeline/drain.ts';
import type { ProductRecord } from '#shared/records/schema.ts';
import { committedBatch } from './drain-support.ts';
import { connectorCaller, openBatchWith, stageCatalogue, waitForBatch } from './ingest-support.ts';
import { call } from './support.ts';

// A batch that waits its turn is drained by its own message coming back: how soon depends on the machine.
vi.setConfig({ testTimeout: 120_000 });

const lamp = (costCents: number): ProductRecord => ({
  sku: 'LAMP',
  name: 'Desk lamp',
  category: 'Lighting',
  costCents,
  currentPriceCents: 2000,
});
const only = (product: ProductRecord[]) => ({ product, customer: [], quote: [], order: [] });

async function storedCost(workspaceId: string): Promise<unknown> {
  const { Item } = await tableClient().send(
    new GetCommand({ TableName: tableName(), Key: keys.product(workspaceId, 'LAMP'), ConsistentRead: true }),
  );
  return Item?.costCents;
}

/** What the workspace's drain order holds: the batches queued, and the turn's holder. */
async function drainOrder(workspaceId: string): Promise<{ queued: string[]; holder: unknown }> {
  const { PK } = keys.drainTurn(workspaceId);
  const { Items = [] } = await tableClient().send(
    new QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: 'PK = :pk',
      ExpressionAttributeValues: { ':pk': PK },
      ConsistentRead: true,
    }),
  );
  return {
    queued: Items.filter((item) => item.type === 'drainQueued').map((item) => String(item.batchId)),
    holder: Items.find((item) => item.SK === 'TURN')?.holder,
  };
}

/**
 * The order once the drain that the queue delivered (not one the test ran) has let go of it: its batch reads `drained`
 * a moment before its invocation gives up its place and turn, so a test that waited on the status waits for this too.
 */
async function settledOrder(workspaceId: string): Promise<{ queued: string[]; holder: unknown }> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const order = await drainOrder(workspaceId);
    if ((order.queued.length === 0 && order.holder === undefined) || Date.now() > deadline) return order;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

describe("a workspace's drain order", () => {
  it('applies a batch committed later after one committed before it, when the later drain comes first', async () => {
    const earlier = await committedBatch(only([lamp(1000)]));
    const later = await committedBatch(only([lamp(1200)]), undefined, earlier.workspace);
    const { workspaceId } = earlier.workspace;
    expect((await drainOrder(workspaceId)).queued).toEqual([earlier.batchId, later.batchId]);

    // The later batch's message arrives first: it waits, and waiting spends none of its attempts.
    expect(await later.run(1, {})).toMatchObject({ outcome: 'bounced' });
    const waiting = await getBatch(workspaceId, later.batchId);
    expect(waiting).toMatchObject({ status: 'committed' });
    expect(waiting?.drainAttempts).toBeUndefined();
    expect(await storedCost(workspaceId)).toBeUndefined();

    expect(await earlier.run(1, {})).toMatchObject({ outcome: 'drained' });
    expect(await storedCost(workspaceId)).toBe(1000);
    // The message it sent itself to look again comes back, and the later batch drains over the earlier one.
    expect(await waitForBatch(earlier.workspace.keys.connector, later.batchId, ['drained', 'failed'], { timeoutMs: 90_000 })).toMatchObject(
      {
        status: 'drained',
      },
    );
    expect(await storedCost(workspaceId)).toBe(1200);
    expect(await settledOrder(workspaceId)).toEqual({ queued: [], holder: undefined });
  });

  it('lets no batch drain while another of the workspace drains, even one committed before the order was kept', async () => {
    const earlier = await committedBatch(only([lamp(1000)]));
    const { workspaceId } = earlier.workspace;
    // As a batch committed by the release before: no place in the order, only the turn its drain takes.
    const { Items = [] } = await tableClient().send(
      new QueryCommand({
        TableName: tableName(),
        KeyConditionExpression: 'PK = :pk',
        ExpressionAttributeValues: { ':pk': keys.drainTurn(workspaceId).PK },
        ConsistentRead: true,
      }),
    );
    for (const item of Items) await tableClient().send(new DeleteCommand({ TableName: tableName(), Key: { PK: item.PK, SK: item.SK } }));
    const later = await committedBatch(only([lamp(1200)]), undefined, earlier.workspace);

    let during: unknown;
    expect(
      await earlier.run(1, {
        afterChunk: async () => {
          during = await later.run(1, {});
        },
      }),
    ).toMatchObject({ outcome: 'drained' });
    expect(during).toMatchObject({ outcome: 'bounced' });
    expect(await storedCost(workspaceId)).toBe(1000);
    expect(await waitForBatch(earlier.workspace.keys.connector, later.batchId, ['drained', 'failed'], { timeoutMs: 90_000 })).toMatchObject(
      {
        status: 'drained',
      },
    );
    expect(await storedCost(workspaceId)).toBe(1200);
  });

  it('lets the batch holding the turn finish when one committed moments before it lands after it took the turn', async () => {
    const holding = await committedBatch(only([lamp(1200)]));
    const { workspaceId } = holding.workspace;
    const holder = await getBatch(workspaceId, holding.batchId);
    if (!holder) throw new Error('no batch');
    expect(await takeDrainTurn(holder, new Date())).toEqual({ taken: true });
    // A commit stamped a minute before the holder's, whose place appears only now.
    const caller = connectorCaller(holding.workspace);
    const batchId = await openBatchWith(caller.key);
    await stageCatalogue(caller.key, batchId, only([lamp(1000)]));
    const sent: DrainJob[] = [];
    await commitBatchItem(caller, batchId, async (job) => void sent.push(job), new Date(Date.now() - 60_000));
    const message = sent[0];
    if (!message) throw new Error('no drain job');
    expect((await drainOrder(workspaceId)).queued).toEqual([batchId, holding.batchId]);

    // Neither waits for the other: the holder drains, then the earlier commit.
    expect(await holding.run(1, {})).toMatchObject({ outcome: 'drained' });
    expect(await runDrainJob({ message, body: JSON.stringify(message), receiveCount: 1, remainingMs: () => 600_000 })).toMatchObject({
      outcome: 'drained',
    });
    expect(await drainOrder(workspaceId)).toEqual({ queued: [], holder: undefined });
  });

  it('is held up by no batch that has ended, even one whose drain stopped before giving up its place and turn', async () => {
    const earlier = await committedBatch(only([lamp(1000)]));
    const { workspaceId } = earlier.workspace;
    const committed = await getBatch(workspaceId, earlier.batchId);
    if (!committed) throw new Error('no batch');
    expect(await takeDrainTurn(committed, new Date())).toEqual({ taken: true });
    // Given up, and the invocation stops before it lets go of the order.
    await failDrain(committed, 'The drain failed after 3 attempts.', new Date());
    expect(await drainOrder(workspaceId)).toEqual({ queued: [earlier.batchId], holder: earlier.batchId });

    const later = await committedBatch(only([lamp(1200)]), undefined, earlier.workspace);
    expect(await later.run(1, {})).toMatchObject({ outcome: 'drained' });
    expect(await storedCost(workspaceId)).toBe(1200);
    expect(await drainOrder(workspaceId)).toEqual({ queued: [], holder: undefined });
  });

  it('gives a batch its place with its commit, and a commit refused gives it none', async () => {
    const batch = await committedBatch(only([lamp(1000)]));
    const { workspaceId } = batch.workspace;
    const again = await call(`/api/v1/ingest/batches/${batch.batchId}/commit`, { method: 'POST', key: batch.workspace.keys.connector });
    expect(again.json).toMatchObject({ error: { code: 'batch_already_committed' } });
    expect((await drainOrder(workspaceId)).queued).toEqual([batch.batchId]);
    expect(await batch.run(1, {})).toMatchObject({ outcome: 'drained' });
    expect(await drainOrder(workspaceId)).toEqual({ queued: [], holder: undefined });
  });

  it('puts a committed batch whose message was lost back on the queue from the sweeper, and it drains before the batches after it', async () => {
    const later = await committedBatch(only([lamp(1200)]));
    const { workspaceId } = later.workspace;
    // Committed 14 minutes ago, and the commit's message never reached the queue: lost, as a purged one is.
    const caller = connectorCaller(later.workspace);
    const lostId = await openBatchWith(caller.key);
    await stageCatalogue(caller.key, lostId, only([lamp(1100)]));
    await commitBatchItem(caller, lostId, async () => undefined, new Date(Date.now() - REQUEUE_AFTER_MS + 60_000));
    expect((await drainOrder(workspaceId)).queued).toEqual([lostId, later.batchId]);
    // The batch committed after it waits its turn, its own message coming back every few seconds.
    expect(await later.run(1, {})).toMatchObject({ outcome: 'bounced' });

    // A sweep 90 s on finds it unseen past REQUEUE_AFTER_MS and sends its job again (the stack's own sweeper, each
    // minute, reaches it only a minute from now); the later batch, seen just now, it leaves.
    const sweepAt = () => Date.now() + 90_000;
    const swept = await requeueLostDrains(sweepAt());
    expect(swept.requeued.get(workspaceId)).toBe(1);
    expect(swept.oldestUndrainedSeconds).toBeGreaterThanOrEqual(14 * 60);
    // A second sweep puts nothing back twice, and the lost message arriving late after all changes nothing.
    expect((await requeueLostDrains(sweepAt())).requeued.get(workspaceId)).toBeUndefined();
    const lost = await getBatch(workspaceId, lostId);
    if (!lost?.jobId) throw new Error('no job');
    await sendDrainMessage({ workspaceId, batchId: lostId, jobId: lost.jobId, sentAt: String(lost.committedAt) });

    expect(await waitForBatch(later.workspace.keys.connector, later.batchId, ['drained', 'failed'], { timeoutMs: 90_000 })).toMatchObject({
      status: 'drained',
    });
    const [requeued, after] = await Promise.all([getBatch(workspaceId, lostId), getBatch(workspaceId, later.batchId)]);
    expect(requeued).toMatchObject({ status: 'drained', drainedCount: 1 });
    expect(String(requeued?.drainedAt) <= String(after?.drainStartedAt)).toBe(true);
    expect(await storedCost(workspaceId)).toBe(1200);
    expect(await settledOrder(workspaceId)).toEqual({ queued: [], holder: undefined });
  });

  it('puts a batch back by hand, and the drain it resumes counts its records once', async () => {
    const batch = await committedBatch(only([lamp(1000)]));
    const { workspaceId } = batch.workspace;
    const stored = await getBatch(workspaceId, batch.batchId);
    if (!stored) throw new Error('no batch');
    expect(await requeueBatch(stored, new Date())).toBe('requeued');
    expect(await waitForBatch(batch.workspace.keys.connector, batch.batchId, ['drained', 'failed'], { timeoutMs: 90_000 })).toMatchObject({
      status: 'drained',
      drainedCount: 1,
    });
    // Ended: nothing to put back.
    expect(await requeueBatch((await getBatch(workspaceId, batch.batchId)) ?? stored, new Date())).toBe('ended');
  });
});
