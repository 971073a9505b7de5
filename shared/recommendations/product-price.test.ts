// Unit tests of the product's price for all its buyers: the single best price over them, shrunk by the model's error, and the keep rule.
import { describe, expect, it } from 'vitest';
import type { Band, BuyerGroup, WinModel } from '#shared/pricing/model.ts';
import { pricingSettings } from '#shared/pricing/settings.ts';
import type { PricingSnapshot, ProductView } from '#shared/prices/inputs.ts';
import { buyerMix, expectedUnitMargin } from './buyer-mix.ts';
import { recommendProduct } from './recommend.ts';
import type { PricedRecommendation } from './schema.ts';

const NOW = Date.UTC(2026, 2, 1);
const settings = pricingSettings(undefined);

function band(buyers?: BuyerGroup[]): Band {
  return {
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
    winOffset: 0,
    ...(buyers ? { buyers } : {}),
  };
}

/** A sure model (a sample so large its credibility is 1 to six places): P(win) = σ(2.4 − 8 · margin). */
const sureModel: WinModel = { intercept: 2.4, slope: -8, closedQuotes: 5000, nEff: 1e7 };

/** Cost 5000, list 8000; the buyers of segment '' in the given groups, weight 100 between them (credibility 0.83). */
function market(options: { buyers?: BuyerGroup[]; model?: WinModel; product?: Partial<ProductView> } = {}) {
  const buyers = options.buyers ?? [{ weight: 100, offset: 0, quantity: 5 }];
  const segmentBand = band(buyers);
  const product: ProductView = {
    sku: 'SKU-1',
    category: 'Fasteners',
    costCents: 5000,
    currentPriceCents: 8000,
    segmentBands: new Map([['', segmentBand]]),
    ...options.product,
  };
  const snapshot: PricingSnapshot = {
    products: new Map([['SKU-1', product]]),
    skuByExternalId: new Map(),
    customers: new Map(),
    categoryBands: new Map([
      [
        'Fasteners',
        { category: 'Fasteners', band: undefined, segments: new Map([['', { band: band(), winModel: options.model ?? sureModel }]]) },
      ],
    ]),
    customerBands: new Map(),
    workspaceBand: undefined,
    rates: new Map(),
  };
  return { product, snapshot };
}

function recommend(setup: ReturnType<typeof market>): PricedRecommendation {
  const recommendation = recommendProduct(setup.product, setup.snapshot, {
    baseCurrency: 'USD',
    settings,
    nowMs: NOW,
    decisionId: () => 'pd_test',
  });
  if (recommendation.status !== 'priced') throw new Error('expected a priced recommendation');
  return recommendation;
}

/** The whole-cent price within ±25% of 8000 that earns the most over the buyers, by brute force. */
function bruteForceBest(setup: ReturnType<typeof market>): number {
  const mix = buyerMix(setup.product, setup.snapshot, NOW, settings);
  let best = 6000;
  for (let price = 6000; price <= 10_000; price++) {
    if (expectedUnitMargin(mix, 5000, price) > expectedUnitMargin(mix, 5000, best)) best = price;
  }
  return best;
}

describe("a product's price for all its buyers", () => {
  it('is the single price that earns the most expected margin over them, said by a product-level win_model step', () => {
    const setup = market();
    const recommendation = recommend(setup);
    const best = bruteForceBest(setup);
    // The product's own buyers weigh 100 / (100 + 20) against the category's, which here are the same curve: the best
    // price is theirs, and the move toward it is the model's credibility, 1.
    expect(Math.abs(recommendation.recommendedPriceCents - best)).toBeLessThanOrEqual(3);
    expect(recommendation.basis).toMatchObject({ method: 'win_model', keep: false });
    expect(recommendation.reasonSummary).toContain('win model');
    expect(recommendation.rationale).not.toContain('no adjustments');
    expect(recommendation.impact).toMatchObject({ status: 'estimated', recommended: { priceCents: recommendation.recommendedPriceCents } });
  });

  it('moves less where its curve in price over list puts the best price elsewhere and the quotes barely chose between the two', () => {
    // The same buyers answering to list: a curve that falls off steeply above the list price puts their best price just
    // above it, where the curve in margin would cut the price.
    const other = {
      feature: 'list',
      intercept: 3,
      slope: -30,
      centroid: 0,
      supportLow: -0.3,
      supportHigh: 0.3,
      slopeSe: 1,
      levelSe: 0.1,
    } as const;
    const alone = recommend(market());
    const undecided = recommend(market({ model: { ...sureModel, other, listGain: 0 } }));
    const decided = recommend(market({ model: { ...sureModel, other, listGain: -30 } }));
    const moveOf = (recommendation: PricedRecommendation) => Math.abs(recommendation.recommendedPriceCents - 8000);
    expect(moveOf(alone)).toBeGreaterThan(100);
    expect(moveOf(undecided)).toBeLessThan(moveOf(alone) / 2);
    expect(JSON.stringify(undecided.drivers)).toContain('its curves in margin and in price over list put the best price apart');
    // Quotes that clearly chose margin leave the move as it was.
    expect(Math.abs(decided.recommendedPriceCents - alone.recommendedPriceCents)).toBeLessThanOrEqual(1);
  });

  it("prices higher for loyal buyers than for hard-nosed ones: each group's customer offset moves its curve", () => {
    const loyal = recommend(market({ buyers: [{ weight: 100, offset: 0.8, quantity: 5 }] }));
    const hardNosed = recommend(market({ buyers: [{ weight: 100, offset: -0.8, quantity: 5 }] }));
    expect(loyal.recommendedPriceCents).toBeGreaterThan(hardNosed.recommendedPriceCents);
  });

  it('keeps the current price when the move is within the error the model states for its optimum', () => {
    // The level known only to ±2 logits: the optimum could be anywhere within ±25 points of margin.
    const unsure: WinModel = { ...sureModel, levelSe: 2 };
    const recommendation = recommend(market({ model: unsure }));
    expect(recommendation.recommendedPriceCents).toBe(8000);
    expect(recommendation.basis).toMatchObject({ method: 'win_model', keep: true });
    expect(recommendation.rationale).toMatch(
      /^Keep the current price: the win model sees no change that earns more margin beyond its own error/,
    );
    expect(recommendation.impact).toMatchObject({ status: 'estimated', expectedMarginChangeCents: 0 });
  });

  it('keeps the current price, with a keep step, when what follows the model (stock) would make the move lose', () => {
    const setup = market();
    const best = bruteForceBest(setup);
    // The current price at the model's best: out of stock adds a point, which the model expects to lose on.
    const atBest = market({ product: { currentPriceCents: best, inStock: false } });
    const recommendation = recommend(atBest);
    expect(recommendation.recommendedPriceCents).toBe(best);
    expect(recommendation.basis?.keep).toBe(true);
    expect(recommendation.reasonSummary).toContain('keep current');
    expect(recommendation.rationale).toMatch(/^Keep the current price: the win model expects the change to earn less margin/);
  });

  it('moves a kept price only as a guardrail forces it, and names the guardrail', () => {
    // MAP above the current price and above the model's best: the price must rise, though the model expects a loss.
    const setup = market({ product: { currentPriceCents: 7000, mapCents: 9000 } });
    const recommendation = recommend(setup);
    expect(recommendation.recommendedPriceCents).toBe(9000);
    expect(recommendation.basis).toMatchObject({ keep: true, binding: { guardrail: 'map', valueCents: 9000 } });
    expect(recommendation.rationale).toMatch(/^Keep the current price as far as the guardrails allow \(moved by map\)/);
    const impact = recommendation.impact?.status === 'estimated' ? recommendation.impact : undefined;
    expect(impact?.expectedMarginChangeCents).toBeLessThan(0);
  });

  it('keeps the current price where no credible model covers the buyers, saying so', () => {
    const weak: WinModel = { intercept: 2.4, slope: -8, closedQuotes: 60, nEff: 5 };
    const recommendation = recommend(market({ model: weak, product: { currentPriceCents: 8000 } }));
    expect(recommendation.recommendedPriceCents).toBe(8000);
    expect(recommendation.basis).toMatchObject({ method: 'bands', keep: true });
    expect(recommendation.rationale).toMatch(/^Keep the current price: no win model yet/);
    expect(recommendation.reasonSummary).toContain('keep current');
    expect(recommendation.impact?.status).toBe('too_thin');
  });

  it('is the bands’ price where no credible model covers the buyers and there is no current price to keep', () => {
    const weak: WinModel = { intercept: 2.4, slope: -8, closedQuotes: 60, nEff: 5 };
    const recommendation = recommend(market({ model: weak, product: { currentPriceCents: 0 } }));
    expect(recommendation.basis).toMatchObject({ method: 'bands', keep: false });
    expect(recommendation.recommendedPriceCents).toBeGreaterThan(0);
  });

  it('moves a price kept without a model only as a guardrail forces it, and names the guardrail', () => {
    const weak: WinModel = { intercept: 2.4, slope: -8, closedQuotes: 60, nEff: 5 };
    const recommendation = recommend(market({ model: weak, product: { currentPriceCents: 7000, mapCents: 9000 } }));
    expect(recommendation.recommendedPriceCents).toBe(9000);
    expect(recommendation.basis).toMatchObject({ method: 'bands', keep: true, binding: { guardrail: 'map', valueCents: 9000 } });
    expect(recommendation.rationale).toMatch(/^Keep the current price as far as the guardrails allow \(moved by map\)/);
  });
});
