// The adherence report's shape: what `adherence report --json` prints and `GET /v1/analytics/adherence` answers, one schema for both.
import * as v from 'valibot';

const Share = v.nullable(v.number());

/** One band of a group (within, above, below the guidance, unguided, unattributed), or the whole group. */
export const AdherenceFiguresSchema = v.object({
  lines: v.number(),
  /** Lines of quotes won or lost (an order naming the quote counts as won). */
  decided: v.number(),
  won: v.number(),
  /** won / decided; null when nothing was decided. */
  win_rate: Share,
  /** (realised revenue − cost) / revenue of the won lines, in percent; null without revenue. */
  margin_pct: Share,
  /** Realised revenue of the won lines, in minor units of the workspace's base currency. */
  revenue_cents: v.number(),
  /** What won lines quoted below the band gave away against their guided price, in minor units of the base currency. */
  leakage_cents: v.number(),
});
export type AdherenceFigures = v.InferOutput<typeof AdherenceFiguresSchema>;

export const AdherenceGroupSchema = v.object({
  ...AdherenceFiguresSchema.entries,
  dimension: v.picklist(['overall', 'segment', 'category', 'reason', 'confidence']),
  /** The group's value: a segment, category, reason (lower-cased, first 40 characters) or confidence label; '' overall. */
  value: v.string(),
  /** Lines with a decision id the service knew and could compare. */
  guided_lines: v.number(),
  /** Lines with a decision id the service did not know, or no longer keeps (400 days). */
  unattributed_lines: v.number(),
  guided_share: Share,
  /** Of guided lines: within the band, above it, below it. */
  within_share: Share,
  above_share: Share,
  below_share: Share,
  /** Fewer lines than the report's `thin_evidence_lines`: shown, but not a finding. */
  thin_evidence: v.boolean(),
  bands: v.object({
    within: AdherenceFiguresSchema,
    above: AdherenceFiguresSchema,
    below: AdherenceFiguresSchema,
    unguided: AdherenceFiguresSchema,
    unattributed: AdherenceFiguresSchema,
  }),
});
export type AdherenceGroup = v.InferOutput<typeof AdherenceGroupSchema>;

export const AdherenceReportSchema = v.object({
  workspace_id: v.string(),
  /** Whole UTC months, YYYY-MM, both included. */
  from_month: v.string(),
  to_month: v.string(),
  /** The workspace's band: within ± this percent of the guided price counts as following it. */
  band_pct: v.number(),
  thin_evidence_lines: v.number(),
  overall: AdherenceGroupSchema,
  by_confidence: v.array(AdherenceGroupSchema),
  by: v.nullable(v.picklist(['segment', 'category', 'reason'])),
  groups: v.array(AdherenceGroupSchema),
});
export type AdherenceReport = v.InferOutput<typeof AdherenceReportSchema>;

export const AdherenceQuerySchema = v.optional(
  v.strictObject({
    from: v.optional(v.string()),
    to: v.optional(v.string()),
    by: v.optional(v.string()),
  }),
);
