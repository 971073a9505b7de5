// What a workspace's categories decide together about their win models: each segment's feature, and whether a thin category's model stands.
import type { Band, OtherWinCurve, WinModel } from './model.ts';

/** A category's segments as stored: each segment's band and the win model it prices with. */
export type StoredSegments = ReadonlyMap<string, { readonly band: Band; readonly winModel: WinModel | undefined }>;

/**
 * A segment is priced in a feature other than its category's own choice only when its quotes in every category
 * together favour that feature by this many log-likelihood units (a likelihood ratio of about 2.7; on the benchmark's
 * tuning markets 1 caught the list-anchored segment in every market and moved no steady one for the worse).
 */
const SEGMENT_FEATURE_GAIN = 1;

/**
 * Buyers compare with a catalogue, or know what things cost, whatever the category: one category's quotes rarely
 * tell the two apart (only products whose list markups differ do), so each segment's log-likelihood gains are summed
 * over the categories, and where the sum clearly favours one feature every category prices that segment in it.
 * Returns each segment's feature, or nothing for a segment the evidence leaves to each category.
 */
export function segmentFeatures(categories: ReadonlyMap<string, StoredSegments>): Map<string, 'margin' | 'list'> {
  const gains = new Map<string, number>();
  for (const segments of categories.values()) {
    for (const [segment, { winModel }] of segments) {
      if (winModel?.listGain === undefined) continue;
      gains.set(segment, (gains.get(segment) ?? 0) + winModel.listGain);
    }
  }
  const features = new Map<string, 'margin' | 'list'>();
  for (const [segment, gain] of [...gains].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    if (gain > SEGMENT_FEATURE_GAIN) features.set(segment, 'list');
    else if (gain < -SEGMENT_FEATURE_GAIN) features.set(segment, 'margin');
  }
  return features;
}

/** A curve kept as the other feature's, beside the one a model prices with. */
type CurveFields = Pick<WinModel, 'feature' | 'intercept' | 'slope' | 'centroid' | 'supportLow' | 'supportHigh' | 'levelSe'>;

export function otherCurve(curve: CurveFields, slopeSe: number): OtherWinCurve {
  return {
    feature: curve.feature ?? 'margin',
    intercept: curve.intercept,
    slope: curve.slope,
    centroid: curve.centroid ?? 0,
    supportLow: curve.supportLow ?? 0,
    supportHigh: curve.supportHigh ?? 0,
    slopeSe,
    levelSe: curve.levelSe ?? Number.MAX_VALUE,
  };
}

/**
 * The model with its other curve swapped in. The fit's alternative curve is straight (its bend belonged to a fit in
 * the other feature), and the model's own curve is kept whole in `other`, with its bend, so that swapping back gives
 * the category's fit exactly as it was: the bands must depend on the history, not on which jobs swapped what before.
 */
export function swapFeature(model: WinModel): WinModel {
  const other = model.other;
  if (!other) return model;
  const { swapped: _, ...rest } = model;
  const current: OtherWinCurve = {
    ...otherCurve(model, model.ownSlopeSe ?? model.slopeSe ?? Number.MAX_VALUE),
    bend: model.bend ?? 0,
    knot: model.knot ?? 0,
    categorySlope: model.categorySlope ?? model.slope,
  };
  const restoring = model.swapped === true;
  return {
    ...rest,
    feature: other.feature,
    intercept: other.intercept,
    slope: other.slope,
    bend: restoring ? (other.bend ?? 0) : 0,
    knot: restoring ? (other.knot ?? 0) : (model.knot ?? 0),
    centroid: other.centroid,
    supportLow: other.supportLow,
    supportHigh: other.supportHigh,
    slopeSe: other.slopeSe,
    ownSlopeSe: other.slopeSe,
    levelSe: other.levelSe,
    // A swapped-in curve's slope pools with the other categories' in that feature, as a category's own would.
    categorySlope: restoring ? (other.categorySlope ?? other.slope) : other.slope,
    slopeShift: 0,
    other: restoring ? otherCurve(model, model.ownSlopeSe ?? model.slopeSe ?? Number.MAX_VALUE) : current,
    ...(restoring ? {} : { swapped: true }),
  };
}

/**
 * Each segment priced in the feature the workspace's categories together chose for it, or, where their evidence is
 * undecided, in its category's own choice; and the categories that changed.
 */
export function withSegmentFeatures(stored: ReadonlyMap<string, StoredSegments>): {
  categories: Map<string, StoredSegments>;
  swapped: Set<string>;
} {
  const features = segmentFeatures(stored);
  const categories = new Map(stored);
  const swapped = new Set<string>();
  for (const [category, segments] of stored) {
    let changed = false;
    const next = new Map(
      [...segments].map(([segment, entry]) => {
        const model = entry.winModel;
        if (!model) return [segment, entry];
        const own = model.swapped ? model.other?.feature : (model.feature ?? 'margin');
        const want = features.get(segment) ?? own;
        if ((model.feature ?? 'margin') === want || model.other?.feature !== want) return [segment, entry];
        changed = true;
        return [segment, { band: entry.band, winModel: swapFeature(model) }];
      }),
    );
    if (!changed) continue;
    categories.set(category, next);
    swapped.add(category);
  }
  return { categories, swapped };
}

/** What a workspace with sparse history may set `thinWinModelMinQuotes` to: the figure the benchmark's sparse markets were measured at. */
export const THIN_CATEGORY_MIN_QUOTES = 20;
const MIN_CATEGORIES_TO_POOL = 3;

/**
 * A category with fewer closed quotes than the workspace's threshold is fitted from `thinWinModelMinQuotes` on, but
 * its model stands only where its slope is pooled with at least two other categories' in the same feature and the
 * workspace's categories together hold the threshold: its own quotes place its level, the workspace's its slope (and
 * its credibility, n_eff / (n_eff + 20), keeps its pull short). Elsewhere it is marked `unpooled`, and neither
 * the price call nor the impact uses it.
 */
export function withoutLoneThinModels(categories: Map<string, StoredSegments>, changed: Set<string>, minQuotes: number): void {
  const modelsOf = (segments: StoredSegments) => [...segments.values()].flatMap((entry) => (entry.winModel ? [entry.winModel] : []));
  let workspaceQuotes = 0;
  const perFeature = new Map<string, number>();
  for (const segments of categories.values()) {
    const models = modelsOf(segments);
    workspaceQuotes += models[0]?.closedQuotes ?? 0;
    for (const feature of new Set(models.map((model) => model.feature ?? 'margin')))
      perFeature.set(feature, (perFeature.get(feature) ?? 0) + 1);
  }
  for (const [category, segments] of categories) {
    const models = modelsOf(segments);
    if (models.length === 0) continue;
    const thin = (models[0]?.closedQuotes ?? 0) < minQuotes;
    const stands = (model: WinModel) =>
      !thin || (workspaceQuotes >= minQuotes && (perFeature.get(model.feature ?? 'margin') ?? 0) >= MIN_CATEGORIES_TO_POOL);
    if (models.every((model) => (model.unpooled ?? false) === !stands(model))) continue;
    // Marked, not dropped: the same history must give the same models whichever categories arrived first.
    const marked = (model: WinModel): WinModel => {
      const { unpooled: _, ...rest } = model;
      return stands(model) ? rest : { ...rest, unpooled: true };
    };
    categories.set(
      category,
      new Map([...segments].map(([segment, entry]) => [segment, { band: entry.band, winModel: entry.winModel && marked(entry.winModel) }])),
    );
    changed.add(category);
  }
}
