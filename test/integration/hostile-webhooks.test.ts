// Hostile use of webhook delivery through the shared local stack: a workspace flooding never-answering receivers, a receiver whose body never ends, and a flood of redeliveries.
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, describe, expect, it } from 'vitest';
import { tableName } from '#platform/config.ts';
import { tableClient } from '#platform/table/client.ts';
import { keys } from '#platform/table/keys.ts';
import { listAttempts, listDeliveries } from '#shared/webhooks/attempt-log.ts';
import { BREAKER_THRESHOLD } from '#shared/webhooks/breaker.ts';
import { MAX_IN_FLIGHT_PER_ENDPOINT, MAX_IN_FLIGHT_PER_WORKSPACE } from '#shared/webhooks/in-flight.ts';
import { MAX_REDELIVERIES_PER_WINDOW } from '#shared/webhooks/redelivery-limit.ts';
import { MAX_ENDPOINTS_PER_WORKSPACE } from '#shared/webhooks/endpoint-schema.ts';
import {
  APPROVAL_EVENT_TYPES,
  approvalEvents,
  cleanUp,
  commitEvents,
  ENDPOINTS,
  endpointAt,
  eventually,
  firstAttemptMs,
  loggedAttempts,
  mostAtOnce,
  receiver,
  recordEvents,
  stopFlood,
} from './hostile-webhooks-support.ts';
import { call, newWorkspace } from './support.ts';

afterAll(cleanUp);

/**
 * How much later than on a quiet stack another workspace's first attempt may arrive, whatever one workspace floods:
 * the bound docs/webhooks.md states ("A fair share per workspace").
 */
const FAIR_SHARE_BOUND_MS = 2_000;

/** Quiet first attempts timed, one after another; the slowest is the figure a flood's are held to. */
async function slowestOf(times: number, measure: () => Promise<number>): Promise<number[]> {
  const taken: number[] = [];
  for (let index = 0; index < times; index++) taken.push(await measure());
  return taken;
}

const floods = [
  { name: '100 approvals', approvals: 100, connectors: 1 },
  { name: '4 approvals published to 50 connectors', approvals: 4, connectors: 50 },
];

describe('a workspace flooding receivers that never answer, while another workspace waits for its first attempt', () => {
  for (const flood of floods) {
    it(`delays the other workspace's first attempt by at most ${FAIR_SHARE_BOUND_MS} ms over the quiet figure, under ${flood.name} to 19 such endpoints`, async () => {
      const [flooder, quiet] = await Promise.all([newWorkspace('Flooding Approver'), newWorkspace('Quiet Neighbour')]);
      const sink = await receiver();
      sink.answerEvery('hang');
      const floodEndpoints = MAX_ENDPOINTS_PER_WORKSPACE - 1;
      for (let index = 0; index < floodEndpoints; index++)
        await endpointAt(flooder, `${sink.url}?endpoint=${index}`, undefined, APPROVAL_EVENT_TYPES);
      const own = await receiver();
      await endpointAt(quiet, own.url, own);
      const quietFigure = Math.max(...(await slowestOf(3, () => firstAttemptMs(quiet, own))));

      const events = approvalEvents(flooder, flood.approvals, flood.connectors);
      await commitEvents(events);
      // Once the flood's attempts hang on their receivers, its backlog is queued ahead of the quiet workspace's events.
      await sink.waitFor((requests) => requests.length >= MAX_IN_FLIGHT_PER_WORKSPACE, 60_000);
      const underFlood = await slowestOf(3, () => firstAttemptMs(quiet, own));
      const floodSeen = sink.requests.length;
      console.log(
        `${flood.name}: the quiet workspace's first attempts took ${underFlood.join(', ')} ms under the flood, ${quietFigure} ms ` +
          `before it; the flood's receivers had seen ${floodSeen} of ${events.length * floodEndpoints} first attempts`,
      );
      await stopFlood(flooder);

      // The flood was still going: most of its attempts had not been made.
      expect(floodSeen).toBeLessThan(events.length * floodEndpoints);
      for (const took of underFlood) expect(took).toBeLessThanOrEqual(quietFigure + FAIR_SHARE_BOUND_MS);
    }, 240_000);
  }
});

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
