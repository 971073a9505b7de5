// An endpoint's deliveries and redelivery through the gateway: the listing a page at a time and by state, a redelivery that reaches a loopback receiver with the same webhook-id, and what each workspace may see.
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { updateWorkspace } from '#shared/workspaces/repository.ts';
import { commitBatch, openBatchWith } from './ingest-support.ts';
import { type ApiResponse, call, newWorkspace, type TestWorkspace } from './support.ts';
import { type Receiver, startReceiver } from './webhook-receiver.ts';

const ENDPOINTS = '/v1/webhook-endpoints';
const UNKNOWN_EVENT = 'evt_0000000000000000000000';

interface Delivery {
  event_id: string;
  event_type: string;
  event_timestamp: string;
  status: string;
  attempts: number;
  last_attempt_at: string | null;
  last_status: number | null;
  last_error: string | null;
  next_attempt_at: string | null;
}

const receivers: Receiver[] = [];
afterAll(async () => {
  await Promise.all(receivers.splice(0).map((receiver) => receiver.close()));
});

/** A loopback receiver that verifies signatures, subscribed to batch.committed through the route, as a connector does. */
async function subscribedReceiver(workspace: TestWorkspace): Promise<{ receiver: Receiver; endpointId: string }> {
  const receiver = await startReceiver();
  receivers.push(receiver);
  const created = await call(ENDPOINTS, {
    method: 'POST',
    key: workspace.keys.pwLive,
    body: { url: receiver.url, event_types: ['batch.committed'] },
  });
  expect(created.status, created.text).toBe(201);
  receiver.verifyWith(created.json.secret as string);
  return { receiver, endpointId: created.json.id as string };
}

/** Commits an empty batch: one batch.committed event. */
async function commitOne(workspace: TestWorkspace): Promise<void> {
  const batchId = await openBatchWith(workspace.keys.connector);
  await commitBatch(workspace.keys.connector, batchId);
}

function deliveries(workspace: TestWorkspace, endpointId: string, query = '', key = workspace.keys.pwLive): Promise<ApiResponse> {
  return call(`${ENDPOINTS}/${endpointId}/deliveries${query}`, { key });
}

function redeliver(workspace: TestWorkspace, endpointId: string, eventId: string, key = workspace.keys.pwLive): Promise<ApiResponse> {
  return call(`${ENDPOINTS}/${endpointId}/deliveries/${eventId}/redeliver`, { method: 'POST', key });
}

/** Reads the listing until `done` holds: an attempt is logged a moment after the receiver answers it. */
async function listedWhen(
  workspace: TestWorkspace,
  endpointId: string,
  done: (data: Delivery[]) => boolean,
  query = '',
): Promise<Delivery[]> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const response = await deliveries(workspace, endpointId, query);
    expect(response.status, response.text).toBe(200);
    const data = response.json.data as Delivery[];
    if (done(data)) return data;
    if (Date.now() > deadline) throw new Error(`the deliveries never reached the awaited state: ${response.text}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('an endpoint’s deliveries', () => {
  let seller: TestWorkspace;
  let receiver: Receiver;
  let endpointId: string;

  beforeAll(async () => {
    seller = await newWorkspace('Delivery Log Seller');
    ({ receiver, endpointId } = await subscribedReceiver(seller));
    for (let index = 0; index < 3; index++) await commitOne(seller);
    await receiver.waitFor((requests) => requests.length >= 3);
    await listedWhen(seller, endpointId, (data) => data.length === 3 && data.every((delivery) => delivery.status === 'delivered'));
  }, 60_000);

  it('lists them newest event first, each with its state, attempts and last status, a page at a time', async () => {
    const first = await deliveries(seller, endpointId, '?limit=2');
    expect(first.status, first.text).toBe(200);
    expect(first.json.data).toHaveLength(2);
    expect(first.json.next).toEqual(expect.any(String));
    const second = await deliveries(seller, endpointId, `?limit=2&starting_after=${first.json.next}`);
    expect(second.status, second.text).toBe(200);
    expect(second.json.data).toHaveLength(1);
    expect(second.json.next).toBeNull();

    const listed = [...first.json.data, ...second.json.data] as Delivery[];
    const timestamps = listed.map((delivery) => delivery.event_timestamp);
    expect(timestamps).toEqual([...timestamps].sort().reverse());
    expect(new Set(listed.map((delivery) => delivery.event_id))).toEqual(new Set(receiver.requests.map((request) => request.webhookId)));
    for (const delivery of listed) {
      expect(delivery).toMatchObject({
        event_type: 'batch.committed',
        status: 'delivered',
        attempts: 1,
        last_status: 200,
        last_error: null,
        next_attempt_at: null,
      });
    }
  });

  it('lists only the deliveries in the state asked for', async () => {
    expect((await deliveries(seller, endpointId, '?status=delivered')).json.data).toHaveLength(3);
    const parked = await deliveries(seller, endpointId, '?status=parked');
    expect(parked.json).toEqual({ data: [], next: null });
  });

  it('lets a sandbox key read the deliveries, and not redeliver', async () => {
    const read = await deliveries(seller, endpointId, '', seller.keys.pwTest);
    expect(read.status, read.text).toBe(200);
    expect(read.json.data).toHaveLength(3);
    const refused = await redeliver(seller, endpointId, read.json.data[0].event_id, seller.keys.pwTest);
    expect(refused.status, refused.text).toBe(403);
    expect(refused.json.error.code).toBe('forbidden');
  });

  it.each([
    ['?limit=0', /limit must be a whole number from 1 to 100/],
    ['?limit=101', /limit must be a whole number from 1 to 100/],
    ['?limit=ten', /limit must be a whole number from 1 to 100/],
    ['?status=failed', /status must be pending, delivered or parked/],
    ['?starting_after=not-a-cursor', /starting_after must be the next cursor of an earlier page/],
    ['?page=2', /Unknown field page/],
  ])('is 400 bad_request for %s', async (query, message) => {
    const response = await deliveries(seller, endpointId, query);
    expect(response.status, response.text).toBe(400);
    expect(response.json.error.code).toBe('bad_request');
    expect(response.json.error.message).toMatch(message);
  });
});

describe('redelivery', () => {
  it('sends the event again through the route, with the same webhook-id, to a receiver that verifies it', async () => {
    const seller = await newWorkspace('Redelivery Seller');
    const { receiver, endpointId } = await subscribedReceiver(seller);
    await commitOne(seller);
    const [delivered] = await listedWhen(seller, endpointId, (data) => data[0]?.status === 'delivered');
    const eventId = delivered?.event_id ?? '';

    const queued = await redeliver(seller, endpointId, eventId);
    expect(queued.status, queued.text).toBe(202);
    expect(queued.json).toMatchObject({ event_id: eventId, event_type: 'batch.committed', status: 'pending', attempts: 1 });

    await receiver.waitFor((requests) => requests.length >= 2);
    expect(receiver.requests.map((request) => request.webhookId)).toEqual([eventId, eventId]);
    expect(receiver.requests.every((request) => request.event?.id === eventId)).toBe(true);
    const [again] = await listedWhen(seller, endpointId, (data) => data[0]?.attempts === 2 && data[0].status === 'delivered');
    expect(again).toMatchObject({ event_id: eventId, attempts: 2, last_status: 200 });
  }, 40_000);

  it('parks a redelivery to a disabled endpoint without sending it, which the parked listing shows', async () => {
    const seller = await newWorkspace('Disabled Redelivery Seller');
    const { receiver, endpointId } = await subscribedReceiver(seller);
    await commitOne(seller);
    const [delivered] = await listedWhen(seller, endpointId, (data) => data[0]?.status === 'delivered');
    const disabled = await call(`${ENDPOINTS}/${endpointId}`, { method: 'PATCH', key: seller.keys.pwLive, body: { enabled: false } });
    expect(disabled.status, disabled.text).toBe(200);

    expect((await redeliver(seller, endpointId, delivered?.event_id ?? '')).status).toBe(202);
    const [parked] = await listedWhen(seller, endpointId, (data) => data.length === 1, '?status=parked');
    expect(parked).toMatchObject({
      event_id: delivered?.event_id,
      status: 'parked',
      attempts: 2,
      last_error: 'not sent: the endpoint is disabled',
      next_attempt_at: null,
    });
    expect(receiver.requests).toHaveLength(1);
  }, 40_000);

  it('keeps each workspace to its own: another’s endpoint or event is 404, and nothing is sent', async () => {
    const [mine, theirs] = await Promise.all([newWorkspace('Delivery Owner'), newWorkspace('Delivery Stranger')]);
    const own = await subscribedReceiver(mine);
    const other = await subscribedReceiver(theirs);
    await commitOne(mine);
    const [delivered] = await listedWhen(mine, own.endpointId, (data) => data[0]?.status === 'delivered');
    const eventId = delivered?.event_id ?? '';

    const attempts: Array<[string, Promise<ApiResponse>]> = [
      ['their key on my endpoint’s deliveries', deliveries(theirs, own.endpointId)],
      ['their key redelivering my event to my endpoint', redeliver(theirs, own.endpointId, eventId)],
      ['their key redelivering my event to their endpoint', redeliver(theirs, other.endpointId, eventId)],
      ['an unknown event', redeliver(mine, own.endpointId, UNKNOWN_EVENT)],
      ['an event id not shaped like one', redeliver(mine, own.endpointId, 'evt_nope')],
      ['an unknown endpoint', deliveries(mine, 'we_0000000000000000000000')],
    ];
    for (const [what, pending] of attempts) {
      const response = await pending;
      expect(response.status, `${what}: ${response.text}`).toBe(404);
      expect(response.json.error.code).toBe('not_found');
    }
    expect((await deliveries(theirs, other.endpointId)).json.data).toEqual([]);
    // The refusals queued nothing: my delivery was tried once, and their receiver was never called.
    expect((await deliveries(mine, own.endpointId)).json.data).toMatchObject([{ event_id: eventId, attempts: 1 }]);
    expect(own.receiver.requests).toHaveLength(1);
    expect(other.receiver.requests).toEqual([]);
  }, 40_000);

  it('is 400 bad_request for a redelivery with a body, and sends nothing', async () => {
    const seller = await newWorkspace('Redelivery Body Seller');
    const { receiver, endpointId } = await subscribedReceiver(seller);
    await commitOne(seller);
    const [delivered] = await listedWhen(seller, endpointId, (data) => data[0]?.status === 'delivered');
    const response = await call(`${ENDPOINTS}/${endpointId}/deliveries/${delivered?.event_id ?? ''}/redeliver`, {
      method: 'POST',
      key: seller.keys.pwLive,
      body: { status: 'pending' },
    });
    expect(response.status, response.text).toBe(400);
    expect(response.json.error.code).toBe('bad_request');
    expect((await deliveries(seller, endpointId)).json.data).toMatchObject([{ attempts: 1 }]);
    expect(receiver.requests).toHaveLength(1);
  }, 40_000);

  it('answers 403 feature_not_enabled on both routes for a workspace without the overview', async () => {
    const seller = await newWorkspace('Featureless Delivery Seller');
    await updateWorkspace(seller.workspaceId, { features: ['writebacks', 'storefront'] });
    expect((await deliveries(seller, 'we_0000000000000000000000')).json.error.code).toBe('feature_not_enabled');
    expect((await redeliver(seller, 'we_0000000000000000000000', UNKNOWN_EVENT)).json.error.code).toBe('feature_not_enabled');
  });
});

/** A loopback port nothing listens on: opened, read and closed again, so that a connection to it is refused. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Reads the endpoint until `done` holds: an attempt's count is written a moment after it fails. */
async function endpointWhen(
  workspace: TestWorkspace,
  endpointId: string,
  done: (json: ApiResponse['json']) => boolean,
): Promise<ApiResponse> {
  const deadline = Date.now() + 150_000;
  for (;;) {
    const response = await call(`${ENDPOINTS}/${endpointId}`, { key: workspace.keys.pwLive });
    expect(response.status, response.text).toBe(200);
    if (done(response.json)) return response;
    if (Date.now() > deadline) throw new Error(`the endpoint never reached the awaited state: ${response.text}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('an endpoint whose every attempt is refused', () => {
  it('is failing after three failed attempts in a row, long before any delivery is parked, and healthy again after a success', async () => {
    const seller = await newWorkspace('Refused Endpoint Seller');
    const port = await closedPort();
    const created = await call(ENDPOINTS, {
      method: 'POST',
      key: seller.keys.pwLive,
      body: { url: `http://127.0.0.1:${port}/hooks`, event_types: ['batch.committed'] },
    });
    expect(created.status, created.text).toBe(201);
    expect(created.json.status).toBe('healthy');
    const endpointId = created.json.id as string;
    // Three events: three first attempts, each refused, whatever the retry schedule.
    for (let index = 0; index < 3; index++) await commitOne(seller);
    const failing = await endpointWhen(seller, endpointId, (json) => json.consecutive_failures >= 3);
    expect(failing.json).toMatchObject({ status: 'failing', failing_since: null });
    const listed = await call(ENDPOINTS, { key: seller.keys.pwLive });
    expect(listed.json.data.find((endpoint: { id: string }) => endpoint.id === endpointId).status).toBe('failing');
    const parked = await deliveries(seller, endpointId, '?status=parked');
    expect(parked.json.data).toEqual([]);

    // The receiver comes up at the same address: the next attempt that gets its 2xx makes the endpoint healthy again.
    const answering = await startReceiver(port);
    receivers.push(answering);
    await commitOne(seller);
    const healthy = await endpointWhen(seller, endpointId, (json) => json.status === 'healthy');
    expect(healthy.json.consecutive_failures).toBe(0);
    expect(answering.requests.length).toBeGreaterThan(0);
  }, 240_000);
});
