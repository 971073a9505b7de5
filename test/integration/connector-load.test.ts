// The connector CLI's loader run as a seller runs it, on the export fixtures, against the shared local stack.
import { join } from 'node:path';
import { describe, expect, inject, it, vi } from 'vitest';
import { createPricingClient } from '../../client/src/index.ts';
import { projectRoot } from '#lib/stack/project.ts';
import { connector } from './connector-support.ts';
import { dumpCanonical } from './ingest-support.ts';
import { newWorkspace } from './support.ts';

// Each test starts the connector CLI as a process of its own, some of them several times, and a busy machine makes
// that slow: nothing here is about speed.
vi.setConfig({ testTimeout: 240_000 });

const exportDir = join(projectRoot, 'test/fixtures/export');
const file = (name: string) => join(exportDir, name);

describe('the connector loader', () => {
  it('loads a small CSV export (orders of several lines) with a JSON Lines file, and the batch drains with every record', async () => {
    const workspace = await newWorkspace('Connector Load');
    const key = workspace.keys.connector;
    const url = inject('stack').gatewayUrl;
    const result = await connector(
      ['load', '--json', '--url', url, '--orders', file('orders.csv'), file('products.csv'), file('customers.csv'), file('quotes.jsonl')],
      { PRICING_KEY: key },
    );
    expect(result.code, result.stderr).toBe(0);
    expect(`${result.stdout}${result.stderr}`).not.toContain(key);
    const summary = JSON.parse(result.stdout.trim());
    expect(summary).toMatchObject({
      type: 'summary',
      dryRun: false,
      counts: { product: 3, customer: 2, quote: 1, order: 2 },
      skippedOverCap: 0,
    });

    const status = await createPricingClient({ baseUrl: url, key }).batchStatus(summary.batchId);
    expect(status).toMatchObject({
      status: 'drained',
      entities: ['product', 'customer', 'quote', 'order'],
      recordCount: 8,
      drainedCount: 8,
    });
    // The load waits until prices reflect the batch, not only until it has drained.
    expect(status.bandsRecomputedAt).toEqual(expect.any(String));
    expect(summary.status.bandsRecomputedAt).toBe(status.bandsRecomputedAt);
    expect(summary.pricesMs).toEqual(expect.any(Number));
  });

  it('loads a Windows-1252 export with --encoding windows-1252, its names stored as written', async () => {
    const workspace = await newWorkspace('Connector Load 1252');
    const url = inject('stack').gatewayUrl;
    const path = file('products-windows-1252.csv');
    const result = await connector(['load', '--json', '--url', url, '--encoding', 'windows-1252', path], {
      PRICING_KEY: workspace.keys.connector,
    });
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout.trim())).toMatchObject({ counts: { product: 3 }, status: { status: 'drained', recordCount: 3 } });
    const names = (await dumpCanonical(workspace.workspaceId)).map((item) => item.name).filter((name) => name !== undefined);
    expect(names).toEqual(expect.arrayContaining(['Dübel 8 mm', 'Schraube 5x40, verzinkt', 'Mutter M10 – Edelstahl']));
    expect(names.join('')).not.toContain('\uFFFD');
  });

  it('refuses the same Windows-1252 export without the flag, at its line and byte offset, and commits nothing', async () => {
    const workspace = await newWorkspace('Connector Load 1252 Refused');
    const url = inject('stack').gatewayUrl;
    const path = file('products-windows-1252.csv');
    const result = await connector(['load', '--url', url, path], { PRICING_KEY: workspace.keys.connector });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`${path}:2: not UTF-8 at byte offset 63. The byte is 0xFC (ü in Windows-1252)`);
    expect(result.stderr).toContain('try --encoding windows-1252');
    expect(result.stderr).toContain('Nothing was committed');
    const batchId = /Batch (\S+) was cancelled/.exec(result.stderr)?.[1];
    const status = await createPricingClient({ baseUrl: url, key: workspace.keys.connector }).batchStatus(String(batchId));
    expect(status).toMatchObject({ status: 'failed', recordCount: 0, cancelledAt: expect.any(String) });
  });

  it('loads a semicolon-separated export with a byte order mark, finding the delimiter from its header row', async () => {
    const workspace = await newWorkspace('Connector Load Semicolon');
    const url = inject('stack').gatewayUrl;
    const path = file('customers-semicolon.csv');
    const result = await connector(['load', '--json', '--url', url, path], { PRICING_KEY: workspace.keys.connector });
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout.trim())).toMatchObject({ counts: { customer: 2 }, status: { status: 'drained', recordCount: 2 } });
    const names = (await dumpCanonical(workspace.workspaceId)).map((item) => item.name);
    expect(names).toEqual(expect.arrayContaining(['Müller Bau GmbH', 'Schmidt; Söhne KG']));

    const wrong = await connector(['load', '--url', url, '--delimiter', ',', path], { PRICING_KEY: workspace.keys.connector });
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toContain(
      `${path}:1: header row not recognised: found columns externalId;name;segment;country; expected name,externalId (the customer columns`,
    );
    expect(wrong.stderr).toContain("The header reads with ';': try --delimiter ;.");
  });

  it('with --until drained stops once the batch has drained, and says prices follow', async () => {
    const workspace = await newWorkspace('Connector Load Until Drained');
    const url = inject('stack').gatewayUrl;
    const result = await connector(['load', '--url', url, '--until', 'drained', file('customers.csv')], {
      PRICING_KEY: workspace.keys.connector,
    });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/drained in \d+ s \(prices follow when its bands are recomputed\)/);
  });

  it('stops at a bad row before the commit, naming file, line and field, and cancels its open batch', async () => {
    const workspace = await newWorkspace('Connector Load Bad');
    const key = workspace.keys.connector;
    const url = inject('stack').gatewayUrl;
    const result = await connector([
      'load',
      '--url',
      url,
      '--key',
      key,
      file('products.csv'),
      file('customers.csv'),
      file('bad/orders.csv'),
    ]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('bad/orders.csv:4: Invalid costCents');
    expect(result.stderr).toContain('Nothing was committed');
    const batchId = /Batch (\S+) was cancelled, with what it had staged\./.exec(result.stderr)?.[1];
    expect(batchId, result.stderr).toBeDefined();
    const status = await createPricingClient({ baseUrl: url, key }).batchStatus(String(batchId));
    // What it staged is discarded with it: the batch never commits nor drains.
    expect(status).toMatchObject({ status: 'failed', entities: ['product', 'customer'], cancelledAt: expect.any(String) });
    expect(status.committedAt).toBeUndefined();
    const open = await createPricingClient({ baseUrl: url, key }).listBatches({ status: 'open' });
    expect(open.data.map((batch) => batch.batchId)).not.toContain(batchId);
  });

  it('with --dry-run validates the files and sends nothing, needing neither a key nor a stack', async () => {
    const ok = await connector(['load', '--dry-run', '--url', 'http://127.0.0.1:9', file('products.csv'), file('orders.csv')]);
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stdout).toContain('dry run: 3 products, 0 customers, 0 quotes, 2 orders valid; nothing sent');
    const bad = await connector(['load', '--dry-run', file('bad/orders.csv')]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('bad/orders.csv:4: Invalid costCents');
    expect(bad.stderr).toContain('Nothing was sent.');
  });

  it.each([
    [['load']],
    [['load', '--key', 'k', file('products.csv'), 'prices.csv']],
    [['load', '--key', 'k', '--products', file('quotes.jsonl').replace('.jsonl', '.json')]],
    [['load', '--key', 'k', '--products', join(exportDir, 'missing.csv')]],
    [['load', file('products.csv')]],
    [['load', '--key', 'k', '--concurrency', '0', file('products.csv')]],
    [['load', '--key', 'k', '--encoding', 'utf-16', file('products.csv')]],
    [['load', '--key', 'k', '--delimiter', '::', file('products.csv')]],
    [['load', '--key', 'k', '--until', 'committed', file('products.csv')]],
  ])('exits 2 with the usage for %j', async (args) => {
    const result = await connector(args);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('Usage: npm run --silent connector -- load');
  });
});
