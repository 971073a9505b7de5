// The pooled win model: one category's closed quotes fitted together, each segment, customer and SKU shrunk toward the whole by empirical Bayes.
import type { PricingSettings } from './settings.ts';
import { featureValue, type PooledWinFit, type PooledWinSample, type SegmentWinCurve, sigmoid, type WinFeature } from './win-pool-model.ts';

const SWEEPS = 20;
/** Variance components are re-estimated after these sweeps (EM on the Laplace approximation). */
const VARIANCE_UPDATES = new Set([4, 8, 12]);
/** Priors' starting standard deviations (logits), and the bounds the estimates are kept within. */
const START_SD = 0.5;
const MIN_SD = 0.05;
const MAX_SD = 2;
/** The slope of a segment may differ from the category's by this share of it, a priori. */
const SEGMENT_SLOPE_SHARE = 0.3;
/** Weak ridge on the category's own coefficients, so that separated data still give finite values. */
const RIDGE = 1e-3;
const TREND_PRECISION = 1;

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

/** Solves H·d = g for a small symmetric positive definite H (row-major k×k) by Cholesky; undefined if it is not. */
function solveSymmetric(h: Float64Array, g: readonly number[], k: number): number[] | undefined {
  const lower = new Float64Array(k * k);
  for (let i = 0; i < k; i++) {
    for (let j = 0; j <= i; j++) {
      let sum = h[i * k + j] ?? 0;
      for (let m = 0; m < j; m++) sum -= (lower[i * k + m] ?? 0) * (lower[j * k + m] ?? 0);
      if (i === j) {
        if (!(sum > 0)) return undefined;
        lower[i * k + i] = Math.sqrt(sum);
      } else lower[i * k + j] = sum / (lower[j * k + j] ?? 1);
    }
  }
  const y = new Array<number>(k).fill(0);
  for (let i = 0; i < k; i++) {
    let sum = g[i] ?? 0;
    for (let m = 0; m < i; m++) sum -= (lower[i * k + m] ?? 0) * (y[m] ?? 0);
    y[i] = sum / (lower[i * k + i] ?? 1);
  }
  const x = new Array<number>(k).fill(0);
  for (let i = k - 1; i >= 0; i--) {
    let sum = y[i] ?? 0;
    for (let m = i + 1; m < k; m++) sum -= (lower[m * k + i] ?? 0) * (x[m] ?? 0);
    x[i] = sum / (lower[i * k + i] ?? 1);
  }
  return x;
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

function fitOn(
  feature: WinFeature,
  bent: boolean,
  samples: readonly PooledWinSample[],
  closedQuotes: number,
): { fit: PooledWinFit; logLikelihood: number } | undefined {
  const n = samples.length;
  let sumW = 0;
  let sumW2 = 0;
  let wonW = 0;
  let sumWM = 0;
  const features = samples.map((sample) => featureValue(feature, sample.margin, sample.listMarkup));
  samples.forEach((sample, i) => {
    sumW += sample.weight;
    sumW2 += sample.weight * sample.weight;
    sumWM += sample.weight * (features[i] ?? 0);
    if (sample.won) wonW += sample.weight;
  });
  if (!(wonW > 0) || !(sumW - wonW > 0)) return undefined;
  const meanMargin = sumWM / sumW;
  const x = new Float64Array(n);
  const l = new Float64Array(n);
  const bx = new Float64Array(n);
  const age = new Float64Array(n);
  const w = new Float64Array(n);
  const y = new Float64Array(n);
  const margins: number[] = [];
  const weights: number[] = [];
  const segmentIndex = new Int32Array(n);
  const skuIndex = new Int32Array(n);
  const customerIndex = new Int32Array(n);
  const productIndex = new Int32Array(n);
  const segmentNames = [...new Set(samples.map((s) => s.segment))].sort();
  const skuNames = [...new Set(samples.map((s) => JSON.stringify([s.segment, s.productSku])))].sort();
  const customerNames = [...new Set(samples.flatMap((s) => (s.customerExternalId === undefined ? [] : [s.customerExternalId])))].sort();
  const productNames = [...new Set(samples.map((s) => s.productSku))].sort();
  let varX = 0;
  let varL = 0;
  samples.forEach((sample, i) => {
    varX += sample.weight * ((features[i] ?? 0) - meanMargin) ** 2;
    varL += sample.weight * Math.log2(Math.max(sample.relativeQuantity, 1e-6)) ** 2;
  });
  // The ridge on each coefficient scales with its variable's spread, so that it shrinks each by the same small share.
  const ridgeA = RIDGE * sumW;
  const ridgeB = RIDGE * Math.max(varX, 1e-4);
  const ridgeG = RIDGE * Math.max(varL, 1e-2);
  const ridgeC = RIDGE * Math.max(varX, 1e-4);
  const segmentOf = new Map(segmentNames.map((name, i) => [name, i]));
  const skuOf = new Map(skuNames.map((name, i) => [name, i]));
  const customerOf = new Map(customerNames.map((name, i) => [name, i]));
  const productOf = new Map(productNames.map((name, i) => [name, i]));
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
    productIndex[i] = productOf.get(sample.productSku) ?? 0;
  });
  // The bend sits at the median of the quotes' x: the slope may change there, where the data are thickest.
  const knot = bent ? weightedQuantile(margins, weights, 0.5) - meanMargin : 0;
  for (let i = 0; i < n; i++) bx[i] = bent ? Math.max(0, (x[i] ?? 0) - knot) : 0;

  // The category's curve (centred margins), each segment's deviation from it, and the offsets.
  const share = wonW / sumW;
  let A = Math.log(share / (1 - share));
  let B = 0;
  let C = 0;
  let G = 0;
  let T = 0;
  const segA = new Float64Array(segmentNames.length);
  const segB = new Float64Array(segmentNames.length);
  const u = new Float64Array(customerNames.length);
  const uVar = new Float64Array(customerNames.length);
  const v = new Float64Array(skuNames.length);
  const vVar = new Float64Array(skuNames.length);
  const pw = new Float64Array(productNames.length);
  const pwVar = new Float64Array(productNames.length);
  let tauP = START_SD;
  let tauU = START_SD;
  let tauV = START_SD;
  let tauA = START_SD;
  let slopeVariance = Number.POSITIVE_INFINITY;
  let quantityVariance = Number.POSITIVE_INFINITY;

  const linear = (i: number) => {
    const s = segmentIndex[i] ?? 0;
    const k = customerIndex[i] ?? -1;
    return (
      A +
      (segA[s] ?? 0) +
      (B + (segB[s] ?? 0)) * (x[i] ?? 0) +
      C * (bx[i] ?? 0) +
      G * (l[i] ?? 0) +
      T * (age[i] ?? 0) +
      (k >= 0 ? (u[k] ?? 0) : 0) +
      (v[skuIndex[i] ?? 0] ?? 0) +
      (pw[productIndex[i] ?? 0] ?? 0)
    );
  };

  /** One Newton step on a single offset per group: gradient and curvature summed by group, then the prior's pull. */
  const offsetStep = (index: Int32Array, values: Float64Array, variances: Float64Array, tau: number) => {
    const g = new Float64Array(values.length);
    const h = new Float64Array(values.length);
    for (let i = 0; i < n; i++) {
      const k = index[i] ?? -1;
      if (k < 0) continue;
      const p = sigmoid(linear(i));
      g[k] = (g[k] ?? 0) + (w[i] ?? 0) * ((y[i] ?? 0) - p);
      h[k] = (h[k] ?? 0) + (w[i] ?? 0) * p * (1 - p);
    }
    const precision = 1 / (tau * tau);
    for (let k = 0; k < values.length; k++) {
      const value = values[k] ?? 0;
      const curvature = (h[k] ?? 0) + precision;
      values[k] = value + ((g[k] ?? 0) - precision * value) / curvature;
      variances[k] = 1 / curvature;
    }
  };

  const slopePrior = () => {
    const sd = Math.max(SEGMENT_SLOPE_SHARE * Math.abs(B), 1);
    return 1 / (sd * sd);
  };

  for (let sweep = 0; sweep < SWEEPS; sweep++) {
    // The category's intercept, slope, bend and quantity slope, everything else held as an offset.
    const k = 5;
    const h = new Float64Array(k * k);
    h[0] = ridgeA;
    h[6] = ridgeB;
    h[12] = bent ? ridgeC : 1;
    h[18] = ridgeG;
    // The trend is held near 0 by a prior of one logit a year: a year of quotes can show a drift, not invent one.
    h[24] = TREND_PRECISION;
    const g = [-ridgeA * A, -ridgeB * B, bent ? -ridgeC * C : 0, -ridgeG * G, -TREND_PRECISION * T];
    for (let i = 0; i < n; i++) {
      const p = sigmoid(linear(i));
      const wi = w[i] ?? 0;
      const r = wi * ((y[i] ?? 0) - p);
      const c = wi * p * (1 - p);
      const row = [1, x[i] ?? 0, bx[i] ?? 0, l[i] ?? 0, age[i] ?? 0];
      for (let a = 0; a < k; a++) {
        g[a] = (g[a] ?? 0) + r * (row[a] ?? 0);
        for (let b = 0; b <= a; b++) h[a * k + b] = (h[a * k + b] ?? 0) + c * (row[a] ?? 0) * (row[b] ?? 0);
      }
    }
    for (let a = 0; a < k; a++) for (let b = a + 1; b < k; b++) h[a * k + b] = h[b * k + a] ?? 0;
    slopeVariance = solveSymmetric(h, [0, 1, 0, 0, 0], k)?.[1] ?? Number.POSITIVE_INFINITY;
    quantityVariance = solveSymmetric(h, [0, 0, 0, 1, 0], k)?.[3] ?? Number.POSITIVE_INFINITY;
    const step = solveSymmetric(h, g, k);
    if (step) {
      // Damped: the blocks move together, and a full step of one can overshoot while the others catch up.
      const largest = Math.max(
        Math.abs(step[0] ?? 0),
        Math.abs((step[1] ?? 0) / 20),
        Math.abs((step[2] ?? 0) / 20),
        Math.abs(step[3] ?? 0),
        Math.abs(step[4] ?? 0),
      );
      const scale = Math.min(1, 5 / Math.max(largest, 1e-12));
      A += scale * (step[0] ?? 0);
      B += scale * (step[1] ?? 0);
      C += bent ? scale * (step[2] ?? 0) : 0;
      G += scale * (step[3] ?? 0);
      T += scale * (step[4] ?? 0);
    }
    // Each segment's deviation in intercept and slope, shrunk toward 0 (the category's curve).
    {
      const gA = new Float64Array(segmentNames.length);
      const gB = new Float64Array(segmentNames.length);
      const hAA = new Float64Array(segmentNames.length);
      const hAB = new Float64Array(segmentNames.length);
      const hBB = new Float64Array(segmentNames.length);
      for (let i = 0; i < n; i++) {
        const s = segmentIndex[i] ?? 0;
        const p = sigmoid(linear(i));
        const wi = w[i] ?? 0;
        const r = wi * ((y[i] ?? 0) - p);
        const c = wi * p * (1 - p);
        const xi = x[i] ?? 0;
        gA[s] = (gA[s] ?? 0) + r;
        gB[s] = (gB[s] ?? 0) + r * xi;
        hAA[s] = (hAA[s] ?? 0) + c;
        hAB[s] = (hAB[s] ?? 0) + c * xi;
        hBB[s] = (hBB[s] ?? 0) + c * xi * xi;
      }
      const pa = 1 / (tauA * tauA);
      const pb = slopePrior();
      for (let s = 0; s < segmentNames.length; s++) {
        const a = segA[s] ?? 0;
        const b = segB[s] ?? 0;
        const ga = (gA[s] ?? 0) - pa * a;
        const gb = (gB[s] ?? 0) - pb * b;
        const haa = (hAA[s] ?? 0) + pa;
        const hab = hAB[s] ?? 0;
        const hbb = (hBB[s] ?? 0) + pb;
        const det = haa * hbb - hab * hab;
        if (!(det > 0)) continue;
        segA[s] = a + (hbb * ga - hab * gb) / det;
        segB[s] = b + (haa * gb - hab * ga) / det;
      }
    }
    offsetStep(customerIndex, u, uVar, tauU);
    offsetStep(productIndex, pw, pwVar, tauP);
    offsetStep(skuIndex, v, vVar, tauV);
    if (VARIANCE_UPDATES.has(sweep)) {
      const spread = (values: Float64Array, variances: Float64Array) => {
        let total = 0;
        for (let k = 0; k < values.length; k++) total += (values[k] ?? 0) ** 2 + (variances[k] ?? 0);
        return Math.min(MAX_SD, Math.max(MIN_SD, Math.sqrt(total / Math.max(1, values.length))));
      };
      if (customerNames.length >= 3) tauU = spread(u, uVar);
      if (skuNames.length >= 3) tauV = spread(v, vVar);
      if (productNames.length >= 3) tauP = spread(pw, pwVar);
      if (segmentNames.length >= 3) {
        let total = 0;
        for (let s = 0; s < segmentNames.length; s++) total += (segA[s] ?? 0) ** 2;
        tauA = Math.min(MAX_SD, Math.max(MIN_SD, Math.sqrt(total / segmentNames.length)));
      }
    }
  }

  const counts = new Map<string, number>();
  for (const sample of samples) counts.set(sample.segment, (counts.get(sample.segment) ?? 0) + 1);
  const curve = (a: number, b: number, closed: number): SegmentWinCurve => ({
    intercept: a - b * meanMargin,
    slope: b,
    bend: C,
    knot: knot + meanMargin,
    quantitySlope: G,
    closedQuotes: closed,
  });
  const skuOffsets = new Map<string, Map<string, number>>();
  skuNames.forEach((name, k) => {
    const [segment, sku] = JSON.parse(name) as [string, string];
    const bySku = skuOffsets.get(segment) ?? new Map<string, number>();
    bySku.set(sku, (v[k] ?? 0) + (pw[productOf.get(sku) ?? 0] ?? 0));
    skuOffsets.set(segment, bySku);
  });
  let logLikelihood = 0;
  for (let i = 0; i < n; i++) {
    const p = sigmoid(linear(i));
    logLikelihood += (w[i] ?? 0) * Math.log(Math.max(1e-300, y[i] === 1 ? p : 1 - p));
  }
  const fit: PooledWinFit = {
    feature,
    bend: C,
    segments: new Map(segmentNames.map((name, s) => [name, curve(A + (segA[s] ?? 0), B + (segB[s] ?? 0), counts.get(name) ?? 0)])),
    category: curve(A, B, 0),
    skuOffsets,
    customerOffsets: new Map(customerNames.map((name, k) => [name, u[k] ?? 0])),
    closedQuotes,
    nEff: (sumW * sumW) / sumW2,
    supportLow: weightedQuantile(margins, weights, 0.05),
    supportHigh: weightedQuantile(margins, weights, 0.95),
    customerSd: tauU,
    skuSd: tauV,
    slopeSe: Math.sqrt(slopeVariance),
    quantitySlopeSe: Math.sqrt(quantityVariance),
    categorySlope: B,
    centroid: meanMargin,
  };
  return { fit, logLikelihood };
}
