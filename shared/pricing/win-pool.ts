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
  if (closedQuotes < settings.winModelMinQuotes) return undefined;
  // The list feature needs every line's list markup: a likelihood over fewer lines would not compare.
  const listKnown = samples.every((sample) => sample.listMarkup !== undefined && sample.listMarkup > 0);
  // Straight curves in each feature first; the better one may then bend, if the bend earns its coefficient (the
  // Bayesian information criterion's penalty).
  let best: { fit: PooledWinFit; logLikelihood: number } | undefined;
  for (const feature of listKnown ? (['margin', 'list'] as const) : (['margin'] as const)) {
    const candidate = fitOn(feature, false, samples, closedQuotes);
    if (candidate && (!best || candidate.logLikelihood > best.logLikelihood)) best = candidate;
  }
  if (!best) return undefined;
  const bent = fitOn(best.fit.feature, true, samples, closedQuotes);
  if (bent && bent.logLikelihood - 0.5 * Math.log(Math.max(2, bent.fit.nEff)) > best.logLikelihood) return bent.fit;
  return best.fit;
}

/** The design with what the fit's summary needs beside it: where x was centred and bent, and the weights' totals. */
interface Encoded {
  readonly design: PooledDesign;
  readonly meanMargin: number;
  readonly knot: number;
  readonly margins: readonly number[];
  readonly weights: readonly number[];
  readonly sumW: number;
  readonly sumW2: number;
  readonly productOf: ReadonlyMap<string, number>;
}

function fitOn(
  feature: WinFeature,
  bent: boolean,
  samples: readonly PooledWinSample[],
  closedQuotes: number,
): { fit: PooledWinFit; logLikelihood: number } | undefined {
  const encoded = encode(feature, bent, samples);
  if (!encoded) return undefined;
  // The category's curve (centred margins), each segment's deviation from it, and the offsets.
  const state = startingState(encoded.design);
  sweepPooled(encoded.design, state);
  return assemble(feature, encoded, state, samples, closedQuotes);
}

/** The samples in columns, or undefined when they hold no win or no loss (the curve would have no slope to find). */
function encode(feature: WinFeature, bent: boolean, samples: readonly PooledWinSample[]): Encoded | undefined {
  const n = samples.length;
  const features = samples.map((sample) => featureValue(feature, sample.margin, sample.listMarkup));
  const { sumW, sumW2, wonW, sumWM } = weightTotals(samples, features);
  if (!(wonW > 0) || !(sumW - wonW > 0)) return undefined;
  const meanMargin = sumWM / sumW;
  const groups = groupsOf(samples);
  const columns = columnsOf(samples, features, meanMargin, groups);
  // The bend sits at the median of the quotes' x: the slope may change there, where the data are thickest.
  const knot = bent ? weightedQuantile(columns.margins, columns.weights, 0.5) - meanMargin : 0;
  const bx = new Float64Array(n);
  for (let i = 0; i < n; i++) bx[i] = bent ? Math.max(0, (columns.x[i] ?? 0) - knot) : 0;
  const design: PooledDesign = {
    n,
    bent,
    ...columns,
    bx,
    ...groups,
    ...ridgesOf(samples, features, meanMargin, sumW),
    share: wonW / sumW,
  };
  const { margins, weights } = columns;
  return { design, meanMargin, knot, margins, weights, sumW, sumW2, productOf: groups.productOf };
}

function weightTotals(samples: readonly PooledWinSample[], features: readonly number[]) {
  let sumW = 0;
  let sumW2 = 0;
  let wonW = 0;
  let sumWM = 0;
  samples.forEach((sample, i) => {
    sumW += sample.weight;
    sumW2 += sample.weight * sample.weight;
    sumWM += sample.weight * (features[i] ?? 0);
    if (sample.won) wonW += sample.weight;
  });
  return { sumW, sumW2, wonW, sumWM };
}

/** The ridge on each coefficient scales with its variable's spread, so that it shrinks each by the same small share. */
function ridgesOf(samples: readonly PooledWinSample[], features: readonly number[], meanMargin: number, sumW: number) {
  let varX = 0;
  let varL = 0;
  samples.forEach((sample, i) => {
    varX += sample.weight * ((features[i] ?? 0) - meanMargin) ** 2;
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

function columnsOf(
  samples: readonly PooledWinSample[],
  features: readonly number[],
  meanMargin: number,
  groups: ReturnType<typeof groupsOf>,
) {
  const n = samples.length;
  const x = new Float64Array(n);
  const l = new Float64Array(n);
  const age = new Float64Array(n);
  const w = new Float64Array(n);
  const y = new Float64Array(n);
  const margins: number[] = [];
  const weights: number[] = [];
  const segmentIndex = new Int32Array(n);
  const skuIndex = new Int32Array(n);
  const customerIndex = new Int32Array(n);
  const productIndex = new Int32Array(n);
  const segmentOf = new Map(groups.segmentNames.map((name, i) => [name, i]));
  const skuOf = new Map(groups.skuNames.map((name, i) => [name, i]));
  const customerOf = new Map(groups.customerNames.map((name, i) => [name, i]));
  samples.forEach((sample, i) => {
    x[i] = (features[i] ?? 0) - meanMargin;
    l[i] = Math.log2(Math.max(sample.relativeQuantity, 1e-6));
    age[i] = Math.max(0, sample.ageYears);
    w[i] = sample.weight;
    y[i] = sample.won ? 1 : 0;
    margins.push(features[i] ?? 0);
    weights.push(sample.weight);
    segmentIndex[i] = segmentOf.get(sample.segment) ?? 0;
    skuIndex[i] = skuOf.get(JSON.stringify([sample.segment, sample.productSku])) ?? 0;
    customerIndex[i] = sample.customerExternalId === undefined ? -1 : (customerOf.get(sample.customerExternalId) ?? -1);
    productIndex[i] = groups.productOf.get(sample.productSku) ?? 0;
  });
  return { x, l, age, w, y, margins, weights, segmentIndex, skuIndex, customerIndex, productIndex };
}

/** The fitted coefficients as curves in the uncentred feature, with the offsets and the fit's log-likelihood. */
function assemble(
  feature: WinFeature,
  encoded: Encoded,
  st: PooledState,
  samples: readonly PooledWinSample[],
  closedQuotes: number,
): { fit: PooledWinFit; logLikelihood: number } {
  const { design: d, meanMargin, knot, margins, weights, sumW, sumW2 } = encoded;
  const counts = new Map<string, number>();
  for (const sample of samples) counts.set(sample.segment, (counts.get(sample.segment) ?? 0) + 1);
  const curve = (a: number, b: number, closed: number): SegmentWinCurve => ({
    intercept: a - b * meanMargin,
    slope: b,
    bend: st.C,
    knot: knot + meanMargin,
    quantitySlope: st.G,
    closedQuotes: closed,
  });
  const fit: PooledWinFit = {
    feature,
    bend: st.C,
    segments: new Map(
      d.segmentNames.map((name, s) => [name, curve(st.A + (st.segA[s] ?? 0), st.B + (st.segB[s] ?? 0), counts.get(name) ?? 0)]),
    ),
    category: curve(st.A, st.B, 0),
    skuOffsets: skuOffsetsOf(encoded, st),
    customerOffsets: new Map(d.customerNames.map((name, k) => [name, st.u[k] ?? 0])),
    closedQuotes,
    nEff: (sumW * sumW) / sumW2,
    supportLow: weightedQuantile(margins, weights, 0.05),
    supportHigh: weightedQuantile(margins, weights, 0.95),
    customerSd: st.tauU,
    skuSd: st.tauV,
    slopeSe: Math.sqrt(st.slopeVariance),
    quantitySlopeSe: Math.sqrt(st.quantityVariance),
    categorySlope: st.B,
    centroid: meanMargin,
  };
  return { fit, logLikelihood: logLikelihoodOf(d, st) };
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

function logLikelihoodOf(d: PooledDesign, st: PooledState): number {
  let logLikelihood = 0;
  for (let i = 0; i < d.n; i++) {
    const p = sigmoid(linearPredictor(d, st, i));
    logLikelihood += (d.w[i] ?? 0) * Math.log(Math.max(1e-300, d.y[i] === 1 ? p : 1 - p));
  }
  return logLikelihood;
}
