// Bands: recency-weighted margin percentiles for every node of a category's history, its win models, and the workspace band.
import type { Band, CategoryBands, HistoryLine, WinModel } from './model.ts';
import { defaultPricingSettings, type PricingSettings } from './settings.ts';
import { type Accumulator, addLine, bandOf, bandsOf, type Lines, MEDIAN, nested, newAccumulator, settle } from './band-percentiles.ts';
import { poolAcrossCategories, poolCategorySlopes, QUANTITY_SPREAD_FLOOR } from './category-pooling.ts';
import { otherCurve, type StoredSegments, withoutLoneThinModels, withSegmentFeatures } from './segment-features.ts';
import { fitPooledWinModel } from './win-pool.ts';
import { recentBuyers, withBuyers } from './buyers.ts';
import type { PooledWinFit, PooledWinSample } from './win-pool-model.ts';

const DAY_MS = 86_400_000;
/**
 * The win model weighs its quotes by recency with twice the bands' half-life: its trend term carries the drift, so
 * older quotes can still speak of the curve's slope and of each customer and product (on the benchmark, a half-life
 * of 360 days instead of 180 added 0.001–0.004 to every family).
 */
const WIN_HALF_LIFE_FACTOR = 2;

/** One realised line as a band reads it. */
export interface BandSample {
  readonly margin: number;
  readonly weight: number;
  readonly quantity: number;
  readonly atMs: number;
}

/** 0.5 ^ (age in days / half-life); a line dated after asOfMs counts as new, not as more than new. */
export function recencyWeight(atMs: number, asOfMs: number, halfLifeDays: number): number {
  const ageDays = Math.max(0, (asOfMs - atMs) / DAY_MS);
  return 0.5 ** (ageDays / halfLifeDays);
}

/** (price − cost) / price, or undefined for a line without a cost basis or a positive price. */
export function lineMargin(line: { readonly priceCents: number; readonly costCents: number }): number | undefined {
  // A negative cost is as meaningless as a missing one; both would give margins above 1 anyway.
  if (!(line.costCents > 0) || !(line.priceCents > 0)) return undefined;
  return (line.priceCents - line.costCents) / line.priceCents;
}

export function computeBand(samples: readonly BandSample[], settings: PricingSettings, asOfMs: number): Band | undefined {
  if (samples.length === 0) return undefined;
  const node = newAccumulator();
  const lines: Lines = { margins: [], weights: [], quantities: [], nodes: [], stride: 1 };
  const nodes = [node];
  for (const sample of samples) addLine(lines, sample.margin, sample.weight, sample.quantity, sample.atMs, nodes);
  if (!(node.sumW > 0)) return undefined;
  settle(lines, settings);
  return bandOf(node, asOfMs);
}

/** Every band of one category from one pass over its lines, then the two ordered passes of `settle`. */
export function computeCategoryBands(
  lines: readonly HistoryLine[],
  settings: PricingSettings,
  asOfMs: number,
  listMarkups: ReadonlyMap<string, number> = new Map(),
): CategoryBands {
  const history = gatherHistory(lines, settings, asOfMs, listMarkups);
  const { category, bySegment, bySkuSegment, byCustomerSku } = history;
  settle(history.realised, settings);
  const fit = fitPooledWinModel(sizedClosedQuotes(history), settings);

  // A segment is listed only with a band, which takes realised lines: a segment with closed quotes alone has no target
  // for its win model to move. A segment without quotes of its own takes the category's curve.
  const segments = new Map<string, { band: Band; winModel: WinModel | undefined }>();
  for (const [key, node] of bySegment) {
    const band = bandOf(node, asOfMs);
    if (!band) continue;
    segments.set(key, { band, winModel: fit ? segmentWinModel(fit, key) : undefined });
  }
  const segmentSkus = withOffsets(bandsOf(bySkuSegment, asOfMs), (sku, segment) =>
    fit ? (fit.skuOffsets.get(segment)?.get(sku) ?? 0) : undefined,
  );
  // Who buys each SKU is kept only where a fit gives its customers' offsets: without one no model prices it.
  if (fit) {
    const weightOf = (atMs: number) => recencyWeight(atMs, asOfMs, WIN_HALF_LIFE_FACTOR * settings.halfLifeDays);
    withBuyers(segmentSkus, recentBuyers(lines, fit.customerOffsets, asOfMs, weightOf));
  }
  return {
    category: bandOf(category, asOfMs),
    segments,
    segmentSkus,
    customerSkus: withOffsets(bandsOf(byCustomerSku, asOfMs), (customer) => (fit ? (fit.customerOffsets.get(customer) ?? 0) : undefined)),
  };
}

/** One category's history in one pass: its realised lines under their nodes, and its closed quote lines for the win model. */
interface CategoryHistory {
  readonly category: Accumulator;
  readonly bySegment: Map<string, Accumulator>;
  /** sku → segment → node. */
  readonly bySkuSegment: Map<string, Map<string, Accumulator>>;
  /** customer → sku → node. */
  readonly byCustomerSku: Map<string, Map<string, Accumulator>>;
  readonly closed: Omit<PooledWinSample, 'relativeQuantity'>[];
  /** The closed lines' quantities, in the same order. */
  readonly closedQuantities: number[];
  readonly realised: Lines;
}

function gatherHistory(
  lines: readonly HistoryLine[],
  settings: PricingSettings,
  asOfMs: number,
  listMarkups: ReadonlyMap<string, number>,
): CategoryHistory {
  // A won quote that an order names is already counted through that order.
  const ordered = new Set<string>();
  for (const line of lines) if (line.kind === 'order' && line.sourceQuoteExternalId !== undefined) ordered.add(line.sourceQuoteExternalId);

  const minMargin = settings.minHistoryMarginPct / 100;
  const maxMargin = settings.maxHistoryMarginPct / 100;
  const history: CategoryHistory = {
    category: newAccumulator(),
    bySegment: new Map(),
    bySkuSegment: new Map(),
    byCustomerSku: new Map(),
    closed: [],
    closedQuantities: [],
    realised: { margins: [], weights: [], quantities: [], nodes: [], stride: 4 },
  };
  const { bySegment, bySkuSegment, byCustomerSku } = history;
  const nodes: (Accumulator | undefined)[] = [history.category, undefined, undefined, undefined];

  for (const line of lines) {
    const margin = lineMargin(line);
    if (margin === undefined || margin < minMargin || margin > maxMargin) continue;
    const weight = recencyWeight(line.atMs, asOfMs, settings.halfLifeDays);
    if (line.kind === 'quote' && (line.outcome === 'won' || line.outcome === 'lost')) {
      history.closed.push(closedSample(line, margin, settings, asOfMs, listMarkups));
      history.closedQuantities.push(line.quantity);
    }
    // Realised: an order line, or a won quote line that no order names.
    if (line.kind !== 'order' && (line.outcome !== 'won' || ordered.has(line.documentId))) continue;
    let segment = bySegment.get(line.segment);
    if (!segment) {
      segment = newAccumulator();
      bySegment.set(line.segment, segment);
    }
    nodes[1] = segment;
    nodes[2] = nested(bySkuSegment, line.productSku, line.segment);
    nodes[3] = line.customerExternalId ? nested(byCustomerSku, line.customerExternalId, line.productSku) : undefined;
    addLine(history.realised, margin, weight, line.quantity, line.atMs, nodes);
  }
  return history;
}

function closedSample(
  line: HistoryLine,
  margin: number,
  settings: PricingSettings,
  asOfMs: number,
  listMarkups: ReadonlyMap<string, number>,
): Omit<PooledWinSample, 'relativeQuantity'> {
  return {
    quoteId: line.documentId,
    segment: line.segment,
    productSku: line.productSku,
    customerExternalId: line.customerExternalId,
    margin,
    listMarkup: listMarkups.get(line.productSku),
    won: line.outcome === 'won',
    weight: recencyWeight(line.atMs, asOfMs, WIN_HALF_LIFE_FACTOR * settings.halfLifeDays),
    ageYears: Math.max(0, asOfMs - line.atMs) / (365.25 * DAY_MS),
  };
}

/**
 * The closed quote lines with their sizes, once the realised lines are settled: a quote's size is measured against
 * the median quantity that pricing will compare a line with, its segment × SKU band's, or else its segment's.
 */
function sizedClosedQuotes(history: CategoryHistory): PooledWinSample[] {
  const referenceQuantity = (segment: string, sku: string) => {
    const node = history.bySkuSegment.get(sku)?.get(segment) ?? history.bySegment.get(segment);
    return node && node.found & MEDIAN ? node.medianQuantity : undefined;
  };
  return history.closed.map((sample, i) => {
    const reference = referenceQuantity(sample.segment, sample.productSku);
    const quantity = history.closedQuantities[i] ?? 0;
    return { ...sample, relativeQuantity: reference !== undefined && reference > 0 && quantity > 0 ? quantity / reference : 1 };
  });
}

/**
 * One segment's curve as the price call reads it. A segment fitted in its category's feature pools its slope with the
 * category's; one whose buyers answer to the other feature pools its own slope with other categories' in that feature.
 */
function segmentWinModel(fit: PooledWinFit, segment: string): WinModel {
  const curve = fit.segments.get(segment) ?? fit.category;
  const feature = curve.feature ?? fit.feature;
  const own = feature !== fit.feature;
  const alternative = fit.alternative ? (fit.alternative.segments.get(segment) ?? fit.alternative.category) : undefined;
  const listGain = fit.listGain?.get(segment);
  return {
    intercept: curve.intercept,
    slope: curve.slope,
    bend: curve.bend,
    knot: curve.knot,
    quantitySlope: curve.quantitySlope,
    closedQuotes: fit.closedQuotes,
    nEff: fit.nEff,
    feature,
    slopeSe: fit.slopeSe,
    ownSlopeSe: fit.slopeSe,
    categorySlope: own ? curve.slope : fit.categorySlope,
    centroid: curve.centroid ?? fit.centroid,
    slopeShift: 0,
    quantitySlopeSe: fit.quantitySlopeSe,
    quantityShift: 0,
    supportLow: curve.supportLow ?? fit.supportLow,
    supportHigh: curve.supportHigh ?? fit.supportHigh,
    ...(curve.levelSe === undefined ? {} : { levelSe: curve.levelSe }),
    ...(listGain === undefined ? {} : { listGain }),
    ...(alternative && fit.alternative ? { other: otherCurve(alternative, fit.alternative.slopeSe) } : {}),
  };
}

/** Each band with the pooled fit's offset for its node (outer key, inner key), where a fit gave one. */
function withOffsets(
  bands: Map<string, Map<string, Band>>,
  offset: (outer: string, inner: string) => number | undefined,
): Map<string, Map<string, Band>> {
  for (const [outer, inner] of bands) {
    for (const [key, band] of inner) {
      const winOffset = offset(outer, key);
      if (winOffset !== undefined) inner.set(key, { ...band, winOffset });
    }
  }
  return bands;
}

/**
 * The workspace band from its categories' bands. Each part's Σw and Σw² are first aged to asOfMs, so that a category
 * recomputed long ago weighs what its evidence weighs today. The percentiles are Σw-weighted means of the parts'
 * percentiles: an approximation of the union's percentiles, which would need every line of every category again.
 */
export function combineBands(bands: readonly Band[], asOfMs: number, settings: PricingSettings): Band | undefined {
  let sumW = 0;
  let sumW2 = 0;
  let floor = 0;
  let target = 0;
  let stretch = 0;
  let cov = 0;
  let medianQuantity = 0;
  let newestAtMs = -Infinity;
  for (const band of bands) {
    const factor = 0.5 ** ((asOfMs - band.asOfMs) / DAY_MS / settings.halfLifeDays);
    const w = band.sumW * factor;
    sumW += w;
    sumW2 += band.sumW2 * factor * factor;
    floor += w * band.floor;
    target += w * band.target;
    stretch += w * band.stretch;
    cov += w * band.cov;
    medianQuantity += w * band.medianQuantity;
    if (band.newestAtMs > newestAtMs) newestAtMs = band.newestAtMs;
  }
  if (!(sumW > 0)) return undefined;
  return {
    floor: floor / sumW,
    target: target / sumW,
    stretch: stretch / sumW,
    nEff: (sumW * sumW) / sumW2,
    medianQuantity: medianQuantity / sumW,
    cov: cov / sumW,
    newestAtMs,
    sumW,
    sumW2,
    asOfMs,
  };
}

export type { StoredSegments } from './segment-features.ts';

/** A slope shift that moves a price by less than this share of the slope is not worth rewriting a category for. */
const SHIFT_TOLERANCE = 0.01;
/** Nor a quantity slope's shift below this many logits per doubling. */
const QUANTITY_SHIFT_TOLERANCE = 0.005;

/**
 * Pools the win models' slopes and quantity slopes across a workspace's categories (one category's segments share
 * both) and returns the segments of each category whose pooled values moved, with the new shifts and standard error
 * on every model.
 */
export function poolWinModels(
  stored: ReadonlyMap<string, StoredSegments>,
  minQuotes = defaultPricingSettings.winModelMinQuotes,
): Map<string, StoredSegments> {
  const { categories, swapped } = withSegmentFeatures(stored);
  withoutLoneThinModels(categories, swapped, minQuotes);
  // One entry per category and feature: a segment whose buyers answer to the other feature pools in that one.
  const entries = [...categories].flatMap(([category, segments]) =>
    (['margin', 'list'] as const).flatMap((feature) => {
      const model = [...segments.values()].find(
        (segment) => segment.winModel?.categorySlope !== undefined && (segment.winModel.feature ?? 'margin') === feature,
      )?.winModel;
      return model ? [{ category, feature, model }] : [];
    }),
  );
  const pooled = poolCategorySlopes(
    entries.map(({ feature, model }) => ({
      feature,
      slope: model.categorySlope ?? model.slope,
      slopeSe: model.ownSlopeSe ?? model.slopeSe ?? Number.POSITIVE_INFINITY,
    })),
  );
  // A quantity slope is in logits per doubling whatever the curve's feature: every category pools with every other.
  const quantityEntries = entries.filter((entry, index) => entries.findIndex((other) => other.category === entry.category) === index);
  const pooledQuantity = poolAcrossCategories(
    quantityEntries.map(({ model }) => ({ value: model.quantitySlope ?? 0, se: model.quantitySlopeSe ?? Number.POSITIVE_INFINITY })),
    QUANTITY_SPREAD_FLOOR,
  );
  const quantityShifts = new Map(quantityEntries.map(({ category }, index) => [category, pooledQuantity[index]?.shift ?? 0]));
  const changed = new Map<string, Map<string, { band: Band; winModel: WinModel | undefined }>>(
    [...swapped].map((category) => [category, new Map(categories.get(category) ?? [])]),
  );
  entries.forEach(({ category, feature, model }, index) => {
    const { shift, slopeSe } = pooled[index] ?? { shift: 0, slopeSe: model.slopeSe ?? Number.POSITIVE_INFINITY };
    const quantityShift = quantityShifts.get(category) ?? 0;
    const scale = Math.max(Math.abs(model.categorySlope ?? model.slope), 1e-9);
    if (
      Math.abs(shift - (model.slopeShift ?? 0)) <= SHIFT_TOLERANCE * scale &&
      Math.abs(quantityShift - (model.quantityShift ?? 0)) <= QUANTITY_SHIFT_TOLERANCE
    )
      return;
    const segments = changed.get(category) ?? new Map(categories.get(category) ?? []);
    for (const [segment, { band, winModel }] of segments) {
      if (!winModel || (winModel.feature ?? 'margin') !== feature) continue;
      segments.set(segment, { band, winModel: { ...winModel, slopeShift: shift, slopeSe, quantityShift } });
    }
    changed.set(category, segments);
  });
  return changed;
}
