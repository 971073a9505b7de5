// Pricing settings: every number of the pricing method in one object, with the service defaults and a workspace's overrides.
import * as v from 'valibot';

const finite = v.pipe(v.number(), v.finite());
const percent = (min: number, max: number) => v.pipe(finite, v.minValue(min), v.maxValue(max));
const bps = v.pipe(v.number(), v.safeInteger(), v.minValue(0), v.maxValue(10_000));

export const PricingSettingsSchema = v.strictObject({
  /** Recency weight of a history line: 0.5 ^ (age in days / halfLifeDays). */
  halfLifeDays: v.pipe(finite, v.minValue(1), v.maxValue(3650)),
  /** Weighted percentiles of the margins of a node that make its floor, target and stretch. */
  floorPercentile: percent(0, 100),
  targetPercentile: percent(0, 100),
  stretchPercentile: percent(0, 100),
  /** Margins outside [minHistoryMarginPct, maxHistoryMarginPct] are dropped from history as outliers. */
  minHistoryMarginPct: percent(-100, 99),
  maxHistoryMarginPct: percent(-100, 99),
  /** Credibility: Z = n_eff / (n_eff + credibilityK). */
  credibilityK: v.pipe(finite, v.minValue(0.001), v.maxValue(1_000_000)),
  /** Closed quotes a segment × category needs, with both outcomes present, before the win model applies. */
  winModelMinQuotes: v.pipe(v.number(), v.safeInteger(), v.minValue(2)),
  /**
   * A category with fewer closed quotes than winModelMinQuotes but at least this many is fitted too, its model standing
   * only where the workspace's slopes carry it (segment-features.ts). At winModelMinQuotes, the default, none is.
   */
  thinWinModelMinQuotes: v.pipe(v.number(), v.safeInteger(), v.minValue(2)),
  /** A deal this many times the node's median quantity or value earns one step of quantity break. */
  quantityBreakBpsPerDoubling: bps,
  /** The largest quantity break, in basis points of margin. */
  maxQuantityBreakBps: bps,
  /** Margin added when the product is out of stock (inStock false, or stockOnHand at or below 0). */
  outOfStockBps: bps,
  /** Margin added when stockOnHand is above 0 and at most lowStockUnits. */
  lowStockBps: bps,
  lowStockUnits: v.pipe(finite, v.minValue(0)),
  /** The `min_margin` guardrail: the price never falls below cost / (1 − minMarginPct/100). */
  minMarginPct: percent(-100, 99),
  /** The `max_change` guardrail: at most this far from the product's current price, either way. */
  maxChangePct: percent(0, 1000),
  /** Room above the floor, in basis points of margin, that makes a price `negotiable`. */
  negotiableRoomBps: bps,
  /** Whether erp keys are held to MAP too; storefront keys always are. */
  enforceMapForErp: v.boolean(),
  /** An FX rate older than this many days is stale. */
  fxStaleDays: v.pipe(finite, v.minValue(0)),
  /** A quote line within this many percent of its guided price, either way, followed the guidance (the adherence report). */
  adherenceBandPct: percent(0, 100),
  /**
   * How far an approved price may move from the current price, either way, before the approval must be confirmed
   * (`confirm: true`); absent, the workspace's maxChangePct.
   */
  approvalConfirmPct: v.optional(percent(0, 100_000)),
  /**
   * An approval names the recommended price the person was shown; it is approved at that price while the
   * recommendation now is within this percent of it, or one minor unit, whichever is larger; absent, 1.
   */
  approvalShownTolerancePct: v.optional(percent(0, 100)),
  /** A move past this percent from the current price waits for a second approver; absent, one approval always publishes. */
  secondApprovalPct: v.optional(percent(0, 100_000)),
  /**
   * A batch that moves a product's cost or current price past this factor, either way, from the value it was in line
   * at, leaves it with a data warning (shared/canonical/data-warnings.ts); absent, 3.
   */
  dataWarningFactor: v.optional(v.pipe(finite, v.minValue(1.01), v.maxValue(1000))),
  /**
   * The console's lists are written again for a product only when its recommended price or expected impact moved past
   * this percent (or one minor unit) since they were, or something else they show changed; absent, 0.5
   * (shared/recommendations/list-moves.ts).
   */
  listDeadBandPct: v.optional(percent(0, 100)),
});
export type PricingSettings = v.InferOutput<typeof PricingSettingsSchema>;

export const defaultPricingSettings: PricingSettings = {
  halfLifeDays: 180,
  floorPercentile: 20,
  targetPercentile: 60,
  stretchPercentile: 90,
  minHistoryMarginPct: -10,
  maxHistoryMarginPct: 95,
  credibilityK: 20,
  winModelMinQuotes: 50,
  thinWinModelMinQuotes: 50,
  quantityBreakBpsPerDoubling: 50,
  maxQuantityBreakBps: 300,
  outOfStockBps: 100,
  lowStockBps: 50,
  lowStockUnits: 10,
  minMarginPct: 0,
  maxChangePct: 25,
  negotiableRoomBps: 100,
  enforceMapForErp: false,
  fxStaleDays: 7,
  adherenceBandPct: 2,
};

/** What a workspace stores: any subset of the settings; the rest follow the defaults. */
export const PricingOverridesSchema = v.partial(PricingSettingsSchema);
export type PricingOverrides = v.InferOutput<typeof PricingOverridesSchema>;

export function pricingSettings(overrides: PricingOverrides | undefined): PricingSettings {
  if (!overrides) return defaultPricingSettings;
  const defined = Object.fromEntries(Object.entries(overrides).filter(([, value]) => value !== undefined));
  return { ...defaultPricingSettings, ...defined };
}
