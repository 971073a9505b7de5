// The client's own behaviour, on a fake fetch and a sleep that does not wait: retries, idempotency keys, typed errors.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { BatchWaitTimeoutError, createPricingClient, PricingApiError, type PricingClientOptions } from './index.ts';

type Answer = Response | Error;

interface Sent {
  readonly method: string;
  readonly url: string;
  readonly headers: Headers;
  readonly body: string;
}

const BASE_URL = 'http://pricing.test';

function json(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });
}

const apiError = (status: number, code: string, extra: Record<string, string> = {}) =>
  json(status, { error: { code, message: `${code} happened`, requestId: 'req_api', ...extra } });

const PRICED = { lines: [{ ok: false, error: { code: 'unknown_product', message: 'No such product.', param: 'lines[0].productSku' } }] };
const LINES = [{ productSku: 'BOLT', quantity: 1 }];

/** A client whose fetch answers from `answers` in turn and records what it was sent; sleep only records its waits. */
function fakeClient(answers: Answer[], options: Partial<PricingClientOptions> = {}) {
  const sent: Sent[] = [];
  const sleeps: number[] = [];
  const fetch = vi.fn(async (input: Request | string | URL, init?: RequestInit) => {
    const request = new Request(input, init);
    sent.push({ method: request.method, url: request.url, headers: request.headers, body: await request.text() });
    const answer = answers.shift();
    if (answer === undefined) throw new Error('the fake fetch has no answer left');
    if (answer instanceof Error) throw answer;
    return answer;
  });
  const sleep = async (ms: number) => {
    sleeps.push(ms);
  };
  const client = createPricingClient({ baseUrl: BASE_URL, key: 'svc_live_test', fetch, sleep, ...options });
  return { client, sent, sleeps };
}

beforeEach(() => {
  // The middle of each full-jitter window, so that the waits show the exponential steps.
  vi.spyOn(Math, 'random').mockReturnValue(0.5);
});

afterEach(() => {
  vi.restoreAllMocks();
});

describe('requests', () => {
  it('carry the key as a bearer token on both surfaces', async () => {
    const { client, sent } = fakeClient([json(201, { batchId: 'b1', connectorId: 'con_1' }), json(200, { sku: 'BOLT' })]);
    await client.openBatch();
    await client.getPrice('BOLT');
    expect(sent.map((request) => request.headers.get('authorization'))).toEqual(['Bearer svc_live_test', 'Bearer svc_live_test']);
    expect(sent.map((request) => `${request.method} ${request.url}`)).toEqual([
      `POST ${BASE_URL}/api/v1/ingest/batches`,
      `GET ${BASE_URL}/v1/prices/BOLT`,
    ]);
  });

  it('send include comma-separated, as the overview contract has it', async () => {
    const { client, sent } = fakeClient([json(200, { sku: 'BOLT' }), json(200, { sku: 'BOLT' })]);
    await client.getPrice('BOLT', { include: ['rationale', 'drivers'] });
    expect(new URL(sent[0]?.url ?? '').search).toBe('?include=rationale,drivers');
    // The expected impact, as the README documents it, is one of the parts the client types.
    await client.getPrice('BOLT', { include: ['impact'] });
    expect(new URL(sent[1]?.url ?? '').search).toBe('?include=impact');
  });

  it('ask for the cost report with the range and grouping given, and nothing else', async () => {
    const { client, sent } = fakeClient([json(200, { workspace_id: 'ws_1' }), json(200, { workspace_id: 'ws_1' })]);
    await client.usage({ from: '2026-11-01', to: '2026-11-30', by: 'route' });
    await client.usage();
    expect(sent.map((request) => request.url)).toEqual([
      `${BASE_URL}/v1/usage?from=2026-11-01&to=2026-11-30&by=route`,
      `${BASE_URL}/v1/usage`,
    ]);
  });

  it('return the typed body of a 2xx', async () => {
    const { client, sent } = fakeClient([json(202, { staged: 1 })]);
    const staged = await client.stageRecords('b1', 'customer', [{ externalId: 'C-1', name: 'Northwind', segment: 'smb' }]);
    expect(staged).toEqual({ staged: 1 });
    expect(JSON.parse(sent[0]?.body ?? '')).toEqual({
      entity: 'customer',
      records: [{ externalId: 'C-1', name: 'Northwind', segment: 'smb' }],
    });
  });
});

describe('retries', () => {
  it('wait out a 429 for the seconds its Retry-After gives, then succeed', async () => {
    const { client, sent, sleeps } = fakeClient(
      [apiError(429, 'rate_limited', {}), json(200, PRICED)].map((answer, index) => {
        if (index === 0) answer.headers.set('retry-after', '2');
        return answer;
      }),
    );
    expect(await client.priceLines(LINES)).toEqual(PRICED);
    expect(sent).toHaveLength(2);
    expect(sleeps).toEqual([2000]);
  });

  it('back off exponentially with full jitter on a 429 without Retry-After, on 503 and on network errors', async () => {
    const { client, sent, sleeps } = fakeClient([
      apiError(429, 'rate_limited'),
      json(503, { message: 'Service Unavailable' }),
      new TypeError('fetch failed'),
      json(200, { tasks: [] }),
    ]);
    expect(await client.claimWritebacks({ limit: 5 })).toEqual({ tasks: [] });
    expect(sent).toHaveLength(4);
    expect(sleeps).toEqual([100, 200, 400]);
  });

  it('never wait longer than maxDelayMs between tries', async () => {
    const { client, sleeps } = fakeClient(
      [503, 503, 503, 503].map((status) => json(status, { message: 'Service Unavailable' })).concat(json(200, { tasks: [] })),
      {
        retry: { baseDelayMs: 200, maxDelayMs: 500 },
      },
    );
    await client.claimWritebacks();
    expect(sleeps).toEqual([100, 200, 250, 250]);
  });

  it('send the same body on every try', async () => {
    const { client, sent } = fakeClient([new TypeError('fetch failed'), json(200, { applied: 1, failed: 0, expired: 0, ignored: 0 })]);
    await client.ackWritebacks([{ id: 'wb_1', ok: true }]);
    expect(sent.map((request) => request.body)).toEqual([sent[1]?.body, JSON.stringify({ results: [{ id: 'wb_1', ok: true }] })]);
  });

  it.each([
    [400, 'bad_request'],
    [401, 'unauthorized'],
    [404, 'batch_not_found'],
    [409, 'batch_already_committed'],
    [422, 'invalid_request'],
    [500, 'internal_error'],
  ])('never retry a %i', async (status, code) => {
    const { client, sent, sleeps } = fakeClient([apiError(status, code), json(202, { jobId: 'job_1' })]);
    await expect(client.commitBatch('b1')).rejects.toMatchObject({ status, code });
    expect(sent).toHaveLength(1);
    expect(sleeps).toEqual([]);
  });

  it('give up after `attempts` tries with the last answer', async () => {
    const { client, sent, sleeps } = fakeClient(
      [apiError(429, 'rate_limited'), apiError(429, 'rate_limited'), json(503, { message: 'Service Unavailable' })],
      {
        retry: { attempts: 3 },
      },
    );
    const error = await client.batchStatus('b1').catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(PricingApiError);
    expect(error).toMatchObject({ status: 503, code: 'gateway_error', message: 'Service Unavailable' });
    expect(sent).toHaveLength(3);
    expect(sleeps).toHaveLength(2);
  });

  it('give up after `attempts` network errors with the last one', async () => {
    const last = new TypeError('fetch failed: the last');
    const { client, sent } = fakeClient([new TypeError('fetch failed'), last], { retry: { attempts: 2 } });
    await expect(client.openBatch()).rejects.toBe(last);
    expect(sent).toHaveLength(2);
  });

  it('do not sleep through a Retry-After longer than maxDelayMs, such as the monthly quota', async () => {
    const { client, sent, sleeps } = fakeClient(
      [apiError(429, 'monthly_volume_exceeded', {})].map((answer) => {
        answer.headers.set('retry-after', '86400');
        return answer;
      }),
    );
    await expect(client.priceLines(LINES)).rejects.toMatchObject({ status: 429, code: 'monthly_volume_exceeded' });
    expect(sent).toHaveLength(1);
    expect(sleeps).toEqual([]);
  });
});

describe('idempotency keys', () => {
  it('are one per price call, the same on each of its retries, and new for the next call', async () => {
    const { client, sent } = fakeClient([
      apiError(429, 'rate_limited'),
      new TypeError('fetch failed'),
      json(200, PRICED),
      json(200, PRICED),
    ]);
    await client.priceLines(LINES);
    await client.priceLines(LINES);
    const keys = sent.map((request) => request.headers.get('idempotency-key'));
    expect(keys[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(keys.slice(0, 3)).toEqual([keys[0], keys[0], keys[0]]);
    expect(keys[3]).toMatch(/^[0-9a-f-]{36}$/);
    expect(keys[3]).not.toBe(keys[0]);
  });

  it("are the caller's when it passes one", async () => {
    const { client, sent } = fakeClient([json(503, { message: 'Service Unavailable' }), json(200, PRICED)]);
    await client.priceLines(LINES, { idempotencyKey: 'quote-4711-rev1' });
    expect(sent.map((request) => request.headers.get('idempotency-key'))).toEqual(['quote-4711-rev1', 'quote-4711-rev1']);
  });
});

describe('approvals', () => {
  it('carry one Idempotency-Key per call, the same on each retry, so a retried approval publishes once', async () => {
    const approval = { approval_id: 'apv_1', sku: 'BOLT', price: 0.5 };
    const { client, sent } = fakeClient([new TypeError('fetch failed'), json(200, approval), json(200, approval)]);
    await client.approvePrice('BOLT', 0.5);
    await client.approvePrice('BOLT', 0.5, { confirm: true, idempotencyKey: 'approve-bolt-rev2' });
    const keys = sent.map((request) => request.headers.get('idempotency-key'));
    expect(keys[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(keys).toEqual([keys[0], keys[0], 'approve-bolt-rev2']);
    expect(JSON.parse(sent[2]?.body ?? '')).toEqual({ sku: 'BOLT', price: 0.5, confirm: true });
  });
});

describe('errors', () => {
  it("are PricingApiErrors with the code, param and requestId of the connector API's envelope", async () => {
    const { client } = fakeClient([apiError(422, 'invalid_request', { param: 'records[0].costCents', requestId: 'req_123' })]);
    const error = await client.stageRecords('b1', 'product', []).catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(PricingApiError);
    expect(error).toMatchObject({
      name: 'PricingApiError',
      status: 422,
      code: 'invalid_request',
      message: 'invalid_request happened',
      param: 'records[0].costCents',
      requestId: 'req_123',
    });
  });

  it("are PricingApiErrors with the code and request_id of the overview's envelope", async () => {
    const { client } = fakeClient([
      json(422, { error: { code: 'guardrail_violation', message: 'price 0.50 USD is below the floor', request_id: 'req_456' } }),
    ]);
    const error = await client.approvePrice('BOLT', 0.5).catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(PricingApiError);
    expect(error).toMatchObject({
      status: 422,
      code: 'guardrail_violation',
      message: 'price 0.50 USD is below the floor',
      requestId: 'req_456',
    });
    expect((error as PricingApiError).param).toBeUndefined();
  });

  it('take the request id from x-request-id when the body has none', async () => {
    const { client } = fakeClient([json(413, { message: 'Request Entity Too Large' }, { 'x-request-id': 'req_789' })]);
    await expect(client.ackWritebacks([{ id: 'wb_1', ok: true }])).rejects.toMatchObject({
      status: 413,
      code: 'gateway_error',
      message: 'Request Entity Too Large',
      requestId: 'req_789',
    });
  });
});

describe('waiting for a batch', () => {
  const status = (state: string, extra: Record<string, unknown> = {}) =>
    json(200, { status: state, entities: ['product'], recordCount: 1, skippedOverCap: 0, createdAt: '2026-11-24T10:00:00.000Z', ...extra });

  it('polls by default until prices reflect the batch: past drained, until bandsRecomputedAt is set', async () => {
    const banded = { bandsRecomputedAt: '2026-11-24T10:00:01.000Z' };
    const { client, sleeps } = fakeClient([status('committed'), status('draining'), status('drained'), status('drained', banded)]);
    const seen: string[] = [];
    const done = await client.waitForBatch('b1', { pollMs: 50, onStatus: (batch) => seen.push(batch.status) });
    expect(done).toMatchObject({ status: 'drained', ...banded });
    expect(sleeps).toEqual([50, 50, 50]);
    expect(seen).toEqual(['committed', 'draining', 'drained', 'drained']);
  });

  it("stops at drained with until: 'drained', and at failed either way", async () => {
    const drained = fakeClient([status('draining'), status('drained')]);
    expect(await drained.client.waitForBatch('b1', { until: 'drained' })).toMatchObject({ status: 'drained' });
    const failed = fakeClient([status('draining'), status('failed', { error: 'batch expired before commit' })]);
    expect(await failed.client.waitForBatch('b1')).toMatchObject({ status: 'failed' });
  });

  it('polls until a test of the whole status passes', async () => {
    const { client } = fakeClient([status('drained'), status('drained', { bandsRecomputedAt: '2026-11-24T10:00:01.000Z' })]);
    const done = await client.waitForBatch('b1', { until: (batch) => batch.bandsRecomputedAt !== undefined });
    expect(done.bandsRecomputedAt).toBe('2026-11-24T10:00:01.000Z');
  });

  it('gives up after timeoutMs with the last status it saw, moving or not', async () => {
    const moving = (count: number) => status('draining', { drainedCount: count });
    const { client } = fakeClient([moving(1), moving(2), moving(3)]);
    await expect(client.waitForBatch('b1', { pollMs: 100, timeoutMs: 200 })).rejects.toMatchObject({
      name: 'BatchWaitTimeoutError',
      stalled: false,
      lastStatus: { status: 'draining', drainedCount: 3 },
    });
    const unbanded = fakeClient([status('drained'), status('drained')]);
    await expect(unbanded.client.waitForBatch('b1', { pollMs: 100, timeoutMs: 100 })).rejects.toThrow(
      'batch b1 was still drained, its prices not yet recomputed (no bandsRecomputedAt), after 100 ms',
    );
  });

  it('waits past five minutes for as long as the batch moves on, with no overall limit by default', async () => {
    // Ten minutes of polls a minute apart, each showing a new checkpoint: a large load that is slow but alive.
    const polls = Array.from({ length: 10 }, (_, minute) =>
      status(minute < 6 ? 'draining' : 'drained', {
        drainedCount: Math.min(minute, 5) * 10_000,
        progressAt: `2026-11-24T10:${String(minute).padStart(2, '0')}:00.000Z`,
      }),
    );
    const { client, sleeps } = fakeClient([...polls, status('drained', { bandsRecomputedAt: '2026-11-24T10:10:00.000Z' })]);
    const done = await client.waitForBatch('b1', { pollMs: 60_000 });
    expect(done.bandsRecomputedAt).toBe('2026-11-24T10:10:00.000Z');
    expect(sleeps).toHaveLength(10);
  });

  it('gives up when the batch stands still past stallMs, naming its last progress', async () => {
    const still = status('drained', { drainedCount: 4, progressAt: '2026-11-24T10:00:02.000Z' });
    const { client, sleeps } = fakeClient([
      status('draining', { drainedCount: 2, progressAt: '2026-11-24T10:00:01.000Z' }),
      still,
      still.clone(),
      still.clone(),
      still.clone(),
    ]);
    const error = await client.waitForBatch('b1', { pollMs: 100, stallMs: 300 }).catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(BatchWaitTimeoutError);
    expect(error).toMatchObject({ stalled: true, lastStatus: { status: 'drained', drainedCount: 4 } });
    expect((error as Error).message).toBe(
      'batch b1 was still drained, its prices not yet recomputed (no bandsRecomputedAt), and had not moved on for 300 ms (last progress at 2026-11-24T10:00:02.000Z)',
    );
    // Counted from the poll that first showed the still state: three sleeps of 100 ms after it.
    expect(sleeps).toEqual([100, 100, 100, 100]);
  });
});
