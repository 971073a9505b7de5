// What the price-serving tests share: a drained history to price against, and price calls by key.
import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import type { SampleCatalogue } from '#lib/local/sample-catalogue.ts';
import type { CustomerRecord, OrderRecord, ProductRecord, QuoteRecord } from '#shared/records/schema.ts';
import { updateWorkspace, type WorkspaceChanges } from '#shared/workspaces/repository.ts';
import { commitBatch, openBatchWith, stageCatalogue, waitForBands, waitForBatch } from './ingest-support.ts';
import { type ApiResponse, call, newWorkspace, type TestWorkspace } from './support.ts';

export const PRICES_PATH = '/api/v1/prices';
const DAY_MS = 86_400_000;

export function daysAgo(days: number): string {
  return new Date(Date.now() - days * DAY_MS).toISOString();
}

/** A fresh Idempotency-Key unless one is given; null sends none. */
export function pricesCall(key: string, body: unknown, idempotencyKey: string | null = randomUUID()): Promise<ApiResponse> {
  return call(PRICES_PATH, {
    method: 'POST',
    key,
    body,
    headers: idempotencyKey === null ? {} : { 'idempotency-key': idempotencyKey },
  });
}

/** Settings are changed before the workspace serves anything: authentication caches a workspace for a minute. */
export async function workspaceWith(changes: WorkspaceChanges): Promise<TestWorkspace> {
  const workspace = await newWorkspace('Pricing Seller');
  await updateWorkspace(workspace.workspaceId, changes);
  return workspace;
}

/** Stages and commits a catalogue, then waits until it has drained and its bands are recomputed. */
export async function drain(workspace: TestWorkspace, catalogue: Partial<SampleCatalogue>): Promise<void> {
  const batchId = await openBatchWith(workspace.keys.connector);
  await stageCatalogue(workspace.keys.connector, batchId, { product: [], customer: [], quote: [], order: [], ...catalogue });
  await commitBatch(workspace.keys.connector, batchId);
  const status = await waitForBatch(workspace.keys.connector, batchId, ['drained', 'failed']);
  expect(status.status, JSON.stringify(status)).toBe('drained');
  await waitForBands(workspace.keys.connector, batchId);
}

/**
 * A small seller: Fasteners with a year of orders from enterprise customers at about 30% margin, one customer (C-LOYAL)
 * who pays about 40%, and customers in EUR (a fresh rate), GBP (a rate 30 days old) and CHF (no rate at all).
 */
export function pricingHistory(): SampleCatalogue {
  const product: ProductRecord[] = [
    { sku: 'BOLT', externalId: 'EXT-BOLT', name: 'Hex bolt', category: 'Fasteners', costCents: 1000, currentPriceCents: 1450 },
    { sku: 'NUT', name: 'Hex nut', category: 'Fasteners', costCents: 2000, currentPriceCents: 2900 },
    { sku: 'WASHER', name: 'Washer', category: 'Fasteners', costCents: 500, currentPriceCents: 700, mapCents: 900 },
    { sku: 'FREEBIE', name: 'Sample pack', category: 'Fasteners', costCents: 0, currentPriceCents: 0 },
    { sku: 'NEW', name: 'New line', category: 'Adhesives', costCents: 800, currentPriceCents: 1000 },
  ];
  const customer: CustomerRecord[] = [
    { externalId: 'C-LOYAL', name: 'Loyal Ltd', segment: 'enterprise' },
    { externalId: 'C-NEW', name: 'Newcomer Ltd', segment: 'enterprise' },
    { externalId: 'C-EUR', name: 'Euro GmbH', segment: 'enterprise', currency: 'EUR' },
    { externalId: 'C-GBP', name: 'Pound plc', segment: 'enterprise', currency: 'GBP' },
    { externalId: 'C-CHF', name: 'Franc AG', segment: 'enterprise', currency: 'CHF' },
  ];
  for (let i = 0; i < 20; i++) customer.push({ externalId: `C-${i}`, name: `Customer ${i}`, segment: 'enterprise' });
  const order: OrderRecord[] = [];
  for (let i = 0; i < 120; i++) {
    const margin = 0.26 + (i % 9) * 0.01;
    order.push({
      externalId: `O-${i}`,
      customerExternalId: `C-${i % 20}`,
      currency: 'USD',
      soldAt: daysAgo(2 + (i % 300)),
      lines: [
        { productSku: 'BOLT', quantity: 10 + (i % 5), costCents: 1000, soldPriceCents: Math.round(1000 / (1 - margin)) },
        { productSku: 'NUT', quantity: 5, costCents: 2000, soldPriceCents: Math.round(2000 / (1 - margin)) },
        { productSku: 'WASHER', quantity: 100, costCents: 500, soldPriceCents: Math.round(500 / (1 - margin)) },
      ],
    });
  }
  for (let i = 0; i < 30; i++) {
    order.push({
      externalId: `O-LOYAL-${i}`,
      customerExternalId: 'C-LOYAL',
      currency: 'USD',
      soldAt: daysAgo(3 + i * 5),
      lines: [{ productSku: 'BOLT', quantity: 12, costCents: 1000, soldPriceCents: Math.round(1000 / (1 - 0.4)) }],
    });
  }
  order.push(
    {
      externalId: 'O-EUR',
      customerExternalId: 'C-EUR',
      currency: 'EUR',
      exchangeRate: 1.1,
      soldAt: daysAgo(1),
      lines: [{ productSku: 'NUT', quantity: 1, costCents: 1800, soldPriceCents: 2500 }],
    },
    {
      externalId: 'O-GBP',
      customerExternalId: 'C-GBP',
      currency: 'GBP',
      exchangeRate: 1.25,
      soldAt: daysAgo(30),
      lines: [{ productSku: 'NUT', quantity: 1, costCents: 1600, soldPriceCents: 2300 }],
    },
  );
  const quote: QuoteRecord[] = [];
  return { product, customer, quote, order };
}

export function okLines(response: ApiResponse): Array<Record<string, unknown>> {
  expect(response.status, response.text).toBe(200);
  return response.json.lines as Array<Record<string, unknown>>;
}

/** Two products with no history: LAMP's recommendation is its list price, 15.00, within [12.00, 20.00]. */
export const LAMP: ProductRecord = {
  sku: 'LAMP',
  externalId: 'EXT-LAMP',
  name: 'Desk lamp',
  category: 'Lighting',
  costCents: 1000,
  currentPriceCents: 1500,
  floorCents: 1200,
  ceilingCents: 2000,
};
export const SHADE: ProductRecord = { sku: 'SHADE', name: 'Lamp shade', category: 'Lighting', costCents: 500, currentPriceCents: 800 };
