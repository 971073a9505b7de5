// What a price call answers: one result line per requested line, priced (`ok: true`) or refused (`ok: false`).
import * as v from 'valibot';
import { DataWarningSchema } from '#shared/canonical/data-warnings.ts';
import { MAX_LINES_PER_CALL } from './request.ts';

const wholeMinorUnits = v.pipe(v.number(), v.safeInteger(), v.minValue(0));

export const ReasonScopeSchema = v.picklist(['customer', 'segment', 'category', 'product', 'workspace']);
export const GuardrailSchema = v.picklist(['min_margin', 'floor', 'map', 'ceiling', 'max_change']);
export const ConfidenceSchema = v.picklist(['high', 'medium', 'low']);
export const StanceSchema = v.picklist(['hold_firm', 'negotiable', 'at_floor']);

export const ReasonEntrySchema = v.strictObject({
  /** What moved the margin: segment_target (the base), customer_history, quantity, win_model, stock, or a guardrail. */
  param: v.string(),
  marginDeltaBps: v.pipe(v.number(), v.safeInteger()),
  label: v.string(),
  scope: ReasonScopeSchema,
});

/** A reason entry that moved the price, in points of margin; the overview shows the same drivers. */
export const DriverViewSchema = v.strictObject({
  param: v.string(),
  label: v.string(),
  points: v.number(),
  direction: v.picklist(['up', 'down']),
});
export type DriverView = v.InferOutput<typeof DriverViewSchema>;

export const ExplanationSchema = v.strictObject({
  short: v.string(),
  drivers: v.array(DriverViewSchema),
  stance: StanceSchema,
  marginPct: v.number(),
  targetMarginPct: v.number(),
  confidence: ConfidenceSchema,
});

export const PricedLineSchema = v.strictObject({
  priceCents: wholeMinorUnits,
  currency: v.string(),
  pricingDecisionId: v.pipe(v.string(), v.startsWith('pd_')),
  // Left out for storefront keys: reasons reveal cost and margin.
  reason: v.optional(v.array(ReasonEntrySchema)),
  reasonSummary: v.optional(v.string()),
  explanation: v.optional(ExplanationSchema),
  guardrailsApplied: v.array(GuardrailSchema),
  confidence: ConfidenceSchema,
  confidenceScore: v.pipe(v.number(), v.minValue(0), v.maxValue(1)),
  /**
   * The product's data warnings, when its last batch moved its cost or current price past the workspace's factor or
   * left its price below cost: the price is still computed, from data that looks wrong. Absent when there are none,
   * and for storefront keys (the messages name the cost).
   */
  warnings: v.optional(v.array(DataWarningSchema)),
  ok: v.literal(true),
});
export type PricedLineView = v.InferOutput<typeof PricedLineSchema>;

export const lineErrorCodes = ['unknown_product', 'unknown_customer', 'no_cost_basis', 'fx_rate_unavailable', 'fx_rate_stale'] as const;

/** A line that cannot be priced answers in its place; the call is still a 200. */
export const RefusedLineSchema = v.strictObject({
  ok: v.literal(false),
  error: v.strictObject({
    code: v.picklist(lineErrorCodes),
    message: v.string(),
    param: v.optional(v.string()),
  }),
});
export type RefusedLineView = v.InferOutput<typeof RefusedLineSchema>;

export const PriceResultLineSchema = v.variant('ok', [PricedLineSchema, RefusedLineSchema]);
export type PriceResultLine = v.InferOutput<typeof PriceResultLineSchema>;

/** One result per requested line, in order. */
export const PriceResponseSchema = v.strictObject({
  lines: v.pipe(v.array(PriceResultLineSchema), v.minLength(1), v.maxLength(MAX_LINES_PER_CALL)),
});
export type PriceResponse = v.InferOutput<typeof PriceResponseSchema>;
