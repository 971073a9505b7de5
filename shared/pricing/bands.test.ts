// Unit tests of the bands: recency weights, weighted percentiles, n_eff, which lines count, and the workspace band.
import { describe, expect, it } from 'vitest';
import { type BandSample, combineBands, computeBand, computeCategoryBands, lineMargin, recencyWeight } from './bands.ts';
import type { Band, HistoryLine } from './model.ts';
import { defaultPricingSettings as settings } from './settings.ts';

const DAY = 86_400_000;
const NOW = Date.UTC(2025, 0, 1);

function sample(margin: number, weight = 1, quantity = 1, atMs = NOW): BandSample {
  return { margin, weight, quantity, atMs };
}

function order(overrides: Partial<HistoryLine> = {}): HistoryLine {
  return {
    kind: 'order',
    documentId: 'O-1',
    productSku: 'SKU-1',
    customerExternalId: 'C-1',
    segment: 'smb',
    quantity: 1,
    costCents: 70,
    priceCents: 100,
    atMs: NOW,
    ...overrides,
  };
}

function quote(outcome: 'open' | 'won' | 'lost', overrides: Partial<HistoryLine> = {}): HistoryLine {
  return { ...order(), kind: 'quote', documentId: 'Q-1', outcome, ...overrides };
}

describe('recency weight', () => {
  it('halves every half-life', () => {
    expect(recencyWeight(NOW, NOW, 180)).toBe(1);
    expect(recencyWeight(NOW - 180 * DAY, NOW, 180)).toBeCloseTo(0.5, 12);
    expect(recencyWeight(NOW - 360 * DAY, NOW, 180)).toBeCloseTo(0.25, 12);
  });

  it('counts a line dated after asOf as new rather than heavier', () => {
    expect(recencyWeight(NOW + 30 * DAY, NOW, 180)).toBe(1);
  });
});

describe('line margin', () => {
  it('is the share of the price above cost', () => {
    expect(lineMargin({ priceCents: 200, costCents: 150 })).toBe(0.25);
    expect(lineMargin({ priceCents: 100, costCents: 110 })).toBeCloseTo(-0.1, 12);
  });

  it('is unusable without a cost basis or a positive price', () => {
    expect(lineMargin({ priceCents: 100, costCents: 0 })).toBeUndefined();
    expect(lineMargin({ priceCents: 0, costCents: 10 })).toBeUndefined();
    expect(lineMargin({ priceCents: -5, costCents: 10 })).toBeUndefined();
  });
});

describe('a band', () => {
  it('takes the first margin whose cumulative weight reaches each percentile', () => {
    const margins = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95];
    const band = computeBand(
      margins.map((margin) => sample(margin)),
      settings,
      NOW,
    );
    // Ten equal weights: 20% is reached at the 2nd margin, 60% at the 6th, 90% at the 9th.
    expect(band?.floor).toBe(0.2);
    expect(band?.target).toBe(0.6);
    expect(band?.stretch).toBe(0.9);
  });

  it('weights the percentiles, whatever order the samples come in', () => {
    const band = computeBand([sample(0.5, 1), sample(0.1, 3), sample(0.3, 6)], settings, NOW);
    // Sorted: 0.1 (w 3, cum 0.3), 0.3 (w 6, cum 0.9), 0.5 (w 1, cum 1.0).
    expect(band?.floor).toBe(0.1);
    expect(band?.target).toBe(0.3);
    expect(band?.stretch).toBe(0.3);
  });

  it('measures the effective sample size as (Σw)² / Σw²', () => {
    expect(computeBand([sample(0.2), sample(0.3), sample(0.4), sample(0.5)], settings, NOW)?.nEff).toBeCloseTo(4, 12);
    expect(computeBand([sample(0.2, 1), sample(0.3, 0.5)], settings, NOW)?.nEff).toBeCloseTo(2.25 / 1.25, 12);
  });

  it('keeps the same percentiles and n_eff when every weight is scaled alike', () => {
    const samples = [sample(0.12, 0.4), sample(0.31, 0.9), sample(0.27, 0.2), sample(0.45, 0.7)];
    const scaled = samples.map((s) => ({ ...s, weight: s.weight * 0.01 }));
    const a = computeBand(samples, settings, NOW);
    const b = computeBand(scaled, settings, NOW);
    expect(b?.floor).toBe(a?.floor);
    expect(b?.target).toBe(a?.target);
    expect(b?.stretch).toBe(a?.stretch);
    expect(b?.nEff).toBeCloseTo(a?.nEff ?? 0, 10);
  });

  it('takes the weighted median quantity, the coefficient of variation and the newest date', () => {
    const band = computeBand(
      [sample(0.2, 1, 5, NOW - 3 * DAY), sample(0.4, 1, 100, NOW - DAY), sample(0.3, 2, 10, NOW - 2 * DAY)],
      settings,
      NOW,
    );
    expect(band?.medianQuantity).toBe(10);
    // Weighted mean 0.3, variance (0.01 + 0.01) / 4 = 0.005.
    expect(band?.cov).toBeCloseTo(Math.sqrt(0.005) / 0.3, 12);
    expect(band?.newestAtMs).toBe(NOW - DAY);
    expect(band?.sumW).toBe(4);
    expect(band?.sumW2).toBe(6);
    expect(band?.asOfMs).toBe(NOW);
  });

  it('has a coefficient of variation of 0 when the mean margin is 0', () => {
    expect(computeBand([sample(-0.1), sample(0.1)], settings, NOW)?.cov).toBe(0);
  });

  it('does not exist without samples or without weight', () => {
    expect(computeBand([], settings, NOW)).toBeUndefined();
    expect(computeBand([sample(0.3, 0)], settings, NOW)).toBeUndefined();
  });

  // Speed is not asserted here: `npm run bench -- repricing` reports the bands job's Node CPU time, of which this is a
  // part (there is no bench of computeBand alone).
  it('computes the band of tens of thousands of samples from every one of them, whatever their order', () => {
    const samples = Array.from({ length: 50_000 }, (_, i) => sample(((i * 7919) % 1000) / 1000, 1 + (i % 7), 1 + (i % 13), NOW - i * 1000));
    const band = computeBand(samples, settings, NOW);
    // Margins spread evenly over 0–0.999, so the percentiles sit at 20%, 60% and 90%.
    expect(band?.floor).toBeCloseTo(0.2, 2);
    expect(band?.target).toBeCloseTo(0.6, 2);
    expect(band?.stretch).toBeCloseTo(0.9, 2);
    expect(band?.sumW).toBe(samples.reduce((sum, s) => sum + s.weight, 0));
    expect(band?.sumW2).toBe(samples.reduce((sum, s) => sum + s.weight ** 2, 0));
    expect(band?.nEff).toBeCloseTo((band?.sumW ?? 0) ** 2 / (band?.sumW2 ?? 1), 6);
    expect(band?.medianQuantity).toBe(7);
    expect(band?.newestAtMs).toBe(NOW);
    const reversed = computeBand([...samples].reverse(), settings, NOW);
    expect([reversed?.floor, reversed?.target, reversed?.stretch, reversed?.medianQuantity]).toEqual([
      band?.floor,
      band?.target,
      band?.stretch,
      band?.medianQuantity,
    ]);
  });
});

describe('category bands', () => {
  it('counts a won quote once when an order names it, and on its own when none does', () => {
    const converted = computeCategoryBands(
      [quote('won', { documentId: 'Q-1', priceCents: 200 }), order({ sourceQuoteExternalId: 'Q-1', priceCents: 100 })],
      settings,
      NOW,
    );
    expect(converted.category?.sumW).toBe(1);
    expect(converted.category?.target).toBeCloseTo(0.3, 12);

    const alone = computeCategoryBands([quote('won', { documentId: 'Q-2', priceCents: 200 }), order({ priceCents: 100 })], settings, NOW);
    expect(alone.category?.sumW).toBe(2);
  });

  it('never counts open or lost quotes as realised margins', () => {
    const bands = computeCategoryBands([quote('open'), quote('lost'), order()], settings, NOW);
    expect(bands.category?.sumW).toBe(1);
  });

  it('drops lines without a cost and margins outside the history range', () => {
    const bands = computeCategoryBands(
      [
        order({ costCents: 0 }),
        order({ costCents: 200, priceCents: 100 }), // −100%
        order({ costCents: 1, priceCents: 100 }), // 99%
        order({ costCents: 80, priceCents: 100 }),
      ],
      settings,
      NOW,
    );
    expect(bands.category?.sumW).toBe(1);
    expect(bands.category?.target).toBeCloseTo(0.2, 12);
  });

  it('builds the category, segment, segment × SKU and customer × SKU nodes', () => {
    const bands = computeCategoryBands(
      [
        order({ segment: 'smb', productSku: 'A', customerExternalId: 'C-1' }),
        order({ segment: 'smb', productSku: 'B', customerExternalId: undefined }),
        order({ segment: '', productSku: 'A', customerExternalId: 'C-2' }),
      ],
      settings,
      NOW,
    );
    expect(bands.category?.sumW).toBe(3);
    expect([...bands.segments.keys()].sort()).toEqual(['', 'smb']);
    expect(bands.segments.get('smb')?.band.sumW).toBe(2);
    expect(bands.segmentSkus.get('A')?.get('smb')?.sumW).toBe(1);
    expect(bands.segmentSkus.get('A')?.get('')?.sumW).toBe(1);
    expect(bands.segmentSkus.get('B')?.has('')).toBe(false);
    expect([...bands.customerSkus.keys()].sort()).toEqual(['C-1', 'C-2']);
    expect(bands.customerSkus.get('C-1')?.get('A')?.sumW).toBe(1);
  });

  it('gives every node the band its own lines would give on their own', () => {
    const lines = Array.from({ length: 600 }, (_, i) =>
      order({
        documentId: `O-${i}`,
        segment: ['smb', 'ent', ''][i % 3],
        productSku: `SKU-${i % 7}`,
        customerExternalId: i % 5 === 0 ? undefined : `C-${i % 11}`,
        costCents: 50 + ((i * 37) % 40),
        quantity: 1 + ((i * 13) % 17),
        atMs: NOW - ((i * 7919) % 400) * DAY,
      }),
    );
    const bands = computeCategoryBands(lines, settings, NOW);
    const alone = (keep: (line: HistoryLine) => boolean) =>
      computeBand(
        lines.filter(keep).map((line) => ({
          margin: lineMargin(line) ?? 0,
          weight: recencyWeight(line.atMs, NOW, settings.halfLifeDays),
          quantity: line.quantity,
          atMs: line.atMs,
        })),
        settings,
        NOW,
      );
    expect(bands.segmentSkus.get('SKU-3')?.get('')?.nEff).toBeGreaterThan(1);
    expect(bands.customerSkus.get('C-4')?.get('SKU-2')?.nEff).toBeGreaterThan(1);
    expect(bands.category).toEqual(alone(() => true));
    expect(bands.segments.get('ent')?.band).toEqual(alone((line) => line.segment === 'ent'));
    expect(bands.segmentSkus.get('SKU-3')?.get('')).toEqual(alone((line) => line.segment === '' && line.productSku === 'SKU-3'));
    expect(bands.customerSkus.get('C-4')?.get('SKU-2')).toEqual(
      alone((line) => line.customerExternalId === 'C-4' && line.productSku === 'SKU-2'),
    );
  });

  it('is empty without usable history', () => {
    const bands = computeCategoryBands([order({ costCents: 0 })], settings, NOW);
    expect(bands.category).toBeUndefined();
    expect(bands.segments.size).toBe(0);
    expect(bands.segmentSkus.size).toBe(0);
    expect(bands.customerSkus.size).toBe(0);
  });

  it('fits a win model per segment once it has enough closed quotes with both outcomes', () => {
    const few = { ...settings, winModelMinQuotes: 4 };
    const closed = [0.1, 0.15, 0.4, 0.45].map((margin, i) =>
      quote(margin < 0.3 ? 'won' : 'lost', { documentId: `Q-${i}`, priceCents: 100, costCents: 100 * (1 - margin) }),
    );
    const bands = computeCategoryBands([...closed, order({ segment: 'smb' })], few, NOW);
    const model = bands.segments.get('smb')?.winModel;
    expect(model?.closedQuotes).toBe(4);
    expect(model?.slope).toBeLessThan(0);

    const tooFew = computeCategoryBands([...closed.slice(0, 3), order()], few, NOW);
    expect(tooFew.segments.get('smb')?.winModel).toBeUndefined();
  });

  it('fits no win model when every closed quote was won', () => {
    const few = { ...settings, winModelMinQuotes: 2 };
    const bands = computeCategoryBands([quote('won', { documentId: 'Q-1' }), quote('won', { documentId: 'Q-2' })], few, NOW);
    expect(bands.segments.get('smb')?.band).toBeDefined();
    expect(bands.segments.get('smb')?.winModel).toBeUndefined();
  });

  it('leaves out a segment that has closed quotes but no realised lines', () => {
    const few = { ...settings, winModelMinQuotes: 2 };
    const bands = computeCategoryBands(
      [
        quote('lost', { segment: 'ent', documentId: 'Q-1' }),
        quote('lost', { segment: 'ent', documentId: 'Q-2' }),
        order({ segment: 'smb' }),
      ],
      few,
      NOW,
    );
    expect(bands.segments.has('ent')).toBe(false);
    expect(bands.segments.has('smb')).toBe(true);
  });
});

describe('the workspace band', () => {
  const band = (overrides: Partial<Band>): Band => ({
    floor: 0.1,
    target: 0.2,
    stretch: 0.3,
    nEff: 4,
    medianQuantity: 10,
    cov: 0.2,
    newestAtMs: NOW,
    sumW: 4,
    sumW2: 4,
    asOfMs: NOW,
    ...overrides,
  });

  it('weights its parts by Σw and pools their n_eff', () => {
    const combined = combineBands(
      [band({}), band({ floor: 0.3, target: 0.4, stretch: 0.5, sumW: 12, sumW2: 12, newestAtMs: NOW - DAY })],
      NOW,
      settings,
    );
    expect(combined?.floor).toBeCloseTo(0.25, 12);
    expect(combined?.target).toBeCloseTo(0.35, 12);
    expect(combined?.stretch).toBeCloseTo(0.45, 12);
    expect(combined?.nEff).toBeCloseTo(256 / 16, 12);
    expect(combined?.sumW).toBe(16);
    expect(combined?.newestAtMs).toBe(NOW);
  });

  it('ages a part computed earlier before weighting it', () => {
    const old = band({ target: 0.6, asOfMs: NOW - 180 * DAY, sumW: 8, sumW2: 16 });
    const combined = combineBands([band({ target: 0.2 }), old], NOW, settings);
    // The old part's Σw halves to 4 and its Σw² quarters to 4.
    expect(combined?.target).toBeCloseTo(0.4, 12);
    expect(combined?.sumW).toBeCloseTo(8, 12);
    expect(combined?.sumW2).toBeCloseTo(8, 12);
    expect(combined?.asOfMs).toBe(NOW);
  });

  it('does not exist without parts', () => {
    expect(combineBands([], NOW, settings)).toBeUndefined();
  });
});
