// Recommendations: the stored shape of a product's current recommended price, which the overview reads and approvals check against.
import * as v from 'valibot';

export const DriverSchema = v.object({
  param: v.string(),
  label: v.string(),
  points: v.number(),
  direction: v.picklist(['up', 'down']),
});

const common = {
  sku: v.string(),
  productExternalId: v.optional(v.string()),
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
