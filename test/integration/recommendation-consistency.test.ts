// One recommendation everywhere: after a batch that moved a category's bands, the overview, the console and a price call agree for a product the batch did not name.
import { describe, expect, it } from 'vitest';
import { productPage } from '#edge/console/pages/recommendations.ts';
import { money } from '#edge/console/formats.ts';
import { readCataloguePage } from '#shared/recommendations/listing-pages.ts';
import type { OrderRecord, ProductRecord } from '#shared/records/schema.ts';
import { daysAgo, drain, okLines, pricesCall, pricingHistory } from './prices-support.ts';
import { expectShown } from '#test/support/markup.ts';
import { newWorkspace } from './support.ts';
import { getPrice } from './writebacks-support.ts';

/**
 * A product of the category with no orders of its own and no price yet: the category's bands price it (one with a
 * current price and no win model keeps that price, whatever the bands do).
 */
const CLAMP: ProductRecord = { sku: 'CLAMP', name: 'Pipe clamp', category: 'Fasteners', costCents: 1000, currentPriceCents: 0 };

/** Orders of NUT alone at a far higher margin than the category's, which move the category's bands. */
function richNutOrders(): OrderRecord[] {
  return Array.from({ length: 150 }, (_, index) => ({
    externalId: `O-RICH-${index}`,
    customerExternalId: `C-${index % 20}`,
    currency: 'USD',
    soldAt: daysAgo(1 + (index % 60)),
    lines: [{ productSku: 'NUT', quantity: 50, costCents: 2000, soldPriceCents: 4000 }],
  }));
}

async function priceCallCents(key: string, sku: string): Promise<number> {
  const [line] = okLines(await pricesCall(key, { lines: [{ productSku: sku, quantity: 1 }] }));
  return Number(line?.priceCents);
}

describe('a recommendation after its category moved', () => {
  it('is the same on the overview, in the console and from a price call, for a product the batch did not touch', async () => {
    const seller = await newWorkspace('Consistent Seller');
    const history = pricingHistory();
    await drain(seller, { ...history, product: [...history.product, CLAMP] });
    const before = await priceCallCents(seller.keys.erp, 'CLAMP');

    await drain(seller, { order: richNutOrders() });
    const priced = await priceCallCents(seller.keys.erp, 'CLAMP');
    // The batch moved the category: without repricing its other products, the surfaces below would show `before`.
    expect(priced).not.toBe(before);

    const overview = await getPrice(seller.keys.pwLive, 'CLAMP');
    expect(overview.status, overview.text).toBe(200);
    expect(overview.json.recommended_price).toBe(priced / 100);

    const page = await productPage.read({
      user: { userId: 'usr_check', email: 'check@example.com', workspaceId: seller.workspaceId, roles: ['pricing'] },
      params: { sku: 'CLAMP' },
      query: new URLSearchParams(),
      csrfToken: 'token',
      nowMs: Date.now(),
    });
    expectShown(page.body.text, `<dt>Recommended price</dt><dd>${money(priced, 'USD')}<span class="subtitle">`);
    const listed = await readCataloguePage(seller.workspaceId, { sort: 'sku', category: 'Fasteners' });
    expect(listed.rows.find((row) => row.sku === 'CLAMP')?.recommendedPriceCents).toBe(priced);
  }, 120_000);
});
