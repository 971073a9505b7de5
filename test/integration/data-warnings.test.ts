// Data warnings through the local gateway: a batch that multiplies a product's cost or current price by 10 holds it (warnings on the price and the price line, the batch's count, batch.drained, approval only with confirm, out of the impact ranking and the landing page's gains), and a later batch that brings the value back clears it.
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import type { SampleCatalogue } from '#lib/local/sample-catalogue.ts';
import { seededRandom } from '#platform/seeded-random.ts';
import { createConsoleUser } from '#edge/console/users.ts';
import { readCataloguePage } from '#shared/recommendations/listing-pages.ts';
import type { ProductRecord } from '#shared/records/schema.ts';
import { ConsoleBrowser } from './console-session.ts';
import { syncUntilPriced } from './ingest-support.ts';
import { okLines, pricesCall } from './prices-support.ts';
import { type ApiResponse, call, newWorkspace, type TestWorkspace } from './support.ts';
import { ack, approve, claim, claimedTasks, getPrice } from './writebacks-support.ts';
import { readWorkspaceItems } from './workspace-items.ts';

const DAY_MS = 86_400_000;

/** Three pipes listed at a 45% margin over a cost of 10.00 USD. */
const PIPES: ProductRecord[] = ['PIPE-1', 'PIPE-2', 'PIPE-3'].map((sku) => ({
  sku,
  name: `Pipe ${sku}`,
  category: 'Plumbing',
  costCents: 1000,
  currentPriceCents: 1818,
}));
const [COST_TYPO, PRICE_TYPO, IN_LINE] = PIPES as [ProductRecord, ProductRecord, ProductRecord];

/**
 * One segment buying the pipes: 420 one-line quotes over a year at margins from 10% to 50%, each won with chance
 * σ(3 − 10·m), so that the win model stands and each recommendation has an estimated impact.
 */
function market(): SampleCatalogue {
  const random = seededRandom(11);
  const now = Date.now();
  const customer = Array.from({ length: 12 }, (_, index) => ({ externalId: `TRADE-${index}`, name: `Trade ${index}`, segment: 'trade' }));
  const quote = Array.from({ length: 420 }, (_, index) => {
    const margin = 0.1 + random() * 0.4;
    const createdAt = now - (2 + Math.floor((index * 360) / 420)) * DAY_MS;
    return {
      externalId: `Q-${index}`,
      customerExternalId: `TRADE-${index % customer.length}`,
      outcome: random() < 1 / (1 + Math.exp(-(3 - 10 * margin))) ? ('won' as const) : ('lost' as const),
      currency: 'USD',
      createdAt: new Date(createdAt).toISOString(),
      decidedAt: new Date(createdAt + DAY_MS).toISOString(),
      lines: [
        {
          productSku: (PIPES[index % PIPES.length] as ProductRecord).sku,
          quantity: 4 + (index % 5),
          costCents: 1000,
          quotedPriceCents: Math.round(1000 / (1 - margin)),
          pricingDecisionId: null,
        },
      ],
    };
  });
  return { product: PIPES, customer, quote, order: [] };
}

const sync = syncUntilPriced;

/** The `batch.drained` event the outbox holds for a batch. */
async function drainedEvent(workspaceId: string, batchId: string): Promise<Record<string, unknown> | undefined> {
  const events = (await readWorkspaceItems(workspaceId))
    .filter((item) => String(item.PK).startsWith(`WS#${workspaceId}#WHEVENT#`))
    .map((item) => item.event as { type: string; data: Record<string, unknown> });
  return events.find((event) => event.type === 'batch.drained' && event.data.batchId === batchId)?.data;
}

/** The SKUs of the list by expected impact, and those of them ranked (with an estimate to rank by). */
async function impactOrdering(workspaceId: string): Promise<{ skus: string[]; ranked: string[]; warned: Map<string, readonly string[]> }> {
  const page = await readCataloguePage(workspaceId, { sort: 'impact-desc' });
  const ranked = page.rows.filter((row) => row.expectedMarginChangeCents !== undefined).map((row) => row.sku);
  const warned = new Map(page.rows.flatMap((row) => (row.warnings ? [[row.sku, row.warnings] as const] : [])));
  return { skus: page.rows.map((row) => row.sku), ranked, warned };
}

/** The landing page's "Largest expected impact" panel, as a pricing manager reads it. */
async function landingGains(workspaceId: string): Promise<string> {
  const user = await createConsoleUser({
    workspaceId,
    email: `warnings-${randomUUID()}@example.com`,
    roles: ['pricing'],
    password: `p-${randomUUID()}`,
  });
  const browser = new ConsoleBrowser();
  expect((await browser.signIn(user.email, user.password)).status).toBe(303);
  const landing = await browser.get('/console');
  expect(landing.status).toBe(200);
  return /<section class="panel" aria-labelledby="panel-impact">([\s\S]*?)<\/section>/.exec(landing.text)?.[1] ?? '';
}

let seller: TestWorkspace;
let baseline: { batchId: string; status: ApiResponse['json'] };
let costBatch: { batchId: string; status: ApiResponse['json'] };
let priceBatch: { batchId: string; status: ApiResponse['json'] };

beforeAll(async () => {
  seller = await newWorkspace('Data Warnings Seller');
  baseline = await sync(seller, market());
  costBatch = await sync(seller, { product: [{ ...COST_TYPO, costCents: 10_000 }] });
  priceBatch = await sync(seller, { product: [{ ...PRICE_TYPO, currentPriceCents: 18_180 }] });
}, 300_000);

describe('a batch that multiplies a cost or a current price by 10', () => {
  it('leaves the product with warnings on GET /v1/prices/{sku}, naming both values in major units with the currency', async () => {
    const cost = await getPrice(seller.keys.pwLive, COST_TYPO.sku);
    expect(cost.status, cost.text).toBe(200);
    expect(cost.json.warnings).toEqual([
      { code: 'cost_jump', message: expect.stringContaining('cost 100.00 USD is 10 times the cost it was in line at, 10.00 USD') },
      { code: 'price_below_cost', message: 'current price 18.18 USD is below the cost 100.00 USD.' },
    ]);
    const price = await getPrice(seller.keys.pwLive, PRICE_TYPO.sku, '?include=rationale');
    expect(price.json.warnings).toEqual([
      {
        code: 'price_jump',
        message: expect.stringContaining('current price 181.80 USD is 10 times the price it was in line at, 18.18 USD'),
      },
    ]);
    expect((await getPrice(seller.keys.pwLive, IN_LINE.sku)).json).not.toHaveProperty('warnings');
  });

  it('puts the same warnings on each line of a price call for the product, and none on a line whose product is in line', async () => {
    const lines = okLines(
      await pricesCall(seller.keys.erp, {
        lines: [
          { productSku: COST_TYPO.sku, customerExternalId: 'TRADE-1', quantity: 5 },
          { productSku: IN_LINE.sku, quantity: 5 },
        ],
      }),
    );
    const stored = (await getPrice(seller.keys.pwLive, COST_TYPO.sku)).json.warnings;
    expect(lines[0]).toMatchObject({ ok: true, warnings: stored });
    expect(lines[1]).toMatchObject({ ok: true });
    expect(lines[1]).not.toHaveProperty('warnings');
  });

  it('counts the warned products on the batch status and in its batch.drained event', async () => {
    expect(baseline.status.warnedProducts).toBe(0);
    expect(costBatch.status.warnedProducts).toBe(1);
    expect(priceBatch.status.warnedProducts).toBe(1);
    expect(await drainedEvent(seller.workspaceId, baseline.batchId)).toMatchObject({ warnedProducts: 0 });
    expect(await drainedEvent(seller.workspaceId, costBatch.batchId)).toMatchObject({ warnedProducts: 1, drainedCount: 1 });
    expect(await drainedEvent(seller.workspaceId, priceBatch.batchId)).toMatchObject({ warnedProducts: 1 });
  });

  it('leaves the held products out of the ordering by expected impact and out of the landing page’s gains', async () => {
    const { skus, ranked, warned } = await impactOrdering(seller.workspaceId);
    expect(skus).toEqual(expect.arrayContaining([COST_TYPO.sku, PRICE_TYPO.sku, IN_LINE.sku]));
    expect(ranked).toEqual([IN_LINE.sku]);
    expect(skus.indexOf(COST_TYPO.sku)).toBeGreaterThan(skus.indexOf(IN_LINE.sku));
    expect(warned).toEqual(
      new Map([
        [COST_TYPO.sku, ['cost_jump', 'price_below_cost']],
        [PRICE_TYPO.sku, ['price_jump']],
      ]),
    );
    const gains = await landingGains(seller.workspaceId);
    expect(gains).toContain('Largest expected impact');
    expect(gains).not.toContain(COST_TYPO.sku);
    expect(gains).not.toContain(PRICE_TYPO.sku);
  });

  it('refuses an approval without confirm, naming the warning, and publishes it with confirm', async () => {
    const shown = await getPrice(seller.keys.pwLive, PRICE_TYPO.sku);
    const price = shown.json.recommended_price as number;
    const refused = await approve(seller.keys.pwLive, { sku: PRICE_TYPO.sku, price });
    expect(refused.status, refused.text).toBe(422);
    expect(refused.json.error.code).toBe('confirmation_required');
    expect(refused.json.error.message).toContain('price_jump');
    expect(refused.json.error.message).toContain('181.80 USD');
    const costRefused = await approve(seller.keys.pwLive, {
      sku: COST_TYPO.sku,
      price: (await getPrice(seller.keys.pwLive, COST_TYPO.sku)).json.recommended_price,
    });
    expect(costRefused.status, costRefused.text).toBe(422);
    expect(costRefused.json.error.message).toMatch(/cost_jump.*price_below_cost/);
    const confirmed = await approve(seller.keys.pwLive, { sku: PRICE_TYPO.sku, price, confirm: true });
    expect(confirmed.status, confirmed.text).toBe(200);
    expect(confirmed.json).toMatchObject({ sku: PRICE_TYPO.sku, price, status: 'published' });
    const history = await call(`/v1/prices/${PRICE_TYPO.sku}/approvals`, { key: seller.keys.pwLive });
    expect(history.json.data[0].confirmation).toMatchObject({ warnings: ['price_jump'] });
  });

  it('clears the warnings when a later batch brings the values back in line, and ranks the products again', async () => {
    const restored = await sync(seller, { product: [COST_TYPO, PRICE_TYPO] });
    expect(restored.status.warnedProducts).toBe(0);
    expect(await drainedEvent(seller.workspaceId, restored.batchId)).toMatchObject({ warnedProducts: 0 });
    for (const product of [COST_TYPO, PRICE_TYPO]) {
      const price = await getPrice(seller.keys.pwLive, product.sku);
      expect(price.json, product.sku).not.toHaveProperty('warnings');
    }
    const { ranked, warned } = await impactOrdering(seller.workspaceId);
    expect(warned.size).toBe(0);
    expect([...ranked].sort()).toEqual(PIPES.map((pipe) => pipe.sku));
    const shown = await getPrice(seller.keys.pwLive, COST_TYPO.sku);
    const small = await approve(seller.keys.pwLive, { sku: COST_TYPO.sku, price: shown.json.recommended_price });
    expect(small.status, small.text).toBe(200);
  });

  it('takes a price approved over a jump, once written back, as in line: the batch that then sends it clears the warning', async () => {
    const jumped = await sync(seller, { product: [{ ...IN_LINE, currentPriceCents: 18_180 }] });
    expect(jumped.status.warnedProducts).toBe(1);
    const price = (await getPrice(seller.keys.pwLive, IN_LINE.sku)).json.recommended_price as number;
    expect((await approve(seller.keys.pwLive, { sku: IN_LINE.sku, price, confirm: true })).status).toBe(200);
    const [task] = claimedTasks(await claim(seller.keys.connector, { limit: 10 })).filter((claimed) => claimed.productSku === IN_LINE.sku);
    expect(task, 'the approval published a task').toBeDefined();
    expect((await ack(seller.keys.connector, [{ id: task?.id, ok: true }])).json).toMatchObject({ applied: 1 });
    const applied = await sync(seller, { product: [{ ...IN_LINE, currentPriceCents: Math.round(price * 100) }] });
    expect(applied.status.warnedProducts).toBe(0);
    expect((await getPrice(seller.keys.pwLive, IN_LINE.sku)).json).not.toHaveProperty('warnings');
  });
});
