// The pooled win model's Newton sweeps: the category's curve, each segment's around it and each offset, one block at a time.
import { sigmoid } from './win-pool-model.ts';

/** The closed quote lines in columns, as the sweeps read them: every group named by its index in sorted order. */
export interface PooledDesign {
  readonly n: number;
  readonly bent: boolean;
  /** The feature, centred on its weighted mean. */
  readonly x: Float64Array;
  /** log2 of the relative quantity. */
  readonly l: Float64Array;
  /** How far x is past the knot (0 for a straight curve). */
  readonly bx: Float64Array;
  readonly age: Float64Array;
  readonly w: Float64Array;
  readonly y: Float64Array;
  readonly segmentIndex: Int32Array;
  readonly skuIndex: Int32Array;
  /** -1 for a line without a customer. */
  readonly customerIndex: Int32Array;
  readonly productIndex: Int32Array;
  readonly segmentNames: readonly string[];
  readonly skuNames: readonly string[];
  readonly customerNames: readonly string[];
  readonly productNames: readonly string[];
  readonly ridgeA: number;
  readonly ridgeB: number;
  readonly ridgeG: number;
  readonly ridgeC: number;
  /** The share of the weight that was won, where the intercept starts. */
  readonly share: number;
}

/** The coefficients as the sweeps move them, with the priors' spreads and the category's slopes' variances. */
export interface PooledState {
  A: number;
  B: number;
  C: number;
  G: number;
  T: number;
  readonly segA: Float64Array;
  readonly segB: Float64Array;
  /** Each segment's trend around the category's: a segment's buyers may move while the category's stand still. */
  readonly segT: Float64Array;
  /** The posterior variance of each segment's level today (its intercept at age 0, the category's included). */
  readonly levelVariance: Float64Array;
  readonly u: Float64Array;
  readonly uVar: Float64Array;
  readonly v: Float64Array;
  readonly vVar: Float64Array;
  readonly pw: Float64Array;
  readonly pwVar: Float64Array;
  tauP: number;
  tauU: number;
  tauV: number;
  tauA: number;
  tauT: number;
  slopeVariance: number;
  quantityVariance: number;
  interceptVariance: number;
}

const SWEEPS = 20;
/** Variance components are re-estimated after these sweeps (EM on the Laplace approximation). */
const VARIANCE_UPDATES = new Set([4, 8, 12]);
/** Priors' starting standard deviations (logits), and the bounds the estimates are kept within. */
const START_SD = 0.5;
const MIN_SD = 0.05;
const MAX_SD = 2;
/** The slope of a segment may differ from the category's by this share of it, a priori. */
const SEGMENT_SLOPE_SHARE = 0.3;
const TREND_PRECISION = 1;
/** A segment's trend may differ from its category's by this much a year (logits) before the data say how much. */
const SEGMENT_TREND_START_SD = 0.5;
const SEGMENT_TREND_MIN_SD = 0.05;

/** The category's curve at the share of wins, no segment deviating and every offset at 0. */
export function startingState(d: PooledDesign): PooledState {
  return {
    A: Math.log(d.share / (1 - d.share)),
    B: 0,
    C: 0,
    G: 0,
    T: 0,
    segA: new Float64Array(d.segmentNames.length),
    segB: new Float64Array(d.segmentNames.length),
    segT: new Float64Array(d.segmentNames.length),
    levelVariance: new Float64Array(d.segmentNames.length).fill(Number.POSITIVE_INFINITY),
    u: new Float64Array(d.customerNames.length),
    uVar: new Float64Array(d.customerNames.length),
    v: new Float64Array(d.skuNames.length),
    vVar: new Float64Array(d.skuNames.length),
    pw: new Float64Array(d.productNames.length),
    pwVar: new Float64Array(d.productNames.length),
    tauP: START_SD,
    tauU: START_SD,
    tauV: START_SD,
    tauA: START_SD,
    tauT: SEGMENT_TREND_START_SD,
    slopeVariance: Number.POSITIVE_INFINITY,
    quantityVariance: Number.POSITIVE_INFINITY,
    interceptVariance: Number.POSITIVE_INFINITY,
  };
}

/** logit P(win) of line i under the current coefficients. */
export function linearPredictor(d: PooledDesign, st: PooledState, i: number): number {
  const s = d.segmentIndex[i] ?? 0;
  const k = d.customerIndex[i] ?? -1;
  return (
    st.A +
    (st.segA[s] ?? 0) +
    (st.B + (st.segB[s] ?? 0)) * (d.x[i] ?? 0) +
    st.C * (d.bx[i] ?? 0) +
    st.G * (d.l[i] ?? 0) +
    (st.T + (st.segT[s] ?? 0)) * (d.age[i] ?? 0) +
    (k >= 0 ? (st.u[k] ?? 0) : 0) +
    (st.v[d.skuIndex[i] ?? 0] ?? 0) +
    (st.pw[d.productIndex[i] ?? 0] ?? 0)
  );
}

/** Every sweep, each block in turn, the priors' spreads re-estimated after some of them. */
export function sweepPooled(d: PooledDesign, st: PooledState): void {
  for (let sweep = 0; sweep < SWEEPS; sweep++) {
    categoryStep(d, st);
    segmentStep(d, st);
    offsetStep(d, st, d.customerIndex, st.u, st.uVar, st.tauU);
    offsetStep(d, st, d.productIndex, st.pw, st.pwVar, st.tauP);
    offsetStep(d, st, d.skuIndex, st.v, st.vVar, st.tauV);
    if (VARIANCE_UPDATES.has(sweep)) updateSpreads(d, st);
  }
}

/** The category's intercept, slope, bend, quantity slope and trend: gradient and curvature, everything else held as an offset. */
function categorySystem(d: PooledDesign, st: PooledState, k: number): { h: Float64Array; g: number[] } {
  const { n, w, y, x, bx, l, age, bent, ridgeA, ridgeB, ridgeC, ridgeG } = d;
  const h = new Float64Array(k * k);
  h[0] = ridgeA;
  h[6] = ridgeB;
  h[12] = bent ? ridgeC : 1;
  h[18] = ridgeG;
  // The trend is held near 0 by a prior of one logit a year: a year of quotes can show a drift, not invent one.
  h[24] = TREND_PRECISION;
  const g = [-ridgeA * st.A, -ridgeB * st.B, bent ? -ridgeC * st.C : 0, -ridgeG * st.G, -TREND_PRECISION * st.T];
  for (let i = 0; i < n; i++) {
    const p = sigmoid(linearPredictor(d, st, i));
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
  return { h, g };
}

function categoryStep(d: PooledDesign, st: PooledState): void {
  const k = 5;
  const { h, g } = categorySystem(d, st, k);
  st.slopeVariance = solveSymmetric(h, [0, 1, 0, 0, 0], k)?.[1] ?? Number.POSITIVE_INFINITY;
  st.quantityVariance = solveSymmetric(h, [0, 0, 0, 1, 0], k)?.[3] ?? Number.POSITIVE_INFINITY;
  st.interceptVariance = solveSymmetric(h, [1, 0, 0, 0, 0], k)?.[0] ?? Number.POSITIVE_INFINITY;
  const step = solveSymmetric(h, g, k);
  if (!step) return;
  // Damped: the blocks move together, and a full step of one can overshoot while the others catch up.
  const largest = Math.max(
    Math.abs(step[0] ?? 0),
    Math.abs((step[1] ?? 0) / 20),
    Math.abs((step[2] ?? 0) / 20),
    Math.abs(step[3] ?? 0),
    Math.abs(step[4] ?? 0),
  );
  const scale = Math.min(1, 5 / Math.max(largest, 1e-12));
  st.A += scale * (step[0] ?? 0);
  st.B += scale * (step[1] ?? 0);
  st.C += d.bent ? scale * (step[2] ?? 0) : 0;
  st.G += scale * (step[3] ?? 0);
  st.T += scale * (step[4] ?? 0);
}

/** Each segment's deviation in intercept, slope and trend, shrunk toward 0 (the category's curve). */
function segmentStep(d: PooledDesign, st: PooledState): void {
  const segments = d.segmentNames.length;
  // Per segment, the gradient (3) and the lower triangle of the curvature (6) of its intercept, slope and trend.
  const sums = new Float64Array(segments * 9);
  for (let i = 0; i < d.n; i++) {
    const s = d.segmentIndex[i] ?? 0;
    const p = sigmoid(linearPredictor(d, st, i));
    const wi = d.w[i] ?? 0;
    const r = wi * ((d.y[i] ?? 0) - p);
    const c = wi * p * (1 - p);
    const xi = d.x[i] ?? 0;
    const ti = d.age[i] ?? 0;
    const o = s * 9;
    sums[o] = (sums[o] ?? 0) + r;
    sums[o + 1] = (sums[o + 1] ?? 0) + r * xi;
    sums[o + 2] = (sums[o + 2] ?? 0) + r * ti;
    sums[o + 3] = (sums[o + 3] ?? 0) + c;
    sums[o + 4] = (sums[o + 4] ?? 0) + c * xi;
    sums[o + 5] = (sums[o + 5] ?? 0) + c * xi * xi;
    sums[o + 6] = (sums[o + 6] ?? 0) + c * ti;
    sums[o + 7] = (sums[o + 7] ?? 0) + c * xi * ti;
    sums[o + 8] = (sums[o + 8] ?? 0) + c * ti * ti;
  }
  const slopeSd = Math.max(SEGMENT_SLOPE_SHARE * Math.abs(st.B), 1);
  const priors = [1 / (st.tauA * st.tauA), 1 / (slopeSd * slopeSd), 1 / (st.tauT * st.tauT)];
  for (let s = 0; s < segments; s++) {
    const o = s * 9;
    const at = (j: number) => sums[o + j] ?? 0;
    const values = [st.segA[s] ?? 0, st.segB[s] ?? 0, st.segT[s] ?? 0];
    const g = values.map((value, j) => at(j) - (priors[j] ?? 0) * value);
    const h = new Float64Array([
      at(3) + (priors[0] ?? 0),
      at(4),
      at(6),
      at(4),
      at(5) + (priors[1] ?? 0),
      at(7),
      at(6),
      at(7),
      at(8) + (priors[2] ?? 0),
    ]);
    const step = solveSymmetric(h, g, 3);
    if (!step) continue;
    st.segA[s] = (values[0] ?? 0) + (step[0] ?? 0);
    st.segB[s] = (values[1] ?? 0) + (step[1] ?? 0);
    st.segT[s] = (values[2] ?? 0) + (step[2] ?? 0);
    // The level today is the intercept at age 0: the segment's own uncertainty about it beside the category's.
    st.levelVariance[s] = (solveSymmetric(h, [1, 0, 0], 3)?.[0] ?? Number.POSITIVE_INFINITY) + st.interceptVariance;
  }
}

/** One Newton step on a single offset per group: gradient and curvature summed by group, then the prior's pull. */
function offsetStep(d: PooledDesign, st: PooledState, index: Int32Array, values: Float64Array, variances: Float64Array, tau: number) {
  const g = new Float64Array(values.length);
  const h = new Float64Array(values.length);
  for (let i = 0; i < d.n; i++) {
    const k = index[i] ?? -1;
    if (k < 0) continue;
    const p = sigmoid(linearPredictor(d, st, i));
    g[k] = (g[k] ?? 0) + (d.w[i] ?? 0) * ((d.y[i] ?? 0) - p);
    h[k] = (h[k] ?? 0) + (d.w[i] ?? 0) * p * (1 - p);
  }
  const precision = 1 / (tau * tau);
  for (let k = 0; k < values.length; k++) {
    const value = values[k] ?? 0;
    const curvature = (h[k] ?? 0) + precision;
    values[k] = value + ((g[k] ?? 0) - precision * value) / curvature;
    variances[k] = 1 / curvature;
  }
}

/** Each prior's spread from its offsets' squares plus their posterior variances, once a group has three members. */
function updateSpreads(d: PooledDesign, st: PooledState): void {
  const spread = (values: Float64Array, variances: Float64Array) => {
    let total = 0;
    for (let k = 0; k < values.length; k++) total += (values[k] ?? 0) ** 2 + (variances[k] ?? 0);
    return Math.min(MAX_SD, Math.max(MIN_SD, Math.sqrt(total / Math.max(1, values.length))));
  };
  if (d.customerNames.length >= 3) st.tauU = spread(st.u, st.uVar);
  if (d.skuNames.length >= 3) st.tauV = spread(st.v, st.vVar);
  if (d.productNames.length >= 3) st.tauP = spread(st.pw, st.pwVar);
  if (d.segmentNames.length >= 3) {
    let total = 0;
    for (let s = 0; s < d.segmentNames.length; s++) total += (st.segA[s] ?? 0) ** 2;
    st.tauA = Math.min(MAX_SD, Math.max(MIN_SD, Math.sqrt(total / d.segmentNames.length)));
    let trends = 0;
    for (let s = 0; s < d.segmentNames.length; s++) trends += (st.segT[s] ?? 0) ** 2;
    st.tauT = Math.min(MAX_SD, Math.max(SEGMENT_TREND_MIN_SD, Math.sqrt(trends / d.segmentNames.length)));
  }
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
