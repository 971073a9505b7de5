// Price calls follow a batch's bands as soon as the bands job has written them, whatever the instance's cache holds: on a local stack of this file's own, whose handlers share this process and its cache.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { getItem } from '#platform/table/commands.ts';
import { keys } from '#platform/table/keys.ts';
import { type LocalStack, startLocalStack } from '#lib/local/stack.ts';
import { workers } from '#edge/routes.ts';
import { forgetCachedBands, fromBandsCache } from '#shared/prices/bands-cache.ts';
import type { OrderRecord } from '#shared/records/schema.ts';
import { commitBatch, openBatchWith, stageCatalogue, waitForBands, waitForBatch } from './ingest-support.ts';
import { daysAgo, pricingHistory } from './prices-support.ts';
import { call, newWorkspace, type TestWorkspace } from './support.ts';

// Two batches drained and their bands jobs, on a busy machine: how long that takes is no part of what is checked.
vi.setConfig({ testTimeout: 240_000 });

/** Far longer than the test: a price call that used the cache's time to live alone would keep the first bands. */
const CACHE_SECONDS = '3600';

let stack: LocalStack;
const previousCache = process.env.PRICE_BANDS_CACHE_SECONDS;
const base = () => stack.gatewayUrl;

beforeAll(async () => {
  process.env.PRICE_BANDS_CACHE_SECONDS = CACHE_SECONDS;
  forgetCachedBands();
  stack = await startLocalStack({ port: 0, workers: workers.filter((worker) => worker.id === 'drain') });
}, 240_000);

afterAll(async () => {
  await stack?.stop();
  if (previousCache === undefined) delete process.env.PRICE_BANDS_CACHE_SECONDS;
  else process.env.PRICE_BANDS_CACHE_SECONDS = previousCache;
  forgetCachedBands();
});

async function drainBatch(workspace: TestWorkspace, catalogue: Parameters<typeof stageCatalogue>[2]) {
  const key = workspace.keys.connector;
  const batchId = await openBatchWith(key, base());
  await stageCatalogue(key, batchId, catalogue, { baseUrl: base() });
  await commitBatch(key, batchId, base());
  await waitForBatch(key, batchId, ['drained'], { baseUrl: base(), timeoutMs: 120_000 });
  await waitForBands(key, batchId, { baseUrl: base(), timeoutMs: 120_000 });
  const status = await call(`/api/v1/ingest/batches/${batchId}`, { key, baseUrl: base() });
  return status.json as { pricesFreshAt?: string; bandsRecomputedAt?: string };
}

async function priceBolt(workspace: TestWorkspace): Promise<void> {
  const response = await call('/api/v1/prices', {
    method: 'POST',
    key: workspace.keys.erp,
    baseUrl: base(),
    headers: { 'idempotency-key': randomUUID() },
    body: { lines: [{ productSku: 'BOLT', customerExternalId: 'C-1', quantity: 10 }] },
  });
  expect(response.status, response.text).toBe(200);
}

/** The Fasteners bands item this process's price calls would answer from now, and the one the table holds. */
async function fastenerBands(workspaceId: string) {
  const Key = keys.categoryBands(workspaceId, 'Fasteners');
  const { cached } = fromBandsCache([Key], Date.now());
  return { cached: cached[0], stored: await getItem({ Key, ConsistentRead: true }) };
}

/** A month of orders at twice the margin of the history: the category's bands move. */
function dearerOrders(): OrderRecord[] {
  return Array.from({ length: 60 }, (_, i) => ({
    externalId: `O-dear-${i}`,
    customerExternalId: `C-${i % 20}`,
    currency: 'USD',
    soldAt: daysAgo(1 + (i % 20)),
    lines: [{ productSku: 'BOLT', quantity: 10, costCents: 1000, soldPriceCents: 2500 }],
  }));
}

describe('prices after a batch, with bands cached per instance', () => {
  it('answers from the bands a batch moved once the batch shows pricesFreshAt, long before the cache would have let them go', async () => {
    const seller = await newWorkspace('Freshness Seller');
    await drainBatch(seller, pricingHistory());
    await priceBolt(seller);
    const before = await fastenerBands(seller.workspaceId);
    expect(before.cached, 'the first price call caches the category bands').toEqual(before.stored);

    const status = await drainBatch(seller, { product: [], customer: [], quote: [], order: dearerOrders() });
    expect(status.pricesFreshAt).toBeDefined();
    expect(Date.parse(status.pricesFreshAt ?? '')).toBeLessThanOrEqual(Date.parse(status.bandsRecomputedAt ?? ''));
    const moved = await fastenerBands(seller.workspaceId);
    expect(moved.stored?.updatedAt).not.toEqual(before.stored?.updatedAt);
    // Well within the cache's time to live: the connector's status reads, API requests too, brought the stamp back,
    // and the instance no longer serves the bands it had.
    expect(moved.cached).toBeUndefined();

    await priceBolt(seller);
    const after = await fastenerBands(seller.workspaceId);
    expect(after.cached).toEqual(after.stored);
    expect(after.cached?.updatedAt).toEqual(moved.stored?.updatedAt);
  });
});
