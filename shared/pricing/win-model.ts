// The win model: a weighted logistic fit of closed quotes' outcomes on their margin, and the margin it says earns the most.
import type { LineBands, WinModel } from './model.ts';
import type { PricingSettings } from './settings.ts';
import { featureValue } from './win-pool-model.ts';

/** One closed quote line: its margin, whether it was won, and its recency weight. */
export interface WinSample {
  /** The quote the line belongs to: the threshold counts quotes, not lines. */
  readonly quoteId: string;
  readonly margin: number;
  readonly won: boolean;
  readonly weight: number;
}

const MAX_ITERATIONS = 50;
const STEP_TOLERANCE = 1e-9;
const OBJECTIVE_TOLERANCE = 1e-13;
const MAX_HALVINGS = 30;
/**
 * Ridge on the slope, relative to Σw times the margins' variance so that it shrinks the slope by the same small share
 * whatever the spread of the margins; it is what keeps perfectly separated quotes at a finite slope.
 */
const SLOPE_PENALTY = 1e-3;
/** Variance floor for the penalty (a one-point spread), so that quotes all at one margin still give a finite fit. */
const MIN_PENALTY_VARIANCE = 1e-4;
const GRID_STEPS = 64;
const REFINE_STEPS = 16;
/** Expected profit m / (1 − m) has a pole at m = 1; no real band reaches it. */
const MAX_SEARCH_MARGIN = 0.9999;

function sigmoid(z: number): number {
  return z >= 0 ? 1 / (1 + Math.exp(-z)) : Math.exp(z) / (1 + Math.exp(z));
}

export function winProbability(model: WinModel, margin: number): number {
  return sigmoid(model.intercept + model.slope * margin);
}

interface Evaluation {
  objective: number;
  gA: number;
  gB: number;
  hAA: number;
  hAB: number;
  hBB: number;
}

/** The penalised log-likelihood with its gradient and (negated) Hessian at (a, b), in one pass over the quotes. */
function evaluate(x: Float64Array, w: Float64Array, y: Uint8Array, lambda: number, a: number, b: number): Evaluation {
  let objective = -0.5 * lambda * b * b;
  let gA = 0;
  let gB = -lambda * b;
  let hAA = 0;
  let hAB = 0;
  let hBB = lambda;
  for (let i = 0; i < x.length; i++) {
    const xi = x[i] ?? 0;
    const wi = w[i] ?? 0;
    const z = a + b * xi;
    // One exp and one log1p serve σ(z), log σ(z) and log σ(−z) = log σ(z) − z, without overflow either way.
    const e = Math.exp(-Math.abs(z));
    const p = z >= 0 ? 1 / (1 + e) : e / (1 + e);
    const logP = (z >= 0 ? 0 : z) - Math.log1p(e);
    const won = y[i] === 1;
    objective += wi * (won ? logP : logP - z);
    const residual = wi * ((won ? 1 : 0) - p);
    const curvature = wi * p * (1 - p);
    gA += residual;
    gB += residual * xi;
    hAA += curvature;
    hAB += curvature * xi;
    hBB += curvature * xi * xi;
  }
  return { objective, gA, gB, hAA, hAB, hBB };
}

/**
 * Fits P(win | m) by Newton–Raphson on the penalised weighted log-likelihood. Margins are centred first, which keeps the
 * Hessian well conditioned; a step that does not improve the objective is halved, so the fit never diverges.
 */
export function fitWinModel(samples: readonly WinSample[], settings: PricingSettings): WinModel | undefined {
  if (samples.length < settings.winModelMinQuotes) return undefined;
  const closedQuotes = new Set(samples.map((sample) => sample.quoteId)).size;
  if (closedQuotes < settings.winModelMinQuotes) return undefined;
  let sumW = 0;
  let sumW2 = 0;
  let sumWM = 0;
  let wonW = 0;
  for (const sample of samples) {
    sumW += sample.weight;
    sumW2 += sample.weight * sample.weight;
    sumWM += sample.weight * sample.margin;
    if (sample.won) wonW += sample.weight;
  }
  // Both outcomes must carry weight: with one missing, the intercept has no finite optimum.
  if (!(wonW > 0) || !(sumW - wonW > 0)) return undefined;
  const mean = sumWM / sumW;
  const x = new Float64Array(samples.length);
  const w = new Float64Array(samples.length);
  const y = new Uint8Array(samples.length);
  let variance = 0;
  samples.forEach((sample, i) => {
    x[i] = sample.margin - mean;
    w[i] = sample.weight;
    y[i] = sample.won ? 1 : 0;
    variance += sample.weight * (sample.margin - mean) ** 2;
  });
  variance /= sumW;
  const lambda = SLOPE_PENALTY * sumW * Math.max(variance, MIN_PENALTY_VARIANCE);

  const share = wonW / sumW;
  let a = Math.log(share / (1 - share));
  let b = 0;
  let at = evaluate(x, w, y, lambda, a, b);
  for (let iteration = 0; iteration < MAX_ITERATIONS; iteration++) {
    const det = at.hAA * at.hBB - at.hAB * at.hAB;
    if (!(det > 0)) break;
    const dA = (at.hBB * at.gA - at.hAB * at.gB) / det;
    const dB = (at.hAA * at.gB - at.hAB * at.gA) / det;
    // Half the Newton decrement is the gain the step promises; once it is lost in the objective's rounding, no halving
    // could show an improvement, so stop rather than halve thirty times.
    if ((dA * at.gA + dB * at.gB) / 2 <= OBJECTIVE_TOLERANCE * Math.max(1, Math.abs(at.objective))) break;
    let t = 1;
    let next = evaluate(x, w, y, lambda, a + dA, b + dB);
    for (let halving = 0; halving < MAX_HALVINGS && !(next.objective >= at.objective); halving++) {
      t /= 2;
      next = evaluate(x, w, y, lambda, a + t * dA, b + t * dB);
    }
    if (!(next.objective >= at.objective)) break;
    a += t * dA;
    b += t * dB;
    at = next;
    if (Math.max(Math.abs(t * dA), Math.abs(t * dB)) < STEP_TOLERANCE) break;
  }
  return { intercept: a - b * mean, slope: b, closedQuotes, nEff: (sumW * sumW) / sumW2 };
}

/** Expected profit per unit of cost at margin m: the price's markup (m / (1 − m)) times the chance of winning at it. */
function expectedProfit(model: WinModel, margin: number, shift: number, listMarkup: number | undefined): number {
  return (margin / (1 - margin)) * sigmoid(modelLogit(model, margin, listMarkup) + shift);
}

/** The model's logit at a margin, before the line's own shift: its curve in its feature, bend included. */
export function modelLogit(model: WinModel, margin: number, listMarkup: number | undefined): number {
  const x = featureValue(model.feature ?? 'margin', margin, listMarkup);
  const bend = model.bend ? model.bend * Math.max(0, x - (model.knot ?? 0)) : 0;
  const pooled = model.slopeShift ? model.slopeShift * (x - (model.centroid ?? 0)) : 0;
  return model.intercept + model.slope * x + bend + pooled;
}

/**
 * The margin in [lo, hi] with the largest expected profit: a coarse grid, then a finer one around the best point.
 * `shift` moves the curve's logit for this line: its quantity and its customer's and SKU's offsets.
 */
export function profitMaximisingMargin(model: WinModel, lo: number, hi: number, shift = 0, listMarkup?: number): number {
  const top = Math.min(hi, MAX_SEARCH_MARGIN);
  if (!(lo < top)) return lo;
  const step = (top - lo) / GRID_STEPS;
  let best = lo;
  let bestValue = expectedProfit(model, lo, shift, listMarkup);
  for (let i = 1; i <= GRID_STEPS; i++) {
    const margin = i === GRID_STEPS ? top : lo + i * step;
    const value = expectedProfit(model, margin, shift, listMarkup);
    if (value > bestValue) {
      best = margin;
      bestValue = value;
    }
  }
  const from = Math.max(lo, best - step);
  const to = Math.min(top, best + step);
  const fine = (to - from) / REFINE_STEPS;
  for (let i = 0; i <= REFINE_STEPS; i++) {
    const margin = i === REFINE_STEPS ? to : from + i * fine;
    const value = expectedProfit(model, margin, shift, listMarkup);
    if (value > bestValue) {
      best = margin;
      bestValue = value;
    }
  }
  return best;
}

/** The quantity the line's size is measured against: its segment × SKU band's median, or else its segment's. */
export function referenceQuantity(bands: LineBands): number | undefined {
  const median = bands.segmentSku?.medianQuantity ?? bands.segmentCategory?.medianQuantity;
  return median !== undefined && median > 0 ? median : undefined;
}

/** How far this line's curve sits from its segment's, in logits: its size over the reference, its SKU and its customer. */
export function winLogitShift(bands: LineBands, quantity: number, hasCustomer: boolean): number {
  const model = bands.winModel;
  if (!model) return 0;
  const reference = referenceQuantity(bands);
  const size =
    model.quantitySlope !== undefined && reference !== undefined && quantity > 0
      ? (model.quantitySlope + (model.quantityShift ?? 0)) * Math.log2(quantity / reference)
      : 0;
  const customer = hasCustomer ? (bands.customerWinOffset ?? 0) : 0;
  return size + (bands.segmentSku?.winOffset ?? 0) + customer;
}

/** The engine's chance of winning a line at `margin`, from the bands it was priced with; undefined without a win model. */
export function lineWinProbability(
  bands: LineBands,
  quantity: number,
  margin: number,
  listMarkup: number | undefined,
  hasCustomer = true,
): number | undefined {
  const model = bands.winModel;
  if (!model || model.unpooled) return undefined;
  return sigmoid(modelLogit(model, margin, listMarkup) + winLogitShift(bands, quantity, hasCustomer));
}
