// Unit tests of pricing one line: base and shrinkage, each step of the reason stack, guardrails, confidence and wording.
import { describe, expect, it } from 'vitest';
import { bandAt } from '#test/support/bands.ts';
import type { Band, LineBands, LineInputs, PricedLine, PricingProduct, WinModel } from './model.ts';
import { lineBase } from './line-base.ts';
import { priceLine } from './price-line.ts';
import { defaultPricingSettings as settings } from './settings.ts';
import { profitMaximisingMargin } from './win-model.ts';

const DAY = 86_400_000;
const NOW = Date.UTC(2025, 0, 1);

function band(overrides: Partial<Band> = {}): Band {
  return bandAt(NOW, { floor: 0.3, target: 0.45, stretch: 0.55, cov: 0, ...overrides });
}

function line(product: Partial<PricingProduct> = {}, overrides: Partial<LineInputs> = {}): LineInputs {
  return {
    product: { sku: 'SKU-1', costCents: 5500, currentPriceCents: 10_000, ...product },
    currency: 'USD',
    hasCustomer: false,
    quantity: 1,
    enforceMap: false,
    nowMs: NOW,
    ...overrides,
  };
}

const deltaSum = (priced: PricedLine) => priced.reason.reduce((sum, entry) => sum + entry.marginDeltaBps, 0);
const marginBps = (price: number, cost: number) => Math.round(((price - cost) / price) * 10_000);
const params = (priced: PricedLine) => priced.reason.map((entry) => entry.param);

describe('the base', () => {
  it('is the list price when there is no history at all', () => {
    const priced = priceLine(line({ currentPriceCents: 12_345 }), {}, settings);
    expect(priced.priceCents).toBe(12_345);
    expect(priced.reason).toEqual([expect.objectContaining({ param: 'segment_target', marginDeltaBps: 0, scope: 'product' })]);
    expect(priced.confidence).toBe('low');
    expect(priced.confidenceScore).toBe(0);
    expect(priced.guardrailsApplied).toEqual([]);
    expect(priced.explanation.short).toBe('Priced at the list price; no adjustments.');
  });

  it('is the list price even when its margin lies outside the history range', () => {
    // 99% margin: above the 95% that filters history, but no history is being filtered.
    const priced = priceLine(line({ costCents: 10, currentPriceCents: 1000 }), {}, settings);
    expect(priced.priceCents).toBe(1000);
    expect(priced.guardrailsApplied).toEqual([]);
    expect(priced.reason).toEqual([expect.objectContaining({ label: 'No history: the list price 10.00 USD at 99.00% margin' })]);
    expect(priced.explanation.marginPct).toBe(99);
    expect(priced.explanation.targetMarginPct).toBe(99);
  });

  it('keeps a stock step on a list price above the history range from pulling it down', () => {
    const priced = priceLine(line({ costCents: 10, currentPriceCents: 1000, inStock: false }), {}, settings);
    expect(priced.priceCents).toBeGreaterThanOrEqual(1000);
  });

  it('keeps a list price at or below cost only as far as the minimum margin allows', () => {
    const priced = priceLine(line({ costCents: 5500, currentPriceCents: 5000 }), {}, settings);
    expect(priced.priceCents).toBe(5500);
    expect(priced.guardrailsApplied).toEqual(['min_margin']);
    expect(priced.explanation.stance).toBe('at_floor');
  });

  it('shrinks each more specific band toward its parent by its credibility', () => {
    const bands: LineBands = {
      workspace: band({ floor: 0.1, target: 0.2, stretch: 0.3 }),
      category: band({ floor: 0.3, target: 0.4, stretch: 0.5, nEff: 20 }), // Z = 0.5
      segmentSku: band({ floor: 0.4, target: 0.5, stretch: 0.6, nEff: 60 }), // Z = 0.75
    };
    const base = lineBase(line(), bands, settings);
    expect(base.floor).toBeCloseTo(0.75 * 0.4 + 0.25 * 0.2, 12);
    expect(base.target).toBeCloseTo(0.45, 12);
    expect(base.stretch).toBeCloseTo(0.75 * 0.6 + 0.25 * 0.4, 12);
    expect(base.depth).toBe(0);
    expect(base.scope).toBe('segment');
    const priced = priceLine(line(), bands, settings);
    expect(priced.priceCents).toBe(10_000);
    expect(priced.explanation.targetMarginPct).toBe(45);
  });

  it('starts from the most general band present and names the scope of the most specific', () => {
    expect(lineBase(line(), { category: band({ target: 0.3 }) }, settings)).toMatchObject({ depth: 2, scope: 'category', target: 0.3 });
    expect(lineBase(line(), { workspace: band({ target: 0.3 }) }, settings)).toMatchObject({ depth: 3, scope: 'workspace' });
    expect(lineBase(line(), { segmentCategory: band() }, settings)).toMatchObject({ depth: 1, scope: 'segment' });
    expect(lineBase(line(), {}, settings)).toMatchObject({ depth: 4, scope: 'product', node: undefined });
  });

  it('takes the margin of the rounded base price as the base margin', () => {
    const base = lineBase(line({ costCents: 77 }), { segmentSku: band({ target: 0.3 }) }, settings);
    expect(base.priceCents).toBe(110);
    expect(base.margin).toBeCloseTo(0.3, 12);
    const odd = lineBase(line({ costCents: 100 }), { segmentSku: band({ target: 0.3 }) }, settings);
    expect(odd.priceCents).toBe(143);
    expect(odd.margin).toBeCloseTo(43 / 143, 12);
  });

  it('reports the shrunk target itself as the target margin, not the margin of the rounded base price', () => {
    const priced = priceLine(line({ costCents: 100, currentPriceCents: 167 }), { segmentSku: band({ target: 0.4 }) }, settings);
    // 100 / 0.6 = 166.67 rounds to 167, whose margin is 40.12%; the target is 40%.
    expect(priced.priceCents).toBe(167);
    expect(priced.explanation.marginPct).toBe(40.12);
    expect(priced.explanation.targetMarginPct).toBe(40);
  });

  it('clamps a band outside the history range so that the price stays finite', () => {
    const priced = priceLine(line({ currentPriceCents: 0 }), { segmentSku: band({ floor: 1, target: 1, stretch: 1 }) }, settings);
    expect(priced.priceCents).toBe(110_000);
  });
});

describe('customer history', () => {
  const bands: LineBands = { segmentSku: band(), customerSku: band({ target: 0.6, nEff: 20, medianQuantity: 100 }) };

  it('moves the margin toward the customer target by its credibility', () => {
    const priced = priceLine(line({}, { hasCustomer: true }), bands, { ...settings, maxChangePct: 100 });
    // m = 0.5 · 0.6 + 0.5 · 0.45 = 0.525.
    expect(priced.priceCents).toBe(Math.round(5500 / 0.475));
    expect(priced.explanation.targetMarginPct).toBe(52.5);
    expect(priced.reason[1]).toMatchObject({ param: 'customer_history', scope: 'customer' });
    expect(priced.reason[1]?.label).toBe('Customer pays 15.0 points more than the segment on this SKU (n_eff 20.0)');
    expect(deltaSum(priced)).toBe(marginBps(priced.priceCents, 5500) - 4500);
  });

  it('is ignored when no customer was named', () => {
    expect(priceLine(line(), bands, settings).priceCents).toBe(10_000);
  });

  it('takes over the confidence and the median quantity', () => {
    const priced = priceLine(line({}, { hasCustomer: true, quantity: 20 }), bands, { ...settings, maxChangePct: 100 });
    // Twice the segment's median, but a fifth of the customer's: no break.
    expect(params(priced)).not.toContain('quantity');
    // Z = 0.5, depth 0, cov 0, fresh.
    expect(priced.confidenceScore).toBe(0.5);
  });
});

describe('quantity', () => {
  const bands: LineBands = { segmentSku: band({ floor: 0.3, target: 0.45, medianQuantity: 10 }) };

  it('gives a break per doubling of the median quantity', () => {
    const priced = priceLine(line({}, { quantity: 40 }), bands, settings);
    // Two doublings: 100 bps off 45%.
    expect(priced.priceCents).toBe(Math.round(5500 / 0.56));
    expect(priced.reason[1]).toMatchObject({ param: 'quantity', scope: 'segment' });
    expect(priced.reason[1]?.marginDeltaBps).toBe(marginBps(priced.priceCents, 5500) - 4500);
  });

  it('caps the break and never goes below the floor', () => {
    const capped = priceLine(line({}, { quantity: 1e6 }), bands, settings);
    expect(capped.priceCents).toBe(Math.round(5500 / 0.58));
    const floored = priceLine(line({}, { quantity: 1e6 }), { segmentSku: band({ floor: 0.44, target: 0.45 }) }, settings);
    expect(floored.priceCents).toBe(Math.round(5500 / 0.56));
  });

  it('leaves a margin already below the floor alone', () => {
    const priced = priceLine(line({}, { quantity: 1e6 }), { segmentSku: band({ floor: 0.5, target: 0.45, stretch: 0.5 }) }, settings);
    expect(priced.priceCents).toBe(10_000);
    expect(params(priced)).toEqual(['segment_target']);
  });

  it('counts the order total quantity and the order value', () => {
    const byTotal = priceLine(line({}, { orderTotalQuantity: 40 }), bands, settings);
    const byValue = priceLine(line({}, { orderValueCents: 4 * 10 * 10_000 }), bands, settings);
    expect(byTotal.priceCents).toBe(Math.round(5500 / 0.56));
    expect(byValue.priceCents).toBe(Math.round(5500 / 0.56));
  });

  it('does nothing at or below the median', () => {
    expect(priceLine(line({}, { quantity: 10 }), bands, settings).priceCents).toBe(10_000);
  });

  it('does nothing without history', () => {
    expect(priceLine(line({}, { quantity: 1e6 }), {}, settings).priceCents).toBe(10_000);
  });
});

describe('the win model', () => {
  const model: WinModel = { intercept: 6, slope: -20, closedQuotes: 500, nEff: 180 };

  it('moves the margin toward the most profitable one by its credibility', () => {
    const bands: LineBands = { segmentCategory: band({ floor: 0.2, target: 0.45, stretch: 0.55 }), winModel: model };
    const priced = priceLine(line(), bands, { ...settings, maxChangePct: 100 });
    const best = profitMaximisingMargin(model, 0.2, 0.55);
    const expected = 0.45 + 0.9 * (best - 0.45);
    expect(priced.priceCents).toBe(Math.round(5500 / (1 - expected)));
    expect(priced.reason[1]).toMatchObject({ param: 'win_model', scope: 'segment' });
    expect(priced.reason[1]?.label).toContain('500 closed quotes');
  });
});

describe('stock', () => {
  it('adds a step when out of stock, even to the list price', () => {
    const priced = priceLine(line({ inStock: false }), {}, settings);
    expect(marginBps(priced.priceCents, 5500)).toBe(4600);
    expect(priced.reason[1]).toMatchObject({ param: 'stock', scope: 'product', marginDeltaBps: 100 });
  });

  it('treats nothing on hand as out of stock and a few as low stock', () => {
    expect(marginBps(priceLine(line({ stockOnHand: 0 }), {}, settings).priceCents, 5500)).toBe(4600);
    expect(marginBps(priceLine(line({ stockOnHand: 5 }), {}, settings).priceCents, 5500)).toBe(4550);
    expect(priceLine(line({ stockOnHand: 11 }), {}, settings).priceCents).toBe(10_000);
  });
});

describe('guardrails', () => {
  const bands: LineBands = { segmentSku: band({ target: 0.45 }) };

  it('applies the lower bounds in order and records each that moved the price', () => {
    const priced = priceLine(line({ floorCents: 10_500, mapCents: 11_000 }, { enforceMap: true }), bands, {
      ...settings,
      minMarginPct: 47,
    });
    expect(priced.guardrailsApplied).toEqual(['min_margin', 'floor', 'map']);
    expect(priced.priceCents).toBe(11_000);
    expect(params(priced)).toEqual(['segment_target', 'min_margin', 'floor', 'map']);
    expect(priced.reason.find((entry) => entry.param === 'min_margin')?.scope).toBe('workspace');
    expect(priced.reason.find((entry) => entry.param === 'map')?.scope).toBe('product');
    expect(priced.explanation.stance).toBe('at_floor');
  });

  it('keeps a guardrail that clamped in the stack even when its move rounds to 0 bps', () => {
    // The base price 100,000 sits a hair under a floor of 100,000.4: 100,001 is less than half a basis point up.
    const priced = priceLine(line({ costCents: 55_000, currentPriceCents: 100_000, floorCents: 100_000.4 }), bands, settings);
    expect(priced.priceCents).toBe(100_001);
    expect(priced.guardrailsApplied).toEqual(['floor']);
    expect(priced.reason).toEqual([
      expect.objectContaining({ param: 'segment_target', marginDeltaBps: 0 }),
      expect.objectContaining({ param: 'floor', marginDeltaBps: 0 }),
    ]);
    expect(priced.explanation.drivers).toEqual([]);
  });

  it('holds a storefront to MAP but not an erp caller that is not', () => {
    expect(priceLine(line({ mapCents: 11_000 }, { enforceMap: true }), bands, settings).priceCents).toBe(11_000);
    expect(priceLine(line({ mapCents: 11_000 }, { enforceMap: false }), bands, settings).priceCents).toBe(10_000);
  });

  it('caps at the ceiling', () => {
    const priced = priceLine(line({ ceilingCents: 9000 }), bands, settings);
    expect(priced.priceCents).toBe(9000);
    expect(priced.guardrailsApplied).toEqual(['ceiling']);
  });

  it('lets a lower bound win over a ceiling below it', () => {
    const priced = priceLine(line({ floorCents: 12_000, ceilingCents: 9000 }), bands, settings);
    expect(priced.priceCents).toBe(12_000);
    expect(priced.guardrailsApplied).toEqual(['floor']);
    expect(priced.explanation.stance).toBe('at_floor');
  });

  it('keeps the price within the maximum change from the current price, at the floor when it raised it', () => {
    const up = priceLine(line({ currentPriceCents: 7000 }), bands, settings);
    expect(up.priceCents).toBe(8750);
    expect(up.guardrailsApplied).toEqual(['max_change']);
    expect(up.explanation.stance).not.toBe('at_floor');
    const down = priceLine(line({ currentPriceCents: 20_000 }), bands, settings);
    expect(down.priceCents).toBe(15_000);
    // Raised to the lowest change allowed: no lower price is on offer.
    expect(down.explanation.stance).toBe('at_floor');
  });

  it('lets the lower bounds and the ceiling win over the maximum change', () => {
    const lower = priceLine(line({ currentPriceCents: 7000, floorCents: 9500 }), bands, settings);
    expect(lower.priceCents).toBe(9500);
    expect(lower.guardrailsApplied).toEqual(['max_change']);
    const ceiling = priceLine(line({ currentPriceCents: 20_000, ceilingCents: 12_000 }), bands, settings);
    expect(ceiling.priceCents).toBe(12_000);
  });

  it('names every amount in its labels in major units with the currency, as people read money', () => {
    const kept = priceLine(line({ costCents: 150, currentPriceCents: 383 }), bands, settings);
    expect(kept.reason.find((entry) => entry.param === 'max_change')?.label).toBe('Kept within 25% of the current price 3.83 USD');
    const floored = priceLine(line({ floorCents: 1_234_567 }, { currency: 'USD' }), bands, settings);
    expect(floored.reason.find((entry) => entry.param === 'floor')?.label).toBe('Raised to the floor price 12,345.67 USD');
    const yen = priceLine(line({ costCents: 5500, currentPriceCents: 10_000, ceilingCents: 9000 }, { currency: 'JPY' }), bands, settings);
    expect(yen.reason.find((entry) => entry.param === 'ceiling')?.label).toBe('Capped at the ceiling price 9,000 JPY');
  });
  it('rounds without breaking a fractional bound', () => {
    expect(priceLine(line({ floorCents: 10_200.2 }), bands, settings).priceCents).toBe(10_201);
    expect(priceLine(line({ ceilingCents: 9_000.7 }), bands, settings).priceCents).toBe(9000);
    // No whole price fits between 9000.2 and 9000.7: the lower bound wins.
    expect(priceLine(line({ floorCents: 9000.2, ceilingCents: 9000.7 }), bands, settings).priceCents).toBe(9001);
  });

  it('never prices below cost by default, even from a negative-margin band', () => {
    const priced = priceLine(line({ currentPriceCents: 5600 }), { segmentSku: band({ floor: -0.1, target: -0.05, stretch: 0 }) }, settings);
    expect(priced.priceCents).toBe(5500);
    expect(priced.guardrailsApplied).toEqual(['min_margin']);
  });
});

describe('the reason stack', () => {
  it('sums exactly to the final margin minus the base margin and omits steps that moved nothing', () => {
    const priced = priceLine(
      line({ costCents: 777, currentPriceCents: 1300, stockOnHand: 3, floorCents: 1250 }, { hasCustomer: true, quantity: 35 }),
      {
        segmentSku: band(),
        customerSku: band({ target: 0.5, nEff: 12.3 }),
        winModel: { intercept: 5, slope: -12, closedQuotes: 80, nEff: 40 },
      },
      settings,
    );
    const base = lineBase(
      line({ costCents: 777, currentPriceCents: 1300 }),
      { segmentSku: band(), customerSku: band({ target: 0.5, nEff: 12.3 }) },
      settings,
    );
    expect(deltaSum(priced)).toBe(marginBps(priced.priceCents, 777) - Math.round(base.margin * 10_000));
    expect(priced.reason[0]?.marginDeltaBps).toBe(0);
    for (const entry of priced.reason.slice(1)) expect(entry.marginDeltaBps).not.toBe(0);
  });
});

describe('confidence and stance', () => {
  it('multiplies credibility, fallback depth, dispersion and recency', () => {
    const bands: LineBands = { segmentCategory: band({ nEff: 20, cov: 0.4, newestAtMs: NOW - 180 * DAY }) };
    const priced = priceLine(line(), bands, settings);
    // 0.5 × 0.9 × 0.8 × 0.5 = 0.18.
    expect(priced.confidenceScore).toBe(0.18);
    expect(priced.confidence).toBe('low');
  });

  it('holds firm on strong, fresh evidence with room above the floor', () => {
    const priced = priceLine(line(), { segmentSku: band({ nEff: 1000, floor: 0.3 }) }, settings);
    expect(priced.confidenceScore).toBe(0.98);
    expect(priced.confidence).toBe('high');
    expect(priced.explanation.stance).toBe('hold_firm');
  });

  it('is negotiable with room above the floor but weaker evidence', () => {
    const priced = priceLine(line(), { segmentSku: band({ nEff: 20, floor: 0.3 }) }, settings);
    expect(priced.confidence).toBe('medium');
    expect(priced.explanation.stance).toBe('negotiable');
  });

  it('is at the floor within the negotiable room of the shrunk floor', () => {
    const priced = priceLine(line(), { segmentSku: band({ nEff: 1000, floor: 0.445, target: 0.45 }) }, settings);
    expect(priced.explanation.stance).toBe('at_floor');
  });

  it('is negotiable on the list price without history when it sits above the lower bounds', () => {
    expect(priceLine(line(), {}, settings).explanation.stance).toBe('negotiable');
  });
});

describe('the explanation', () => {
  it('names the main driver and summarises the stack', () => {
    const priced = priceLine(
      line({}, { hasCustomer: true, quantity: 20 }),
      { segmentSku: band({ medianQuantity: 10 }), customerSku: band({ target: 0.5, nEff: 20, medianQuantity: 10 }) },
      settings,
    );
    // Customer: 45% → 47.5%; quantity: one doubling, −0.50.
    expect(priced.explanation.drivers.map((driver) => [driver.param, driver.direction])).toEqual([
      ['customer_history', 'up'],
      ['quantity', 'down'],
    ]);
    expect(priced.explanation.drivers[0]?.points).toBe(2.5);
    expect(priced.explanation.short).toBe("Priced 2.00 points above the segment target, mainly for the customer's own history.");
    expect(priced.reasonSummary).toBe('segment target 45.00% · customer history +2.50 · quantity −0.50 · final 47.00%');
    expect(priced.explanation.marginPct).toBe(47);
    expect(priced.explanation.targetMarginPct).toBe(47.5);
  });

  it('says so when nothing moved the price', () => {
    const priced = priceLine(line(), { category: band() }, settings);
    expect(priced.explanation.short).toBe('Priced at the category target; no adjustments.');
    expect(priced.explanation.drivers).toEqual([]);
    expect(priced.reasonSummary).toBe('category target 45.00% · final 45.00%');
  });

  it('is the same for the same inputs', () => {
    const inputs = line({ stockOnHand: 2 }, { hasCustomer: true, quantity: 30 });
    const bands: LineBands = {
      segmentSku: band(),
      customerSku: band({ target: 0.5 }),
      winModel: { intercept: 4, slope: -9, closedQuotes: 60, nEff: 30 },
    };
    expect(priceLine(inputs, bands, settings)).toEqual(priceLine(inputs, bands, settings));
  });
});
