// Unit tests of the list's ordering by expected impact and of the rows a recommendation writes: its sort keys, and no rows for the sort by size.
import { describe, expect, it } from 'vitest';
import { readCatalogueQuery } from './catalogue.ts';
import { NO_NUMBER_PREFIX } from '#platform/table/listing-sort-keys.ts';
import { changeOfSortKey, changeSortKey, impactSortKey, orderings, recommendationRows } from './listing.ts';
import type { Impact, Recommendation } from './schema.ts';

const side = { priceCents: 1000, margin: 0.3, winProbability: 0.5, expectedRevenueCents: 500, expectedMarginCents: 150 };

function estimated(expectedMarginChangeCents: number): Impact {
  return {
    status: 'estimated',
    quantity: 1,
    current: side,
    recommended: side,
    expectedMarginChangeCents,
    expectedRevenueChangeCents: 0,
    evidence: { closedQuotes: 100, segments: [{ segment: '', share: 1 }] },
  };
}

function priced(sku: string, extra: Partial<Extract<Recommendation, { status: 'priced' }>> = {}): Recommendation {
  return {
    status: 'priced',
    sku,
    category: 'Lighting',
    currency: 'USD',
    currentPriceCents: 1000,
    recommendedPriceCents: 1100,
    pricingDecisionId: 'pd_1',
    updatedAt: '2026-11-01T00:00:00.000Z',
    floorCents: 1,
    rationale: 'r',
    reasonSummary: 's',
    drivers: [],
    confidence: 'low',
    exchangeRateToBase: 1,
    ...extra,
  };
}

/** SKUs in the order their keys sort, highest first, as the list reads them. */
const highestFirst = (keyed: Array<[string, string]>) => keyed.sort(([, a], [, b]) => (a < b ? 1 : a > b ? -1 : 0)).map(([sku]) => sku);

describe('the ordering by change', () => {
  it('gives back the change its key holds, in hundredths of a point, and nothing for a row without one', () => {
    for (const change of [-100, -12.5, -0.01, 0, 0.01, 7.25, 300]) {
      expect(changeOfSortKey(changeSortKey(change, 'SKU-1'))).toBe(Math.round(change * 100));
    }
    expect(changeOfSortKey(changeSortKey(null, 'SKU-1'))).toBeUndefined();
    expect(changeOfSortKey('sku-011#SKU-1')).toBeUndefined();
  });
});

describe('the ordering by expected impact', () => {
  it('puts the largest expected margin gain per quote first, and losses last', () => {
    const keyed: Array<[string, string]> = [
      ['GAIN-1', impactSortKey(priced('GAIN-1', { impact: estimated(100) }), 'GAIN-1')],
      ['LOSS', impactSortKey(priced('LOSS', { impact: estimated(-5000) }), 'LOSS')],
      ['GAIN-50', impactSortKey(priced('GAIN-50', { impact: estimated(5000) }), 'GAIN-50')],
      ['ZERO', impactSortKey(priced('ZERO', { impact: estimated(0) }), 'ZERO')],
    ];
    expect(highestFirst(keyed)).toEqual(['GAIN-50', 'GAIN-1', 'ZERO', 'LOSS']);
  });

  it("compares currencies in the workspace's base currency, minor units and rate both", () => {
    // ¥1,000 at 0.0067 is 6.70 in the base; €5.00 at 1.08 is 5.40; $6.00 is 6.00.
    const yen = priced('YEN', { currency: 'JPY', exchangeRateToBase: 0.0067, impact: estimated(1000) });
    const euro = priced('EURO', { currency: 'EUR', exchangeRateToBase: 1.08, impact: estimated(500) });
    const dollar = priced('DOLLAR', { impact: estimated(600) });
    const keyed: Array<[string, string]> = [yen, euro, dollar].map((r) => [r.sku, impactSortKey(r, r.sku)]);
    expect(highestFirst(keyed)).toEqual(['YEN', 'DOLLAR', 'EURO']);
  });

  it('sorts a product without an estimate, or without a rate to the base, with the rows that have no number', () => {
    const tooThin: Impact = { status: 'too_thin', reason: 'r', evidence: { closedQuotes: 0, segments: [] } };
    const unpriced: Recommendation = {
      status: 'unpriced',
      sku: 'FREE',
      currency: 'USD',
      currentPriceCents: 0,
      pricingDecisionId: 'pd_1',
      updatedAt: '2026-11-01T00:00:00.000Z',
      reason: 'no_cost_basis',
    };
    const { exchangeRateToBase: _rate, ...noRate } = priced('NO-RATE', { currency: 'EUR', impact: estimated(500) }) as Extract<
      Recommendation,
      { status: 'priced' }
    >;
    for (const recommendation of [priced('THIN', { impact: tooThin }), priced('OLD'), unpriced, noRate]) {
      expect(impactSortKey(recommendation, recommendation.sku).startsWith(NO_NUMBER_PREFIX), recommendation.sku).toBe(true);
    }
  });

  it('ranks no product held by data warnings, however large its estimate: its row carries the codes and no impact', () => {
    const warnings = [{ code: 'cost_jump' as const, message: 'cost 100.00 USD is 10 times the cost it was in line at, 10.00 USD.' }];
    const held = priced('TYPO', { impact: estimated(900_000), warnings });
    expect(impactSortKey(held, 'TYPO').startsWith(NO_NUMBER_PREFIX)).toBe(true);
    const rows = recommendationRows('ws_1', held);
    for (const row of rows) {
      expect(row.warnings).toEqual(['cost_jump']);
      expect(row).not.toHaveProperty('expectedMarginChangeCents');
    }
    expect(recommendationRows('ws_1', priced('FINE', { impact: estimated(10) }))[0]).not.toHaveProperty('warnings');
  });

  it('is written as rows of its own, over the workspace and within the category, carrying the expected margin change', () => {
    const rows = recommendationRows('ws_1', priced('GAIN', { impact: estimated(250) }));
    expect(rows).toHaveLength(orderings.length);
    expect(rows.filter((row) => String(row.SK).endsWith('impact'))).toHaveLength(2);
    for (const row of rows) expect(row.expectedMarginChangeCents).toBe(250);
  });

  it('is, with SKU and change, all a recommendation writes rows for: the sort by size reads the rows by change', () => {
    const rows = recommendationRows('ws_1', priced('GAIN', { impact: estimated(250) }));
    expect(rows.map((row) => String(row.SK).replace(/^RECROW#/, '')).sort()).toEqual([
      'category-change',
      'category-impact',
      'category-sku',
      'change',
      'impact',
      'sku',
    ]);
  });

  it('is a sort a link can ask for, as is the size of change', () => {
    expect(readCatalogueQuery(new URLSearchParams('sort=impact-desc')).sort).toBe('impact-desc');
    expect(readCatalogueQuery(new URLSearchParams('sort=size-desc')).sort).toBe('size-desc');
  });
});
