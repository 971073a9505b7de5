import { describe, expect, it } from 'vitest';
import {
  CONFOUNDING,
  type Deal,
  DRIFT_YEARS,
  fullSize,
  makeMarket,
  type Market,
  MAX_CELL_DRIFT,
  quickSize,
  type SimProduct,
  STEEP_SCALE,
  trueWinProbability,
} from './market.ts';
import { marketHistory } from './history.ts';
import { oraclePrice, priceBounds } from './oracle.ts';
import { HELD_OUT_FIRST_SEED, parseSeedSets, seedsOf, setOfSeed } from './seeds.ts';

const nowMs = Date.parse('2026-06-01T00:00:00Z');

/** A deal of the average customer at the product's typical quantity in one cell, with room to price either way. */
function cellDeal(segment: number, category: number, yearsAgo: number): Deal {
  const product: SimProduct = { sku: 'REF', category, costCents: 10_000, listCents: 16_000, reference: 1, quantity: 1 };
  return { product, customer: { externalId: 'REF', segment, effect: 0, activity: 1 }, quantity: 1, yearsAgo };
}

const correlation = (xs: readonly number[], ys: readonly number[]) => {
  const mean = (values: readonly number[]) => values.reduce((a, b) => a + b, 0) / values.length;
  const mx = mean(xs);
  const my = mean(ys);
  let sxy = 0;
  let sxx = 0;
  let syy = 0;
  xs.forEach((x, i) => {
    const y = ys[i] as number;
    sxy += (x - mx) * (y - my);
    sxx += (x - mx) ** 2;
    syy += (y - my) ** 2;
  });
  return sxy / Math.sqrt(sxx * syy);
};

describe('the quality bench’s markets', () => {
  it('makes the same market and history from the same family, seed and moment', () => {
    for (const family of ['margin', 'hard'] as const) {
      const a = makeMarket(family, 3, quickSize, nowMs);
      const b = makeMarket(family, 3, quickSize, nowMs);
      expect(b).toEqual(a);
      expect(marketHistory(b, quickSize)).toEqual(marketHistory(a, quickSize));
    }
  });

  it('keeps the steady families’ markets as they were before the hard families came', () => {
    // Fixed figures of margin seed 1 and list seed 2: the steady families' figures must not move.
    const margin = makeMarket('margin', 1, fullSize, nowMs);
    expect(margin.products[0]?.costCents).toBe(2266);
    expect(margin.customers[0]?.effect).toBeCloseTo(-0.071393, 6);
    expect(margin.cellSlope[2]?.[4]).toBeCloseTo(8.421141, 6);
    const list = makeMarket('list', 2, fullSize, nowMs);
    expect(list.products[1]?.listCents).toBe(17_771);
    expect(list.drift).toBeCloseTo(0.00433, 5);
    expect(margin.conditions).toEqual({ sparse: false, drift: false, anchored: false, confounded: false, steep: false });
    expect(margin.cellDrift.flat().every((slide) => slide === 0)).toBe(true);
  });

  it('lays each hard family’s conditions on the margin market of the same seed', () => {
    const margin = makeMarket('margin', 4, fullSize, nowMs);
    const hard = makeMarket('hard', 4, fullSize, nowMs);
    expect(hard.products).toEqual(margin.products);
    expect(hard.customers).toEqual(margin.customers);
    expect(hard.cellEffect).toEqual(margin.cellEffect);
    expect(hard.conditions).toEqual({ sparse: true, drift: true, anchored: true, confounded: true, steep: false });
    expect(makeMarket('drift', 4, fullSize, nowMs).cellDrift).toEqual(hard.cellDrift);
    expect(makeMarket('anchored', 4, fullSize, nowMs).anchoredSegment).toBe(hard.anchoredSegment);
  });

  it('makes the steep family the margin market with every cell’s logistic scale cut to about 0.03 at the median', () => {
    const margin = makeMarket('margin', 4, fullSize, nowMs);
    const steep = makeMarket('steep', 4, fullSize, nowMs);
    expect(steep.products).toEqual(margin.products);
    expect(steep.cellEffect).toEqual(margin.cellEffect);
    const scales = steep.cellSlope.flat().map((slope) => 1 / slope);
    const ratios = steep.cellSlope.flat().map((slope, index) => slope / (margin.cellSlope.flat()[index] as number));
    expect(Math.min(...scales)).toBeGreaterThan(0.02);
    expect(Math.max(...scales)).toBeLessThan(0.053);
    // One factor for every cell: the spread of the margin market's slopes is kept.
    for (const ratio of ratios) expect(ratio).toBeCloseTo(1 / (9 * 1.05 * STEEP_SCALE), 9);
  });

  it('moves each drifting cell’s best margin by a share of its slide, some cells warming and some cooling', () => {
    let largest = 0;
    for (const seed of [1, 2, HELD_OUT_FIRST_SEED]) {
      // The market-wide drift held still, to see the cells' own.
      const market: Market = { ...makeMarket('drift', seed, fullSize, nowMs), drift: 0 };
      const slides = market.cellDrift.flat();
      expect(slides.some((slide) => slide > 0)).toBe(true);
      expect(slides.some((slide) => slide < 0)).toBe(true);
      market.cellDrift.forEach((row, segment) =>
        row.forEach((slide, category) => {
          expect(Math.abs(slide)).toBeGreaterThanOrEqual(MAX_CELL_DRIFT / 2);
          expect(Math.abs(slide)).toBeLessThanOrEqual(MAX_CELL_DRIFT);
          const best = (yearsAgo: number) => {
            const deal = cellDeal(segment, category, yearsAgo);
            const bounds = priceBounds(deal);
            const { priceCents } = oraclePrice(market, deal, bounds);
            const inside = priceCents > bounds.lowCents && priceCents < bounds.highCents;
            return { margin: (priceCents - 10_000) / priceCents, inside };
          };
          const now = best(0);
          const before = best(DRIFT_YEARS);
          // Unchanged before the drift began.
          expect(best(1).margin).toBe(before.margin);
          if (!now.inside || !before.inside) return;
          const move = now.margin - before.margin;
          // A flat curve's best margin moves less than a steep one's: profit per deal pulls it back.
          expect(move / slide).toBeGreaterThan(0.25);
          expect(move / slide).toBeLessThan(1);
          largest = Math.max(largest, Math.abs(move));
        }),
      );
    }
    // Up to about six points of margin at the best price.
    expect(largest).toBeGreaterThan(0.05);
    expect(largest).toBeLessThan(0.07);
  });

  it('anchors one large segment on list: its chance of winning follows the price over list, not the cost', () => {
    const market = makeMarket('anchored', 5, fullSize, nowMs);
    const anchored = market.anchoredSegment as number;
    expect([0, 1]).toContain(anchored);
    const atCost = (segment: number, costCents: number) => {
      const deal = cellDeal(segment, 0, 0);
      return trueWinProbability(market, { ...deal, product: { ...deal.product, costCents } }, 15_000);
    };
    expect(atCost(anchored, 9_000)).toBe(atCost(anchored, 12_000));
    expect(atCost(2, 9_000)).toBeLessThan(atCost(2, 12_000));
  });

  it('gives smaller discounts to the customers who tolerate more margin when confounded', () => {
    const discounts = (family: 'margin' | 'confounded') => {
      const market = makeMarket(family, 6, fullSize, nowMs);
      const effect = new Map(market.customers.map((customer) => [customer.externalId, customer.effect]));
      const list = new Map(market.products.map((product) => [product.sku, product.listCents]));
      const rows = marketHistory(market, fullSize).quote.map((quote) => {
        const line = quote.lines[0];
        const listCents = list.get(line?.productSku ?? '') as number;
        return [effect.get(quote.customerExternalId ?? '') as number, 1 - (line?.quotedPriceCents ?? 0) / listCents];
      });
      return correlation(
        rows.map(([x]) => x as number),
        rows.map(([, y]) => y as number),
      );
    };
    expect(CONFOUNDING).toBeGreaterThan(0);
    expect(discounts('confounded')).toBeLessThan(-0.3);
    expect(Math.abs(discounts('margin'))).toBeLessThan(0.1);
  });

  it('keeps a few hundred closed quotes for the whole catalogue when sparse', () => {
    const market = makeMarket('sparse', 7, fullSize, nowMs);
    const quotes = marketHistory(market, fullSize).quote;
    const closed = quotes.filter((quote) => quote.outcome !== 'open').length;
    expect(quotes).toHaveLength(fullSize.quotes / 4);
    expect(closed).toBeGreaterThan(300);
    expect(closed).toBeLessThan(400);
    expect(marketHistory(makeMarket('margin', 7, fullSize, nowMs), fullSize).quote).toHaveLength(fullSize.quotes);
  });
});

describe('the quality bench’s seeds', () => {
  it('splits tuning seeds from held-out ones that never meet', () => {
    expect(seedsOf('tuning', 3)).toEqual([1, 2, 3]);
    expect(seedsOf('held-out', 3)).toEqual([1001, 1002, 1003]);
    expect(setOfSeed(seedsOf('tuning', 1000).at(-1) as number)).toBe('tuning');
    expect(setOfSeed(seedsOf('held-out', 1)[0] as number)).toBe('held-out');
    expect(() => seedsOf('tuning', 1001)).toThrow(/--seeds/);
    expect(() => seedsOf('tuning', 0)).toThrow(/--seeds/);
  });

  it('reads --set as tuning, held-out or both, both by default', () => {
    expect(parseSeedSets(undefined)).toEqual(['tuning', 'held-out']);
    expect(parseSeedSets('both')).toEqual(['tuning', 'held-out']);
    expect(parseSeedSets('held-out')).toEqual(['held-out']);
    expect(() => parseSeedSets('test')).toThrow(/--set takes/);
  });
});
