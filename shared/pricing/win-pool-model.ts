// The pooled win model's vocabulary: the samples it reads, the feature its curves are drawn in, the fit it gives, and that fit's chance of winning a quote.
/** One closed quote line as the pooled fit reads it. */
export interface PooledWinSample {
  /** The quote the line belongs to: the threshold counts quotes, not lines. */
  readonly quoteId: string;
  readonly segment: string;
  readonly productSku: string;
  readonly customerExternalId: string | undefined;
  readonly margin: number;
  /** The product's list price over its cost, today; undefined when unknown. */
  readonly listMarkup: number | undefined;
  /** The line's quantity over the reference quantity of its segment × SKU (1 when unknown). */
  readonly relativeQuantity: number;
  readonly won: boolean;
  /** Recency weight. */
  readonly weight: number;
  /** The quote's age at the fit, in years: a trend in it lets the curve speak of today, not of the history's average day. */
  readonly ageYears: number;
}

/**
 * What the curve is a function of: the margin, or the log of the price over the list price. Buyers who compare with a
 * catalogue see the second; buyers who know the seller's costs, or whose rivals share them, the first. The data choose.
 */
export type WinFeature = 'margin' | 'list';

/** The curve's variable for a line at margin m, with its product's list markup (list / cost). */
export function featureValue(feature: WinFeature, margin: number, listMarkup: number | undefined): number {
  if (feature === 'margin') return margin;
  return -Math.log(1 - margin) - Math.log(listMarkup ?? 1);
}

/** The margin at which the curve's variable takes the value x: featureValue's inverse. */
export function marginAt(feature: WinFeature, x: number, listMarkup: number | undefined): number {
  if (feature === 'margin') return x;
  return 1 - 1 / ((listMarkup ?? 1) * Math.exp(x));
}

/**
 * One segment's curve: logit P(win) = intercept + slope · x + bend · max(0, x − knot)
 * + quantitySlope · log2(relative quantity) + offsets.
 */
export interface SegmentWinCurve {
  readonly intercept: number;
  readonly slope: number;
  /** The change of slope past the knot: 0 for a straight curve. */
  readonly bend: number;
  readonly knot: number;
  readonly quantitySlope: number;
  /** The segment's own closed quote lines. */
  readonly closedQuotes: number;
  /** The curve's variable, where it is the segment's own: buyers of one segment may compare with list, others not. */
  readonly feature?: WinFeature;
  /** Where that variable's quotes lie (5th and 95th percentiles) and their weighted mean, when the segment's feature is its own. */
  readonly supportLow?: number;
  readonly supportHigh?: number;
  readonly centroid?: number;
  /** The standard error of the curve's level today (its logit at the centroid, trend extrapolated to age 0). */
  readonly levelSe?: number;
}

/** What one category's closed quotes say about winning, for every segment, SKU (by segment) and customer in it. */
export interface PooledWinFit {
  readonly segments: ReadonlyMap<string, SegmentWinCurve>;
  /** The curve of a segment with no quotes of its own: the category's. */
  readonly category: SegmentWinCurve;
  /** segment → sku → logit offset. */
  readonly skuOffsets: ReadonlyMap<string, ReadonlyMap<string, number>>;
  /** customer → logit offset. */
  readonly customerOffsets: ReadonlyMap<string, number>;
  /** Distinct closed quotes and their effective sample size, for the model's credibility. */
  readonly closedQuotes: number;
  readonly nEff: number;
  readonly feature: WinFeature;
  /** The bend's coefficient (0 for a straight curve). */
  readonly bend: number;
  /** The values of x the quotes span (weighted 5th and 95th percentiles): the model is trusted near them, not far beyond. */
  readonly supportLow: number;
  readonly supportHigh: number;
  /** The spread of the offsets the data bore out (empirical Bayes standard deviations), for the record. */
  readonly customerSd: number;
  readonly skuSd: number;
  /** The standard error of the category's slope: how sure the fit is that price moves the chance of winning. */
  readonly slopeSe: number;
  /** The standard error of the quantity slope, which pooling across categories weighs. */
  readonly quantitySlopeSe: number;
  /** The category's own slope and the weighted mean of its quotes' x, where pooling across categories pivots it. */
  readonly categorySlope: number;
  readonly centroid: number;
  /**
   * Each segment's log-likelihood gain of the curve in price over list over the curve in margin: summed across a
   * workspace's categories, it says which of the two a segment's buyers answer to.
   */
  readonly listGain?: ReadonlyMap<string, number>;
  /** The same quotes fitted in the other feature: each segment's curve there, the category's, and its slope's standard error. */
  readonly alternative?: {
    readonly segments: ReadonlyMap<string, SegmentWinCurve>;
    readonly category: SegmentWinCurve;
    readonly slopeSe: number;
  };
}

/** A quote to predict. */
export interface WinQuery {
  readonly segment: string;
  readonly productSku: string;
  readonly customerExternalId: string | undefined;
  readonly margin: number;
  readonly listMarkup: number | undefined;
  readonly relativeQuantity: number;
}

/** The logistic function, written so that neither branch overflows. */
export const sigmoid = (z: number) => (z >= 0 ? 1 / (1 + Math.exp(-z)) : Math.exp(z) / (1 + Math.exp(z)));

/** logit P(win) of a curve at a value of its feature, with the offsets of the customer and SKU. */
export function curveLogit(curve: SegmentWinCurve, x: number, relativeQuantity: number, offset: number): number {
  return (
    curve.intercept +
    curve.slope * x +
    curve.bend * Math.max(0, x - curve.knot) +
    curve.quantitySlope * Math.log2(Math.max(relativeQuantity, 1e-6)) +
    offset
  );
}

/** The pooled model's chance of winning one quote. */
export function pooledWinProbability(fit: PooledWinFit, quote: WinQuery): number {
  const curve = fit.segments.get(quote.segment) ?? fit.category;
  const offset =
    (fit.skuOffsets.get(quote.segment)?.get(quote.productSku) ?? 0) +
    (quote.customerExternalId === undefined ? 0 : (fit.customerOffsets.get(quote.customerExternalId) ?? 0));
  return sigmoid(
    curveLogit(curve, featureValue(curve.feature ?? fit.feature, quote.margin, quote.listMarkup), quote.relativeQuantity, offset),
  );
}
