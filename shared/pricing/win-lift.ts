// The workspace's win lift: how far its win models move each segment's prices from its realised margins, for a category too thin for a model.
import { type MarginSoFar, searchRange, winCredibility, withinHistory } from './adjustments.ts';
import type { LineBase } from './line-base.ts';
import type { Band, LineBands, WinModel } from './model.ts';
import { points, type ReasonStep } from './reason-stack.ts';
import type { StoredSegments } from './segment-features.ts';
import type { PricingSettings } from './settings.ts';
import { profitMaximisingMargin } from './win-model.ts';

/**
 * How far one segment's curve moves its band's target, as the win_model step would move a line of the segment's
 * typical product (its quotes' centroid) bought by an average customer at the median quantity: the credibility times
 * the gap to the optimum. A list-feature curve is read at the list markup that puts the target at its centroid.
 */
export function segmentLift(model: WinModel, band: Band, settings: PricingSettings): number | undefined {
  if (model.unpooled) return undefined;
  const from = Math.min(Math.max(band.target, settings.minHistoryMarginPct / 100), settings.maxHistoryMarginPct / 100);
  const listMarkup = (model.feature ?? 'margin') === 'list' ? Math.exp(-(model.centroid ?? 0)) / (1 - from) : undefined;
  const [lo, hi] = searchRange(model, band, listMarkup, settings);
  const lift = winCredibility(model, settings) * (profitMaximisingMargin(model, lo, hi, 0, listMarkup) - from);
  return Number.isFinite(lift) ? lift : undefined;
}

/**
 * Each segment's lift over the workspace's categories with a standing win model, weighted by the segment band's n_eff.
 * Realised margins sit below the most profitable ones by what a segment's salespeople habitually give away (won
 * quotes are the cheaper ones), which is the segment's habit more than its category's: a category too thin for a
 * win model of its own borrows its segment's lift instead of pricing at its realised margins.
 */
export function segmentWinLifts(categories: ReadonlyMap<string, StoredSegments>, settings: PricingSettings): Map<string, number> {
  const totals = new Map<string, { weight: number; lift: number }>();
  for (const category of [...categories.keys()].sort()) {
    const segments = categories.get(category) ?? new Map();
    for (const segment of [...segments.keys()].sort()) {
      const entry = segments.get(segment);
      const lift = entry?.winModel ? segmentLift(entry.winModel, entry.band, settings) : undefined;
      if (!entry || lift === undefined || !(entry.band.nEff > 0)) continue;
      const total = totals.get(segment) ?? { weight: 0, lift: 0 };
      total.weight += entry.band.nEff;
      total.lift += entry.band.nEff * lift;
      totals.set(segment, total);
    }
  }
  return new Map([...totals].map(([segment, { weight, lift }]) => [segment, lift / weight]));
}

/**
 * The win_model step of a line whose category has no standing win model: its segment's lift across the workspace,
 * but never past the base's stretch (the 90th percentile of the margins its buyers paid), since the lift is one number
 * per segment and a category whose realised margins already sit near its best ones would be carried past them. It
 * does not touch the line's confidence, which stays the margins' (a thin category's bands are not sure).
 */
export function workspaceWinLift(from: MarginSoFar, base: LineBase, bands: LineBands, settings: PricingSettings): ReasonStep | undefined {
  const lift = bands.workspaceWinLift;
  if (!base.node || lift === undefined || (bands.winModel && !bands.winModel.unpooled)) return undefined;
  const bps = Math.round(lift * 10_000);
  return {
    param: 'win_model',
    scope: 'workspace',
    label:
      `Too few closed quotes in this category for a win model: the workspace's win models move this segment's prices ` +
      `${points(Math.abs(bps))} points ${bps >= 0 ? 'above' : 'below'} its realised margins; this one as far, up to the stretch`,
    margin: withinHistory(Math.min(from.margin + lift, Math.max(from.margin, base.stretch)), base, settings),
  };
}
