// Hostile use of webhook delivery through the shared local stack: a workspace flooding never-answering receivers, a receiver whose body never ends, and a flood of redeliveries.
import { TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, describe, expect, it } from 'vitest';
import { tableName } from '#platform/config.ts';
import { tableClient } from '#platform/table/client.ts';
import { keys } from '#platform/table/keys.ts';
import { listAttempts, listDeliveries } from '#shared/webhooks/attempt-log.ts';
import type { DeliveryAttempt } from '#shared/webhooks/delivery-schema.ts';
import { BREAKER_THRESHOLD } from '#shared/webhooks/breaker.ts';
import { createEndpoint } from '#shared/webhooks/endpoints.ts';
import { newEvent, type WebhookEvent } from '#shared/webhooks/events.ts';
import { MAX_IN_FLIGHT_PER_ENDPOINT, MAX_IN_FLIGHT_PER_WORKSPACE } from '#shared/webhooks/in-flight.ts';
import { handOn, outboxPut } from '#shared/webhooks/outbox.ts';
import { MAX_REDELIVERIES_PER_WINDOW } from '#shared/webhooks/redelivery-limit.ts';
import { MAX_ENDPOINTS_PER_WORKSPACE } from '#shared/webhooks/endpoint-schema.ts';
import { call, newWorkspace, type TestWorkspace } from './support.ts';
import { type Receiver, startReceiver } from './webhook-receiver.ts';

const ENDPOINTS = '/v1/webhook-endpoints';

const receivers: Receiver[] = [];
/** Endpoints to delete at the end, so that a flood's deferred deliveries stop at once instead of lingering in the stack. */
const cleanup: Array<{ workspace: TestWorkspace; endpointId: string }> = [];

afterAll(async () => {
  await Promise.all(
    cleanup.map(({ workspace, endpointId }) => call(`${ENDPOINTS}/${endpointId}`, { method: 'DELETE', key: workspace.keys.pwLive })),
  );
  await Promise.all(receivers.splice(0).map((receiver) => receiver.close()));
});

/** Deletes the workspace's endpoints: what is still queued for them is dropped at its next receive. */
async function stopFlood(workspace: TestWorkspace): Promise<void> {
  const flood = cleanup.filter((entry) => entry.workspace === workspace);
  await Promise.all(flood.map(({ endpointId }) => call(`${ENDPOINTS}/${endpointId}`, { method: 'DELETE', key: workspace.keys.pwLive })));
  cleanup.splice(0, cleanup.length, ...cleanup.filter((entry) => entry.workspace !== workspace));
}

async function receiver(): Promise<Receiver> {
  const started = await startReceiver();
  receivers.push(started);
  return started;
}

/** An endpoint of the workspace at `url`, subscribed to batch.committed; the receiver verifies with its secret when given. */
async function endpointAt(workspace: TestWorkspace, url: string, verifying?: Receiver): Promise<string> {
  const { endpoint, secret } = await createEndpoint(
    workspace.workspaceId,
    { url, eventTypes: ['batch.committed'] },
    { allowLoopbackHttp: true },
    Date.now(),
  );
  verifying?.verifyWith(secret);
  cleanup.push({ workspace, endpointId: endpoint.endpointId });
  return endpoint.endpointId;
}

/** Records `count` batch.committed events of the workspace and hands them to the queue, as a commit does. */
async function recordEvents(workspace: TestWorkspace, count: number): Promise<WebhookEvent[]> {
  const events = Array.from({ length: count }, () =>
    newEvent(
      'batch.committed',
      workspace.workspaceId,
      {
        batchId: crypto.randomUUID(),
        connectorId: workspace.connectorId,
        jobId: 'job_hostile',
        recordCount: 0,
        committedAt: new Date().toISOString(),
      },
      new Date(),
    ),
  );
  for (let start = 0; start < events.length; start += 25) {
    await tableClient().send(new TransactWriteCommand({ TransactItems: events.slice(start, start + 25).map(outboxPut) }));
  }
  await handOn(events);
  return events;
}

async function eventually<T>(read: () => Promise<T | undefined>, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('the condition was not met in time');
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** Every attempt logged at the endpoint, across its deliveries. */
async function loggedAttempts(workspace: TestWorkspace, endpointId: string): Promise<DeliveryAttempt[]> {
  const { deliveries } = await listDeliveries(workspace.workspaceId, endpointId, { limit: 100 });
  const perDelivery = await Promise.all(deliveries.map((delivery) => listAttempts(workspace.workspaceId, endpointId, delivery.eventId)));
  return perDelivery.flat();
}

/** The most attempts that were waiting on their receivers at one moment, each from its start for its latency. */
function mostAtOnce(attempts: readonly DeliveryAttempt[]): number {
  const edges = attempts.flatMap((attempt) => {
    const start = Date.parse(attempt.attemptedAt);
    return [
      { at: start, change: 1 },
      { at: start + attempt.latencyMs, change: -1 },
    ];
  });
  // An attempt ending at the moment another starts was not waiting beside it.
  edges.sort((a, b) => a.at - b.at || a.change - b.change);
  let open = 0;
  let most = 0;
  for (const edge of edges) {
    open += edge.change;
    most = Math.max(most, open);
  }
  return most;
}

describe('a workspace flooding receivers that never answer', () => {
  it('holds no more than its bounds in flight, and another workspace’s event is delivered long before the flood is through', async () => {
    const [flooder, quiet] = await Promise.all([newWorkspace('Flooding Seller'), newWorkspace('Quiet Seller')]);
    const sink = await receiver();
    sink.answerEvery('hang');
    const floodEndpoints = MAX_ENDPOINTS_PER_WORKSPACE - 1;
    const floodIds: string[] = [];
    for (let index = 0; index < floodEndpoints; index++) floodIds.push(await endpointAt(flooder, `${sink.url}?endpoint=${index}`));
    const own = await receiver();
    await endpointAt(quiet, own.url, own);

    const floodEvents = 10;
    await recordEvents(flooder, floodEvents);
    // Once the flood's attempts have started to hang, the quiet workspace's event is recorded behind all of them.
    await sink.waitFor((requests) => requests.length >= MAX_IN_FLIGHT_PER_WORKSPACE, 60_000);
    const started = Date.now();
    const [quietEvent] = await recordEvents(quiet, 1);
    await own.waitFor((requests) => requests.some((request) => request.webhookId === quietEvent?.id), 120_000);
    const tookMs = Date.now() - started;
    const floodSeen = sink.requests.length;
    console.log(
      `quiet workspace's event delivered ${tookMs} ms after it was recorded, while the flood's receiver had seen ${floodSeen} of ` +
        `${floodEndpoints * floodEvents} first attempts`,
    );

    // Whatever the machine's speed: the quiet event did not wait for the flood's attempts to be worked through.
    expect(floodSeen).toBeLessThan(floodEndpoints * floodEvents);
    expect(own.events().map((event) => event.id)).toEqual([quietEvent?.id]);
    // The flood never held more than its bounds of the shared worker, per endpoint and in all, as its attempts' log has it.
    await stopFlood(flooder);
    const attempts = await Promise.all(floodIds.map((endpointId) => loggedAttempts(flooder, endpointId)));
    expect(mostAtOnce(attempts.flat())).toBeLessThanOrEqual(MAX_IN_FLIGHT_PER_WORKSPACE);
    for (const ofEndpoint of attempts) expect(mostAtOnce(ofEndpoint)).toBeLessThanOrEqual(MAX_IN_FLIGHT_PER_ENDPOINT);
    console.log(`the flood's receiver had at most ${sink.mostOpen.all} requests open at once`);
  }, 180_000);
});

describe('an endpoint whose attempts keep failing', () => {
  it('shows its circuit open after failures in a row, with until when its deliveries wait', async () => {
    const workspace = await newWorkspace('Failing Receiver Seller');
    const failing = await receiver();
    failing.answerEvery(500);
    const endpointId = await endpointAt(workspace, failing.url, failing);
    await recordEvents(workspace, BREAKER_THRESHOLD);
    const read = await eventually(async () => {
      const response = await call(`${ENDPOINTS}/${endpointId}`, { key: workspace.keys.pwLive });
      return response.json.circuit === 'open' ? response : undefined;
    });
    expect(read.status).toBe(200);
    expect(read.json.consecutive_failures).toBeGreaterThanOrEqual(BREAKER_THRESHOLD);
    expect(Date.parse(read.json.circuit_open_until as string)).toBeGreaterThan(Date.now());
    // The open circuit holds the deliveries back: they wait, and none is parked.
    const { deliveries } = await listDeliveries(workspace.workspaceId, endpointId);
    expect(deliveries.every((delivery) => delivery.status === 'pending')).toBe(true);
  }, 90_000);

  it('defers its deliveries while the circuit is open, loses none, and sends each once when the cool-off ends', async () => {
    const workspace = await newWorkspace('Recovering Receiver Seller');
    const recovered = await receiver();
    const endpointId = await endpointAt(workspace, recovered.url, recovered);
    // As an endpoint whose breaker opened a moment ago, its cool-off ending in three seconds.
    const openUntil = Date.now() + 3_000;
    await tableClient().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.webhookEndpoint(workspace.workspaceId, endpointId),
        UpdateExpression: 'SET breakerFailures = :failures, breakerOpenUntil = :until',
        ExpressionAttributeValues: { ':failures': BREAKER_THRESHOLD, ':until': openUntil },
      }),
    );
    const events = await recordEvents(workspace, 3);
    await recovered.waitFor((requests) => new Set(requests.map((request) => request.webhookId)).size === events.length, 60_000);
    const arrivals = recovered.requests.map((request) => Number(request.headers['webhook-timestamp']) * 1000);
    // Signed at the attempt: none was sent before the circuit let it (the header is in whole seconds).
    for (const sentAt of arrivals) expect(sentAt).toBeGreaterThanOrEqual(Math.floor(openUntil / 1000) * 1000);
    expect(
      recovered
        .events()
        .map((event) => event.id)
        .sort(),
    ).toEqual(events.map((event) => event.id).sort());
    for (const event of events) {
      const attempts = await eventually(async () => {
        const logged = await listAttempts(workspace.workspaceId, endpointId, event.id);
        return logged.length > 0 ? logged : undefined;
      });
      // A deferral is not an attempt: each delivery's one attempt is its first.
      expect(attempts).toMatchObject([{ seq: 1, status: 200 }]);
    }
    const read = await eventually(async () => {
      const response = await call(`${ENDPOINTS}/${endpointId}`, { key: workspace.keys.pwLive });
      return response.json.circuit === 'closed' ? response : undefined;
    });
    expect(read.json).toMatchObject({ circuit: 'closed', consecutive_failures: 0, circuit_open_until: null });
  }, 90_000);
});

describe('a receiver that answers 2xx and never ends its body', () => {
  it('is counted delivered at its status line, once, and not retried', async () => {
    const workspace = await newWorkspace('Endless Body Seller');
    const endless = await receiver();
    endless.answerEvery('endless');
    const endpointId = await endpointAt(workspace, endless.url, endless);
    const [event] = await recordEvents(workspace, 1);
    const [delivery] = await eventually(async () => {
      const found = (await listDeliveries(workspace.workspaceId, endpointId)).deliveries;
      return found[0]?.status === 'delivered' ? found : undefined;
    });
    expect(delivery).toMatchObject({ eventId: event?.id, status: 'delivered', attempts: 1, lastStatus: 200 });
    const [attempt] = await listAttempts(workspace.workspaceId, endpointId, event?.id ?? '');
    expect(attempt).toMatchObject({ seq: 1, status: 200, response: 'ok, and more to come' });
    expect(attempt?.error).toBeUndefined();
    expect(endless.requests).toHaveLength(1);
  }, 60_000);
});

describe('a flood of redeliveries', () => {
  it(`queues ${MAX_REDELIVERIES_PER_WINDOW} for an endpoint in a minute and answers 429 in the envelope past that, queuing nothing`, async () => {
    const workspace = await newWorkspace('Redelivery Flood Seller');
    const target = await receiver();
    const endpointId = await endpointAt(workspace, target.url, target);
    const [event] = await recordEvents(workspace, 1);
    await target.waitFor((requests) => requests.length >= 1);
    const redeliver = () =>
      call(`${ENDPOINTS}/${endpointId}/deliveries/${event?.id}/redeliver`, { method: 'POST', key: workspace.keys.pwLive });
    const statuses: number[] = [];
    for (let index = 0; index < MAX_REDELIVERIES_PER_WINDOW; index++) statuses.push((await redeliver()).status);
    expect(statuses).toEqual(Array.from({ length: MAX_REDELIVERIES_PER_WINDOW }, () => 202));
    const refused = await Promise.all(Array.from({ length: 5 }, () => redeliver()));
    for (const response of refused) {
      expect(response.status, response.text).toBe(429);
      expect(response.json.error).toMatchObject({ code: 'rate_limited' });
      expect(response.json.error.message).toContain(`${MAX_REDELIVERIES_PER_WINDOW} redeliveries a minute`);
      expect(Number(response.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(Number(response.headers.get('retry-after'))).toBeLessThanOrEqual(60);
    }
    // Another endpoint of the workspace has a window of its own.
    const other = await receiver();
    const otherId = await endpointAt(workspace, other.url, other);
    const elsewhere = await call(`${ENDPOINTS}/${otherId}/deliveries/${event?.id}/redeliver`, {
      method: 'POST',
      key: workspace.keys.pwLive,
    });
    expect(elsewhere.status, elsewhere.text).toBe(202);
    await other.waitFor((requests) => requests.length >= 1);
    // What was queued arrives; what was refused never does: at most the first delivery and the admitted redeliveries.
    await eventually(async () => {
      const found = (await listDeliveries(workspace.workspaceId, endpointId)).deliveries;
      return found[0]?.status === 'delivered' && found[0].attempts >= 2 ? true : undefined;
    });
    expect(target.requests.length).toBeLessThanOrEqual(1 + MAX_REDELIVERIES_PER_WINDOW);
  }, 90_000);
});
