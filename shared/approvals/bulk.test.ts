// Unit tests of bulk approval's rules without storage: the selection's bound, each line's checks, the summed impact per currency, and the hold to the recommendation shown.
import { describe, expect, it } from 'vitest';
import type { PricedRecommendation } from '#shared/recommendations/schema.ts';
import { thrownApiError } from '#test/support/thrown.ts';
import { type BulkLine, bulkLine, checkSelectionSize, MAX_BULK_SKUS, newBulkId } from './bulk.ts';
import { impactTotals } from './bulk-totals.ts';
import { checkSeen, RecommendationMoved } from './rules.ts';

function recommendation(overrides: Partial<PricedRecommendation> = {}): PricedRecommendation {
  return {
    status: 'priced',
    sku: 'SKU-1',
    currency: 'USD',
    currentPriceCents: 2000,
    pricingDecisionId: 'pd_1',
    updatedAt: '2026-11-01T12:00:00.000Z',
    recommendedPriceCents: 2100,
    floorCents: 1000,
    rationale: 'Priced at the segment target.',
    reasonSummary: 'segment target',
    drivers: [],
    confidence: 'medium',
    ...overrides,
  };
}

const evidence = { closedQuotes: 120, segments: [{ segment: 'smb', share: 1 }] };
const side = { priceCents: 2000, margin: 0.3, winProbability: 0.4, expectedRevenueCents: 800, expectedMarginCents: 240 };

function estimated(expectedMarginChangeCents: number): PricedRecommendation['impact'] {
  return {
    status: 'estimated',
    quantity: 1,
    current: side,
    recommended: side,
    expectedMarginChangeCents,
    expectedRevenueChangeCents: 0,
    evidence,
  };
}

function line(overrides: Partial<BulkLine> = {}): BulkLine {
  return {
    sku: 'SKU-1',
    currency: 'USD',
    currentPriceCents: 2000,
    recommendedPriceCents: 2100,
    pricingDecisionId: 'pd_1',
    changePct: 5,
    large: false,
    waits: false,
    ...overrides,
  };
}

describe('the bound of a bulk selection', () => {
  it(`takes from 1 to ${MAX_BULK_SKUS} products`, () => {
    expect(() => checkSelectionSize(1)).not.toThrow();
    expect(() => checkSelectionSize(MAX_BULK_SKUS)).not.toThrow();
  });

  it('refuses an empty selection and one past the bound, saying how many were selected', () => {
    expect(thrownApiError(() => checkSelectionSize(0)).message).toMatch(/at least one product/);
    const over = thrownApiError(() => checkSelectionSize(MAX_BULK_SKUS + 1));
    expect(over.code).toBe('invalid_request');
    expect(over.message).toMatch(/at most 50 products; 51 were selected/);
  });
});

describe('a line of the confirmation step', () => {
  const thresholds = { confirmPct: 10, secondApprovalPct: 30 };

  it('carries the decision and price shown, and no impact when none is estimated', () => {
    const shown = bulkLine(recommendation(), thresholds);
    expect(shown).toEqual(line());
    expect(shown).not.toHaveProperty('expectedMarginChangeCents');
  });

  it('is marked large past the confirmation threshold, and waiting past the second-approval one', () => {
    expect(bulkLine(recommendation({ recommendedPriceCents: 2300 }), thresholds)).toMatchObject({ large: true, waits: false });
    expect(bulkLine(recommendation({ recommendedPriceCents: 2700 }), thresholds)).toMatchObject({ large: true, waits: true });
    expect(bulkLine(recommendation({ recommendedPriceCents: 1700 }), thresholds)).toMatchObject({ large: true, waits: false });
    expect(bulkLine(recommendation({ recommendedPriceCents: 2700 }), { confirmPct: 10, secondApprovalPct: undefined }).waits).toBe(false);
  });

  it('holds the expected margin change per quote when the impact is estimated, and none when it is too thin', () => {
    expect(bulkLine(recommendation({ impact: estimated(-150) }), thresholds).expectedMarginChangeCents).toBe(-150);
    const thin = recommendation({ impact: { status: 'too_thin', reason: 'few quotes', evidence } });
    expect(bulkLine(thin, thresholds)).not.toHaveProperty('expectedMarginChangeCents');
  });
});

describe("the selection's summed expected impact", () => {
  it('sums per currency, never across, and counts the products too thin to say', () => {
    const totals = impactTotals([
      line({ sku: 'A', expectedMarginChangeCents: 500 }),
      line({ sku: 'B', expectedMarginChangeCents: -120 }),
      line({ sku: 'C' }),
      line({ sku: 'D', currency: 'EUR', expectedMarginChangeCents: 75 }),
    ]);
    expect(totals).toEqual([
      { currency: 'EUR', expectedMarginChangeCents: 75, estimated: 1, tooThin: 0, perMonthCents: 0, perMonthProducts: 0 },
      { currency: 'USD', expectedMarginChangeCents: 380, estimated: 2, tooThin: 1, perMonthCents: 0, perMonthProducts: 0 },
    ]);
  });

  it('sums the month at each product’s recent quote rate beside the quote, for the products that have a rate', () => {
    const totals = impactTotals([
      line({ sku: 'A', expectedMarginChangeCents: 500, expectedMarginChangePerMonthCents: 15_219 }),
      line({ sku: 'B', expectedMarginChangeCents: -120, expectedMarginChangePerMonthCents: -1_218 }),
      line({ sku: 'C', expectedMarginChangeCents: 40 }),
    ]);
    expect(totals).toEqual([
      { currency: 'USD', expectedMarginChangeCents: 420, estimated: 3, tooThin: 0, perMonthCents: 14_001, perMonthProducts: 2 },
    ]);
  });

  it('is nothing for an empty selection', () => {
    expect(impactTotals([])).toEqual([]);
  });
});

describe('the hold to the recommendation shown', () => {
  const shown = { pricingDecisionId: 'pd_1', recommendedPriceCents: 5804, currency: 'USD' };

  it('approves the shown price when the recommendation moved by a cent under another decision, and says what was shown', () => {
    expect(checkSeen(shown, { ...shown, pricingDecisionId: 'pd_2', recommendedPriceCents: 5803 }, 1)).toEqual({
      priceCents: 5804,
      pricingDecisionId: 'pd_1',
      tolerancePct: 1,
    });
    expect(checkSeen(undefined, { ...shown, recommendedPriceCents: 1 }, 1)).toBeUndefined();
  });

  it('refuses a price moved past the tolerance, naming both prices and the tolerance', () => {
    const moved = (() => {
      try {
        checkSeen(shown, { ...shown, pricingDecisionId: 'pd_2', recommendedPriceCents: 6250 }, 1);
      } catch (error) {
        return error;
      }
      return undefined;
    })();
    expect(moved).toBeInstanceOf(RecommendationMoved);
    expect((moved as Error).message).toBe(
      'The recommendation moved since it was shown, from 58.04 USD to 62.50 USD, more than the 1% an approval of the shown price allows: review it again.',
    );
  });

  it('refuses a price shown in another currency, whatever the amount', () => {
    expect(() => checkSeen({ ...shown, currency: 'EUR' }, shown, 1)).toThrow(/from 58\.04 EUR to 58\.04 USD, in another currency/);
  });
});

describe("a confirmation's id", () => {
  it('is new each time and has the shape of the service ids the console checks', () => {
    const [a, b] = [newBulkId(), newBulkId()];
    expect(a).not.toBe(b);
    expect(a).toMatch(/^[a-z]{2,4}_[0-9A-Za-z]{22}$/);
  });
});
