// Unit tests of the overview's view of a recommendation: the include parameter, the change in percent, the snake_case price and refusals.
import { describe, expect, it } from 'vitest';
import { ApiError } from '#platform/errors.ts';
import { thrownApiError } from '#test/support/thrown.ts';
import { changePct, type IncludePart, overviewPrice, parseInclude, pricedOrRefused } from './overview.ts';
import type { PricedRecommendation, Recommendation } from './schema.ts';

function priced(overrides: Partial<PricedRecommendation> = {}): PricedRecommendation {
  return {
    status: 'priced',
    sku: 'SKU-1',
    currency: 'USD',
    currentPriceCents: 10_000,
    pricingDecisionId: 'pd_1',
    updatedAt: '2026-03-01T12:00:00.000Z',
    recommendedPriceCents: 11_250,
    floorCents: 8000,
    ceilingCents: 15_000,
    rationale: 'Priced 5.00 points above the segment target, mainly for stock levels. (segment target 40.00% · final 45.00%)',
    reasonSummary: 'segment target 40.00% · stock +5.00 · final 45.00%',
    drivers: [{ param: 'stock', label: 'Out of stock: 5.00 points up', points: 5, direction: 'up' }],
    confidence: 'medium',
    ...overrides,
  };
}

const none: ReadonlySet<IncludePart> = new Set();

describe('the include parameter', () => {
  it('asks for nothing when it is left out', () => {
    expect(parseInclude(undefined)).toEqual(new Set());
  });

  it('asks for the rationale or the drivers alone', () => {
    expect(parseInclude('rationale')).toEqual(new Set(['rationale']));
    expect(parseInclude('drivers')).toEqual(new Set(['drivers']));
  });

  it('asks for both, comma-separated, in either order', () => {
    expect(parseInclude('rationale,drivers')).toEqual(new Set(['rationale', 'drivers']));
    expect(parseInclude('drivers,rationale')).toEqual(new Set(['rationale', 'drivers']));
  });

  it('trims the spaces around each part', () => {
    expect(parseInclude(' drivers , rationale ')).toEqual(new Set(['rationale', 'drivers']));
  });

  it('refuses a part it does not know, naming it and the include parameter', () => {
    const error = thrownApiError(() => parseInclude('rationale,reasons'));
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ code: 'invalid_request', param: 'include' });
    expect(error.message).toContain('"reasons"');
  });

  it('refuses a part in another case, since the parts are exact', () => {
    expect(thrownApiError(() => parseInclude('Rationale'))).toMatchObject({ code: 'invalid_request', param: 'include' });
  });

  it('refuses an empty part: an empty value, a trailing comma or a doubled one', () => {
    for (const include of ['', ' ', 'rationale,', ',drivers', 'rationale,,drivers']) {
      expect(thrownApiError(() => parseInclude(include))).toMatchObject({ code: 'invalid_request', param: 'include' });
    }
  });
});

describe('the change in percent', () => {
  it('is the change from the current price to the recommended one, to 2 decimals', () => {
    expect(changePct(11_250, 10_000)).toBe(12.5);
    expect(changePct(1999, 1500)).toBe(33.27);
    expect(changePct(10_000, 10_000)).toBe(0);
  });

  it('is negative when the recommendation is below the current price', () => {
    expect(changePct(1000, 1500)).toBe(-33.33);
    expect(changePct(9000, 10_000)).toBe(-10);
  });

  it('is null when there is no current price', () => {
    expect(changePct(1999, 0)).toBeNull();
  });

  it('is never −0, even for a fall too small to show', () => {
    const change = changePct(999_999, 1_000_000);
    expect(change).toBe(0);
    expect(Object.is(change, -0)).toBe(false);
  });
});

describe('the overview price', () => {
  it('shows the recommendation in snake_case with decimal amounts', () => {
    expect(overviewPrice(priced(), none)).toEqual({
      sku: 'SKU-1',
      currency: 'USD',
      recommended_price: 112.5,
      current_price: 100,
      change_pct: 12.5,
      updated_at: '2026-03-01T12:00:00.000Z',
    });
  });

  it('shows yen with no decimals', () => {
    const price = overviewPrice(priced({ currency: 'JPY', recommendedPriceCents: 1999, currentPriceCents: 1800 }), none);
    expect(price).toMatchObject({ currency: 'JPY', recommended_price: 1999, current_price: 1800 });
  });

  it('shows dinars with three decimals', () => {
    const price = overviewPrice(priced({ currency: 'KWD', recommendedPriceCents: 1999, currentPriceCents: 1500 }), none);
    expect(price).toMatchObject({ currency: 'KWD', recommended_price: 1.999, current_price: 1.5 });
  });

  it('shows dollars with two decimals', () => {
    const price = overviewPrice(priced({ recommendedPriceCents: 1999, currentPriceCents: 1 }), none);
    expect(price).toMatchObject({ recommended_price: 19.99, current_price: 0.01 });
  });

  it('shows a null change when there is no current price', () => {
    expect(overviewPrice(priced({ currentPriceCents: 0 }), none).change_pct).toBeNull();
  });

  it('shows neither rationale, guardrails nor drivers unless asked', () => {
    const price = overviewPrice(priced(), none);
    for (const field of ['rationale', 'guardrails', 'drivers']) expect(price).not.toHaveProperty(field);
  });

  it('adds the rationale and the guardrails, as decimal amounts, when asked for the rationale', () => {
    const price = overviewPrice(priced(), new Set(['rationale']));
    expect(price).toMatchObject({ rationale: priced().rationale, guardrails: { floor: 80, ceiling: 150 } });
    expect(price).not.toHaveProperty('drivers');
  });

  it('shows a null ceiling when the product has none', () => {
    const { ceilingCents: _, ...withoutCeiling } = priced({ currency: 'KWD', floorCents: 1234 });
    expect(overviewPrice(withoutCeiling, new Set(['rationale'])).guardrails).toEqual({ floor: 1.234, ceiling: null });
  });

  it('adds the drivers alone when asked for the drivers', () => {
    const price = overviewPrice(priced(), new Set(['drivers']));
    expect(price.drivers).toEqual(priced().drivers);
    expect(price).not.toHaveProperty('rationale');
    expect(price).not.toHaveProperty('guardrails');
  });

  it('adds all three when asked for both', () => {
    const price = overviewPrice(priced(), parseInclude('rationale,drivers'));
    expect(Object.keys(price)).toEqual(
      expect.arrayContaining(['sku', 'recommended_price', 'change_pct', 'rationale', 'guardrails', 'drivers']),
    );
  });
});

describe('a recommendation to show or approve against', () => {
  it('is the priced recommendation itself', () => {
    const recommendation = priced();
    expect(pricedOrRefused(recommendation, 'SKU-1')).toBe(recommendation);
  });

  it('is refused as not found, naming the sku, when the product is not known', () => {
    const error = thrownApiError(() => pricedOrRefused(undefined, 'SKU-404'));
    expect(error.code).toBe('not_found');
    expect(error.status).toBe(404);
    expect(error.message).toContain('SKU-404');
  });

  it('is refused as not found, saying the cost is 0, when the product cannot be priced', () => {
    const unpriced: Recommendation = {
      status: 'unpriced',
      sku: 'SKU-0',
      currency: 'USD',
      currentPriceCents: 1000,
      pricingDecisionId: 'pd_0',
      updatedAt: '2026-03-01T12:00:00.000Z',
      reason: 'no_cost_basis',
    };
    const error = thrownApiError(() => pricedOrRefused(unpriced, 'SKU-0'));
    expect(error.code).toBe('not_found');
    expect(error.message).toContain('SKU-0');
    expect(error.message).toMatch(/cost/);
  });
});

describe('the impact in the overview', () => {
  const side = (priceCents: number, winProbability: number) => ({
    priceCents,
    margin: (priceCents - 6000) / priceCents,
    winProbability,
    expectedRevenueCents: Math.round(winProbability * priceCents * 3),
    expectedMarginCents: Math.round(winProbability * (priceCents - 6000) * 3),
  });
  const estimated = {
    status: 'estimated' as const,
    quantity: 3,
    current: side(10_000, 0.5),
    recommended: side(11_250, 0.4),
    expectedMarginChangeCents: side(11_250, 0.4).expectedMarginCents - side(10_000, 0.5).expectedMarginCents,
    expectedRevenueChangeCents: side(11_250, 0.4).expectedRevenueCents - side(10_000, 0.5).expectedRevenueCents,
    evidence: { closedQuotes: 240, segments: [{ segment: 'smb', share: 1 }] },
  };
  const impactOnly: ReadonlySet<IncludePart> = new Set(['impact']);

  it('is a part include can ask for, alone or with the others', () => {
    expect(parseInclude('impact')).toEqual(new Set(['impact']));
    expect(parseInclude('rationale,impact,drivers')).toEqual(new Set(['rationale', 'drivers', 'impact']));
  });

  it('shows both sides and the change in decimals of the currency, snake_case', () => {
    expect(overviewPrice(priced({ impact: estimated }), impactOnly).impact).toEqual({
      status: 'estimated',
      quantity: 3,
      current: { price: 100, margin: 0.4, win_probability: 0.5, expected_revenue: 150, expected_margin: 60 },
      recommended: {
        price: 112.5,
        margin: estimated.recommended.margin,
        win_probability: 0.4,
        expected_revenue: 135,
        expected_margin: 63,
      },
      expected_margin_change: 3,
      expected_revenue_change: -15,
      evidence: { closed_quotes: 240, segments: [{ segment: 'smb', share: 1 }] },
    });
  });

  it('keeps the minor digits of currencies without cents', () => {
    const view = overviewPrice(priced({ currency: 'JPY', impact: estimated }), impactOnly).impact;
    expect(view).toMatchObject({ current: { price: 10_000, expected_margin: 6000 }, expected_margin_change: 300 });
  });

  it('says too_thin with its reason and evidence', () => {
    const tooThin = { status: 'too_thin' as const, reason: 'No win model.', evidence: { closedQuotes: 12, segments: [] } };
    expect(overviewPrice(priced({ impact: tooThin }), impactOnly).impact).toEqual({
      status: 'too_thin',
      reason: 'No win model.',
      evidence: { closed_quotes: 12, segments: [] },
    });
  });

  it('says not_estimated for a recommendation stored before impacts were computed', () => {
    expect(overviewPrice(priced(), impactOnly).impact).toEqual({
      status: 'not_estimated',
      reason: expect.stringContaining('stored before'),
    });
  });

  it('is left out unless asked for', () => {
    expect(overviewPrice(priced({ impact: estimated }), none)).not.toHaveProperty('impact');
  });
});
