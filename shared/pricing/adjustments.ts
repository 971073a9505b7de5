// The margin steps between the base and the guardrails: customer history, the deal-size break, the win model and stock.
import type { LineBase } from './line-base.ts';
import type { Band, LineBands, LineInputs, PricingProduct, WinModel } from './model.ts';
import { amount, percent, points, type ReasonStep } from './reason-stack.ts';
import type { PricingSettings } from './settings.ts';
import { clamp, credibility, shrink } from './shrinkage.ts';
import { profitMaximisingMargin, winLogitShift } from './win-model.ts';
import { marginAt } from './win-pool-model.ts';

/** Where the margin stands: the evidence, or the last step since that moved it. */
export interface MarginSoFar {
  readonly margin: number;
}

/**
 * What the steps after customer history stand on. Without the customer's own history it is the base itself (a
 * LineBase is one); with it, the base shrunk toward the customer.
 */
export interface Evidence extends MarginSoFar {
  /** The band behind it: the customer × SKU band, or the most specific band of the segment chain, if any. */
  readonly node: Band | undefined;
  readonly floor: number;
  readonly stretch: number;
  /** Shrunk alongside the margin but never rounded: it is what the explanation reports. */
  readonly target: number;
}

/** The customer_history step, which also replaces the base as the evidence. */
export interface CustomerHistory extends ReasonStep, Evidence {
  readonly node: Band;
}

/** Keeps a margin within the history range, widened to the base so that a list price outside it is not pulled in. */
export function withinHistory(margin: number, base: LineBase, settings: PricingSettings): number {
  return clamp(
    margin,
    Math.min(settings.minHistoryMarginPct / 100, base.margin),
    Math.max(settings.maxHistoryMarginPct / 100, base.margin),
  );
}

const parentNames = ['segment', 'segment', 'category', 'workspace', 'list price'] as const;

/** Customer × SKU evidence can only exist when a customer is named. */
export function customerHistory(
  base: LineBase,
  inputs: LineInputs,
  bands: LineBands,
  settings: PricingSettings,
): CustomerHistory | undefined {
  const customer = inputs.hasCustomer ? bands.customerSku : undefined;
  if (!customer) return undefined;
  const z = credibility(customer.nEff, settings.credibilityK);
  const gap = (customer.target - base.margin) * 100;
  return {
    param: 'customer_history',
    scope: 'customer',
    label: `Customer pays ${Math.abs(gap).toFixed(1)} points ${gap >= 0 ? 'more' : 'less'} than the ${parentNames[base.depth]} on this SKU (n_eff ${customer.nEff.toFixed(1)})`,
    margin: withinHistory(shrink(z, customer.target, base.margin), base, settings),
    node: customer,
    floor: withinHistory(shrink(z, customer.floor, base.floor), base, settings),
    stretch: withinHistory(shrink(z, customer.stretch, base.stretch), base, settings),
    target: withinHistory(shrink(z, customer.target, base.target), base, settings),
  };
}

/** The deal's size in multiples of the median: the largest of its quantity, its order's quantity and its order's value. */
function dealSize(inputs: LineInputs, median: number): number {
  const listPrice = inputs.product.currentPriceCents;
  let size = inputs.quantity / median;
  if (inputs.orderTotalQuantity !== undefined) size = Math.max(size, inputs.orderTotalQuantity / median);
  if (inputs.orderValueCents !== undefined && listPrice > 0) size = Math.max(size, inputs.orderValueCents / (median * listPrice));
  return size;
}

/**
 * Only history has a median to compare the deal with. The break only ever lowers the margin, and never below the
 * floor; a margin already under it stays put.
 */
export function quantityBreak(evidence: Evidence, base: LineBase, inputs: LineInputs, settings: PricingSettings): ReasonStep | undefined {
  const median = evidence.node?.medianQuantity;
  if (base.node && median !== undefined && median > 0) {
    const size = dealSize(inputs, median);
    if (size > 1 && evidence.margin > evidence.floor) {
      const discount = Math.min(settings.quantityBreakBpsPerDoubling * Math.log2(size), settings.maxQuantityBreakBps) / 10_000;
      return {
        param: 'quantity',
        scope: base.scope,
        label: `Deal is ${size.toFixed(1)}× the median quantity of ${amount(median)}: a break of up to ${(discount * 100).toFixed(2)} points, not below the floor ${percent(evidence.floor)}`,
        margin: Math.max(evidence.margin - discount, evidence.floor),
      };
    }
  }
  return undefined;
}

/** How far beyond the margins its quotes span the win model is trusted to find an optimum. */
const SUPPORT_REACH = 0.05;

/**
 * Where the optimum is searched: near the margins the model was fitted on, when it says which; otherwise (a model
 * without its support) within the evidence's floor and stretch.
 */
export function searchRange(
  winModel: WinModel,
  evidence: Pick<Evidence, 'floor' | 'stretch'>,
  listMarkup: number | undefined,
  settings: PricingSettings,
): [number, number] {
  if (winModel.supportLow === undefined || winModel.supportHigh === undefined) return [evidence.floor, evidence.stretch];
  const feature = winModel.feature ?? 'margin';
  const lo = Math.max(settings.minHistoryMarginPct / 100, marginAt(feature, winModel.supportLow - SUPPORT_REACH, listMarkup));
  const hi = Math.min(settings.maxHistoryMarginPct / 100, marginAt(feature, winModel.supportHigh + SUPPORT_REACH, listMarkup));
  return lo < hi ? [lo, hi] : [evidence.floor, evidence.stretch];
}

const SLOPE_T2_AT_HALF = 4;
/**
 * How far to trust the model's optimum: its sample's credibility, times how surely its slope is negative (a slope
 * t standard errors from 0 earns t² / (t² + 4): half at t = 2). A model whose slope has no standard error is judged
 * on its sample alone.
 */
export function winCredibility(winModel: WinModel, settings: PricingSettings): number {
  if (winModel.unpooled) return 0;
  const sample = credibility(winModel.nEff, settings.credibilityK);
  if (winModel.slopeSe === undefined) return sample;
  const slope = winModel.slope + (winModel.slopeShift ?? 0);
  if (!(slope < 0)) return 0;
  const t2 = (slope / winModel.slopeSe) ** 2;
  return sample * (t2 / (t2 + SLOPE_T2_AT_HALF));
}

/** The win_model step, with what the line's confidence reads: how far it moved, and how far its price could be wrong. */
export interface WinModelStep extends ReasonStep {
  readonly credibility: number;
  /** The margin's likely error (a standard deviation): the part of the gap to the optimum left unmoved, and the optimum's own. */
  readonly marginError: number;
  /** The sample's credibility alone, n_eff / (n_eff + 20): a model of few quotes is unsure of more than its curve's error says. */
  readonly sampleCredibility: number;
  /** The curve's slope in margin at the price, in logits per unit of margin (negative): what a margin's error costs. */
  readonly marginSlope: number;
}

/**
 * How far the model's optimum could be from the truth, in margin: its segment's level today is known to ±levelSe
 * logits (a thin segment, or one whose trend reaches far, less surely), which moves the optimum by levelSe over the
 * slope; the slope's own error turns the curve about its centroid.
 */
export function optimumError(winModel: WinModel, best: number, slope: number, listMarkup: number | undefined): number {
  if (!(slope < 0)) return Number.POSITIVE_INFINITY;
  const level = winModel.levelSe ?? 0;
  const centre = winModel.centroid === undefined ? best : marginAt(winModel.feature ?? 'margin', winModel.centroid, listMarkup);
  const turn = ((winModel.slopeSe ?? 0) / Math.abs(winModel.slope + (winModel.slopeShift ?? 0) || 1)) * Math.abs(best - centre);
  return Math.sqrt((level / -slope) ** 2 + turn ** 2);
}

/** Moves the margin toward the most profitable one the win model sees for this line, as far as its credibility allows. */
export function winModelPull(
  from: MarginSoFar,
  evidence: Evidence,
  base: LineBase,
  bands: LineBands,
  inputs: LineInputs,
  settings: PricingSettings,
): WinModelStep | undefined {
  const winModel = bands.winModel;
  if (!base.node || !winModel || winModel.unpooled) return undefined;
  const { costCents, currentPriceCents } = inputs.product;
  const listMarkup = currentPriceCents > 0 && costCents > 0 ? currentPriceCents / costCents : undefined;
  // A curve of price over list says nothing about a product without a list price.
  if (winModel.feature === 'list' && listMarkup === undefined) return undefined;
  const [lo, hi] = searchRange(winModel, evidence, listMarkup, settings);
  const best = profitMaximisingMargin(winModel, lo, hi, winLogitShift(bands, inputs.quantity, inputs.hasCustomer), listMarkup);
  const z = winCredibility(winModel, settings);
  const feature = winModel.feature ?? 'margin';
  // A log price over list moves by 1 / (1 − m) per unit of margin.
  const marginSlope = (winModel.slope + (winModel.slopeShift ?? 0)) * (feature === 'list' ? 1 / Math.max(1e-3, 1 - best) : 1);
  const marginError = Math.hypot((1 - z) * (best - from.margin), optimumError(winModel, best, marginSlope, listMarkup));
  return {
    param: 'win_model',
    scope: 'segment',
    label:
      `Win model on ${winModel.closedQuotes} closed quotes (n_eff ${winModel.nEff.toFixed(1)}) puts the most profitable margin ` +
      `for this customer and deal size at ${percent(best)}; moved ${Math.round(z * 100)}% of the way, as far as the model is sure`,
    margin: withinHistory(from.margin + z * (best - from.margin), base, settings),
    credibility: z,
    marginError,
    marginSlope,
    sampleCredibility: credibility(winModel.nEff, settings.credibilityK),
  };
}

/** Scarce stock earns margin: more when there is none at all than when it is merely low. */
export function stockPremium(
  from: MarginSoFar,
  base: LineBase,
  product: PricingProduct,
  settings: PricingSettings,
): ReasonStep | undefined {
  const onHand = product.stockOnHand;
  if (product.inStock === false || (onHand !== undefined && onHand <= 0)) {
    return premium(from, base, settings, settings.outOfStockBps, 'Out of stock');
  }
  if (onHand !== undefined && onHand <= settings.lowStockUnits) {
    return premium(from, base, settings, settings.lowStockBps, `Low stock (${amount(onHand)} on hand)`);
  }
  return undefined;
}

function premium(from: MarginSoFar, base: LineBase, settings: PricingSettings, premiumBps: number, why: string): ReasonStep {
  return {
    param: 'stock',
    scope: 'product',
    label: `${why}: ${points(premiumBps)} points up`,
    margin: withinHistory(from.margin + premiumBps / 10_000, base, settings),
  };
}
