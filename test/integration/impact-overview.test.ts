// GET /v1/prices/{sku}?include=impact through the local gateway: estimated from a drained market's win model, too thin without one, not estimated when stored before impacts.
import { beforeAll, describe, expect, it } from 'vitest';
import type { SampleCatalogue } from '#lib/local/sample-catalogue.ts';
import { seededRandom } from '#platform/seeded-random.ts';
import { drain, pricingHistory } from './prices-support.ts';
import { newWorkspace, type TestWorkspace } from './support.ts';
import { getPrice } from './writebacks-support.ts';
import { storeRecommendationUnpacked } from './legacy-layout.ts';

const DAY_MS = 86_400_000;
const SKUS = ['PIPE-1', 'PIPE-2', 'PIPE-3'];

/**
 * One category, one segment, three products listed at a 45% margin, and 420 one-line quotes over a year at margins
 * from 10% to 50%, each won with chance σ(3 − 10·m): cheaper quotes win more often, as the win model will find.
 */
function market(): SampleCatalogue {
  const random = seededRandom(7);
  const now = Date.now();
  const customers = Array.from({ length: 12 }, (_, index) => ({
    externalId: `PLUMB-${index}`,
    name: `Plumber ${index}`,
    segment: 'trade',
  }));
  const quotes = Array.from({ length: 420 }, (_, index) => {
    const margin = 0.1 + random() * 0.4;
    const createdAt = now - (2 + Math.floor((index * 360) / 420)) * DAY_MS;
    return {
      externalId: `Q-${index}`,
      customerExternalId: (customers[index % customers.length] as { externalId: string }).externalId,
      outcome: random() < 1 / (1 + Math.exp(-(3 - 10 * margin))) ? ('won' as const) : ('lost' as const),
      currency: 'USD',
      createdAt: new Date(createdAt).toISOString(),
      decidedAt: new Date(createdAt + DAY_MS).toISOString(),
      lines: [
        {
          productSku: SKUS[index % SKUS.length] as string,
          quantity: 4 + (index % 5),
          costCents: 1000,
          quotedPriceCents: Math.round(1000 / (1 - margin)),
          pricingDecisionId: null,
        },
      ],
    };
  });
  return {
    product: SKUS.map((sku) => ({ sku, name: `Pipe ${sku}`, category: 'Plumbing', costCents: 1000, currentPriceCents: 1818 })),
    customer: customers,
    quote: quotes,
    order: [],
  };
}

let seller: TestWorkspace;

beforeAll(async () => {
  seller = await newWorkspace('Impact Overview Seller');
  const history = pricingHistory();
  const plumbing = market();
  await drain(seller, {
    product: [...history.product, ...plumbing.product],
    customer: [...history.customer, ...plumbing.customer],
    quote: plumbing.quote,
    order: history.order,
  });
}, 180_000);

describe('GET /v1/prices/{sku}?include=impact', () => {
  it("estimates the change's expected effect per quote from the win model, both prices in decimals of the currency", async () => {
    const response = await getPrice(seller.keys.pwLive, 'PIPE-1', '?include=impact');
    expect(response.status, response.text).toBe(200);
    const { impact, current_price: current, recommended_price: recommended } = response.json;
    expect(impact).toMatchObject({
      status: 'estimated',
      current: { price: current },
      recommended: { price: recommended },
      evidence: { segments: [{ segment: 'trade', share: 1 }] },
    });
    expect(impact.evidence.closed_quotes).toBeGreaterThanOrEqual(50);
    expect(impact.quantity).toBeGreaterThanOrEqual(4);
    // Listed at a 45% margin where the curve the quotes were drawn from earns most near 30%: the product's price for its
    // buyers is a cut, which wins more often and earns more margin per quote by the same model.
    expect(recommended).toBeLessThan(current);
    expect(impact.recommended.win_probability).toBeGreaterThan(impact.current.win_probability);
    expect(impact.expected_margin_change).toBeGreaterThan(0);
    const cents = (amount: number) => Math.round(amount * 100);
    expect(cents(impact.expected_margin_change)).toBe(cents(impact.recommended.expected_margin) - cents(impact.current.expected_margin));
    // The revenue is from the unrounded chance: the one shown, to four places, gives it to within a cent.
    const revenue = impact.current.win_probability * current * 100 * impact.quantity;
    expect(Math.abs(cents(impact.current.expected_revenue) - revenue)).toBeLessThanOrEqual(1);
    expect(response.json).not.toHaveProperty('rationale');
  });

  it('puts the change over a month at the product’s recent quote rate: its quote lines of the last 90 days', async () => {
    const { impact } = (await getPrice(seller.keys.pwLive, 'PIPE-1', '?include=impact')).json;
    // Every third of the quotes, one every 6 days on average, 35 of them in the 90 days to the bands job.
    expect(impact.per_month).toEqual({
      expected_margin_change: expect.any(Number),
      quote_lines: 35,
      days: 90,
      as_of: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/),
    });
    const cents = (amount: number) => Math.round(amount * 100);
    expect(cents(impact.per_month.expected_margin_change)).toBe(Math.round((cents(impact.expected_margin_change) * 35 * 30.4375) / 90));
  });

  it('says the impact is too thin to estimate, and why, for a product whose history holds no closed quotes', async () => {
    const response = await getPrice(seller.keys.pwLive, 'BOLT', '?include=impact');
    expect(response.status, response.text).toBe(200);
    expect(response.json.impact).toEqual({
      status: 'too_thin',
      reason: expect.stringMatching(/win model/),
      evidence: { closed_quotes: 0, segments: [{ segment: 'enterprise', share: 1 }] },
    });
  });

  it('adds the impact beside the rationale and the drivers, and leaves it out unless asked for', async () => {
    const all = await getPrice(seller.keys.pwLive, 'PIPE-2', '?include=rationale,drivers,impact');
    expect(all.json).toMatchObject({ rationale: expect.any(String), drivers: expect.any(Array), impact: { status: 'estimated' } });
    // Priced for its buyers by the win model, which the rationale names, not at the category target.
    expect(all.json.rationale).toMatch(/win model/);
    expect(all.json.rationale).not.toMatch(/no adjustments/);
    expect((await getPrice(seller.keys.pwLive, 'PIPE-2')).json).not.toHaveProperty('impact');
  });

  it('answers not_estimated for a recommendation stored before impacts were computed', async () => {
    await storeRecommendationUnpacked(seller.workspaceId, 'PIPE-3', ['impact', 'basis']);
    const response = await getPrice(seller.keys.pwLive, 'PIPE-3', '?include=impact');
    expect(response.status, response.text).toBe(200);
    expect(response.json.impact).toEqual({ status: 'not_estimated', reason: expect.stringMatching(/stored before/) });
  });
});
