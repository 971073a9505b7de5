// Unit tests of the win_model step: its credibility, the line's own shift (customer, SKU, deal size), pooling across
// categories, and the confidence a credible model lends.
import { describe, expect, it } from 'vitest';
import { bandAt } from '#test/support/bands.ts';
import { winCredibility, winModelPull } from './adjustments.ts';
import { poolWinModels } from './bands.ts';
import { lineConfidence } from './confidence.ts';
import { lineBase } from './line-base.ts';
import type { Band, LineBands, LineInputs, WinModel } from './model.ts';
import { priceLine } from './price-line.ts';
import { defaultPricingSettings as settings } from './settings.ts';

const NOW = Date.UTC(2025, 0, 1);

function band(overrides: Partial<Band> = {}): Band {
  return bandAt(NOW, overrides);
}

/** A pooled model in the price over list, sure of its slope. */
const pooled: WinModel = {
  intercept: 0.5,
  slope: -8,
  closedQuotes: 400,
  nEff: 400,
  quantitySlope: -0.3,
  feature: 'list',
  supportLow: -0.3,
  supportHigh: 0.1,
  slopeSe: 1,
  bend: 0,
  knot: 0,
  categorySlope: -8,
  centroid: -0.1,
  slopeShift: 0,
  ownSlopeSe: 1,
};

const inputs = (overrides: Partial<LineInputs> = {}): LineInputs => ({
  product: { sku: 'SKU-1', costCents: 6000, currentPriceCents: 10_000 },
  currency: 'USD',
  hasCustomer: true,
  quantity: 10,
  enforceMap: false,
  nowMs: NOW,
  ...overrides,
});

function winMargin(bands: LineBands, line: LineInputs = inputs()): number {
  const base = lineBase(line, bands, settings);
  const step = winModelPull(base, base, base, bands, line, settings);
  if (!step) throw new Error('no win_model step');
  return step.margin;
}

describe('the win model’s credibility', () => {
  it('is half the sample’s credibility when the slope is two standard errors from zero', () => {
    const sample = 400 / (400 + settings.credibilityK);
    expect(winCredibility({ ...pooled, slope: -2, slopeSe: 1 }, settings)).toBeCloseTo(sample / 2, 12);
  });

  it('is nothing when the slope says a higher price wins more', () => {
    expect(winCredibility({ ...pooled, slope: 0.5 }, settings)).toBe(0);
  });

  it('counts the slope as pooling across categories left it', () => {
    const alone = winCredibility({ ...pooled, slope: -1, slopeSe: 1 }, settings);
    const pooledIn = winCredibility({ ...pooled, slope: -1, slopeShift: -5, slopeSe: 1 }, settings);
    expect(pooledIn).toBeGreaterThan(alone);
  });
});

describe('the win_model step', () => {
  const bands: LineBands = { segmentCategory: band(), winModel: pooled };

  it('asks more of a customer who wins more at the same price, and less of one who wins less', () => {
    const loyal = winMargin({ ...bands, customerWinOffset: 0.8 });
    const hard = winMargin({ ...bands, customerWinOffset: -0.8 });
    expect(loyal).toBeGreaterThan(winMargin(bands));
    expect(hard).toBeLessThan(winMargin(bands));
  });

  it('ignores the customer offset on a line without a customer', () => {
    expect(winMargin({ ...bands, customerWinOffset: 0.8 }, inputs({ hasCustomer: false }))).toBe(winMargin(bands));
  });

  it('prices a deal far above the usual quantity lower when big deals are harder to win', () => {
    expect(winMargin(bands, inputs({ quantity: 160 }))).toBeLessThan(winMargin(bands, inputs({ quantity: 10 })));
  });

  it('reads a SKU’s offset from its segment × SKU band', () => {
    const sku = winMargin({ ...bands, segmentSku: band({ winOffset: 0.6 }) });
    const plain = winMargin({ ...bands, segmentSku: band() });
    expect(sku).toBeGreaterThan(plain);
  });

  it('takes no step for a curve in the price over list when the product has no list price', () => {
    const line = inputs({ product: { sku: 'SKU-1', costCents: 6000, currentPriceCents: 0 } });
    const base = lineBase(line, bands, settings);
    expect(winModelPull(base, base, base, bands, line, settings)).toBeUndefined();
  });

  it('keeps the reason stack summing exactly to the final margin', () => {
    const lineBands: LineBands = { ...bands, customerWinOffset: 0.4, segmentSku: band({ winOffset: -0.2 }) };
    const priced = priceLine(inputs(), lineBands, settings);
    const sum = priced.reason.reduce((total, entry) => total + entry.marginDeltaBps, 0);
    const finalBps = Math.round(((priced.priceCents - 6000) / priced.priceCents) * 10_000);
    expect(sum).toBe(finalBps - Math.round(lineBase(inputs(), lineBands, settings).margin * 10_000));
    expect(priced.reason.map((entry) => entry.param)).toContain('win_model');
  });
});

describe('confidence with a win model', () => {
  const step = (marginError: number) => ({
    param: 'win_model',
    scope: 'segment' as const,
    label: '',
    margin: 0.3,
    credibility: 0.8,
    marginError,
    marginSlope: -9,
    sampleCredibility: 1,
  });

  it('is high where the price could lose little of the best profit, whatever the margins alone say', () => {
    const base = lineBase(inputs(), { segmentCategory: band({ nEff: 5 }) }, settings);
    const without = lineConfidence(base, base.depth, inputs(), settings);
    const sure = lineConfidence(base, base.depth, inputs(), settings, step(0.01));
    expect(sure.score).toBeGreaterThan(without.score);
    expect(sure.label).toBe('high');
  });

  it('is high within 6 points of likely margin error, low beyond 9, however many margins the band holds', () => {
    const base = lineBase(inputs(), { segmentCategory: band({ nEff: 5000 }) }, settings);
    const label = (error: number) => lineConfidence(base, base.depth, inputs(), settings, step(error)).label;
    expect(label(0.05)).toBe('high');
    expect(label(0.075)).toBe('medium');
    expect(label(0.1)).toBe('low');
  });

  it('is lower for a model of few quotes, and for a SKU its segment has not quoted', () => {
    const base = lineBase(inputs(), { segmentCategory: band({ nEff: 5000 }) }, settings);
    const sure = lineConfidence(base, 0, inputs(), settings, step(0.02)).score;
    expect(lineConfidence(base, 0, inputs(), settings, { ...step(0.02), sampleCredibility: 0.5 }).score).toBeCloseTo(sure * 0.5, 2);
    expect(lineConfidence(base, 2, inputs(), settings, step(0.02)).score).toBeLessThan(sure);
  });
});

describe('pooling the win models of a workspace', () => {
  const segment = (model: WinModel) => new Map([['smb', { band: band(), winModel: model }]]);

  it('shifts a category whose slope is unsure toward the others, and leaves the sure ones nearly alone', () => {
    const categories = new Map([
      ['A', segment({ ...pooled, categorySlope: -8, ownSlopeSe: 0.5 })],
      ['B', segment({ ...pooled, categorySlope: -9, ownSlopeSe: 0.5 })],
      ['C', segment({ ...pooled, categorySlope: -7, ownSlopeSe: 0.5 })],
      ['D', segment({ ...pooled, slope: -2, categorySlope: -2, ownSlopeSe: 4 })],
    ]);
    const changed = poolWinModels(categories);
    const shifted = changed.get('D')?.get('smb')?.winModel;
    expect(shifted?.slopeShift).toBeLessThan(-3);
    expect(shifted?.slopeSe).toBeLessThan(4);
    expect(changed.has('A')).toBe(false);
  });
});
