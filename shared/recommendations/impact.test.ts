// Unit tests of what a change is worth: direction, the segment mix, the typical quantity, too_thin cases and minor units.
import { describe, expect, it } from 'vitest';
import { bandAt } from '#test/support/bands.ts';
import type { StoredCategoryBands } from '#shared/bands/items.ts';
import type { Band, WinModel } from '#shared/pricing/model.ts';
import { pricingSettings } from '#shared/pricing/settings.ts';
import type { PricingSnapshot, ProductView } from '#shared/prices/inputs.ts';
import { estimateImpact, typicalQuantity } from './impact.ts';
import type { Impact } from './schema.ts';

const NOW = Date.UTC(2026, 10, 1);
const settings = pricingSettings(undefined);

function band(overrides: Partial<Band> = {}): Band {
  return bandAt(NOW, { floor: 0.3, target: 0.4, stretch: 0.5, nEff: 40, sumW: 40, sumW2: 40, ...overrides });
}

/** A curve with 50% wins at a 40% margin; nEff 200 makes it credible (200 / 220 of the way). */
function model(overrides: Partial<WinModel> = {}): WinModel {
  return { intercept: 0.4 * 8, slope: -8, closedQuotes: 300, nEff: 200, ...overrides };
}

function product(overrides: Partial<ProductView> = {}): ProductView {
  return {
    sku: 'SKU-1',
    category: 'Fasteners',
    costCents: 6000,
    currentPriceCents: 10_000,
    segmentBands: new Map([['smb', band()]]),
    ...overrides,
  };
}

function snapshot(segments: Record<string, { band?: Band; winModel?: WinModel }> = { smb: { winModel: model() } }): PricingSnapshot {
  const category: StoredCategoryBands = {
    category: 'Fasteners',
    band: band({ medianQuantity: 4 }),
    segments: new Map(Object.entries(segments).map(([name, parts]) => [name, { band: parts.band ?? band(), winModel: parts.winModel }])),
  };
  return {
    products: new Map(),
    skuByExternalId: new Map(),
    customers: new Map(),
    categoryBands: new Map([['Fasteners', category]]),
    customerBands: new Map(),
    workspaceBand: undefined,
    rates: new Map(),
  };
}

function estimated(impact: Impact) {
  if (impact.status !== 'estimated') throw new Error(`expected an estimate, got ${JSON.stringify(impact)}`);
  return impact;
}

const sigmoid = (z: number) => 1 / (1 + Math.exp(-z));

describe("a change's expected impact", () => {
  it('has a lower chance of winning at a higher price and a higher one at a lower price', () => {
    const up = estimated(estimateImpact(product(), 11_000, snapshot(), settings, NOW));
    expect(up.recommended.winProbability).toBeLessThan(up.current.winProbability);
    const down = estimated(estimateImpact(product(), 9000, snapshot(), settings, NOW));
    expect(down.recommended.winProbability).toBeGreaterThan(down.current.winProbability);
  });

  it('gains expected margin by raising a price that buyers barely react to, and loses it where they react sharply', () => {
    const flat = snapshot({ smb: { winModel: model({ intercept: 0.5 * 0.4, slope: -0.5 }) } });
    expect(estimated(estimateImpact(product(), 11_000, flat, settings, NOW)).expectedMarginChangeCents).toBeGreaterThan(0);
    const steep = snapshot({ smb: { winModel: model({ intercept: 30 * 0.4, slope: -30 }) } });
    expect(estimated(estimateImpact(product(), 11_000, steep, settings, NOW)).expectedMarginChangeCents).toBeLessThan(0);
  });

  it('is nothing when the recommended price is the current one', () => {
    const same = estimated(estimateImpact(product(), 10_000, snapshot(), settings, NOW));
    expect(same.expectedMarginChangeCents).toBe(0);
    expect(same.expectedRevenueChangeCents).toBe(0);
    expect(same.recommended).toEqual(same.current);
  });

  it('is win probability times price and margin times the typical quantity, per quote', () => {
    const impact = estimated(estimateImpact(product(), 10_000, snapshot(), settings, NOW));
    const p = sigmoid(8 * 0.4 - 8 * 0.4);
    expect(impact.quantity).toBe(10);
    expect(impact.current).toEqual({
      priceCents: 10_000,
      margin: 0.4,
      winProbability: p,
      expectedRevenueCents: Math.round(p * 10_000 * 10),
      expectedMarginCents: Math.round(p * 4000 * 10),
    });
    expect(impact.evidence).toEqual({ closedQuotes: 300, segments: [{ segment: 'smb', share: 1 }] });
  });

  it("moves each segment's curve by the SKU's win offset", () => {
    const offset = estimated(
      estimateImpact(product({ segmentBands: new Map([['smb', band({ winOffset: 1 })]]) }), 10_000, snapshot(), settings, NOW),
    );
    expect(offset.current.winProbability).toBeCloseTo(sigmoid(1), 4);
  });

  it("mixes the segments' chances by the recent weight of the SKU's quotes in each", () => {
    const segments = new Map([
      ['smb', band({ sumW: 30 })],
      ['enterprise', band({ sumW: 10 })],
    ]);
    const twoCurves = snapshot({ smb: { winModel: model() }, enterprise: { winModel: model({ intercept: 8 * 0.4 + 2 }) } });
    const impact = estimated(estimateImpact(product({ segmentBands: segments }), 10_000, twoCurves, settings, NOW));
    expect(impact.current.winProbability).toBeCloseTo(0.75 * 0.5 + 0.25 * sigmoid(2), 4);
    expect(impact.evidence.segments).toEqual([
      { segment: 'smb', share: 0.75 },
      { segment: 'enterprise', share: 0.25 },
    ]);
    // Both curves are one fit over the category's 300 closed quotes: counted once, not once per segment.
    expect(impact.evidence.closedQuotes).toBe(300);
  });

  it('weighs a segment whose band was computed long ago by what its evidence weighs today', () => {
    const halfLifeAgo = NOW - settings.halfLifeDays * 86_400_000;
    const segments = new Map([
      ['smb', band({ sumW: 20 })],
      ['enterprise', band({ sumW: 20, asOfMs: halfLifeAgo })],
    ]);
    const twoCurves = snapshot({ smb: { winModel: model() }, enterprise: { winModel: model() } });
    const impact = estimated(estimateImpact(product({ segmentBands: segments }), 10_000, twoCurves, settings, NOW));
    expect(impact.evidence.segments).toEqual([
      { segment: 'smb', share: 0.6667 },
      { segment: 'enterprise', share: 0.3333 },
    ]);
  });

  it("takes the category's segment mix when the SKU has no quotes of its own", () => {
    const twoCurves = snapshot({
      smb: { band: band({ sumW: 10 }), winModel: model() },
      enterprise: { band: band({ sumW: 30 }), winModel: model() },
    });
    const impact = estimated(estimateImpact(product({ segmentBands: new Map() }), 10_000, twoCurves, settings, NOW));
    expect(impact.evidence.segments).toEqual([
      { segment: 'smb', share: 0.25 },
      { segment: 'enterprise', share: 0.75 },
    ]);
    // Without the SKU's own bands, its typical quantity is its category's median.
    expect(impact.quantity).toBe(4);
  });

  it("takes the weighted median of the SKU's segment medians as its typical quantity", () => {
    const segments = new Map([
      ['a', band({ medianQuantity: 2, sumW: 10 })],
      ['b', band({ medianQuantity: 50, sumW: 5 })],
      ['c', band({ medianQuantity: 5, sumW: 20 })],
    ]);
    expect(typicalQuantity(product({ segmentBands: segments }), undefined, NOW, settings)).toBe(5);
    expect(typicalQuantity(product({ segmentBands: new Map() }), undefined, NOW, settings)).toBe(1);
  });

  it('keeps amounts in the minor units of the product currency, whole', () => {
    // A yen product at ¥1,000 with cost ¥600: the same curve as the cent product, a hundredth of its amounts.
    const yen = estimated(estimateImpact(product({ costCents: 60, currentPriceCents: 100 }), 110, snapshot(), settings, NOW));
    const cents = estimated(estimateImpact(product(), 11_000, snapshot(), settings, NOW));
    expect(yen.recommended.winProbability).toBe(cents.recommended.winProbability);
    for (const amount of [yen.current.expectedMarginCents, yen.recommended.expectedRevenueCents, yen.expectedMarginChangeCents]) {
      expect(Number.isInteger(amount)).toBe(true);
    }
    expect(yen.recommended.expectedMarginCents).toBe(Math.round(cents.recommended.expectedMarginCents / 100));
  });
});

describe('an impact too thin to say', () => {
  it('is too thin without any history for the product or its category', () => {
    const empty = { ...snapshot(), categoryBands: new Map() };
    const impact = estimateImpact(product({ segmentBands: new Map() }), 11_000, empty, settings, NOW);
    expect(impact).toMatchObject({ status: 'too_thin', evidence: { closedQuotes: 0, segments: [] } });
    expect(impact.status === 'too_thin' && impact.reason).toMatch(/no win model/i);
  });

  it('is too thin when no segment that buys the product has a win model', () => {
    const impact = estimateImpact(product(), 11_000, snapshot({ smb: {} }), settings, NOW);
    expect(impact.status).toBe('too_thin');
    expect(impact.status === 'too_thin' && impact.reason).toContain(`${settings.winModelMinQuotes} closed quotes`);
  });

  it('is too thin when the win model rests on too few quotes to be credible', () => {
    const thin = snapshot({ smb: { winModel: model({ nEff: 10, closedQuotes: 60 }) } });
    const impact = estimateImpact(product(), 11_000, thin, settings, NOW);
    expect(impact).toMatchObject({ status: 'too_thin', evidence: { closedQuotes: 60, segments: [{ segment: 'smb', share: 1 }] } });
    expect(impact.status === 'too_thin' && impact.reason).toContain('segment "smb"');
  });

  it('is too thin when its slope is not surely negative, however many quotes', () => {
    const unsure = snapshot({ smb: { winModel: model({ slopeSe: 8 }) } });
    expect(estimateImpact(product(), 11_000, unsure, settings, NOW).status).toBe('too_thin');
  });

  it('is too thin when credible models cover less than half of the recent mix, and estimated when they cover half', () => {
    const mixOf = (covered: number) =>
      new Map([
        ['smb', band({ sumW: covered })],
        ['enterprise', band({ sumW: 100 - covered })],
      ]);
    const curves = snapshot({ smb: { winModel: model() }, enterprise: { winModel: model({ nEff: 5 }) } });
    expect(estimateImpact(product({ segmentBands: mixOf(40) }), 11_000, curves, settings, NOW).status).toBe('too_thin');
    const half = estimated(estimateImpact(product({ segmentBands: mixOf(50) }), 11_000, curves, settings, NOW));
    expect(half.evidence.segments).toEqual([{ segment: 'smb', share: 1 }]);
  });

  it('is too thin for a product without a current price to compare with', () => {
    const impact = estimateImpact(product({ currentPriceCents: 0 }), 11_000, snapshot(), settings, NOW);
    expect(impact.status === 'too_thin' && impact.reason).toMatch(/no current price/);
  });
});
