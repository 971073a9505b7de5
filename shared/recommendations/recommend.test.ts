// Unit tests of a product's recommendation with no history: list price, MAP always held, bounds, unpriced products, currency and rate; and the skus a batch touched.
import { describe, expect, it } from 'vitest';
import type { FxRate, PricingSnapshot, ProductView } from '#shared/prices/inputs.ts';
import { pricingSettings } from '#shared/pricing/settings.ts';
import { catalogueRow } from './catalogue.ts';
import { type RecommendationContext, recommendProduct, touchedSkus } from './recommend.ts';
import type { PricedRecommendation, Recommendation } from './schema.ts';

const NOW = Date.UTC(2026, 2, 1, 12, 0, 0, 250);

/** Cost 5000, list 10 000: with no history the recommendation is the list price. */
function product(overrides: Partial<ProductView> = {}): ProductView {
  return {
    sku: 'SKU-1',
    category: 'Fasteners',
    costCents: 5000,
    currentPriceCents: 10_000,
    segmentBands: new Map(),
    ...overrides,
  };
}

function snapshot(rates: Record<string, FxRate> = {}): PricingSnapshot {
  return {
    products: new Map(),
    skuByExternalId: new Map(),
    customers: new Map(),
    categoryBands: new Map(),
    customerBands: new Map(),
    workspaceBand: undefined,
    rates: new Map(Object.entries(rates)),
  };
}

function context(overrides: Partial<RecommendationContext> = {}): RecommendationContext {
  return { baseCurrency: 'USD', settings: pricingSettings(undefined), nowMs: NOW, decisionId: () => 'pd_test', ...overrides };
}

function expectPriced(recommendation: Recommendation): PricedRecommendation {
  expect(recommendation.status).toBe('priced');
  return recommendation as PricedRecommendation;
}

describe("a product's recommendation", () => {
  it('is the list price when there is no history', () => {
    const recommendation = expectPriced(recommendProduct(product(), snapshot(), context()));
    expect(recommendation).toMatchObject({
      sku: 'SKU-1',
      currency: 'USD',
      currentPriceCents: 10_000,
      recommendedPriceCents: 10_000,
      pricingDecisionId: 'pd_test',
      updatedAt: '2026-03-01T12:00:00.250Z',
    });
    expect(recommendation.drivers).toEqual([]);
    expect(recommendation.rationale).toContain(recommendation.reasonSummary);
  });

  it('has the minimum-margin price, cost, as its floor when the product has no floor of its own', () => {
    expect(expectPriced(recommendProduct(product(), snapshot(), context())).floorCents).toBe(5000);
  });

  it('is raised to MAP when MAP is above the list price, with MAP as its floor', () => {
    const recommendation = expectPriced(recommendProduct(product({ mapCents: 11_000 }), snapshot(), context()));
    expect(recommendation.recommendedPriceCents).toBe(11_000);
    expect(recommendation.floorCents).toBe(11_000);
    expect(recommendation.drivers.map((driver) => driver.param)).toContain('map');
  });

  it('holds MAP even though the default settings do not hold erp keys to it', () => {
    const settings = pricingSettings(undefined);
    expect(settings.enforceMapForErp).toBe(false);
    const recommendation = expectPriced(recommendProduct(product({ mapCents: 20_000 }), snapshot(), context({ settings })));
    expect(recommendation.recommendedPriceCents).toBe(20_000);
    expect(recommendation.floorCents).toBe(20_000);
  });

  it('carries the product ceiling, and leaves it out when the product has none', () => {
    expect(expectPriced(recommendProduct(product({ ceilingCents: 12_000 }), snapshot(), context())).ceilingCents).toBe(12_000);
    expect(expectPriced(recommendProduct(product(), snapshot(), context()))).not.toHaveProperty('ceilingCents');
  });

  it('carries the name and category the console lists and filters by', () => {
    const recommendation = recommendProduct(product({ name: 'Hex bolt M10' }), snapshot(), context());
    expect(recommendation).toMatchObject({ name: 'Hex bolt M10', category: 'Fasteners' });
    expect(recommendProduct(product(), snapshot(), context())).not.toHaveProperty('name');
  });

  it('carries the external id when the product has one', () => {
    expect(recommendProduct(product({ externalId: 'EXT-1' }), snapshot(), context()).productExternalId).toBe('EXT-1');
    expect(recommendProduct(product(), snapshot(), context())).not.toHaveProperty('productExternalId');
  });

  it('is unpriced, for want of a cost basis, when the cost is 0', () => {
    const recommendation = recommendProduct(product({ costCents: 0 }), snapshot(), context());
    expect(recommendation).toEqual({
      status: 'unpriced',
      sku: 'SKU-1',
      category: 'Fasteners',
      currency: 'USD',
      currentPriceCents: 10_000,
      pricingDecisionId: 'pd_test',
      updatedAt: '2026-03-01T12:00:00.250Z',
      reason: 'no_cost_basis',
    });
  });

  it("is in the workspace's base currency when the product names none, or an empty one", () => {
    expect(recommendProduct(product(), snapshot(), context({ baseCurrency: 'EUR' })).currency).toBe('EUR');
    expect(recommendProduct(product({ currency: '' }), snapshot(), context({ baseCurrency: 'EUR' })).currency).toBe('EUR');
  });

  it("is in the product's own currency, its amounts unconverted", () => {
    const recommendation = expectPriced(
      recommendProduct(
        product({ currency: 'JPY', costCents: 500, currentPriceCents: 1000 }),
        snapshot({ JPY: { rate: 0.0067, asOfMs: NOW } }),
        context(),
      ),
    );
    expect(recommendation.currency).toBe('JPY');
    expect(recommendation.recommendedPriceCents).toBe(1000);
  });

  it('has a rate to the base of 1 in the base currency', () => {
    expect(expectPriced(recommendProduct(product(), snapshot(), context())).exchangeRateToBase).toBe(1);
    expect(expectPriced(recommendProduct(product({ currency: 'USD' }), snapshot(), context())).exchangeRateToBase).toBe(1);
  });

  it("has the snapshot's rate for another currency", () => {
    const recommendation = expectPriced(
      recommendProduct(product({ currency: 'EUR' }), snapshot({ EUR: { rate: 1.08, asOfMs: NOW } }), context()),
    );
    expect(recommendation.exchangeRateToBase).toBe(1.08);
  });

  it('has no rate to the base while none has been synced for its currency', () => {
    const recommendation = expectPriced(
      recommendProduct(product({ currency: 'EUR' }), snapshot({ GBP: { rate: 1.25, asOfMs: NOW } }), context()),
    );
    expect(recommendation).not.toHaveProperty('exchangeRateToBase');
  });

  it('takes a fresh decision id each time', () => {
    let next = 0;
    const decisionId = () => `pd_${++next}`;
    expect(recommendProduct(product(), snapshot(), context({ decisionId })).pricingDecisionId).toBe('pd_1');
    expect(recommendProduct(product({ costCents: 0 }), snapshot(), context({ decisionId })).pricingDecisionId).toBe('pd_2');
  });
});

describe("a recommendation's basis and impact", () => {
  const segmentBand = {
    floor: 0.2,
    target: 0.3,
    stretch: 0.45,
    nEff: 40,
    medianQuantity: 5,
    cov: 0.1,
    newestAtMs: NOW,
    sumW: 40,
    sumW2: 40,
    asOfMs: NOW,
  };
  /** A segment × SKU band at a 30% target, and a credible win model for its segment. */
  function withHistory(): { product: ProductView; snapshot: PricingSnapshot } {
    const winModel = { intercept: 2.4, slope: -8, closedQuotes: 300, nEff: 200 };
    return {
      product: product({ segmentBands: new Map([['', segmentBand]]) }),
      snapshot: {
        ...snapshot(),
        categoryBands: new Map([
          ['Fasteners', { category: 'Fasteners', band: undefined, segments: new Map([['', { band: segmentBand, winModel }]]) }],
        ]),
      },
    };
  }

  it('stands on the list price, with no source sample, when there is no history', () => {
    const { basis } = expectPriced(recommendProduct(product(), snapshot(), context()));
    expect(basis).toEqual({
      costCents: 5000,
      margin: 0.5,
      currentMargin: 0.5,
      band: { floor: 0.5, target: 0.5, stretch: 0.5 },
      source: 'list_price',
      sourceNEff: 0,
      guardrailsApplied: [],
      maxChange: { lowCents: 7500, highCents: 12_500 },
      confidenceScore: expect.any(Number),
      method: 'bands',
      keep: true,
    });
  });

  it('names MAP as the binding guardrail with its value when MAP raised the price', () => {
    const { basis } = expectPriced(recommendProduct(product({ mapCents: 11_000 }), snapshot(), context()));
    expect(basis?.guardrailsApplied).toEqual(['map']);
    expect(basis?.binding).toEqual({ guardrail: 'map', valueCents: 11_000 });
  });

  it('keeps the current price where only bands stand, naming the segment × SKU band, and prices by that band a product with no current price', () => {
    const { product: withBands, snapshot: withSnapshot } = withHistory();
    // Without a win model the bands price it.
    const bandsOnly = {
      ...withSnapshot,
      categoryBands: new Map([
        ['Fasteners', { category: 'Fasteners', band: undefined, segments: new Map([['', { band: segmentBand, winModel: undefined }]]) }],
      ]),
    };
    // With a current price and no model, that price is kept; the basis still names the band it would have stood on.
    const kept = expectPriced(recommendProduct(withBands, bandsOnly, context()));
    expect(kept.recommendedPriceCents).toBe(10_000);
    expect(kept.basis).toMatchObject({ method: 'bands', keep: true, source: 'segment_sku', sourceNEff: 40, margin: 0.5 });
    // With none, the bands price it: cost 5000 at the shrunk target, within the guardrails.
    const fresh = expectPriced(recommendProduct({ ...withBands, currentPriceCents: 0 }, bandsOnly, context()));
    expect(fresh.basis).toMatchObject({
      method: 'bands',
      keep: false,
      source: 'segment_sku',
      sourceNEff: 40,
      band: { floor: 0.2, target: 0.3, stretch: 0.45 },
    });
    expect(fresh.recommendedPriceCents).toBeLessThan(10_000);
  });

  it('stores the expected impact of the change, and the list row carries its margin change', () => {
    const { product: withBands, snapshot: withSnapshot } = withHistory();
    const recommendation = expectPriced(recommendProduct(withBands, withSnapshot, context()));
    expect(recommendation.basis).toMatchObject({ method: 'win_model', keep: false });
    expect(recommendation.impact).toMatchObject({
      status: 'estimated',
      quantity: 5,
      current: { priceCents: 10_000 },
      recommended: { priceCents: recommendation.recommendedPriceCents },
    });
    const impact = recommendation.impact?.status === 'estimated' ? recommendation.impact : undefined;
    expect(impact?.expectedMarginChangeCents).toBeGreaterThan(0);
    expect(catalogueRow(recommendation).expectedMarginChangeCents).toBe(impact?.expectedMarginChangeCents);
  });

  it('stores a too_thin impact without history, and the list row has no margin change', () => {
    const recommendation = expectPriced(recommendProduct(product(), snapshot(), context()));
    expect(recommendation.impact?.status).toBe('too_thin');
    expect(catalogueRow(recommendation)).not.toHaveProperty('expectedMarginChangeCents');
  });
});

describe('the skus a batch touched', () => {
  const touched = (products: string[], nodes: unknown[][]) => ({
    products: new Set(products),
    customers: new Set<string>(),
    nodes: new Set(nodes.map((node) => JSON.stringify(node))),
  });

  it('are the products it carried', () => {
    expect(touchedSkus(touched(['SKU-2', 'SKU-1'], []))).toEqual(['SKU-1', 'SKU-2']);
  });

  it('include the skus of the segment × SKU and category × SKU nodes it touched', () => {
    expect(
      touchedSkus(
        touched(
          [],
          [
            ['segmentSku', 'enterprise', 'SKU-1'],
            ['categorySku', 'Fasteners', 'SKU-2'],
          ],
        ),
      ),
    ).toEqual(['SKU-1', 'SKU-2']);
  });

  it('ignore every other node, customer × SKU included', () => {
    const nodes = [
      ['category', 'Fasteners'],
      ['segmentCategory', 'enterprise', 'Fasteners'],
      ['customerSku', 'C-1', 'SKU-9'],
      ['categoryCustomer', 'Fasteners', 'C-1'],
      ['workspace'],
    ];
    expect(touchedSkus(touched([], nodes))).toEqual([]);
  });

  it('are sorted and each named once', () => {
    const nodes = [
      ['segmentSku', 'enterprise', 'SKU-3'],
      ['segmentSku', 'smb', 'SKU-1'],
      ['categorySku', 'Fasteners', 'SKU-3'],
      ['categorySku', 'Fasteners', 'SKU-1'],
    ];
    expect(touchedSkus(touched(['SKU-3', 'SKU-2'], nodes))).toEqual(['SKU-1', 'SKU-2', 'SKU-3']);
  });

  it('are none for a batch that touched nothing', () => {
    expect(touchedSkus(touched([], []))).toEqual([]);
  });
});
