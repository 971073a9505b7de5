// The drain through the shared local stack: staged records reach canonical data as products, customers, history lines, FX rates and touched lists.
import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { sampleCatalogue } from '#lib/local/sample-catalogue.ts';
import { runDrainJob } from '#shared/pipeline/drain.ts';
import { readTouched } from '#shared/batches/chunk-items.ts';
import { BatchLeaseHeld, finishDrain, leaseBatch } from '#shared/batches/lease.ts';
import { commitBatch as commitBatchItem, getBatch, openBatch as openBatchItem } from '#shared/batches/repository.ts';
import { tableName } from '#platform/config.ts';
import type { OrderRecord, ProductRecord, QuoteRecord } from '#shared/records/schema.ts';
import { tableClient } from '#platform/table/client.ts';
import { table } from '#platform/table/definition.ts';
import { keys } from '#platform/table/keys.ts';
import { lookupKeys } from '#platform/table/index-keys.ts';
import { readCategoryLines } from '#shared/bands/repository.ts';
import { writeLegacyDocuments } from './legacy-layout.ts';
import {
  commitBatch,
  dumpCanonical,
  loggedLines,
  openBatchWith,
  stageCatalogue,
  waitForBatch,
  workspaceWithCap,
} from './ingest-support.ts';
import { call, newWorkspace, type TestWorkspace } from './support.ts';

const [lookupIndex] = table.indexes;

async function getItem(key: { PK: string; SK: string }) {
  const { Item } = await tableClient().send(new GetCommand({ TableName: tableName(), Key: key, ConsistentRead: true }));
  return Item;
}

async function stage(workspace: TestWorkspace, batchId: string, entity: string, records: unknown[]) {
  const response = await call(`/api/v1/ingest/batches/${batchId}/records`, {
    method: 'POST',
    key: workspace.keys.connector,
    body: { entity, records },
  });
  expect(response.status, response.text).toBe(202);
  return response.json.staged as number;
}

// How long staging and a drain take is no part of what these tests check: on a busy machine they take longer than
// the project's default allows.
vi.setConfig({ testTimeout: 240_000 });

async function drainAll(workspace: TestWorkspace, batchId: string) {
  await commitBatch(workspace.keys.connector, batchId);
  return waitForBatch(workspace.keys.connector, batchId, ['drained', 'failed'], { timeoutMs: 180_000 });
}

const product = (sku: string, overrides: Partial<ProductRecord> = {}): ProductRecord => ({
  sku,
  name: `Product ${sku}`,
  category: 'Fasteners',
  costCents: 100,
  currentPriceCents: 150,
  ...overrides,
});

const quote = (externalId: string, skus: string[], overrides: Partial<QuoteRecord> = {}): QuoteRecord => ({
  externalId,
  customerExternalId: 'C-1',
  outcome: 'won',
  createdAt: '2026-10-01T10:00:00Z',
  lines: skus.map((productSku) => ({ productSku, quantity: 2, costCents: 100, quotedPriceCents: 140, pricingDecisionId: null })),
  ...overrides,
});

const order = (externalId: string, soldAt: string, currency: string, exchangeRate: number | null): OrderRecord => ({
  externalId,
  customerExternalId: null,
  currency,
  exchangeRate,
  soldAt,
  lines: [{ productSku: 'A', quantity: 1, costCents: 100, soldPriceCents: 150 }],
});

describe('draining a committed batch', () => {
  let workspace: TestWorkspace;
  beforeAll(async () => {
    workspace = await newWorkspace();
  });

  it('stages all four kinds, commits, and reaches drained with every record in canonical data', async () => {
    const catalogue = sampleCatalogue({ products: 40, customers: 10, quotes: 30, orders: 50 }, { seed: 7 });
    const batchId = await openBatchWith(workspace.keys.connector);
    await stageCatalogue(workspace.keys.connector, batchId, catalogue, { perCall: 25 });

    const status = await drainAll(workspace, batchId);
    expect(status).toMatchObject({
      status: 'drained',
      entities: ['product', 'customer', 'quote', 'order'],
      recordCount: 130,
      drainedCount: 130,
    });
    expect(status.drainedAt).toBeDefined();
    expect(status).not.toHaveProperty('error');

    const first = catalogue.product[0] as ProductRecord;
    expect(await getItem(keys.product(workspace.workspaceId, first.sku))).toMatchObject({
      sku: first.sku,
      category: first.category,
      costCents: first.costCents,
      attributesJson: JSON.stringify(first.attributes),
    });
    const customer = catalogue.customer[3];
    expect(await getItem(keys.customer(workspace.workspaceId, customer?.externalId ?? ''))).toMatchObject({ segment: customer?.segment });

    const dump = await dumpCanonical(workspace.workspaceId);
    const lines = (type: string) => dump.filter((item) => item.type === type).length;
    expect(dump.filter((item) => item.type === 'product')).toHaveLength(40);
    expect(dump.filter((item) => item.type === 'customer')).toHaveLength(10);
    // A quote or an order is one item, its lines embedded; the lines are logged once more, compactly, per category.
    expect(lines('quoteDocument')).toBe(catalogue.quote.length);
    expect(lines('orderDocument')).toBe(catalogue.order.length);
    expect(lines('quoteLine') + lines('orderLine')).toBe(0);
    const logged = loggedLines(dump);
    expect(logged).toHaveLength([...catalogue.quote, ...catalogue.order].reduce((sum, record) => sum + record.lines.length, 0));
  });

  it('finds a product by its external id through the lookup index', async () => {
    const batchId = await openBatchWith(workspace.keys.connector);
    await stage(workspace, batchId, 'product', [product('EXT-1', { externalId: 'ERP-77' })]);
    await drainAll(workspace, batchId);
    const { Items } = await tableClient().send(
      new QueryCommand({
        TableName: tableName(),
        IndexName: lookupIndex.name,
        KeyConditionExpression: `${lookupIndex.partitionKey} = :pk`,
        ExpressionAttributeValues: { ':pk': lookupKeys.productByExternalId(workspace.workspaceId, 'ERP-77')[lookupIndex.partitionKey] },
      }),
    );
    expect(Items?.map((item) => item.PK)).toEqual([keys.product(workspace.workspaceId, 'EXT-1').PK]);
  });

  it('keeps the later record for the same key, within a call and across calls', async () => {
    const batchId = await openBatchWith(workspace.keys.connector);
    await stage(workspace, batchId, 'product', [product('LW-1', { name: 'first' }), product('LW-1', { name: 'second' })]);
    await stage(workspace, batchId, 'product', [product('LW-2', { name: 'first' })]);
    await stage(workspace, batchId, 'product', [product('LW-2', { name: 'third' })]);
    const status = await drainAll(workspace, batchId);
    expect(status).toMatchObject({ status: 'drained', recordCount: 4 });
    expect(await getItem(keys.product(workspace.workspaceId, 'LW-1'))).toMatchObject({ name: 'second' });
    expect(await getItem(keys.product(workspace.workspaceId, 'LW-2'))).toMatchObject({ name: 'third' });
  });

  it("reads a category's lines from its history log, with their segment and customer, and writes no index entry per line", async () => {
    const batchId = await openBatchWith(workspace.keys.connector);
    await stage(workspace, batchId, 'product', [product('H-1', { category: 'Eyewear' }), product('H-2', { category: 'Eyewear' })]);
    await stage(workspace, batchId, 'customer', [
      { name: 'One', externalId: 'HC-1', segment: 'smb' },
      { name: 'Two', externalId: 'HC-2', segment: 'enterprise' },
    ]);
    await stage(workspace, batchId, 'quote', [
      quote('HQ-1', ['H-1', 'H-2'], { customerExternalId: 'HC-1' }),
      quote('HQ-2', ['H-1'], { customerExternalId: 'HC-2' }),
    ]);
    await drainAll(workspace, batchId);

    const lines = await readCategoryLines(workspace.workspaceId, 'Eyewear', Date.now());
    expect(lines).toHaveLength(3);
    const smb = lines.filter((line) => line.segment === 'smb');
    expect(smb).toHaveLength(2);
    expect(smb[0]).toMatchObject({ category: 'Eyewear', customerExternalId: 'HC-1', outcome: 'won', priceCents: 140 });
    const document = await getItem(keys.document(workspace.workspaceId, 'quote', 'HQ-1'));
    expect(document).not.toHaveProperty('lookupPk');
    expect(document).not.toHaveProperty('historyPk');
  });

  it('replaces a document whole: its category log counts only the newer version’s lines', async () => {
    const first = await openBatchWith(workspace.keys.connector);
    await stage(workspace, first, 'product', [product('S-1', { category: 'Shrink' }), product('S-9', { category: 'Shrink' })]);
    await stage(workspace, first, 'quote', [quote('SHRINK-1', ['S-1', 'S-1', 'S-1'])]);
    await drainAll(workspace, first);
    const second = await openBatchWith(workspace.keys.connector);
    await stage(workspace, second, 'quote', [quote('SHRINK-1', ['S-9'])]);
    await drainAll(workspace, second);

    expect(await getItem(keys.document(workspace.workspaceId, 'quote', 'SHRINK-1'))).toMatchObject({
      lineCount: 1,
      lineItems: 1,
      version: 2,
    });
    const lines = await readCategoryLines(workspace.workspaceId, 'Shrink', Date.now());
    expect(lines.filter((line) => line.documentId === 'SHRINK-1').map((line) => line.productSku)).toEqual(['S-9']);
  });

  it('removes the line items of a document stored in the older layout when a newer version arrives', async () => {
    const from = { workspaceId: workspace.workspaceId, batchId: 'legacy', syncedAt: new Date().toISOString() };
    const record = { ...quote('LEGACY-1', ['L-1', 'L-1', 'L-1']), createdAt: new Date().toISOString() };
    const known = { categoryOf: () => 'Legacy', segmentOf: () => undefined };
    await writeLegacyDocuments([{ kind: 'quote', record }], known, from);
    expect(await readCategoryLines(workspace.workspaceId, 'Legacy', Date.now())).toHaveLength(3);

    const batchId = await openBatchWith(workspace.keys.connector);
    await stage(workspace, batchId, 'product', [product('L-1', { category: 'Legacy' })]);
    await stage(workspace, batchId, 'quote', [quote('LEGACY-1', ['L-1'])]);
    await drainAll(workspace, batchId);

    const partition = keys.documentLines(workspace.workspaceId, 'quote', 'LEGACY-1');
    const { Items } = await tableClient().send(
      new QueryCommand({
        TableName: tableName(),
        KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
        ExpressionAttributeValues: { ':pk': partition.PK, ':prefix': partition.SKPrefix },
        ConsistentRead: true,
      }),
    );
    expect(Items?.map((item) => [item.type, item.lineCount])).toEqual([['quoteDocument', 1]]);
    expect(await readCategoryLines(workspace.workspaceId, 'Legacy', Date.now())).toHaveLength(1);
  });

  it('keeps the newest exchange rate per currency, whatever order the documents arrive in', async () => {
    const batchId = await openBatchWith(workspace.keys.connector);
    await stage(workspace, batchId, 'order', [
      order('FX-2', '2026-10-05T00:00:00Z', 'EUR', 1.1),
      order('FX-1', '2026-09-01T00:00:00Z', 'EUR', 1.05),
      order('FX-3', '2026-10-04T00:00:00+02:00', 'GBP', 1.3),
      order('FX-4', '2026-10-06T00:00:00Z', 'JPY', null),
    ]);
    await drainAll(workspace, batchId);
    const later = await openBatchWith(workspace.keys.connector);
    await stage(workspace, later, 'order', [order('FX-5', '2026-08-01T00:00:00Z', 'EUR', 0.9)]);
    await drainAll(workspace, later);

    expect(await getItem(keys.fxRate(workspace.workspaceId, 'EUR'))).toMatchObject({
      rate: 1.1,
      asOf: '2026-10-05T00:00:00Z',
      source: 'order:FX-2',
    });
    expect(await getItem(keys.fxRate(workspace.workspaceId, 'GBP'))).toMatchObject({ rate: 1.3 });
    expect(await getItem(keys.fxRate(workspace.workspaceId, 'JPY'))).toBeUndefined();
  });

  it('lists the products, customers and pricing nodes the batch touched', async () => {
    const batchId = await openBatchWith(workspace.keys.connector);
    await stage(workspace, batchId, 'product', [product('T-1', { category: 'Plumbing' })]);
    await stage(workspace, batchId, 'customer', [{ name: 'T', externalId: 'TC-1', segment: 'smb' }]);
    await stage(workspace, batchId, 'quote', [quote('TQ-1', ['T-1'], { customerExternalId: 'TC-1' })]);
    await drainAll(workspace, batchId);

    const touched = await readTouched({ workspaceId: workspace.workspaceId, batchId });
    expect(touched.products).toEqual(new Set(['T-1']));
    expect(touched.customers).toEqual(new Set(['TC-1']));
    expect(touched.nodes).toEqual(
      new Set([
        JSON.stringify(['customerSku', 'TC-1', 'T-1']),
        JSON.stringify(['segmentSku', 'smb', 'T-1']),
        JSON.stringify(['segmentCategory', 'smb', 'Plumbing']),
        JSON.stringify(['category', 'Plumbing']),
        JSON.stringify(['categorySku', 'Plumbing', 'T-1']),
        JSON.stringify(['categoryCustomer', 'Plumbing', 'TC-1']),
        // The product's record itself: its list price may have moved.
        JSON.stringify(['productRecord', 'T-1']),
      ]),
    );
  });

  it('keeps counts exact when 10 calls of 100 records stage into one batch at once', async () => {
    const catalogue = sampleCatalogue({ products: 1000, customers: 0, quotes: 0, orders: 0 }, { seed: 11, prefix: 'PAR-' });
    const batchId = await openBatchWith(workspace.keys.connector);
    const staged = await Promise.all(
      Array.from({ length: 10 }, (_, call) => stage(workspace, batchId, 'product', catalogue.product.slice(call * 100, call * 100 + 100))),
    );
    expect(staged).toEqual(Array.from({ length: 10 }, () => 100));
    expect(await waitForBatch(workspace.keys.connector, batchId, ['open'])).toMatchObject({ recordCount: 1000, skippedOverCap: 0 });

    const status = await drainAll(workspace, batchId);
    expect(status).toMatchObject({ status: 'drained', recordCount: 1000, drainedCount: 1000 });
    const products = (await dumpCanonical(workspace.workspaceId)).filter(
      (item) => item.type === 'product' && String(item.sku).startsWith('PAR-'),
    );
    expect(products).toHaveLength(1000);
  });
});

describe('drain messages that do not match their batch', () => {
  it('looks again shortly when the batch is still open and the message is fresh, and drops a stale one', async () => {
    const workspace = await newWorkspace();
    const batch = await openBatchItem({ workspaceId: workspace.workspaceId, connectorId: workspace.connectorId });
    const invocation = (sentAt: Date) => ({
      message: { workspaceId: workspace.workspaceId, batchId: batch.batchId, jobId: 'job_never_committed', sentAt: sentAt.toISOString() },
      body: '{}',
      receiveCount: 1,
      remainingMs: () => 60_000,
    });
    expect((await runDrainJob(invocation(new Date()))).outcome).toBe('bounced');
    expect((await runDrainJob(invocation(new Date(Date.now() - 5 * 60_000)))).outcome).toBe('ignored');
    expect(await getItem(keys.batch(workspace.workspaceId, batch.batchId))).toMatchObject({ status: 'open' });
  });
});

describe('committing when the drain message cannot be sent', () => {
  it('leaves the batch open and committable, and a retry commits it', async () => {
    const workspace = await newWorkspace();
    const owner = { workspaceId: workspace.workspaceId, connectorId: workspace.connectorId };
    const batch = await openBatchItem(owner);
    const unreachable = async () => {
      throw new Error('queue unreachable');
    };
    await expect(commitBatchItem(owner, batch.batchId, unreachable)).rejects.toThrow('queue unreachable');
    expect(await getItem(keys.batch(workspace.workspaceId, batch.batchId))).toMatchObject({ status: 'open' });

    const sent: string[] = [];
    const { jobId } = await commitBatchItem(owner, batch.batchId, async (job) => {
      sent.push(job.jobId);
    });
    expect(sent).toEqual([jobId]);
    expect(await getItem(keys.batch(workspace.workspaceId, batch.batchId))).toMatchObject({ status: 'committed', jobId });
  });
});

describe('parallel staging at the cap', () => {
  it('stages exactly up to the cap when three calls race for the last room, and counts the rest as skipped', async () => {
    const workspace = await workspaceWithCap(150);
    const catalogue = sampleCatalogue({ products: 300, customers: 0, quotes: 0, orders: 0 }, { seed: 5, prefix: 'CAP-' });
    const batchId = await openBatchWith(workspace.keys.connector);
    const staged = await Promise.all(
      [0, 1, 2].map((call) => stage(workspace, batchId, 'product', catalogue.product.slice(call * 100, call * 100 + 100))),
    );
    expect(staged.reduce((sum, count) => sum + count, 0)).toBe(150);
    expect(await waitForBatch(workspace.keys.connector, batchId, ['open'])).toMatchObject({ recordCount: 150, skippedOverCap: 150 });
  });
});

describe('drain attempts', () => {
  async function committedBatch() {
    const workspace = await newWorkspace();
    const owner = { workspaceId: workspace.workspaceId, connectorId: workspace.connectorId };
    const batch = await openBatchItem(owner);
    const sent: Array<{ workspaceId: string; batchId: string; jobId: string; sentAt: string }> = [];
    await commitBatchItem(owner, batch.batchId, async (job) => {
      sent.push(job);
    });
    const message = sent[0];
    if (!message) throw new Error('no drain job');
    return { workspace, message };
  }

  it('fails the batch and parks the job when earlier attempts all died without reporting', async () => {
    const { workspace, message } = await committedBatch();
    const result = await runDrainJob({ message, body: JSON.stringify(message), receiveCount: 4, remainingMs: () => 60_000 });
    expect(result.outcome).toBe('failed');
    const batch = await getBatch(workspace.workspaceId, message.batchId);
    expect(batch).toMatchObject({ status: 'failed' });
    expect(batch?.error).toMatch(/^The drain failed after 3 attempts \(each attempt stopped without finishing/);
  });

  it('looks again shortly at a bands job that arrives before its drain has marked the batch drained', async () => {
    const { workspace, message } = await committedBatch();
    const batch = await getBatch(workspace.workspaceId, message.batchId);
    if (!batch) throw new Error('no batch');
    await leaseBatch(batch, 'chunks', 'a-drain-finishing', Date.now() + 60_000, new Date());
    const bands = { ...message, phase: 'bands' as const, continuation: 0 };
    const invocation = (sentAt: Date) => ({
      message: { ...bands, sentAt: sentAt.toISOString() },
      body: JSON.stringify(bands),
      receiveCount: 1,
      remainingMs: () => 60_000,
    });
    expect((await runDrainJob(invocation(new Date()))).outcome).toBe('bounced');
    // A job that old was sent by a drain that has since faulted; its redelivery sends a job of its own.
    expect((await runDrainJob(invocation(new Date(Date.now() - 5 * 60_000)))).outcome).toBe('ignored');
    expect(await getBatch(workspace.workspaceId, message.batchId)).toMatchObject({ status: 'draining' });
  });

  it('waits a moment for a drain that marks the batch drained just after sending its bands job, rather than bouncing it', async () => {
    const { workspace, message } = await committedBatch();
    const batch = await getBatch(workspace.workspaceId, message.batchId);
    if (!batch) throw new Error('no batch');
    const leased = await leaseBatch(batch, 'chunks', 'a-drain-finishing', Date.now() + 60_000, new Date());
    const bands = { ...message, phase: 'bands' as const, continuation: 0, sentAt: new Date().toISOString() };
    const job = runDrainJob({ message: bands, body: JSON.stringify(bands), receiveCount: 1, remainingMs: () => 60_000 });
    // The drain's last write lands while the job reads the batch again.
    await finishDrain(leased, 'a-drain-finishing', new Date());
    expect((await job).outcome).toBe('recomputed');
    expect(await getBatch(workspace.workspaceId, message.batchId)).toMatchObject({ status: 'drained' });
    expect((await getBatch(workspace.workspaceId, message.batchId))?.pricesFreshAt).toBeDefined();
    // A batch that touched no category moved no bands: the rate shards carry no stamp for instances to act on.
    expect((await getItem(keys.rateShard(workspace.workspaceId, 'api', 0)))?.bandsAt).toBeUndefined();
  });

  it('leaves a batch another live drain holds alone: retried later, or dropped on the last attempt', async () => {
    const { workspace, message } = await committedBatch();
    const batch = await getBatch(workspace.workspaceId, message.batchId);
    if (!batch) throw new Error('no batch');
    await leaseBatch(batch, 'chunks', 'another-drain', Date.now() + 60_000, new Date());
    const invocation = (receiveCount: number) => ({ message, body: JSON.stringify(message), receiveCount, remainingMs: () => 60_000 });

    await expect(runDrainJob(invocation(1))).rejects.toBeInstanceOf(BatchLeaseHeld);
    expect((await runDrainJob(invocation(3))).outcome).toBe('ignored');
    expect(await getBatch(workspace.workspaceId, message.batchId)).toMatchObject({ status: 'draining', leaseOwner: 'another-drain' });
  });
});
