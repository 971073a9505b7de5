// Guidance adherence end to end: lines priced through the API, quoted back through ingest, drained, and reported by the CLI and the route.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { projectRoot } from '#lib/stack/project.ts';
import type { AdherenceReport } from '#shared/adherence/schema.ts';
import { readAdherenceAggregates } from '#shared/adherence/repository.ts';
import { applyAdherence } from '#shared/pipeline/adherence-fold.ts';
import { tableName } from '#platform/config.ts';
import type { CustomerRecord, OrderRecord, ProductRecord, QuoteRecord } from '#shared/records/schema.ts';
import { tableClient } from '#platform/table/client.ts';
import { keys } from '#platform/table/keys.ts';
import { drain, okLines, pricesCall, workspaceWith } from './prices-support.ts';
import { call, newWorkspace, type TestWorkspace } from './support.ts';

const run = promisify(execFile);
const DAY_MS = 86_400_000;
const MONTH = new Date().toISOString().slice(0, 7);
const createdAt = () => new Date().toISOString();

async function admin(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, ['bin/admin.ts', ...args, '--stack', inject('stackFile')], { cwd: projectRoot });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

const products: ProductRecord[] = [
  { sku: 'BOLT', name: 'Hex bolt', category: 'Fasteners', costCents: 1000, currentPriceCents: 1450 },
  { sku: 'GLUE', name: 'Glue', category: 'Adhesives', costCents: 800, currentPriceCents: 1000 },
];
const customers: CustomerRecord[] = [
  { externalId: 'C-ENT', name: 'Enterprise Ltd', segment: 'enterprise' },
  { externalId: 'C-SMB', name: 'Small Ltd', segment: 'smb' },
];

function quote(
  externalId: string,
  customer: string,
  outcome: QuoteRecord['outcome'],
  line: Partial<QuoteRecord['lines'][number]>,
): QuoteRecord {
  return {
    externalId,
    customerExternalId: customer,
    outcome,
    createdAt: createdAt(),
    lines: [{ productSku: 'BOLT', quantity: 10, costCents: 1000, quotedPriceCents: 1450, pricingDecisionId: null, ...line }],
  };
}

function order(externalId: string, sourceQuote: string | undefined, line: OrderRecord['lines'][number]): OrderRecord {
  return {
    externalId,
    customerExternalId: 'C-ENT',
    ...(sourceQuote ? { sourceQuoteExternalId: sourceQuote } : {}),
    currency: 'USD',
    soldAt: createdAt(),
    lines: [line],
  };
}

async function report(workspace: TestWorkspace, query = '') {
  const response = await call(`/v1/analytics/adherence${query}`, { key: workspace.keys.pwLive });
  expect(response.status, response.text).toBe(200);
  return response.json as unknown as AdherenceReport;
}

interface Priced {
  readonly id: string;
  readonly cents: number;
  readonly confidence: string;
}

async function priceLines(workspace: TestWorkspace, skus: string[]): Promise<Priced[]> {
  const lines = okLines(await pricesCall(workspace.keys.erp, { lines: skus.map((productSku) => ({ productSku, quantity: 10 })) }));
  return lines.map((line) => ({ id: String(line.pricingDecisionId), cents: Number(line.priceCents), confidence: String(line.confidence) }));
}

/** Makes a decision look as if it were priced 401 days ago: past the 400 days decisions are kept for attribution. */
async function age(workspaceId: string, decisionId: string): Promise<void> {
  await tableClient().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: keys.priceCall(workspaceId, decisionId.slice(3, 19)),
      UpdateExpression: 'SET startedAt = :at',
      ExpressionAttributeValues: { ':at': new Date(Date.now() - 401 * DAY_MS).toISOString() },
    }),
  );
}

describe('guidance adherence', () => {
  let seller: TestWorkspace;
  let bolt: Priced;
  let boltAgain: Priced;
  let glue: Priced;
  let expired: Priced;
  let within: number;
  let above: number;
  let below: number;

  beforeAll(async () => {
    seller = await newWorkspace('Adherence Seller');
    await drain(seller, { product: products, customer: customers });
    [bolt, boltAgain, glue] = (await priceLines(seller, ['BOLT', 'BOLT', 'GLUE'])) as [Priced, Priced, Priced];
    [expired] = (await priceLines(seller, ['BOLT'])) as [Priced];
    await age(seller.workspaceId, expired.id);
    within = bolt.cents;
    above = Math.round(boltAgain.cents * 1.1);
    below = Math.round(glue.cents * 0.9);
    await drain(seller, {
      quote: [
        // Followed, and won by an order at the guided price.
        quote('Q-FOLLOW', 'C-ENT', 'open', { pricingDecisionId: bolt.id, quotedPriceCents: within, serviceQuotedPriceCents: bolt.cents }),
        // Overridden upwards, and lost.
        quote('Q-ABOVE', 'C-ENT', 'lost', {
          pricingDecisionId: boltAgain.id,
          quotedPriceCents: above,
          salespersonPriceReason: 'Premium service',
        }),
        // Overridden downwards to match a competitor, and won at the quoted price.
        quote('Q-BELOW', 'C-SMB', 'won', {
          productSku: 'GLUE',
          quantity: 5,
          costCents: 800,
          pricingDecisionId: glue.id,
          quotedPriceCents: below,
          salespersonPriceReason: '  Competitor MATCH ',
        }),
        quote('Q-UNGUIDED', 'C-SMB', 'open', {}),
        quote('Q-UNKNOWN', 'C-ENT', 'open', { pricingDecisionId: 'pd_AAAAAAAAAAAAAAAA000000000000000' }),
        quote('Q-EXPIRED', 'C-ENT', 'open', { pricingDecisionId: expired.id, quotedPriceCents: expired.cents }),
      ],
      order: [
        order('O-FOLLOW', 'Q-FOLLOW', { productSku: 'BOLT', quantity: 10, costCents: 1000, soldPriceCents: within }),
        order('O-NO-QUOTE', undefined, { productSku: 'BOLT', quantity: 99, costCents: 1000, soldPriceCents: 1 }),
      ],
    });
  }, 120_000);

  it('reports exactly the shares, win rates, margins and leakage of a history with known outcomes', async () => {
    const body = await report(seller, '?by=segment');
    const revenue = within * 10 + below * 5;
    const cost = 1000 * 10 + 800 * 5;
    expect(body.overall).toMatchObject({
      lines: 6,
      guided_lines: 3,
      unattributed_lines: 2,
      guided_share: 0.5,
      within_share: 0.3333,
      above_share: 0.3333,
      below_share: 0.3333,
      decided: 3,
      won: 2,
      win_rate: 0.6667,
      revenue_cents: revenue,
      margin_pct: Number((((revenue - cost) / revenue) * 100).toFixed(2)),
      leakage_cents: 5 * (glue.cents - below),
      thin_evidence: true,
    });
    expect(body.overall.bands.within).toMatchObject({ lines: 1, decided: 1, won: 1, win_rate: 1, revenue_cents: within * 10 });
    expect(body.overall.bands.above).toMatchObject({ lines: 1, decided: 1, won: 0, win_rate: 0, leakage_cents: 0 });
    expect(body.overall.bands.below).toMatchObject({ lines: 1, won: 1, leakage_cents: 5 * (glue.cents - below) });
    expect(body.overall.bands.unguided).toMatchObject({ lines: 1, decided: 0 });
    expect(body.overall.bands.unattributed).toMatchObject({ lines: 2, decided: 0 });
    expect(body).toMatchObject({ from_month: expect.any(String), to_month: MONTH, band_pct: 2, by: 'segment', thin_evidence_lines: 30 });
    const segments = Object.fromEntries(
      (body.groups as Array<{ value: string; lines: number; guided_lines: number }>).map((group) => [group.value, group]),
    );
    expect(segments.enterprise).toMatchObject({ lines: 4, guided_lines: 2, won: 1, decided: 2 });
    expect(segments.smb).toMatchObject({ lines: 2, guided_lines: 1, won: 1, decided: 1 });
    const confidences = (body.by_confidence as Array<{ value: string; lines: number }>).reduce((sum, group) => sum + group.lines, 0);
    expect(confidences).toBe(3);
    expect((body.by_confidence as Array<{ value: string }>).map((group) => group.value)).toEqual(
      expect.arrayContaining([...new Set([bolt.confidence, glue.confidence])]),
    );
  });

  it('groups by category and by the salesperson’s reason, lower-cased and trimmed', async () => {
    const byCategory = await report(seller, '?by=category');
    expect(
      Object.fromEntries((byCategory.groups as Array<{ value: string; lines: number }>).map((group) => [group.value, group.lines])),
    ).toEqual({
      Fasteners: 5,
      Adhesives: 1,
    });
    const byReason = await report(seller, `?by=reason&from=${MONTH}-01&to=${MONTH}`);
    expect(
      Object.fromEntries((byReason.groups as Array<{ value: string; lines: number }>).map((group) => [group.value, group.lines])),
    ).toEqual({
      '(none)': 4,
      'premium service': 1,
      'competitor match': 1,
    });
  });

  it('prints the same report from the admin CLI, as JSON, text and CSV', async () => {
    const json = await admin('adherence', 'report', '--workspace', seller.workspaceId, '--by', 'segment', '--json');
    expect(json.code, json.stderr).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual(await report(seller, '?by=segment'));
    const text = await admin('adherence', 'report', '--workspace', seller.workspaceId, '--by', 'reason');
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toMatch(/^overall\s+6\s+50\.0%/m);
    expect(text.stdout).toMatch(/^reason: competitor match/m);
    const csv = await admin('adherence', 'report', '--workspace', seller.workspaceId, '--csv');
    expect(csv.code, csv.stderr).toBe(0);
    expect(csv.stdout.split('\n')[0]).toMatch(/^group,lines,guided,/);
    const refused = await admin('adherence', 'report', '--workspace', seller.workspaceId, '--by', 'colour');
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/invalid --by "colour"/);
  });

  it('refuses a bad period or grouping with a 400 in the envelope', async () => {
    for (const query of ['?by=colour', '?from=2026-13', '?from=2026-05&to=2026-01', '?from=2020-01&to=2026-01', '?colour=red']) {
      const response = await call(`/v1/analytics/adherence${query}`, { key: seller.keys.pwLive });
      expect(response.status, query).toBe(400);
      expect(response.json, query).toMatchObject({ error: { code: 'bad_request' } });
    }
  });

  it('is 403 feature_not_enabled for a workspace without the overview, and 401 for another family of key', async () => {
    const without = await workspaceWith({ features: ['writebacks', 'storefront'] });
    const refused = await call('/v1/analytics/adherence', { key: without.keys.pwLive });
    expect(refused.status).toBe(403);
    expect(refused.json).toMatchObject({ error: { code: 'feature_not_enabled' } });
    expect((await call('/v1/analytics/adherence', { key: seller.keys.erp })).status).toBe(401);
  });

  it('replaces a revised quote’s earlier contribution instead of adding to it, and never counts another workspace’s lines', async () => {
    const stranger = await newWorkspace('Stranger');
    await drain(stranger, {
      product: products,
      customer: customers,
      quote: [quote('Q-STOLEN', 'C-ENT', 'won', { pricingDecisionId: bolt.id, quotedPriceCents: within })],
    });
    const strangers = await report(stranger);
    expect(strangers.overall).toMatchObject({ lines: 1, guided_lines: 0, unattributed_lines: 1 });

    // The overridden quote is revised: now at the guided price, and won.
    await drain(seller, {
      quote: [quote('Q-ABOVE', 'C-ENT', 'won', { pricingDecisionId: boltAgain.id, quotedPriceCents: boltAgain.cents })],
    });
    const body = await report(seller);
    expect(body.overall).toMatchObject({ lines: 6, guided_lines: 3, within_share: 0.6667, above_share: 0, decided: 3, won: 3 });
    expect(body.overall.bands.above).toMatchObject({ lines: 0, decided: 0, won: 0 });
    expect(body.overall.revenue_cents).toBe(within * 10 + boltAgain.cents * 10 + below * 5);
  });

  it('folds a chunk into an aggregate once, however often a redelivered drain applies it', async () => {
    const workspace = await newWorkspace('Refold');
    const work = { workspaceId: workspace.workspaceId, attributions: [], delta: { [`overall#${MONTH}#`]: { within_n: 2, within_w: 1 } } };
    await applyAdherence(work, 'bt_fold', 'CHUNK#0000000001#000');
    await applyAdherence(work, 'bt_fold', 'CHUNK#0000000001#000');
    await applyAdherence(work, 'bt_fold', 'CHUNK#0000000000#000');
    const [item] = await readAdherenceAggregates(workspace.workspaceId, 'overall', MONTH, MONTH);
    expect(item).toMatchObject({ within_n: 2, within_w: 1 });
    // The next chunk of the batch, and a chunk of another batch, are taken.
    await applyAdherence(work, 'bt_fold', 'CHUNK#0000000002#000');
    await applyAdherence(work, 'bt_other', 'CHUNK#0000000001#000');
    const [after] = await readAdherenceAggregates(workspace.workspaceId, 'overall', MONTH, MONTH);
    expect(after).toMatchObject({ within_n: 6, within_w: 3 });
  });

  it('spreads the aggregates over the shards and adds to them what the one partition of the older layout still holds', async () => {
    const workspace = await newWorkspace('Sharded adherence');
    const groups = ['Fasteners', 'Adhesives', 'Abrasives', 'Safety', 'Plumbing', 'Electrical', 'Hand Tools', 'Power Tools'];
    const delta = Object.fromEntries(groups.map((group) => [`category#${MONTH}#${group}`, { within_n: 1 }]));
    await applyAdherence({ workspaceId: workspace.workspaceId, attributions: [], delta }, 'bt_new', 'CHUNK#0000000001#000');
    const partitions = new Set(groups.map((group) => keys.adherenceAggregate(workspace.workspaceId, `category#${MONTH}#${group}`).PK));
    expect(partitions.size).toBeGreaterThan(1);
    for (const pk of partitions) expect(pk).toMatch(new RegExp(`^WS#${workspace.workspaceId}#ADHERENCE#\\d{2}$`));

    // What a drain folded before the aggregates were sharded, in their one partition.
    await tableClient().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: { PK: `WS#${workspace.workspaceId}#ADHERENCE`, SK: `category#${MONTH}#Fasteners` },
        UpdateExpression: 'SET #type = :type, dimension = :dimension, #month = :month, #value = :value ADD within_n :n',
        ExpressionAttributeNames: { '#type': 'type', '#month': 'month', '#value': 'value' },
        ExpressionAttributeValues: {
          ':type': 'adherenceAggregate',
          ':dimension': 'category',
          ':month': MONTH,
          ':value': 'Fasteners',
          ':n': 5,
        },
      }),
    );
    const read = await readAdherenceAggregates(workspace.workspaceId, 'category', MONTH, MONTH);
    expect(read).toHaveLength(groups.length);
    expect(read.find((item) => item.value === 'Fasteners')).toMatchObject({ within_n: 6 });
    expect(read.find((item) => item.value === 'Safety')).toMatchObject({ within_n: 1 });
  });
});
