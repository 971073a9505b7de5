// Data warnings against a product's recent order lines, through the local gateway: a cost first given where there was none, and a price that drifted past the factor over batches that each stayed within it, are held; a value back in line with the order lines clears them.
import { beforeAll, describe, expect, it } from 'vitest';
import type { SampleCatalogue } from '#lib/local/sample-catalogue.ts';
import type { OrderRecord, ProductRecord } from '#shared/records/schema.ts';
import { syncUntilPriced } from './ingest-support.ts';
import { okLines, pricesCall } from './prices-support.ts';
import { type ApiResponse, newWorkspace, type TestWorkspace } from './support.ts';
import { getPrice } from './writebacks-support.ts';

const DAY_MS = 86_400_000;

/** A valve whose cost the ERP did not know yet, and a tap with both values: both sold at 18.18 USD over a cost of 10.00 USD. */
const VALVE: ProductRecord = { sku: 'VALVE-1', name: 'Valve', category: 'Plumbing', costCents: 0, currentPriceCents: 1818 };
const TAP: ProductRecord = { sku: 'TAP-1', name: 'Tap', category: 'Plumbing', costCents: 1000, currentPriceCents: 1818 };

/** Six orders of each product in the last month, at the listed price over the cost. */
function orders(): OrderRecord[] {
  const now = Date.now();
  return Array.from({ length: 6 }, (_, index) => ({
    externalId: `SO-${index}`,
    customerExternalId: 'TRADE-1',
    currency: 'USD',
    soldAt: new Date(now - (2 + index * 4) * DAY_MS).toISOString(),
    lines: [VALVE, TAP].map((product) => ({ productSku: product.sku, quantity: 5, costCents: 1000, soldPriceCents: 1818 })),
  }));
}

async function sync(workspace: TestWorkspace, catalogue: Partial<SampleCatalogue>): Promise<ApiResponse['json']> {
  return (await syncUntilPriced(workspace, catalogue)).status;
}

async function warningsOf(workspace: TestWorkspace, sku: string): Promise<unknown> {
  const price = await getPrice(workspace.keys.pwLive, sku);
  expect(price.status, price.text).toBe(200);
  return price.json.warnings ?? [];
}

let seller: TestWorkspace;

beforeAll(async () => {
  seller = await newWorkspace('Order Lines Seller');
  await sync(seller, {
    product: [VALVE, TAP],
    customer: [{ externalId: 'TRADE-1', name: 'Trade 1', segment: 'trade' }],
    order: orders(),
  });
}, 120_000);

describe("a product's values against its recent order lines", () => {
  it('holds a cost first given where there was none when it is 10 times the cost on the order lines, and clears it once in line', async () => {
    const typo = await sync(seller, { product: [{ ...VALVE, costCents: 10_000 }] });
    expect(typo.warnedProducts).toBe(1);
    expect(await warningsOf(seller, VALVE.sku)).toEqual([
      {
        code: 'cost_jump',
        message:
          'cost 100.00 USD is 10 times the median cost on its last 6 order lines, 10.00 USD: past the 3× a batch may move it without a check.',
      },
      { code: 'price_below_cost', message: 'current price 18.18 USD is below the cost 100.00 USD.' },
    ]);
    // A price call carries the same warnings on the product's line.
    const [line] = okLines(await pricesCall(seller.keys.erp, { lines: [{ productSku: VALVE.sku, quantity: 1 }] }));
    expect(line).toMatchObject({ ok: true, warnings: await warningsOf(seller, VALVE.sku) });
    await sync(seller, { product: [{ ...VALVE, costCents: 1_050 }] });
    expect(await warningsOf(seller, VALVE.sku)).toEqual([]);
  });

  it('holds a price doubled twice, each batch within the factor of the last, once it is past the factor from the order lines', async () => {
    const doubled = await sync(seller, { product: [{ ...TAP, currentPriceCents: 3_636 }] });
    expect(doubled.warnedProducts).toBe(0);
    expect(await warningsOf(seller, TAP.sku)).toEqual([]);
    const again = await sync(seller, { product: [{ ...TAP, currentPriceCents: 7_272 }] });
    expect(again.warnedProducts).toBe(1);
    expect(await warningsOf(seller, TAP.sku)).toEqual([
      {
        code: 'price_jump',
        message:
          'current price 72.72 USD is 4 times the median price its last 6 order lines sold at, 18.18 USD: past the 3× a batch may move it without a check.',
      },
    ]);
    await sync(seller, { product: [{ ...TAP, currentPriceCents: 3_636 }] });
    expect(await warningsOf(seller, TAP.sku)).toEqual([]);
  });
});
