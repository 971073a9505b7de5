// Unit tests of the product-level score, and of the keep rule over the bench's markets: no change the engine expects to lose.
import { describe, expect, it } from 'vitest';
import { fitMarket, recommendInProcess } from './in-process.ts';
import { marketHistory } from './history.ts';
import { families, makeMarket, type MarketSize } from './market.ts';
import { bestSinglePrice, productBounds, productFigures, productProfit, scoreProducts } from './products.ts';

const nowMs = Date.UTC(2026, 10, 24, 12);
const small: MarketSize = { products: 30, customers: 30, quotes: 600, requests: 20 };

describe('the product-level score', () => {
  it('finds no whole-cent price within the bounds that earns more over the buyers than the best single price', () => {
    const market = makeMarket('margin', 2, small, nowMs);
    for (const product of market.products.slice(0, 5)) {
      const bounds = productBounds(product);
      const best = bestSinglePrice(market, product, bounds);
      for (
        let price = bounds.lowCents;
        price <= bounds.highCents;
        price += Math.max(1, Math.floor((bounds.highCents - bounds.lowCents) / 97))
      ) {
        expect(productProfit(market, product, price)).toBeLessThanOrEqual(best.profit + 1e-9);
      }
    }
  });

  it('counts a product as losing only when its recommendation earns less than its current price by more than 0.5%', () => {
    const figures = productFigures([
      { sku: 'A', recommendedPriceCents: 1, bestPriceCents: 1, recommended: 99.6, current: 100, best: 110 },
      { sku: 'B', recommendedPriceCents: 1, bestPriceCents: 1, recommended: 99.4, current: 100, best: 110 },
    ]);
    expect(figures.losers).toBe(0.5);
    expect(figures.share).toBeCloseTo(199 / 220, 12);
    expect(figures.currentShare).toBeCloseTo(200 / 220, 12);
  });

  it('scores a product without a recommendation at its current price', () => {
    const market = makeMarket('margin', 2, small, nowMs);
    const [scored] = scoreProducts(market, new Map());
    expect(scored?.recommended).toBe(scored?.current);
  });
});

describe("the recommendations over the bench's markets", () => {
  it('offer no change whose expected impact is negative unless a named guardrail forced it', () => {
    for (const family of families) {
      for (const seed of [3, 1003]) {
        const market = makeMarket(family, seed, small, nowMs);
        const recommendations = recommendInProcess(market, fitMarket(market, marketHistory(market, small), nowMs), nowMs);
        for (const recommendation of recommendations) {
          if (recommendation.status !== 'priced' || recommendation.impact?.status !== 'estimated') continue;
          if (recommendation.impact.expectedMarginChangeCents >= 0) continue;
          const where = `${family} ${seed} ${recommendation.sku}`;
          expect(recommendation.basis?.keep, where).toBe(true);
          expect(recommendation.basis?.guardrailsApplied.length, where).toBeGreaterThan(0);
          expect(recommendation.rationale, where).toMatch(/^Keep the current price as far as the guardrails allow \(moved by [a-z_, ]+\)/);
        }
      }
    }
  });

  it('price most products from the win model, and keep some at their current price', () => {
    const market = makeMarket('margin', 3, small, nowMs);
    const recommendations = recommendInProcess(market, fitMarket(market, marketHistory(market, small), nowMs), nowMs);
    const methods = recommendations.map((recommendation) =>
      recommendation.status === 'priced' ? recommendation.basis?.method : undefined,
    );
    expect(methods.filter((method) => method === 'win_model').length).toBeGreaterThan(recommendations.length / 2);
    expect(recommendations.some((recommendation) => recommendation.status === 'priced' && recommendation.basis?.keep)).toBe(true);
  });
});
