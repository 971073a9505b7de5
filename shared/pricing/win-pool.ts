// The pooled win model: one category's closed quotes fitted together, each segment, customer and SKU shrunk toward the whole by empirical Bayes.
import type { PricingSettings } from './settings.ts';
import { featureValue, type PooledWinFit, type PooledWinSample, type SegmentWinCurve, sigmoid, type WinFeature } from './win-pool-model.ts';
import { linearPredictor, type PooledDesign, type PooledState, startingState, sweepPooled } from './win-pool-sweep.ts';

/** Weak ridge on the category's own coefficients, so that separated data still give finite values. */
const RIDGE = 1e-3;

function weightedQuantile(values: readonly number[], weights: readonly number[], share: number): number {
  const order = values.map((_, i) => i).sort((a, b) => (values[a] ?? 0) - (values[b] ?? 0));
  const total = weights.reduce((sum, w) => sum + w, 0);
  let seen = 0;
  for (const i of order) {
    seen += weights[i] ?? 0;
    if (seen >= share * total) return values[i] ?? 0;
  }
  return values[order.at(-1) ?? 0] ?? 0;
}

/**
 * Fits the pooled model by penalised Newton steps, one block at a time: the category's curve, each segment's curve
 * around it, each customer's, each product's and each segment × SKU's offset around 0 (a product's buyers in every
 * segment share its offset, so a segment with a handful of its quotes still learns where the product sits; its
 * segment × SKU offset, stored, is the sum of the two). Each prior's spread is re-estimated from the
 * data (its offsets' squares plus their posterior variances), so a category whose customers really differ keeps
 * their offsets and one whose do not shrinks them away. Deterministic: blocks are visited in sorted order.
 */
export function fitPooledWinModel(samples: readonly PooledWinSample[], settings: PricingSettings): PooledWinFit | undefined {
  const closedQuotes = new Set(samples.map((sample) => sample.quoteId)).size;
  // A thinner category is fitted too; its model stands only if the workspace's slopes can carry it (poolWinModels).
  if (closedQuotes < Math.min(settings.winModelMinQuotes, settings.thinWinModelMinQuotes)) return undefined;
  // The list feature needs every line's list markup: a likelihood over fewer lines would not compare.
  const listKnown = samples.every((sample) => sample.listMarkup !== undefined && sample.listMarkup > 0);
  // Straight curves in each feature first; the better one may then bend, if the bend earns its coefficient (the
  // Bayesian information criterion's penalty).
  const straight = (listKnown ? (['margin', 'list'] as const) : (['margin'] as const)).flatMap((feature) => {
    const candidate = fitOn(() => feature, false, samples, closedQuotes);
    return candidate ? [{ feature, ...candidate }] : [];
  });
  const best = straight.reduce<(typeof straight)[number] | undefined>(
    (a, b) => (a && a.logLikelihood >= b.logLikelihood ? a : b),
    undefined,
  );
  if (!best) return undefined;
  const other = straight.find((one) => one.feature !== best.feature);
  const bent = fitOn(() => best.feature, true, samples, closedQuotes);
  const chosen = bent && bent.logLikelihood - 0.5 * Math.log(Math.max(2, bent.fit.nEff)) > best.logLikelihood ? bent : best;
  if (!other) return chosen.fit;
  // The other feature's curves ride along, with each segment's evidence between the two: whether a segment's buyers
  // compare with list is decided across the workspace's categories, where one category's quotes say too little.
  const listGain = new Map(
    [...best.bySegment.keys()].map((segment) => {
      const gain = (other.bySegment.get(segment) ?? 0) - (best.bySegment.get(segment) ?? 0);
      return [segment, other.feature === 'list' ? gain : -gain];
    }),
  );
  return {
    ...chosen.fit,
    listGain,
    alternative: { segments: other.fit.segments, category: other.fit.category, slopeSe: other.fit.slopeSe },
  };
}

/** The design with what the fit's summary needs beside it: where x was centred and bent, and the weights' totals. */
interface Encoded {
  readonly design: PooledDesign;
  /** Each feature's weighted mean, where its lines' x was centred, and the weighted 5th and 95th percentiles of its x. */
  readonly centres: ReadonlyMap<WinFeature, { centroid: number; low: number; high: number }>;
  readonly featureOf: (segment: string) => WinFeature;
  readonly knot: number;
  readonly sumW: number;
  readonly sumW2: number;
  readonly productOf: ReadonlyMap<string, number>;
}

function fitOn(
  featureOf: (segment: string) => WinFeature,
  bent: boolean,
  samples: readonly PooledWinSample[],
  closedQuotes: number,
): { fit: PooledWinFit; logLikelihood: number; bySegment: ReadonlyMap<string, number> } | undefined {
  const encoded = encode(featureOf, bent, samples);
  if (!encoded) return undefined;
  // The category's curve (centred features), each segment's deviation from it, and the offsets.
  const state = startingState(encoded.design);
  sweepPooled(encoded.design, state);
  return assemble(encoded, state, samples, closedQuotes);
}

/** The samples in columns, or undefined when they hold no win or no loss (the curve would have no slope to find). */
function encode(featureOf: (segment: string) => WinFeature, bent: boolean, samples: readonly PooledWinSample[]): Encoded | undefined {
  const n = samples.length;
  const features = samples.map((sample) => featureValue(featureOf(sample.segment), sample.margin, sample.listMarkup));
  const { sumW, sumW2, wonW } = weightTotals(samples);
  if (!(wonW > 0) || !(sumW - wonW > 0)) return undefined;
  const centres = centresOf(samples, features, featureOf);
  const centred = features.map((value, i) => value - (centres.get(featureOf(samples[i]?.segment ?? ''))?.centroid ?? 0));
  const groups = groupsOf(samples);
  const columns = columnsOf(samples, centred, groups);
  // The bend sits at the median of the quotes' x: the slope may change there, where the data are thickest.
  const knot = bent ? weightedQuantile(centred, columns.weights, 0.5) : 0;
  const bx = new Float64Array(n);
  for (let i = 0; i < n; i++) bx[i] = bent ? Math.max(0, (columns.x[i] ?? 0) - knot) : 0;
  const design: PooledDesign = {
    n,
    bent,
    ...columns,
    bx,
    ...groups,
    ...ridgesOf(samples, centred, sumW),
    share: wonW / sumW,
  };
  return { design, centres, featureOf, knot, sumW, sumW2, productOf: groups.productOf };
}

/** Each feature's lines' weighted mean and spread: a mixed fit centres each segment's x on its own feature's mean. */
function centresOf(samples: readonly PooledWinSample[], features: readonly number[], featureOf: (segment: string) => WinFeature) {
  const centres = new Map<WinFeature, { centroid: number; low: number; high: number }>();
  for (const feature of ['margin', 'list'] as const) {
    const members = samples.flatMap((sample, i) => (featureOf(sample.segment) === feature ? [i] : []));
    if (members.length === 0) continue;
    const values = members.map((i) => features[i] ?? 0);
    const weights = members.map((i) => samples[i]?.weight ?? 0);
    const total = weights.reduce((sum, w) => sum + w, 0);
    const centroid = values.reduce((sum, value, k) => sum + value * (weights[k] ?? 0), 0) / total;
    centres.set(feature, { centroid, low: weightedQuantile(values, weights, 0.05), high: weightedQuantile(values, weights, 0.95) });
  }
  return centres;
}

function weightTotals(samples: readonly PooledWinSample[]) {
  let sumW = 0;
  let sumW2 = 0;
  let wonW = 0;
  for (const sample of samples) {
    sumW += sample.weight;
    sumW2 += sample.weight * sample.weight;
    if (sample.won) wonW += sample.weight;
  }
  return { sumW, sumW2, wonW };
}

/** The ridge on each coefficient scales with its variable's spread, so that it shrinks each by the same small share. */
function ridgesOf(samples: readonly PooledWinSample[], centred: readonly number[], sumW: number) {
  let varX = 0;
  let varL = 0;
  samples.forEach((sample, i) => {
    varX += sample.weight * (centred[i] ?? 0) ** 2;
    varL += sample.weight * Math.log2(Math.max(sample.relativeQuantity, 1e-6)) ** 2;
  });
  return {
    ridgeA: RIDGE * sumW,
    ridgeB: RIDGE * Math.max(varX, 1e-4),
    ridgeG: RIDGE * Math.max(varL, 1e-2),
    ridgeC: RIDGE * Math.max(varX, 1e-4),
  };
}

/** Segments, segment × SKUs, customers and products, each in sorted order so that the fit is deterministic. */
function groupsOf(samples: readonly PooledWinSample[]) {
  const segmentNames = [...new Set(samples.map((s) => s.segment))].sort();
  const skuNames = [...new Set(samples.map((s) => JSON.stringify([s.segment, s.productSku])))].sort();
  const customerNames = [...new Set(samples.flatMap((s) => (s.customerExternalId === undefined ? [] : [s.customerExternalId])))].sort();
  const productNames = [...new Set(samples.map((s) => s.productSku))].sort();
  const productOf = new Map(productNames.map((name, i) => [name, i]));
  return { segmentNames, skuNames, customerNames, productNames, productOf };
}

function columnsOf(samples: readonly PooledWinSample[], centred: readonly number[], groups: ReturnType<typeof groupsOf>) {
  const n = samples.length;
  const x = new Float64Array(n);
  const l = new Float64Array(n);
  const age = new Float64Array(n);
  const w = new Float64Array(n);
  const y = new Float64Array(n);
  const weights: number[] = [];
  const segmentIndex = new Int32Array(n);
  const skuIndex = new Int32Array(n);
  const customerIndex = new Int32Array(n);
  const productIndex = new Int32Array(n);
  const segmentOf = new Map(groups.segmentNames.map((name, i) => [name, i]));
  const skuOf = new Map(groups.skuNames.map((name, i) => [name, i]));
  const customerOf = new Map(groups.customerNames.map((name, i) => [name, i]));
  samples.forEach((sample, i) => {
    x[i] = centred[i] ?? 0;
    l[i] = Math.log2(Math.max(sample.relativeQuantity, 1e-6));
    age[i] = Math.max(0, sample.ageYears);
    w[i] = sample.weight;
    y[i] = sample.won ? 1 : 0;
    weights.push(sample.weight);
    segmentIndex[i] = segmentOf.get(sample.segment) ?? 0;
    skuIndex[i] = skuOf.get(JSON.stringify([sample.segment, sample.productSku])) ?? 0;
    customerIndex[i] = sample.customerExternalId === undefined ? -1 : (customerOf.get(sample.customerExternalId) ?? -1);
    productIndex[i] = groups.productOf.get(sample.productSku) ?? 0;
  });
  return { x, l, age, w, y, weights, segmentIndex, skuIndex, customerIndex, productIndex };
}

/** The fitted coefficients as curves in the uncentred feature, with the offsets and the fit's log-likelihood. */
function assemble(
  encoded: Encoded,
  st: PooledState,
  samples: readonly PooledWinSample[],
  closedQuotes: number,
): { fit: PooledWinFit; logLikelihood: number; bySegment: ReadonlyMap<string, number> } {
  const { design: d, centres, featureOf, knot, sumW, sumW2 } = encoded;
  const counts = new Map<string, number>();
  for (const sample of samples) counts.set(sample.segment, (counts.get(sample.segment) ?? 0) + 1);
  // The category's own feature is the one most of its quotes are fitted in.
  const main = featureOf(samples.reduce((a, b) => ((counts.get(a.segment) ?? 0) >= (counts.get(b.segment) ?? 0) ? a : b)).segment);
  const curve = (feature: WinFeature, a: number, b: number, closed: number, levelVariance: number): SegmentWinCurve => {
    const centre = centres.get(feature) ?? { centroid: 0, low: 0, high: 0 };
    return {
      intercept: a - b * centre.centroid,
      slope: b,
      bend: st.C,
      knot: knot + centre.centroid,
      quantitySlope: st.G,
      closedQuotes: closed,
      feature,
      supportLow: centre.low,
      supportHigh: centre.high,
      centroid: centre.centroid,
      levelSe: Math.sqrt(levelVariance),
    };
  };
  const centre = centres.get(main) ?? { centroid: 0, low: 0, high: 0 };
  const fit: PooledWinFit = {
    feature: main,
    bend: st.C,
    segments: new Map(
      d.segmentNames.map((name, s) => [
        name,
        curve(featureOf(name), st.A + (st.segA[s] ?? 0), st.B + (st.segB[s] ?? 0), counts.get(name) ?? 0, st.levelVariance[s] ?? Infinity),
      ]),
    ),
    category: curve(main, st.A, st.B, 0, st.interceptVariance),
    skuOffsets: skuOffsetsOf(encoded, st),
    customerOffsets: new Map(d.customerNames.map((name, k) => [name, st.u[k] ?? 0])),
    closedQuotes,
    nEff: (sumW * sumW) / sumW2,
    supportLow: centre.low,
    supportHigh: centre.high,
    customerSd: st.tauU,
    skuSd: st.tauV,
    slopeSe: Math.sqrt(st.slopeVariance),
    quantitySlopeSe: Math.sqrt(st.quantityVariance),
    categorySlope: st.B,
    centroid: centre.centroid,
  };
  return { fit, ...logLikelihoodOf(d, st) };
}

/** A segment × SKU's stored offset: its own plus its product's, which every segment shares. */
function skuOffsetsOf(encoded: Encoded, st: PooledState): Map<string, Map<string, number>> {
  const skuOffsets = new Map<string, Map<string, number>>();
  encoded.design.skuNames.forEach((name, k) => {
    const [segment, sku] = JSON.parse(name) as [string, string];
    const bySku = skuOffsets.get(segment) ?? new Map<string, number>();
    bySku.set(sku, (st.v[k] ?? 0) + (st.pw[encoded.productOf.get(sku) ?? 0] ?? 0));
    skuOffsets.set(segment, bySku);
  });
  return skuOffsets;
}

/** The fit's log-likelihood, in all and by segment: a segment's own share says which feature its buyers answer to. */
function logLikelihoodOf(d: PooledDesign, st: PooledState): { logLikelihood: number; bySegment: Map<string, number> } {
  let logLikelihood = 0;
  const bySegment = new Map<string, number>();
  for (let i = 0; i < d.n; i++) {
    const p = sigmoid(linearPredictor(d, st, i));
    const term = (d.w[i] ?? 0) * Math.log(Math.max(1e-300, d.y[i] === 1 ? p : 1 - p));
    logLikelihood += term;
    const segment = d.segmentNames[d.segmentIndex[i] ?? 0] ?? '';
    bySegment.set(segment, (bySegment.get(segment) ?? 0) + term);
  }
  return { logLikelihood, bySegment };
}
