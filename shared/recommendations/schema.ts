// Recommendations: a product's stored recommended price, which approvals check against, and the overview's view of it.
import * as v from 'valibot';
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
};

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

/**
 * What GET /v1/prices/{sku} answers: snake_case, amounts as decimals in the currency's minor digits. `include=rationale`
 * adds `rationale` and `guardrails`, `include=drivers` adds `drivers`.
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
});
export type OverviewPrice = v.InferOutput<typeof OverviewPriceSchema>;
