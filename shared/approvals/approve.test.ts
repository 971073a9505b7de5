// Unit tests of approving a price without storage: the approved amount's decimals and bounds, and the reason a connector is told.
import { describe, expect, it } from 'vitest';
import type { PricedRecommendation } from '#shared/recommendations/schema.ts';
import { thrownApiError } from '#test/support/thrown.ts';
import { approvalReason, checkApprovedPrice } from './approve.ts';

function recommendation(overrides: Partial<PricedRecommendation> = {}): PricedRecommendation {
  return {
    status: 'priced',
    sku: 'SKU-1',
    currency: 'USD',
    currentPriceCents: 2000,
    pricingDecisionId: 'pd_1',
    updatedAt: '2026-03-01T12:00:00.000Z',
    recommendedPriceCents: 1999,
    floorCents: 1234,
    ceilingCents: 3456,
    rationale: 'Priced at the list price; no adjustments. (list price 50.00% · final 50.00%)',
    reasonSummary: 'list price 50.00% · final 50.00%',
    drivers: [],
    confidence: 'low',
    ...overrides,
  };
}

function withoutCeiling(overrides: Partial<PricedRecommendation> = {}): PricedRecommendation {
  const { ceilingCents: _, ...rest } = recommendation(overrides);
  return rest;
}

describe('the approved price', () => {
  it('is the amount in minor units', () => {
    expect(checkApprovedPrice(25, recommendation())).toBe(2500);
    expect(checkApprovedPrice(20.5, recommendation())).toBe(2050);
  });

  it('is 1999 cents for 19.99 dollars, though 19.99 × 100 is not 1999 in binary', () => {
    expect(19.99 * 100).not.toBe(1999);
    expect(checkApprovedPrice(19.99, recommendation())).toBe(1999);
  });

  it('is refused with more decimals than the dollar has', () => {
    const error = thrownApiError(() => checkApprovedPrice(15.001, recommendation()));
    expect(error).toMatchObject({ code: 'invalid_request', param: 'price' });
    expect(error.message).toContain('USD');
    expect(error.message).toContain('2 decimals');
  });

  it('is refused with any decimals in yen', () => {
    const yen = withoutCeiling({ currency: 'JPY', floorCents: 10 });
    const error = thrownApiError(() => checkApprovedPrice(15.5, yen));
    expect(error).toMatchObject({ code: 'invalid_request', param: 'price' });
    expect(error.message).toContain('0 decimals');
    expect(checkApprovedPrice(15, yen)).toBe(15);
  });

  it('takes three decimals in dinars, but not four', () => {
    const dinars = withoutCeiling({ currency: 'KWD', floorCents: 1000 });
    expect(checkApprovedPrice(1.555, dinars)).toBe(1555);
    expect(thrownApiError(() => checkApprovedPrice(1.5555, dinars))).toMatchObject({ code: 'invalid_request', param: 'price' });
  });

  it('is refused when it is not a finite number', () => {
    for (const price of [Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(thrownApiError(() => checkApprovedPrice(price, recommendation()))).toMatchObject({ code: 'invalid_request', param: 'price' });
    }
  });

  it('is refused below the floor, naming the floor', () => {
    const error = thrownApiError(() => checkApprovedPrice(12.33, recommendation()));
    expect(error.code).toBe('guardrail_violation');
    expect(error.status).toBe(422);
    expect(error.message).toContain('12.33 USD');
    expect(error.message).toContain('floor of 12.34 USD');
  });

  it('is refused above the ceiling, naming the ceiling', () => {
    const error = thrownApiError(() => checkApprovedPrice(34.57, recommendation()));
    expect(error.code).toBe('guardrail_violation');
    expect(error.message).toContain('34.57 USD');
    expect(error.message).toContain('ceiling of 34.56 USD');
  });

  it('names the bounds in the currency of the recommendation', () => {
    const dinars = recommendation({ currency: 'KWD', floorCents: 1234, ceilingCents: 3456 });
    expect(thrownApiError(() => checkApprovedPrice(1.233, dinars)).message).toContain('floor of 1.234 KWD');
    expect(thrownApiError(() => checkApprovedPrice(3.457, dinars)).message).toContain('ceiling of 3.456 KWD');
  });

  it('may be exactly at the floor or the ceiling', () => {
    expect(checkApprovedPrice(12.34, recommendation())).toBe(1234);
    expect(checkApprovedPrice(34.56, recommendation())).toBe(3456);
  });

  it('may be the floor when the ceiling is under it, since lower bounds win, and nothing above the floor', () => {
    const crossed = recommendation({ floorCents: 11_000, ceilingCents: 10_500 });
    expect(checkApprovedPrice(110, crossed)).toBe(11_000);
    const error = thrownApiError(() => checkApprovedPrice(110.01, crossed));
    expect(error.code).toBe('guardrail_violation');
    expect(error.message).toContain('ceiling of 110.00 USD');
    expect(error.message).toContain('105.00 USD');
  });

  it('may be as high as it likes when there is no ceiling', () => {
    expect(checkApprovedPrice(1_000_000, withoutCeiling())).toBe(100_000_000);
  });

  it('is refused past the largest amount a decimal can name exactly, naming that bound rather than the decimals', () => {
    for (const price of [1e20, 90_071_992_547_409.91, 70_368_744_177_664]) {
      const error = thrownApiError(() => checkApprovedPrice(price, withoutCeiling()));
      expect(error).toMatchObject({ code: 'invalid_request', param: 'price' });
      expect(error.message).toMatch(/^price must be at most 70,368,744,177,663\.99 USD; /);
      expect(error.message).not.toContain('decimal');
    }
  });

  it('may be the largest amount a decimal can name exactly, in each currency', () => {
    expect(checkApprovedPrice(70_368_744_177_663.99, withoutCeiling())).toBe(7_036_874_417_766_399);
    expect(checkApprovedPrice(9_007_199_254_740_991, withoutCeiling({ currency: 'JPY' }))).toBe(Number.MAX_SAFE_INTEGER);
    expect(thrownApiError(() => checkApprovedPrice(2 ** 53, withoutCeiling({ currency: 'JPY' }))).message).toMatch(
      /^price must be at most 9,007,199,254,740,991 JPY; /,
    );
    expect(thrownApiError(() => checkApprovedPrice(1e13, withoutCeiling({ currency: 'KWD' }))).message).toMatch(
      /^price must be at most 8,796,093,022,207\.999 KWD; /,
    );
  });
});

describe('the reason of an approval', () => {
  it("is the recommendation's own when the price is the recommended one", () => {
    expect(approvalReason(1999, recommendation())).toBe('list price 50.00% · final 50.00%');
  });

  it('names both the approved and the recommended amounts otherwise, and keeps the reason', () => {
    const reason = approvalReason(2500, recommendation());
    expect(reason).toContain('25');
    expect(reason).toContain('19.99');
    expect(reason).toContain('list price 50.00% · final 50.00%');
    expect(reason).toBe('Approved at 25 over the recommended 19.99 (list price 50.00% · final 50.00%)');
  });

  it('names the shown price and the recommendation when approved, and no override, when the price is the one shown', () => {
    const shown = { priceCents: 2000, pricingDecisionId: 'pd_shown', tolerancePct: 1 };
    const reason = approvalReason(2000, recommendation(), shown);
    expect(reason).toBe(
      'Approved at 20, the recommendation as shown; 19.99 when approved, within the 1% tolerance (list price 50.00% · final 50.00%)',
    );
    expect(reason).not.toMatch(/over (the )?recommended/);
    expect(approvalReason(2500, recommendation(), shown)).toContain('over the recommended 19.99');
  });

  it('names the amounts in the currency of the recommendation', () => {
    expect(approvalReason(1555, recommendation({ currency: 'KWD' }))).toContain('Approved at 1.555 over the recommended 1.999');
  });
});
