// The overview surface's view of a recommendation: snake_case, decimal amounts, and the parts `include` asks for.
import * as v from 'valibot';
import { ApiError, quoted } from '#platform/errors.ts';
import { toDecimalAmount } from '#shared/pricing/currency.ts';
import type { Impact, ImpactView, OverviewPrice, PricedRecommendation, Recommendation } from './schema.ts';

export const includeParts = ['rationale', 'drivers', 'impact'] as const;
export type IncludePart = (typeof includeParts)[number];

/**
 * The query of GET /v1/prices/{sku}: `include` alone. Any other parameter is refused as well, so that a misspelt
 * `includes=rationale` is not silently answered without the rationale.
 */
export const PriceQuerySchema = v.optional(
  v.strictObject({
    include: v.optional(v.string()),
  }),
);

/** `rationale,drivers` → the parts; anything not known, an empty part included, is 400 bad_request. */
export function parseInclude(include: string | undefined): ReadonlySet<IncludePart> {
  if (include === undefined) return new Set();
  const parts = include.split(',').map((part) => part.trim());
  const unknown = parts.find((part) => !(includeParts as readonly string[]).includes(part));
  if (unknown !== undefined) {
    throw new ApiError(
      'invalid_request',
      `include takes a comma-separated list of ${includeParts.join(', ')}; ${quoted(unknown)} is not one.`,
      {
        param: 'include',
      },
    );
  }
  return new Set(parts as IncludePart[]);
}

export function notFound(sku: string): ApiError {
  return new ApiError('not_found', `No product with sku ${quoted(sku)} is known to the workspace.`);
}

/** A product the engine cannot price has no recommendation to show or approve against. */
export function pricedOrRefused(recommendation: Recommendation | undefined, sku: string): PricedRecommendation {
  if (!recommendation) throw notFound(sku);
  if (recommendation.status === 'unpriced') {
    throw new ApiError('not_found', `The product "${sku}" has no recommendation: its cost is 0, so no margin can be priced.`);
  }
  return recommendation;
}

/** Percent change from the current price to the recommended one, to 2 decimals; null when there is no current price. */
export function changePct(recommendedCents: number, currentCents: number): number | null {
  if (currentCents <= 0) return null;
  return Math.round(((recommendedCents - currentCents) / currentCents) * 10_000) / 100 + 0;
}

/** A recommendation stored before impacts were computed says so, rather than look like one too thin to estimate. */
export const NOT_ESTIMATED_REASON =
  'This recommendation was stored before expected impacts were computed; the next bands job that reprices the product adds it.';

export function impactView(impact: Impact | undefined, currency: string): ImpactView {
  if (!impact) return { status: 'not_estimated', reason: NOT_ESTIMATED_REASON };
  const amount = (cents: number) => toDecimalAmount(cents, currency);
  const evidence = {
    closed_quotes: impact.evidence.closedQuotes,
    segments: impact.evidence.segments.map(({ segment, share }) => ({ segment, share })),
  };
  if (impact.status === 'too_thin') return { status: 'too_thin', reason: impact.reason, evidence };
  const side = (part: typeof impact.current) => ({
    price: amount(part.priceCents),
    margin: part.margin,
    win_probability: part.winProbability,
    expected_revenue: amount(part.expectedRevenueCents),
    expected_margin: amount(part.expectedMarginCents),
  });
  return {
    status: 'estimated',
    quantity: impact.quantity,
    current: side(impact.current),
    recommended: side(impact.recommended),
    expected_margin_change: amount(impact.expectedMarginChangeCents),
    expected_revenue_change: amount(impact.expectedRevenueChangeCents),
    evidence,
    ...(impact.perMonth
      ? {
          per_month: {
            expected_margin_change: amount(impact.perMonth.expectedMarginChangeCents),
            quote_lines: impact.perMonth.quoteLines,
            days: impact.perMonth.days,
            as_of: impact.perMonth.asOf,
          },
        }
      : {}),
  };
}

export function overviewPrice(recommendation: PricedRecommendation, include: ReadonlySet<IncludePart>): OverviewPrice {
  const { currency } = recommendation;
  const amount = (cents: number) => toDecimalAmount(cents, currency);
  return {
    sku: recommendation.sku,
    currency,
    recommended_price: amount(recommendation.recommendedPriceCents),
    current_price: amount(recommendation.currentPriceCents),
    change_pct: changePct(recommendation.recommendedPriceCents, recommendation.currentPriceCents),
    updated_at: recommendation.updatedAt,
    ...(include.has('rationale')
      ? {
          rationale: recommendation.rationale,
          guardrails: {
            floor: amount(recommendation.floorCents),
            ceiling: recommendation.ceilingCents === undefined ? null : amount(recommendation.ceilingCents),
          },
        }
      : {}),
    ...(include.has('drivers') ? { drivers: recommendation.drivers } : {}),
    ...(include.has('impact') ? { impact: impactView(recommendation.impact, currency) } : {}),
    ...(recommendation.warnings?.length ? { warnings: recommendation.warnings } : {}),
  };
}
