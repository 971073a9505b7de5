// Webhook events end to end, on a local stack of this file's own: real receivers on loopback verify every delivery with the standardwebhooks package.
import { TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Context, SQSEvent } from 'aws-lambda';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createDeliveryHandler } from '../../functions/workers/deliver-webhooks.ts';
import { type Invocation, runInvocation } from '#lib/local/invocation-fence.ts';
import { type LocalStack, startLocalStack } from '#lib/local/stack.ts';
import type { ProductRecord } from '#shared/records/schema.ts';
import { tableName } from '#platform/config.ts';
import { tableClient } from '#platform/table/client.ts';
import { keys } from '#platform/table/keys.ts';
import { listAttempts, listDeliveries } from '#shared/webhooks/attempt-log.ts';
import { redeliver } from '#shared/webhooks/delivery.ts';
import { RETRY_SCHEDULE_MS } from '#shared/webhooks/retry-schedule.ts';
import { createEndpoint, getEndpoint } from '#shared/webhooks/endpoints.ts';
import { subscribableEventTypes } from '#shared/webhooks/endpoint-schema.ts';
import { sendTestEvent } from '#shared/webhooks/test-event.ts';
import { type EventType, eventTypes, newEvent, WebhookEventSchema } from '#shared/webhooks/events.ts';
import { outboxPut, readEvent, SWEEP_AFTER_MS, sweepOutbox } from '#shared/webhooks/outbox.ts';
import * as v from 'valibot';
import { commitBatch, openBatchWith, stageCatalogue, waitForBands, waitForBatch } from './ingest-support.ts';
import { issueApiKey } from '#shared/api-keys/repository.ts';
import { updateWorkspace } from '#shared/workspaces/repository.ts';
import { LAMP, SHADE } from './prices-support.ts';
import { type ApiResponse, call, newWorkspace, type TestWorkspace } from './support.ts';
import { type Receiver, startReceiver } from './webhook-receiver.ts';

/** Scales three days of retries down to about five seconds, so that no test waits real minutes. */
const RETRY_SCALE = 0.00002;
/** The receivers' timeout in this file: long enough for a loopback answer under load, short enough to wait out. */
const TIMEOUT_MS = 1_500;

/** Endpoints whose first attempt the worker is "killed" in, mid-send: its later calls are refused, as a dead process's. */
const killMidSend = new Set<string>();
const deliver = createDeliveryHandler();

async function deliveryUnderTest(event: SQSEvent, context: Context) {
  const bodies = event.Records.map((record) => JSON.parse(record.body) as { kind: string; endpointId?: string; seq?: number });
  const doomed = bodies.find((body) => body.kind === 'attempt' && body.seq === 1 && killMidSend.has(body.endpointId ?? ''));
  if (!doomed) return deliver(event, context);
  killMidSend.delete(doomed.endpointId ?? '');
  const invocation: Invocation = {
    functionName: 'deliverWebhooks',
    requestId: 'killed',
    deadline: Number.POSITIVE_INFINITY,
    timedOut: false,
  };
  const killed = new Promise<never>((_, reject) => {
    killWhenSent = () => {
      invocation.timedOut = true;
      reject(new Error('the worker was killed mid-send'));
    };
  });
  void runInvocation(invocation, () => deliver(event, context)).catch(() => undefined);
  return killed;
}
let killWhenSent: (() => void) | undefined;

let stack: LocalStack;
const receivers: Receiver[] = [];

beforeAll(async () => {
  stack = await startLocalStack({
    port: 0,
    // A failed invocation's messages come back in seconds instead of six minutes.
    visibilityTimeoutSeconds: 4,
    webhooks: { allowLoopbackHttp: true, retryScale: RETRY_SCALE, timeoutMs: TIMEOUT_MS, sweepIntervalMs: 60_000 },
    workerHandlers: { deliverWebhooks: deliveryUnderTest },
  });
}, 60_000);

afterEach(async () => {
  await Promise.all(receivers.splice(0).map((receiver) => receiver.close()));
});

afterAll(async () => {
  await stack?.stop();
});

const api = (path: string, options: { key: string; method?: string; body?: unknown }): Promise<ApiResponse> =>
  call(path, { ...options, baseUrl: stack.gatewayUrl });

async function subscribed(
  workspace: TestWorkspace,
  types: readonly EventType[] = subscribableEventTypes,
): Promise<{ receiver: Receiver; endpointId: string }> {
  const receiver = await startReceiver();
  receivers.push(receiver);
  const { endpoint, secret } = await createEndpoint(
    workspace.workspaceId,
    { url: receiver.url, eventTypes: types },
    { allowLoopbackHttp: true },
    Date.now(),
  );
  receiver.verifyWith(secret);
  return { receiver, endpointId: endpoint.endpointId };
}

async function drainProducts(workspace: TestWorkspace, products: ProductRecord[]): Promise<string> {
  const key = workspace.keys.connector;
  const batchId = await openBatchWith(key, stack.gatewayUrl);
  await stageCatalogue(key, batchId, { product: products, customer: [], quote: [], order: [] }, { baseUrl: stack.gatewayUrl });
  await commitBatch(key, batchId, stack.gatewayUrl);
  const status = await waitForBatch(key, batchId, ['drained', 'failed'], { baseUrl: stack.gatewayUrl });
  expect(status.status).toBe('drained');
  await waitForBands(key, batchId, { baseUrl: stack.gatewayUrl });
  return batchId;
}

async function approveAndClaim(workspace: TestWorkspace, sku: string, price: number): Promise<string> {
  const approved = await api('/v1/prices/approve', { method: 'POST', key: workspace.keys.pwLive, body: { sku, price } });
  expect(approved.status, approved.text).toBe(200);
  const claimed = await api('/api/v1/writebacks/claim', { method: 'POST', key: workspace.keys.connector, body: { limit: 10 } });
  expect(claimed.status, claimed.text).toBe(200);
  const task = (claimed.json.tasks as Array<{ id: string; productSku: string }>).find((candidate) => candidate.productSku === sku);
  if (!task) throw new Error(`no task for ${sku} was claimed`);
  return task.id;
}

const types = (receiver: Receiver) => receiver.events().map((event) => event.type);

describe('webhook events', () => {
  it('delivers every event type of the catalogue, each signed so that the standardwebhooks package verifies it', async () => {
    const workspace = await newWorkspace('Webhook Seller');
    // Set before any key is used, so that no instance's cached workspace hides it: a move past 10% waits for a second
    // approver, which the approvals at the current prices below do not make.
    await updateWorkspace(workspace.workspaceId, { pricing: { secondApprovalPct: 10 } });
    const { receiver, endpointId } = await subscribed(workspace);
    // The test event, which no endpoint subscribes to, goes to the one endpoint it is sent to.
    await sendTestEvent(workspace.workspaceId, endpointId, Date.now());

    const batchId = await drainProducts(workspace, [LAMP, SHADE]);
    const applied = await approveAndClaim(workspace, 'LAMP', 15);
    const ackApplied = await api('/api/v1/writebacks/ack', {
      method: 'POST',
      key: workspace.keys.connector,
      body: { results: [{ id: applied, ok: true }] },
    });
    expect(ackApplied.status, ackApplied.text).toBe(200);
    const failed = await approveAndClaim(workspace, 'SHADE', 8);
    const ackFailed = await api('/api/v1/writebacks/ack', {
      method: 'POST',
      key: workspace.keys.connector,
      body: { results: [{ id: failed, ok: false, error: 'The ERP refused the price' }] },
    });
    expect(ackFailed.status, ackFailed.text).toBe(200);
    // A move past the second-approval threshold waits for a second approver, and says so.
    const approver = await issueApiKey({ workspaceId: workspace.workspaceId, family: 'pw_live', scopes: [] });
    const waiting = await api('/v1/prices/approve', { method: 'POST', key: approver.key, body: { sku: 'LAMP', price: 18 } });
    expect(waiting.json).toMatchObject({ status: 'waiting', published_to: [] });
    // A batch left open past its life is recorded as failed the first time its status is read.
    const expiring = await openBatchWith(workspace.keys.connector, stack.gatewayUrl);
    await tableClient().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.batch(workspace.workspaceId, expiring),
        UpdateExpression: 'SET createdAt = :long',
        ExpressionAttributeValues: { ':long': new Date(Date.now() - 8 * 86_400_000).toISOString() },
      }),
    );
    expect((await api(`/api/v1/ingest/batches/${expiring}`, { key: workspace.keys.connector })).json.status).toBe('failed');

    await receiver.waitFor(() => eventTypes.every((type) => types(receiver).includes(type)));
    expect(receiver.requests.filter((request) => request.verifyError)).toEqual([]);
    for (const event of receiver.events()) {
      expect(v.safeParse(WebhookEventSchema, event).issues).toBeUndefined();
      expect(event.workspaceId).toBe(workspace.workspaceId);
    }
    const byType = (type: EventType) => receiver.events().filter((event) => event.type === type);
    expect(byType('batch.drained')[0]?.data).toMatchObject({
      batchId,
      connectorId: workspace.connectorId,
      recordCount: 2,
      drainedCount: 2,
    });
    expect(byType('recommendations.updated')[0]?.data).toMatchObject({ batchId, skus: ['LAMP', 'SHADE'], skuCount: 2, truncated: false });
    expect(byType('price.approved').map((event) => event.data.sku)).toEqual(['LAMP', 'SHADE']);
    expect(byType('writeback.pending').map((event) => event.data.writebackId)).toEqual([applied, failed]);
    expect(byType('writeback.applied')[0]?.data).toMatchObject({ writebackId: applied, priceCents: 1500 });
    expect(byType('writeback.failed')[0]?.data).toMatchObject({ writebackId: failed, error: 'The ERP refused the price' });
    expect(byType('price.second_approval')[0]?.data).toMatchObject({
      sku: 'LAMP',
      state: 'waiting',
      priceCents: 1800,
      secondApprover: null,
    });
    expect(byType('batch.failed')[0]?.data).toMatchObject({ batchId: expiring });
    const request = receiver.requests.find((candidate) => candidate.event?.type === 'price.approved');
    expect(request?.headers['webhook-id']).toBe(request?.event?.id);
    expect(Number(request?.headers['webhook-timestamp'])).toBeGreaterThan(Date.now() / 1000 - 600);
  }, 60_000);

  it('sends only the event types an endpoint subscribed to', async () => {
    const workspace = await newWorkspace();
    const { receiver: everything } = await subscribed(workspace);
    const { receiver: approvals } = await subscribed(workspace, ['price.approved']);
    await drainProducts(workspace, [LAMP]);
    await approveAndClaim(workspace, 'LAMP', 14);
    await everything.waitFor(() => types(everything).includes('writeback.pending'));
    await approvals.waitFor(() => types(approvals).includes('price.approved'));
    expect(types(approvals)).toEqual(['price.approved']);
  }, 40_000);

  it('never sends one workspace’s events to another workspace’s endpoint', async () => {
    const [mine, theirs] = await Promise.all([newWorkspace('Mine'), newWorkspace('Theirs')]);
    const { receiver: own } = await subscribed(mine);
    const { receiver: other } = await subscribed(theirs);
    const batchId = await openBatchWith(mine.keys.connector, stack.gatewayUrl);
    await commitBatch(mine.keys.connector, batchId, stack.gatewayUrl);
    await own.waitFor(() => types(own).includes('batch.drained'));
    expect(other.requests).toEqual([]);
  }, 30_000);

  it('records nothing for a state change whose transaction failed', async () => {
    const workspace = await newWorkspace();
    const { receiver } = await subscribed(workspace, ['batch.committed']);
    const batchId = await openBatchWith(workspace.keys.connector, stack.gatewayUrl);
    await commitBatch(workspace.keys.connector, batchId, stack.gatewayUrl);
    // The second commit's transaction is refused (the batch is no longer open): it must record no event.
    const again = await api(`/api/v1/ingest/batches/${batchId}/commit`, { method: 'POST', key: workspace.keys.connector });
    expect(again.status).toBe(409);
    await receiver.waitFor((requests) => requests.length > 0);
    await waitForBatch(workspace.keys.connector, batchId, ['drained'], { baseUrl: stack.gatewayUrl });
    expect(types(receiver)).toEqual(['batch.committed']);
    expect(receiver.requests).toHaveLength(1);
  }, 30_000);
});

describe('webhook delivery', () => {
  it('retries a receiver that fails three times, and it gets the event with the same webhook-id each time', async () => {
    const workspace = await newWorkspace();
    const { receiver, endpointId } = await subscribed(workspace, ['batch.committed']);
    receiver.answerNext(500, 503, 429);
    const batchId = await openBatchWith(workspace.keys.connector, stack.gatewayUrl);
    await commitBatch(workspace.keys.connector, batchId, stack.gatewayUrl);
    await receiver.waitFor((requests) => requests.length >= 4);
    const ids = new Set(receiver.requests.map((request) => request.webhookId));
    expect(ids.size).toBe(1);
    expect(receiver.requests.every((request) => request.event)).toBe(true);
    const [delivery] = await eventually(async () => {
      const found = (await listDeliveries(workspace.workspaceId, endpointId)).deliveries;
      return found[0]?.status === 'delivered' ? found : undefined;
    });
    expect(delivery).toMatchObject({ status: 'delivered', attempts: 4, lastStatus: 200 });
    const attempts = await listAttempts(workspace.workspaceId, endpointId, delivery?.eventId ?? '');
    expect(attempts.map((attempt) => attempt.status)).toEqual([500, 503, 429, 200]);
    expect(attempts[0]?.response).toBe('refused with 500');
    expect((await getEndpoint(workspace.workspaceId, endpointId))?.status).toBe('healthy');
  }, 30_000);

  it('times out a receiver that hangs, and retries it', async () => {
    const workspace = await newWorkspace();
    const { receiver, endpointId } = await subscribed(workspace, ['batch.committed']);
    receiver.answerNext('hang');
    const batchId = await openBatchWith(workspace.keys.connector, stack.gatewayUrl);
    await commitBatch(workspace.keys.connector, batchId, stack.gatewayUrl);
    await receiver.waitFor((requests) => requests.length >= 2);
    expect(receiver.requests[1]?.webhookId).toBe(receiver.requests[0]?.webhookId);
    const [delivery] = await eventually(async () => {
      const found = (await listDeliveries(workspace.workspaceId, endpointId)).deliveries;
      return found[0]?.status === 'delivered' ? found : undefined;
    });
    const attempts = await listAttempts(workspace.workspaceId, endpointId, delivery?.eventId ?? '');
    expect(attempts[0]).toMatchObject({ error: `no answer within ${TIMEOUT_MS} ms` });
    expect(attempts[0]?.status).toBeUndefined();
    expect(attempts[0]?.latencyMs).toBeGreaterThanOrEqual(TIMEOUT_MS - 50);
    expect(attempts[1]?.status).toBe(200);
  }, 30_000);

  it('still delivers when the delivery worker is killed mid-send', async () => {
    const workspace = await newWorkspace();
    const { receiver, endpointId } = await subscribed(workspace, ['batch.committed']);
    killMidSend.add(endpointId);
    // The first request is never answered: the worker dies while it waits, and whatever it would do next never happens.
    receiver.answerNext('hang');
    receiver.onRequest = () => {
      receiver.onRequest = undefined;
      killWhenSent?.();
    };
    const batchId = await openBatchWith(workspace.keys.connector, stack.gatewayUrl);
    await commitBatch(workspace.keys.connector, batchId, stack.gatewayUrl);
    await receiver.waitFor((requests) => requests.length >= 2);
    expect(receiver.requests[1]?.webhookId).toBe(receiver.requests[0]?.webhookId);
    expect(receiver.requests[1]?.event?.type).toBe('batch.committed');
    const [delivery] = await eventually(async () => {
      const found = (await listDeliveries(workspace.workspaceId, endpointId)).deliveries;
      return found[0]?.status === 'delivered' ? found : undefined;
    });
    // The killed attempt left nothing behind: the redelivered message is attempt 1, and it succeeded.
    expect(await listAttempts(workspace.workspaceId, endpointId, delivery?.eventId ?? '')).toMatchObject([{ seq: 1, status: 200 }]);
  }, 30_000);

  it('parks a delivery after the last try of the schedule, marks the endpoint failing, and redelivers it with the same webhook-id', async () => {
    const workspace = await newWorkspace();
    const { receiver, endpointId } = await subscribed(workspace, ['batch.committed']);
    receiver.answerNext(...Array.from({ length: RETRY_SCHEDULE_MS.length + 1 }, () => 500));
    const batchId = await openBatchWith(workspace.keys.connector, stack.gatewayUrl);
    await commitBatch(workspace.keys.connector, batchId, stack.gatewayUrl);
    const [parked] = await eventually(async () => {
      const found = (await listDeliveries(workspace.workspaceId, endpointId)).deliveries;
      return found[0]?.status === 'parked' ? found : undefined;
    }, 30_000);
    expect(parked?.attempts).toBe(RETRY_SCHEDULE_MS.length + 1);
    expect(receiver.requests).toHaveLength(RETRY_SCHEDULE_MS.length + 1);
    // The endpoint's health is written just after the delivery's state: wait for it rather than race it.
    const statusOf = async (status: string) =>
      (await getEndpoint(workspace.workspaceId, endpointId))?.status === status ? status : undefined;
    expect(await eventually(() => statusOf('failing'))).toBe('failing');

    await redeliver(workspace.workspaceId, endpointId, parked?.eventId ?? '', Date.now());
    await receiver.waitFor((requests) => requests.length === RETRY_SCHEDULE_MS.length + 2);
    expect(new Set(receiver.requests.map((request) => request.webhookId)).size).toBe(1);
    const [delivered] = await eventually(async () => {
      const found = (await listDeliveries(workspace.workspaceId, endpointId)).deliveries;
      return found[0]?.status === 'delivered' ? found : undefined;
    });
    expect(delivered?.attempts).toBe(RETRY_SCHEDULE_MS.length + 2);
    expect(await eventually(() => statusOf('healthy'))).toBe('healthy');
  }, 60_000);

  it('refuses to send to an endpoint whose name now resolves to a private address, and logs why', async () => {
    const workspace = await newWorkspace();
    const { endpointId } = await subscribed(workspace, ['batch.committed']);
    // The endpoint was registered while it passed the guard; it now points at the metadata address.
    await tableClient().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.webhookEndpoint(workspace.workspaceId, endpointId),
        UpdateExpression: 'SET #url = :url',
        ExpressionAttributeNames: { '#url': 'url' },
        ExpressionAttributeValues: { ':url': 'https://169.254.169.254/latest/meta-data/' },
      }),
    );
    const batchId = await openBatchWith(workspace.keys.connector, stack.gatewayUrl);
    await commitBatch(workspace.keys.connector, batchId, stack.gatewayUrl);
    const [delivery] = await eventually(async () => {
      const found = (await listDeliveries(workspace.workspaceId, endpointId)).deliveries;
      return found[0] ? found : undefined;
    });
    const attempts = await listAttempts(workspace.workspaceId, endpointId, delivery?.eventId ?? '');
    expect(attempts[0]?.status).toBeUndefined();
    expect(attempts[0]?.error).toMatch(/^refused: .*169\.254\.169\.254/);
  }, 30_000);

  it('sweeps up an event whose hand-off to the queue was lost after its commit', async () => {
    const workspace = await newWorkspace();
    const { receiver } = await subscribed(workspace, ['batch.committed']);
    // As if the process stopped right after its commit: the outbox item is in the table, and no message was sent.
    const event = newEvent(
      'batch.committed',
      workspace.workspaceId,
      {
        batchId: crypto.randomUUID(),
        connectorId: workspace.connectorId,
        jobId: 'job_lost',
        recordCount: 0,
        committedAt: new Date().toISOString(),
      },
      new Date(),
    );
    await tableClient().send(new TransactWriteCommand({ TransactItems: [outboxPut(event)] }));
    expect((await sweepOutbox(Date.now())).sent).toBe(0);
    expect((await sweepOutbox(Date.now() + SWEEP_AFTER_MS + 1_000)).sent).toBeGreaterThanOrEqual(1);
    await receiver.waitFor((requests) => requests.some((request) => request.webhookId === event.id));
    const stored = await eventually(async () => ((await readEvent(workspace.workspaceId, event.id))?.dispatchedAt ? true : undefined));
    expect(stored).toBe(true);
  }, 30_000);
});

async function eventually<T>(read: () => Promise<T | undefined>, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('the condition was not met in time');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
