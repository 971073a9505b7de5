// The load loop against a fake client: kind order, batching and concurrency, bad records before commit, and the error paths.
import { describe, expect, it } from 'vitest';
import { createPricingClient, PricingApiError } from '../index.ts';
import type { EntityKind } from '../../../shared/records/schema.ts';
import type { SourcedRecord } from './files.ts';
import { type LoadApi, type LoadBatchStatus, LoadError, loadExport, type LoadSource } from './load.ts';

const product = (index: number) => ({
  sku: `SKU-${index}`,
  name: `Product ${index}`,
  category: 'Tools',
  costCents: 100,
  currentPriceCents: 150,
});
const customer = (index: number) => ({ externalId: `C-${index}`, name: `Customer ${index}` });
const order = (index: number) => ({
  externalId: `O-${index}`,
  currency: 'USD',
  soldAt: '2026-01-01T00:00:00Z',
  lines: [{ productSku: 'SKU-0', quantity: 1, costCents: 100, soldPriceCents: 150 }],
});

function source(entity: EntityKind, records: Record<string, unknown>[], file = `${entity}s.jsonl`): LoadSource {
  return {
    entity,
    records: (async function* (): AsyncGenerator<SourcedRecord> {
      for (const [index, record] of records.entries()) yield { record, file, line: index + 1 };
    })(),
  };
}

const banded = { bandsRecomputedAt: '2026-01-01T00:00:09.000Z' };

function fakeApi(
  overrides: Partial<LoadApi> = {},
  status: LoadBatchStatus = { status: 'drained', recordCount: 0, skippedOverCap: 0, ...banded },
) {
  const calls: Array<[string, ...unknown[]]> = [];
  let inFlight = 0;
  let mostInFlight = 0;
  const api: LoadApi = {
    async openBatch() {
      calls.push(['open']);
      return { batchId: 'b_1' };
    },
    async stageRecords(batchId, entity, records) {
      calls.push(['stage', entity, records.length]);
      inFlight++;
      mostInFlight = Math.max(mostInFlight, inFlight);
      // Let other calls start, so that the bound on calls in flight is what stops them.
      await new Promise((resolve) => setImmediate(resolve));
      inFlight--;
      return { staged: records.length };
    },
    async commitBatch() {
      calls.push(['commit']);
      return { jobId: 'job_1' };
    },
    async cancelBatch() {
      calls.push(['cancel']);
      return { status: 'failed' };
    },
    async waitForBatch(batchId, wait) {
      calls.push(['wait', wait.until]);
      wait.onStatus(status);
      return status;
    },
    ...overrides,
  };
  return { api, calls, mostInFlight: () => mostInFlight };
}

const range = (count: number) => Array.from({ length: count }, (_, index) => index);

describe('loading an export', () => {
  it('stages the kinds in rank order whatever order the files come in, in calls of at most 1,000, then commits and waits', async () => {
    const fake = fakeApi();
    const summary = await loadExport({
      api: fake.api,
      sources: [
        source('order', range(3).map(order)),
        source('customer', range(2).map(customer)),
        source('product', range(2500).map(product)),
      ],
    });
    expect(fake.calls).toEqual([
      ['open'],
      ['stage', 'product', 1000],
      ['stage', 'product', 1000],
      ['stage', 'product', 500],
      ['stage', 'customer', 2],
      ['stage', 'order', 3],
      ['commit'],
      ['wait', 'prices'],
    ]);
    expect(summary).toMatchObject({ batchId: 'b_1', counts: { product: 2500, customer: 2, quote: 0, order: 3 }, skippedOverCap: 0 });
  });

  it('keeps no more staging calls in flight than its concurrency', async () => {
    const fake = fakeApi();
    await loadExport({ api: fake.api, sources: [source('product', range(50).map(product))], recordsPerCall: 5, concurrency: 3 });
    expect(fake.calls.filter(([name]) => name === 'stage')).toHaveLength(10);
    expect(fake.mostInFlight()).toBe(3);
  });

  it('reports progress and the summary skippedOverCap and drain time from its clock', async () => {
    let clock = 0;
    const events: unknown[] = [];
    const fake = fakeApi();
    const summary = await loadExport({
      api: {
        ...fake.api,
        waitForBatch: async () => ((clock += 2500), { status: 'drained', recordCount: 2, skippedOverCap: 1, ...banded }),
      },
      sources: [source('customer', range(3).map(customer))],
      now: () => clock,
      report: (event) => events.push(event),
    });
    expect(events).toContainEqual({ type: 'progress', records: 3, elapsedMs: 0 });
    expect(summary).toMatchObject({ skippedOverCap: 1, drainMs: 2500, pricesMs: 2500 });
  });

  it('follows the batch after the commit until prices reflect it, reporting each status, the drain and the bands apart', async () => {
    let clock = 0;
    const events: Array<{ type: string }> = [];
    const statuses: LoadBatchStatus[] = [
      { status: 'committed', recordCount: 3, skippedOverCap: 0 },
      { status: 'draining', recordCount: 3, skippedOverCap: 0, drainedCount: 1 },
      { status: 'drained', recordCount: 3, skippedOverCap: 0, drainedCount: 3 },
      { status: 'drained', recordCount: 3, skippedOverCap: 0, drainedCount: 3, ...banded },
    ];
    const fake = fakeApi({
      async waitForBatch(batchId, wait) {
        for (const status of statuses) {
          clock += 1000;
          wait.onStatus(status);
        }
        return statuses.at(-1) as LoadBatchStatus;
      },
    });
    const summary = await loadExport({
      api: fake.api,
      sources: [source('customer', range(3).map(customer))],
      now: () => clock,
      report: (event) => events.push(event),
    });
    const after = events.slice(events.findIndex((event) => event.type === 'committed') + 1);
    expect(after.map((event) => event.type)).toEqual(['waiting', 'waiting', 'drained', 'waiting', 'waiting']);
    expect(after[2]).toMatchObject({ type: 'drained', drainMs: 3000 });
    expect(summary).toMatchObject({ drainMs: 3000, pricesMs: 4000, status: { bandsRecomputedAt: banded.bandsRecomputedAt } });
  });

  it('stops at the drain when asked to, with no prices time, and asks the client to wait only that far', async () => {
    const fake = fakeApi({}, { status: 'drained', recordCount: 1, skippedOverCap: 0 });
    const summary = await loadExport({ api: fake.api, sources: [source('customer', [customer(1)])], until: 'drained' });
    expect(fake.calls.at(-1)).toEqual(['wait', 'drained']);
    expect(summary).toMatchObject({ pricesMs: undefined, status: { status: 'drained' } });
  });

  it('says a batch whose wait gave up after the drain is stored, its prices still to follow', async () => {
    const gaveUp = Object.assign(new Error('batch b_1 was still drained after 3600000 ms'), {
      lastStatus: { status: 'drained', recordCount: 1, skippedOverCap: 0 },
    });
    const fake = fakeApi({ waitForBatch: () => Promise.reject(gaveUp) });
    const failed = loadExport({ api: fake.api, sources: [source('customer', [customer(1)])] });
    await expect(failed).rejects.toThrow('Batch b_1 drained (its records are stored), but its prices were not yet recomputed');
    await expect(failed).rejects.toMatchObject({ committed: true });
  });

  it('stops at a bad record before commit, naming its file, line and field, and sends nothing of its chunk', async () => {
    const fake = fakeApi();
    const orders = range(30).map(order);
    orders[17] = { ...order(17), lines: [{ productSku: 'SKU-0', quantity: 1, costCents: -1, soldPriceCents: 150 }] };
    const failed = loadExport({ api: fake.api, sources: [source('product', [product(1)]), source('order', orders, 'orders.jsonl')] });
    await expect(failed).rejects.toThrow(LoadError);
    await expect(failed).rejects.toMatchObject({ file: 'orders.jsonl', line: 18, field: 'lines[0].costCents', committed: false });
    await expect(failed).rejects.toThrow(
      /^orders\.jsonl:18: Invalid lines\[0\]\.costCents: .* Nothing was committed\. Batch b_1 was cancelled, with what it had staged\.$/,
    );
    expect(fake.calls).toEqual([['open'], ['stage', 'product', 1], ['cancel']]);
  });

  it('says how to cancel the open batch itself when cancelling it fails too', async () => {
    const fake = fakeApi({ cancelBatch: () => Promise.reject(new Error('connection refused')) });
    const orders = [{ ...order(1), lines: [{ productSku: 'SKU-0', quantity: 1, costCents: -1, soldPriceCents: 150 }] }];
    const failed = loadExport({ api: fake.api, sources: [source('order', orders, 'orders.jsonl')] });
    await expect(failed).rejects.toThrow(
      /Cancelling batch b_1 failed too \(connection refused\): it is left open, uncommitted; cancel it with POST \/api\/v1\/ingest\/batches\/b_1\/cancel/,
    );
  });

  it('maps a param the service answers back to the file line of that record', async () => {
    const refused = new PricingApiError({
      status: 422,
      code: 'invalid_request',
      message: 'Invalid records[17].lines[0].costCents: too big.',
      param: 'records[17].lines[0].costCents',
    });
    const records: SourcedRecord[] = range(20).map((index) => ({
      record: order(index),
      file: 'orders.csv',
      line: 2 + index * 2,
      lineRows: [2 + index * 2, 3 + index * 2],
    }));
    const fake = fakeApi({ stageRecords: () => Promise.reject(refused) });
    const failed = loadExport({
      api: fake.api,
      sources: [
        {
          entity: 'order',
          records: (async function* () {
            yield* records;
          })(),
        },
      ],
    });
    await expect(failed).rejects.toMatchObject({ file: 'orders.csv', line: 36, field: 'costCents' });
    await expect(failed).rejects.toThrow('orders.csv:36: Invalid costCents: too big. Nothing was committed');
    expect(fake.calls).not.toContainEqual(['commit']);
  });

  it('with a dry run validates everything, counts it, and calls nothing', async () => {
    const fake = fakeApi();
    const summary = await loadExport({
      api: fake.api,
      dryRun: true,
      sources: [source('product', range(1200).map(product)), source('order', [order(1)])],
    });
    expect(summary).toMatchObject({ dryRun: true, batchId: undefined, counts: { product: 1200, order: 1 } });
    expect(fake.calls).toEqual([]);
  });

  it('with a dry run reports the first bad record, and says nothing was sent', async () => {
    const fake = fakeApi();
    const failed = loadExport({ api: fake.api, dryRun: true, sources: [source('customer', [customer(1), { externalId: 'C-2' }])] });
    await expect(failed).rejects.toThrow('customers.jsonl:2: records[0].name is required.'.replace('records[0].', ''));
    await expect(failed).rejects.toThrow('Nothing was sent.');
    expect(fake.calls).toEqual([]);
  });
});

describe('a load the service refuses', () => {
  it('rides out a 429 storm through the client retries, and loads', async () => {
    let refusals = 0;
    const fetch: typeof globalThis.fetch = async (input) => {
      const url = new Request(input).url;
      const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
        new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });
      if (url.endsWith('/records') && refusals++ < 3)
        return json(429, { error: { code: 'rate_limited', message: 'slow down' } }, { 'retry-after': '1' });
      if (url.endsWith('/records')) return json(202, { staged: 1 });
      if (url.endsWith('/commit')) return json(202, { jobId: 'job_1' });
      if (url.endsWith('/batches')) return json(201, { batchId: 'b_9', connectorId: 'con_1' });
      return json(200, {
        status: 'drained',
        entities: ['customer'],
        recordCount: 1,
        skippedOverCap: 0,
        createdAt: '2026-01-01T00:00:00Z',
        bandsRecomputedAt: '2026-01-01T00:00:01Z',
      });
    };
    const client = createPricingClient({ baseUrl: 'http://pricing.test', key: 'svc_live_x', fetch, sleep: async () => {} });
    const api: LoadApi = { ...client, stageRecords: (id, entity, records) => client.stageRecords(id, entity, records as never) };
    const summary = await loadExport({ api, sources: [source('customer', [customer(1)])] });
    expect(refusals).toBe(4);
    expect(summary).toMatchObject({ batchId: 'b_9', counts: { customer: 1 } });
  });

  it('reports a 429 that outlasts the client retries, and commits nothing', async () => {
    const limited = new PricingApiError({ status: 429, code: 'rate_limited', message: 'Too many requests.' });
    const fake = fakeApi({ stageRecords: () => Promise.reject(limited) });
    const failed = loadExport({ api: fake.api, sources: [source('product', range(3000).map(product))] });
    await expect(failed).rejects.toThrow(
      'Staging product records failed after the client retried (429 rate_limited: Too many requests.). Nothing was committed. Batch b_1 was cancelled',
    );
    expect(fake.calls).not.toContainEqual(['commit']);
  });

  it('reports a 503 on commit, without claiming the batch was not committed', async () => {
    const unavailable = new PricingApiError({ status: 503, code: 'gateway_error', message: 'Service Unavailable' });
    const fake = fakeApi({ commitBatch: () => Promise.reject(unavailable) });
    const failed = loadExport({ api: fake.api, sources: [source('product', [product(1)])] });
    await expect(failed).rejects.toThrow(
      'Committing batch b_1 failed after the client retried (503 gateway_error: Service Unavailable). It may not have been committed',
    );
    expect(fake.calls.map(([name]) => name)).not.toContain('wait');
  });

  it('fails a batch that fails to drain, with the reason the service gives', async () => {
    const fake = fakeApi({}, { status: 'failed', recordCount: 1, skippedOverCap: 0, error: 'drain gave up' });
    const failed = loadExport({ api: fake.api, sources: [source('product', [product(1)])] });
    await expect(failed).rejects.toThrow('Batch b_1 was committed but failed to drain: drain gave up');
    await expect(failed).rejects.toMatchObject({ committed: true });
  });

  it('fails when the batch cannot be opened, before reading further', async () => {
    const refused = new PricingApiError({ status: 401, code: 'unauthorized', message: 'Invalid key.' });
    const fake = fakeApi({ openBatch: () => Promise.reject(refused) });
    await expect(loadExport({ api: fake.api, sources: [source('product', [product(1)])] })).rejects.toThrow(
      'Opening a batch failed (401 unauthorized: Invalid key.). Nothing was sent.',
    );
  });
});
