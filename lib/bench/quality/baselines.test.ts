import { describe, expect, it } from 'vitest';
import { seededRandom } from '#platform/seeded-random.ts';
import { cellCurveProfit, cellLogisticPricer, curvePrice, fitMarginCurve } from './baselines.ts';
import { marketHistory, requestDeals } from './history.ts';
import { fullSize, makeMarket } from './market.ts';
import { oraclePrice, priceBounds } from './oracle.ts';
import { historyLines } from './run.ts';

const nowMs = Date.parse('2026-06-01T00:00:00Z');
const sigmoid = (z: number) => 1 / (1 + Math.exp(-z));

function quotesFrom(intercept: number, slope: number, count: number, seed: number) {
  const random = seededRandom(seed);
  return Array.from({ length: count }, () => {
    const margin = 0.1 + 0.4 * random();
    return { margin, won: random() < sigmoid(intercept + slope * margin) };
  });
}

describe('the per-cell logistic baseline', () => {
  it('recovers a curve of win on margin from enough quotes', () => {
    const curve = fitMarginCurve(quotesFrom(3, -9, 4000, 1));
    expect(curve?.intercept).toBeCloseTo(3, 0);
    expect(curve?.slope).toBeGreaterThan(-10.5);
    expect(curve?.slope).toBeLessThan(-7.5);
  });

  it('fits nothing from too few quotes, or from quotes where winning does not fall with margin', () => {
    expect(fitMarginCurve(quotesFrom(3, -9, 20, 2))).toBeUndefined();
    expect(fitMarginCurve(quotesFrom(0, 0, 400, 3))).toBeUndefined();
    expect(fitMarginCurve(quotesFrom(-1, 4, 400, 4))).toBeUndefined();
  });

  it('prices at the best of the fitted curve within the bounds', () => {
    const curve = { intercept: 3, slope: -10 };
    const price = curvePrice(curve, 10_000, { lowCents: 10_000, highCents: 20_000 });
    const profit = (p: number) => (p - 10_000) * sigmoid(3 - (10 * (p - 10_000)) / p);
    expect(profit(price)).toBeGreaterThanOrEqual(profit(price - 1));
    expect(profit(price)).toBeGreaterThanOrEqual(profit(price + 1));
    expect(curvePrice(curve, 10_000, { lowCents: 10_000, highCents: 10_500 })).toBe(10_500);
  });

  it('prices every request line of a sparse market, borrowing a wider fit where a cell is thin', () => {
    const market = makeMarket('sparse', 1, fullSize, nowMs);
    const pricer = cellLogisticPricer(market, historyLines(market, marketHistory(market, fullSize)));
    const prices = requestDeals(market, fullSize).map((deal) => pricer(deal, priceBounds(deal)));
    expect(prices.every((price) => price !== undefined)).toBe(true);
  });
});

describe('the true cell curves', () => {
  it('earn no more than the oracle, and the same now as at mid-year in a market without drift', () => {
    const market = { ...makeMarket('margin', 2, fullSize, nowMs), drift: 0 };
    for (const deal of requestDeals(market, fullSize).slice(0, 40)) {
      const bounds = priceBounds(deal);
      const best = oraclePrice(market, deal, bounds).profit;
      const now = cellCurveProfit(market, deal, bounds, 0);
      expect(now).toBeLessThanOrEqual(best + 1e-9);
      expect(cellCurveProfit(market, deal, bounds, 0.5)).toBe(now);
    }
  });
});
