// Recommendations: a product's stored recommended price, which approvals check against, and the overview's view of it.
import * as v from 'valibot';
import { DataWarningSchema } from '#shared/canonical/data-warnings.ts';
import { DriverViewSchema } from '#shared/prices/schema.ts';

export const DriverSchema = v.object({
  param: v.string(),
  label: v.string(),
  points: v.number(),
  direction: v.picklist(['up', 'down']),
});

const common = {
  sku: v.string(),
  productExternalId: v.optional(v.string()),
  /** The product's name and category as the recommendation was computed: what the console lists and filters by. */
  name: v.optional(v.string()),
  category: v.optional(v.string()),
  /** The product's currency (the workspace's base currency when it names none): every amount is in its minor units. */
  currency: v.string(),
  currentPriceCents: v.number(),
  /** Recorded on the approval and the write-back tasks it creates. */
  pricingDecisionId: v.string(),
  updatedAt: v.string(),
  /**
   * The product's data warnings as the recommendation was computed: while it has any, the recommendation is "check the
   * data", out of the impact rankings and bulk approval, and approving it needs `confirm`. Absent when it has none.
   */
  warnings: v.optional(v.array(DataWarningSchema)),
};

/** One side of a change as the win model sees it, per quote at the SKU's typical quantity and segment mix. */
export const ImpactSideSchema = v.object({
  priceCents: v.number(),
  /** (price − cost) / price, a fraction. */
  margin: v.number(),
  winProbability: v.number(),
  /** winProbability × price × quantity, in the product's minor units. */
  expectedRevenueCents: v.number(),
  /** winProbability × (price − cost) × quantity, in the product's minor units. */
  expectedMarginCents: v.number(),
});

/** What the win model was fitted on: enough for a person to judge the estimate. */
export const ImpactEvidenceSchema = v.object({
  /**
   * The closed quotes behind the win curves used, counted once: every segment's curve of a category is fitted on the
   * category's closed quotes together, so a sum over segments would count each quote once per segment.
   */
  closedQuotes: v.number(),
  /** The recent segment mix the estimate is weighted by: shares sum to 1. */
  segments: v.array(v.object({ segment: v.string(), share: v.number() })),
});

/**
 * The expected effect of moving from the current price to the recommended one, computed with the recommendation and
 * stored on it. `too_thin` when no credible win model covers the SKU: the reason says what is missing.
 */
export const ImpactSchema = v.variant('status', [
  v.object({
    status: v.literal('estimated'),
    /** The SKU's typical quantity per quote line. */
    quantity: v.number(),
    current: ImpactSideSchema,
    recommended: ImpactSideSchema,
    /** recommended − current, per quote. */
    expectedMarginChangeCents: v.number(),
    expectedRevenueChangeCents: v.number(),
    evidence: ImpactEvidenceSchema,
    /** The margin change over a month at the product's recent quote rate; absent before its bands job counted one. */
    perMonth: v.optional(v.object({ expectedMarginChangeCents: v.number(), quoteLines: v.number(), days: v.number(), asOf: v.string() })),
  }),
  v.object({ status: v.literal('too_thin'), reason: v.string(), evidence: ImpactEvidenceSchema }),
]);
export type Impact = v.InferOutput<typeof ImpactSchema>;

/** What the product page explains a recommendation with, stored with it so that the page reads one item. */
export const RecommendationBasisSchema = v.object({
  costCents: v.number(),
  /** Fractions: the recommended price's margin, the current price's (null when it is 0). */
  margin: v.number(),
  currentMargin: v.nullable(v.number()),
  /** The base band the target came from, after shrinkage: floor (p20), target, stretch (p90) margins. */
  band: v.object({ floor: v.number(), target: v.number(), stretch: v.number() }),
  /** Which node of the hierarchy the base stood on, and that band's effective sample size (0 for the list price). */
  source: v.picklist(['segment_sku', 'segment_category', 'category', 'workspace', 'list_price']),
  sourceNEff: v.number(),
  guardrailsApplied: v.array(v.picklist(['min_margin', 'floor', 'map', 'ceiling', 'max_change'])),
  /** The guardrail the price ended on, with its bound in minor units; absent when none binds. */
  binding: v.optional(v.object({ guardrail: v.picklist(['min_margin', 'floor', 'map', 'ceiling', 'max_change']), valueCents: v.number() })),
  /** The prices the max-change rule allows from the current price, when it applies. */
  maxChange: v.optional(v.object({ lowCents: v.number(), highCents: v.number() })),
  confidenceScore: v.number(),
  /**
   * `win_model`: the single price the win model expects to earn most over the product's recent buyers; `bands`: the
   * segment target and its steps, where no credible model covers them. Absent on recommendations stored before.
   */
  method: v.optional(v.picklist(['win_model', 'bands'])),
  /** The model expected the move to lose margin, so the current price is kept (moved only by a guardrail, if any). */
  keep: v.optional(v.boolean()),
});
export type RecommendationBasis = v.InferOutput<typeof RecommendationBasisSchema>;

export const PricedRecommendationSchema = v.object({
  status: v.literal('priced'),
  ...common,
  recommendedPriceCents: v.number(),
  /** The effective lower bound: the largest of the floor price, MAP and the minimum-margin price. */
  floorCents: v.number(),
  ceilingCents: v.optional(v.number()),
  rationale: v.string(),
  reasonSummary: v.string(),
  drivers: v.array(DriverSchema),
  confidence: v.picklist(['high', 'medium', 'low']),
  /** Units of the workspace's base currency per unit of `currency`; absent while no rate for it has been synced. */
  exchangeRateToBase: v.optional(v.number()),
  /** Absent on recommendations stored before they were computed; the next bands job adds them. */
  basis: v.optional(RecommendationBasisSchema),
  impact: v.optional(ImpactSchema),
});
export type PricedRecommendation = v.InferOutput<typeof PricedRecommendationSchema>;

/** A product the engine cannot price: the overview says why instead of showing a number. */
export const UnpricedRecommendationSchema = v.object({
  status: v.literal('unpriced'),
  ...common,
  reason: v.picklist(['no_cost_basis']),
});

export const RecommendationSchema = v.variant('status', [PricedRecommendationSchema, UnpricedRecommendationSchema]);
export type Recommendation = v.InferOutput<typeof RecommendationSchema>;

const decimalAmount = v.pipe(v.number(), v.minValue(0));

/** An amount that may be below 0 (a margin under cost, a change), as a decimal in the currency's minor digits. */
const signedDecimalAmount = v.number();
const fraction = v.pipe(v.number(), v.minValue(0), v.maxValue(1));

/** One side of the change in the overview: per quote, at the typical quantity and the recent segment mix. */
export const ImpactSideViewSchema = v.strictObject({
  price: decimalAmount,
  /** (price − cost) / price, a fraction; below 0 for a price under cost. */
  margin: v.number(),
  win_probability: fraction,
  /** win_probability × price × quantity. */
  expected_revenue: decimalAmount,
  /** win_probability × (price − cost) × quantity. */
  expected_margin: signedDecimalAmount,
});

export const ImpactEvidenceViewSchema = v.strictObject({
  /** The category's closed quotes the win curves used were fitted on, each counted once. */
  closed_quotes: v.pipe(v.number(), v.minValue(0)),
  /** The recent segment mix the estimate is weighted by ('' for customers without a segment); shares sum to 1. */
  segments: v.array(v.strictObject({ segment: v.string(), share: fraction })),
});

/**
 * `include=impact`: the expected effect of moving from the current price to the recommended one, by the engine's own
 * win model. `estimated` with both sides and the change; `too_thin` when no credible win model covers the product, with
 * the reason and what evidence there is; `not_estimated` for a recommendation stored before impacts were computed,
 * until the next bands job recomputes it.
 */
export const ImpactViewSchema = v.variant('status', [
  v.strictObject({
    status: v.literal('estimated'),
    /** The product's typical quantity per quote line. */
    quantity: v.pipe(v.number(), v.minValue(0)),
    current: ImpactSideViewSchema,
    recommended: ImpactSideViewSchema,
    /** recommended − current, per quote. */
    expected_margin_change: signedDecimalAmount,
    expected_revenue_change: signedDecimalAmount,
    evidence: ImpactEvidenceViewSchema,
    /**
     * The margin change over a month at the product's recent quote rate: its quote lines (every outcome) in the `days`
     * to `as_of`, as its last bands job counted them, times the change per quote, a month being a twelfth of a year.
     * Absent until a bands job has counted the product's quotes.
     */
    per_month: v.optional(
      v.strictObject({
        expected_margin_change: signedDecimalAmount,
        quote_lines: v.pipe(v.number(), v.safeInteger(), v.minValue(0)),
        days: v.pipe(v.number(), v.safeInteger(), v.minValue(1)),
        as_of: v.pipe(v.string(), v.isoDate()),
      }),
    ),
  }),
  v.strictObject({ status: v.literal('too_thin'), reason: v.string(), evidence: ImpactEvidenceViewSchema }),
  v.strictObject({ status: v.literal('not_estimated'), reason: v.string() }),
]);
export type ImpactView = v.InferOutput<typeof ImpactViewSchema>;

/**
 * What GET /v1/prices/{sku} answers: snake_case, amounts as decimals in the currency's minor digits. `include=rationale`
 * adds `rationale` and `guardrails`, `include=drivers` adds `drivers`, `include=impact` adds `impact`.
 */
export const OverviewPriceSchema = v.strictObject({
  sku: v.string(),
  currency: v.string(),
  recommended_price: decimalAmount,
  current_price: decimalAmount,
  /** To 2 decimals; null when the current price is 0. */
  change_pct: v.nullable(v.number()),
  updated_at: v.pipe(v.string(), v.isoTimestamp()),
  rationale: v.optional(v.string()),
  guardrails: v.optional(v.strictObject({ floor: decimalAmount, ceiling: v.nullable(decimalAmount) })),
  drivers: v.optional(v.array(DriverViewSchema)),
  impact: v.optional(ImpactViewSchema),
  /**
   * The product's data warnings: its last batch moved its cost or current price past the workspace's factor, or left
   * its price below cost. The recommendation is then "check the data": approving it needs `"confirm": true`. Absent
   * when there are none.
   */
  warnings: v.optional(v.array(DataWarningSchema)),
});
export type OverviewPrice = v.InferOutput<typeof OverviewPriceSchema>;
