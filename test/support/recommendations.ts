// Sample recommendations for the tests of the console's list: a product priced or not, with an expected impact, too thin to say, or none.
import type { Impact, Recommendation } from '#shared/recommendations/schema.ts';

/** One side of an estimate: the same at the current and the recommended price, since only the change is listed. */
const SIDE = { priceCents: 1000, margin: 0.3, winProbability: 0.5, expectedRevenueCents: 500, expectedMarginCents: 150 };

/** An estimate of the given margin change per quote, from 120 closed quotes of one segment. */
export function estimatedImpact(expectedMarginChangeCents: number, quantity = 2): Impact {
  return {
    status: 'estimated',
    quantity,
    current: SIDE,
    recommended: SIDE,
    expectedMarginChangeCents,
    expectedRevenueChangeCents: 0,
    evidence: { closedQuotes: 120, segments: [{ segment: 'smb', share: 1 }] },
  };
}

export const TOO_THIN_IMPACT: Impact = { status: 'too_thin', reason: 'No win model.', evidence: { closedQuotes: 0, segments: [] } };

/** A recommended price for the index-th product, spread over 7.00–13.99 so that changes fall both ways. */
export const spreadPriceCents = (index: number): number => 700 + ((index * 53) % 700);

/** A margin change per quote for the index-th product, spread over −20.00–+20.00 so that the list by impact mixes them. */
export const spreadMarginChangeCents = (index: number): number => ((index * 7919) % 4001) - 2000;

export interface SampleProduct {
  readonly sku: string;
  readonly name?: string;
  readonly category?: string;
  readonly currency?: string;
  readonly currentPriceCents?: number;
}

export interface SamplePrice {
  readonly recommendedPriceCents: number;
  readonly confidence: 'high' | 'medium' | 'low';
  readonly exchangeRateToBase?: number;
  readonly impact?: Impact;
}

/** The product's recommendation: priced as given, or without a price (no cost basis); 10.00 USD now unless told. */
export function sampleRecommendation(product: SampleProduct, price?: SamplePrice): Recommendation {
  const common = {
    sku: product.sku,
    ...(product.name === undefined ? {} : { name: product.name }),
    ...(product.category === undefined ? {} : { category: product.category }),
    currency: product.currency ?? 'USD',
    currentPriceCents: product.currentPriceCents ?? 1000,
    pricingDecisionId: `pd_${product.sku}`,
    updatedAt: '2026-11-01T00:00:00.000Z',
  };
  if (!price) return { status: 'unpriced', ...common, reason: 'no_cost_basis' };
  return {
    status: 'priced',
    ...common,
    recommendedPriceCents: price.recommendedPriceCents,
    floorCents: 1,
    rationale: 'r',
    reasonSummary: 's',
    drivers: [],
    confidence: price.confidence,
    ...(price.exchangeRateToBase === undefined ? {} : { exchangeRateToBase: price.exchangeRateToBase }),
    ...(price.impact === undefined ? {} : { impact: price.impact }),
  };
}
