// Bands after a drain, and the admin commands that rebuild them, change pricing settings and look up a decision.
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { projectRoot } from '#lib/stack/project.ts';
import { decodeBandMap } from '#shared/bands/items.ts';
import { BandsLeaseHeld, releaseBandsLease, takeBandsLease } from '#shared/bands/lease.ts';
import { rebuildBands } from '#shared/bands/recompute.ts';
import { readAllCategoryBands, readCategoryLines } from '#shared/bands/repository.ts';
import { DrainMemory } from '#shared/pipeline/memory.ts';
import { prepareChunk } from '#shared/pipeline/prepare.ts';
import { writeChunk } from '#shared/pipeline/prepared-chunk.ts';
import { tableName } from '#platform/config.ts';
import { defaultPricingSettings } from '#shared/pricing/settings.ts';
import type { ProductRecord } from '#shared/records/schema.ts';
import { tableClient } from '#platform/table/client.ts';
import { keys } from '#platform/table/keys.ts';
import { commitBatch, openBatchWith, stageCatalogue, waitForBands, waitForBatch } from './ingest-support.ts';
import { drain, okLines, pricesCall, pricingHistory } from './prices-support.ts';
import { newWorkspace, type TestWorkspace } from './support.ts';
import { getPrice } from './writebacks-support.ts';

// Drains and recomputes run whole here: on a busy machine they take longer than the project's default allows, and how
// long they take is no part of what these tests check.
vi.setConfig({ testTimeout: 240_000 });

const run = promisify(execFile);

async function adminJson(...args: string[]) {
  const { stdout } = await run(process.execPath, ['bin/admin.ts', ...args, '--stack', inject('stackFile'), '--json'], { cwd: projectRoot });
  return JSON.parse(stdout);
}

async function item(key: { PK: string; SK: string }) {
  const { Item } = await tableClient().send(new GetCommand({ TableName: tableName(), Key: key, ConsistentRead: true }));
  return Item;
}

describe('bands after a drain', () => {
  let seller: TestWorkspace;
  beforeAll(async () => {
    seller = await newWorkspace('Banded Seller');
    await drain(seller, pricingHistory());
  }, 60_000);

  it('holds a band for every node the history feeds, where a price call reads it', async () => {
    const product = await item(keys.product(seller.workspaceId, 'BOLT'));
    const segmentBands = decodeBandMap(product?.segmentBands);
    expect([...segmentBands.keys()]).toEqual(['enterprise']);
    expect(segmentBands.get('enterprise')?.target).toBeGreaterThan(0.25);
    expect(segmentBands.get('enterprise')?.target).toBeLessThan(0.35);

    const loyal = decodeBandMap((await item(keys.customerBands(seller.workspaceId, 'C-LOYAL', 'Fasteners')))?.bands);
    expect(loyal.get('BOLT')?.target).toBeCloseTo(0.4, 2);

    const categories = await readAllCategoryBands(seller.workspaceId);
    // Adhesives has a product but no history: it is known, with no band, so a rebuild still walks it.
    expect(categories.map((entry) => entry.category).sort()).toEqual(['Adhesives', 'Fasteners']);
    const fasteners = categories.find((entry) => entry.category === 'Fasteners');
    expect([...(fasteners?.segments.keys() ?? [])]).toEqual(['enterprise']);
    expect(categories.find((entry) => entry.category === 'Adhesives')?.band).toBeUndefined();
    const workspace = await item(keys.workspaceBands(seller.workspaceId));
    expect(workspace?.band).toEqual(expect.any(String));
    // Beside it, each segment's win lift: none here, where no category has the closed quotes for a win model.
    expect(workspace).toHaveProperty('winLifts', null);
  });

  it('keeps a product its bands when a later batch replaces the product item, before and after the bands job', async () => {
    const bolt = pricingHistory().product.find((product) => product.sku === 'BOLT');
    const batchId = await openBatchWith(seller.keys.connector);
    await stageCatalogue(seller.keys.connector, batchId, {
      product: [{ ...(bolt as NonNullable<typeof bolt>), currentPriceCents: 1500 }],
      customer: [],
      quote: [],
      order: [],
    });
    await commitBatch(seller.keys.connector, batchId);
    await waitForBatch(seller.keys.connector, batchId, ['drained']);
    const replaced = await item(keys.product(seller.workspaceId, 'BOLT'));
    expect(replaced?.currentPriceCents).toBe(1500);
    expect([...decodeBandMap(replaced?.segmentBands).keys()]).toEqual(['enterprise']);
    await waitForBands(seller.keys.connector, batchId);
    expect([...decodeBandMap((await item(keys.product(seller.workspaceId, 'BOLT')))?.segmentBands).keys()]).toEqual(['enterprise']);
  }, 30_000);
});

describe('bands after a corrected document', () => {
  const soldAt = new Date(Date.now() - 5 * 86_400_000).toISOString();
  const order = (productSku: string) => ({
    externalId: 'O-FIX',
    customerExternalId: 'C-FIX',
    currency: 'USD',
    soldAt,
    lines: [{ productSku, quantity: 3, costCents: 700, soldPriceCents: 1000 }],
  });
  const product = (sku: string, category: string) => ({ sku, name: sku, category, costCents: 700, currentPriceCents: 1000 });
  const customer = [{ externalId: 'C-FIX', name: 'Fixer Ltd', segment: 'smb' }];

  it('takes the bands a line fed away with it when a newer version of its order moves it to another product', async () => {
    const seller = await newWorkspace('Corrected Seller');
    await drain(seller, { product: [product('GLUE', 'Adhesives'), product('TAPE', 'Tapes')], customer, order: [order('GLUE')] });
    expect((await item(keys.product(seller.workspaceId, 'GLUE')))?.segmentBands).toBeDefined();
    expect(await item(keys.customerBands(seller.workspaceId, 'C-FIX', 'Adhesives'))).toBeDefined();

    // The order was keyed against the wrong product: its corrected version names tape.
    await drain(seller, { order: [order('TAPE')] });
    expect((await item(keys.product(seller.workspaceId, 'GLUE')))?.segmentBands).toBeUndefined();
    expect(await item(keys.customerBands(seller.workspaceId, 'C-FIX', 'Adhesives'))).toBeUndefined();
    const categories = await readAllCategoryBands(seller.workspaceId);
    expect(categories.find((entry) => entry.category === 'Adhesives')?.band).toBeUndefined();
    expect(decodeBandMap((await item(keys.product(seller.workspaceId, 'TAPE')))?.segmentBands).has('smb')).toBe(true);
    expect(decodeBandMap((await item(keys.customerBands(seller.workspaceId, 'C-FIX', 'Tapes')))?.bands).has('TAPE')).toBe(true);
  });

  it('recomputes the category a re-synced line leaves when its product has moved, and keeps the product the bands of its new one', async () => {
    const seller = await newWorkspace('Moving Seller');
    await drain(seller, { product: [product('GLUE', 'Adhesives')], customer, order: [order('GLUE')] });
    await drain(seller, { product: [product('GLUE', 'Tapes')], order: [order('GLUE')] });

    const categories = await readAllCategoryBands(seller.workspaceId);
    expect(categories.find((entry) => entry.category === 'Adhesives')?.band).toBeUndefined();
    expect(categories.find((entry) => entry.category === 'Tapes')?.band?.nEff).toBeCloseTo(1, 6);
    expect(await item(keys.customerBands(seller.workspaceId, 'C-FIX', 'Adhesives'))).toBeUndefined();
    expect(await item(keys.customerBands(seller.workspaceId, 'C-FIX', 'Tapes'))).toBeDefined();
    // Adhesives lost the glue's line, but the glue is in Tapes now: the bands it carries are those of Tapes.
    expect(decodeBandMap((await item(keys.product(seller.workspaceId, 'GLUE')))?.segmentBands).has('smb')).toBe(true);
  });

  it('still touches what the replaced version fed when a drain runs again after writing the new one', async () => {
    const seller = await newWorkspace('Rerun Seller');
    await drain(seller, { product: [product('GLUE', 'Adhesives'), product('TAPE', 'Tapes')], customer, order: [order('GLUE')] });
    const from = { workspaceId: seller.workspaceId, batchId: 'batch-rerun', syncedAt: new Date().toISOString() };
    const adhesives = (nodes: ReadonlySet<string>) => [...nodes].filter((node) => node.includes('Adhesives'));

    const first = await prepareChunk('order', [order('TAPE')], from, new DrainMemory(), 'batch-rerun#CHUNK#1');
    expect(adhesives(first.touched.nodes)).not.toEqual([]);
    await writeChunk(first);
    // The attempt died before it recorded what it touched; the next reads back the version the first wrote.
    const again = await prepareChunk('order', [order('TAPE')], from, new DrainMemory(), 'batch-rerun#CHUNK#1');
    expect(adhesives(again.touched.nodes).sort()).toEqual(adhesives(first.touched.nodes).sort());
  });
});

describe("the list markups a category's bands job keeps for the next", () => {
  const kept = async (workspaceId: string) => JSON.parse(String((await item(keys.listMarkups(workspaceId, 'Fasteners')))?.markups));

  it('are read again for the products a batch re-sends, trusted for the rest, and read in full by a rebuild', async () => {
    const seller = await newWorkspace('Kept Markups Seller');
    const history = pricingHistory();
    await drain(seller, history);
    expect(await kept(seller.workspaceId)).toEqual({ BOLT: 1.45, NUT: 1.45, WASHER: 1.4 });

    // NUT's list price moves in the table without its record coming through a batch: the next job trusts what it kept.
    await tableClient().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.product(seller.workspaceId, 'NUT'),
        UpdateExpression: 'SET currentPriceCents = :list',
        ExpressionAttributeValues: { ':list': 3000 },
      }),
    );
    const bolt = history.product.find((product) => product.sku === 'BOLT');
    await drain(seller, {
      product: [{ ...(bolt as ProductRecord), currentPriceCents: 1600 }],
      order: [
        {
          externalId: 'O-NIGHTLY',
          customerExternalId: 'C-1',
          currency: 'USD',
          soldAt: new Date().toISOString(),
          lines: [{ productSku: 'NUT', quantity: 5, costCents: 2000, soldPriceCents: 2800 }],
        },
      ],
    });
    expect(await kept(seller.workspaceId)).toEqual({ BOLT: 1.6, NUT: 1.45, WASHER: 1.4 });

    await rebuildBands(seller.workspaceId, defaultPricingSettings, new Date());
    expect(await kept(seller.workspaceId)).toEqual({ BOLT: 1.6, NUT: 1.5, WASHER: 1.4 });
  });
});

describe('one bands recompute at a time per workspace', () => {
  it('makes a bands job wait while another holds the workspace’s bands, then recompute', async () => {
    const seller = await newWorkspace('Busy Seller');
    await takeBandsLease(seller.workspaceId, 'another-job', Date.now() + 60_000, Date.now());
    const batchId = await openBatchWith(seller.keys.connector);
    await stageCatalogue(seller.keys.connector, batchId, { ...pricingHistory(), quote: [] });
    await commitBatch(seller.keys.connector, batchId);
    expect((await waitForBatch(seller.keys.connector, batchId, ['drained', 'failed'])).status).toBe('drained');
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect((await waitForBatch(seller.keys.connector, batchId, ['drained'])).bandsRecomputedAt).toBeUndefined();
    expect(await item(keys.workspaceBands(seller.workspaceId))).toBeUndefined();

    await releaseBandsLease(seller.workspaceId, 'another-job');
    await waitForBands(seller.keys.connector, batchId, { timeoutMs: 30_000 });
    expect(await item(keys.workspaceBands(seller.workspaceId))).toBeDefined();
    expect(await item(keys.bandsLease(seller.workspaceId))).toBeUndefined();
  }, 60_000);

  it('refuses a rebuild while a job holds the workspace’s bands, and lets it go after one', async () => {
    const seller = await newWorkspace('Rebuilt Seller');
    await takeBandsLease(seller.workspaceId, 'another-job', Date.now() + 60_000, Date.now());
    await expect(rebuildBands(seller.workspaceId, defaultPricingSettings, new Date())).rejects.toBeInstanceOf(BandsLeaseHeld);
    await releaseBandsLease(seller.workspaceId, 'another-job');
    await expect(rebuildBands(seller.workspaceId, defaultPricingSettings, new Date())).resolves.toMatchObject({ done: true });
    expect(await item(keys.bandsLease(seller.workspaceId))).toBeUndefined();
  });

  it('takes over a lease whose holder ran past its time', async () => {
    const seller = await newWorkspace('Abandoned Seller');
    await takeBandsLease(seller.workspaceId, 'a-stopped-job', Date.now() - 1, Date.now() - 60_000);
    await expect(rebuildBands(seller.workspaceId, defaultPricingSettings, new Date())).resolves.toMatchObject({ done: true });
  });
});

describe('the admin commands for pricing', () => {
  it('rebuilds every band of a workspace after its pricing settings change', async () => {
    const seller = await newWorkspace('Rebuilt Seller');
    await drain(seller, pricingHistory());
    const before = decodeBandMap((await item(keys.product(seller.workspaceId, 'BOLT')))?.segmentBands).get('enterprise');

    const shownBefore = await getPrice(seller.keys.pwLive, 'BOLT');
    const stampedBefore = Number((await item(keys.rateShard(seller.workspaceId, 'api', 0)))?.bandsAt);
    const updated = await adminJson('workspace', 'update', seller.workspaceId, '--pricing', '{"targetPercentile":90}');
    expect(updated.pricing).toEqual({ targetPercentile: 90 });
    const rebuilt = await adminJson('bands', 'rebuild', '--workspace', seller.workspaceId);
    expect(rebuilt).toMatchObject({ done: true, categories: 2, lines: expect.any(Number), recommendations: 3 });
    // The recommendations of the products with history follow the rebuilt bands.
    const shownAfter = await getPrice(seller.keys.pwLive, 'BOLT');
    expect(shownAfter.json.updated_at > shownBefore.json.updated_at).toBe(true);
    expect(shownAfter.json.recommended_price).toBeGreaterThanOrEqual(shownBefore.json.recommended_price);
    expect(rebuilt.lines).toBeGreaterThan(300);

    const after = decodeBandMap((await item(keys.product(seller.workspaceId, 'BOLT')))?.segmentBands).get('enterprise');
    expect(after?.target).toBeGreaterThan(before?.target as number);
    expect(after?.target).toBeCloseTo(after?.stretch as number, 6);
    // Price calls drop the bands their instances cached: the rebuild stamps the rate shard their requests write.
    expect(Number((await item(keys.rateShard(seller.workspaceId, 'api', 0)))?.bandsAt)).toBeGreaterThan(stampedBefore);
  }, 60_000);

  it('refuses pricing settings that are not valid, changing nothing', async () => {
    const seller = await newWorkspace('Strict Seller');
    const { stderr, code } = await run(
      process.execPath,
      ['bin/admin.ts', 'workspace', 'update', seller.workspaceId, '--pricing', '{"maxChangePct":-5}', '--stack', inject('stackFile')],
      { cwd: projectRoot },
    ).then(
      () => ({ stderr: '', code: 0 }),
      (error: { stderr: string; code: number }) => error,
    );
    expect(code).toBe(2);
    expect(stderr).toMatch(/invalid --pricing: maxChangePct/);
    expect((await item(keys.workspace(seller.workspaceId)))?.pricing).toBeUndefined();
  });

  it('shows the priced line a decision id names', async () => {
    const seller = await newWorkspace('Decided Seller');
    await drain(seller, pricingHistory());
    const [line] = okLines(await pricesCall(seller.keys.erp, { lines: [{ productSku: 'NUT', quantity: 3 }] }));
    const decision = await adminJson('decision', 'show', '--workspace', seller.workspaceId, line?.pricingDecisionId as string);
    expect(decision).toEqual({ pricingDecisionId: line?.pricingDecisionId, pricedAt: expect.any(String), line });
  }, 60_000);
});

describe('two batches of one workspace draining at once', () => {
  it('lose no line of either, and leave the bands a rebuild from the whole history gives', async () => {
    const seller = await newWorkspace('Racing Seller');
    const key = seller.keys.connector;
    const products = ['RACE-1', 'RACE-2', 'RACE-3'].map((sku) => ({
      sku,
      name: sku,
      category: 'Race',
      costCents: 100,
      currentPriceCents: 160,
      currency: 'USD',
    }));
    const orders = (prefix: string, base: number) =>
      Array.from({ length: 40 }, (_, index) => ({
        externalId: `${prefix}-${index}`,
        currency: 'USD',
        soldAt: new Date(Date.now() - index * 86_400_000).toISOString(),
        lines: products.map((product, line) => ({
          productSku: product.sku,
          quantity: 1 + line,
          costCents: 100,
          soldPriceCents: base + index + line,
        })),
      }));
    const batches = await Promise.all(
      [orders('RA', 120), orders('RB', 170)].map(async (order) => {
        const batchId = await openBatchWith(key);
        await stageCatalogue(key, batchId, { product: products, customer: [], quote: [], order });
        return batchId;
      }),
    );
    await Promise.all(batches.map((batchId) => commitBatch(key, batchId)));
    await Promise.all(batches.map((batchId) => waitForBands(key, batchId, { timeoutMs: 60_000 })));

    const lines = await readCategoryLines(seller.workspaceId, 'Race', Date.now());
    expect(lines).toHaveLength(2 * 40 * products.length);
    const drained = (await readAllCategoryBands(seller.workspaceId)).find((entry) => entry.category === 'Race')?.band;
    await rebuildBands(seller.workspaceId, defaultPricingSettings, new Date());
    const rebuilt = (await readAllCategoryBands(seller.workspaceId)).find((entry) => entry.category === 'Race')?.band;
    expect(rebuilt).toBeDefined();
    for (const field of ['floor', 'target', 'stretch', 'nEff', 'medianQuantity'] as const) {
      expect(drained?.[field], field).toBeCloseTo(rebuilt?.[field] ?? Number.NaN, 6);
    }
  });
});
