// The quality bench's reference pricers beside the engine: a per-cell logistic fit, and the true curve of each cell now and at mid-year.
import type { HistoryLine } from '#shared/pricing/model.ts';
import type { Deal, Market } from './market.ts';
import { expectedProfit, oraclePrice, type PriceBounds } from './oracle.ts';

/** A logistic curve of win on margin: P(win) = σ(intercept + slope × margin). */
export interface MarginCurve {
  readonly intercept: number;
  readonly slope: number;
}

/** Fewest closed quotes, and of wins and of losses each, for a cell's own fit; below them it borrows a wider one. */
export const CELL_FIT_MIN_QUOTES = 30;
const CELL_FIT_MIN_EACH = 5;

const sigmoid = (z: number) => (z >= 0 ? 1 / (1 + Math.exp(-z)) : Math.exp(z) / (1 + Math.exp(z)));

/**
 * Plain logistic regression of win on margin (Newton's method, unweighted, no prior): what an analyst would fit first.
 * Undefined when the quotes are too few, all one outcome, or do not show winning falling with margin (a slope under
 * two standard errors below zero), since a flat fit would price every line at its highest bound.
 */
export function fitMarginCurve(quotes: readonly { margin: number; won: boolean }[]): MarginCurve | undefined {
  const wins = quotes.filter((quote) => quote.won).length;
  if (quotes.length < CELL_FIT_MIN_QUOTES || wins < CELL_FIT_MIN_EACH || quotes.length - wins < CELL_FIT_MIN_EACH) {
    return undefined;
  }
  let a = 0;
  let b = 0;
  let slopeVariance = Number.POSITIVE_INFINITY;
  for (let iteration = 0; iteration < 50; iteration++) {
    let ga = 0;
    let gb = 0;
    let haa = 0;
    let hab = 0;
    let hbb = 0;
    for (const { margin, won } of quotes) {
      const p = sigmoid(a + b * margin);
      const w = p * (1 - p);
      ga += (won ? 1 : 0) - p;
      gb += ((won ? 1 : 0) - p) * margin;
      haa += w;
      hab += w * margin;
      hbb += w * margin * margin;
    }
    const det = haa * hbb - hab * hab;
    if (!(det > 1e-12)) return undefined;
    slopeVariance = haa / det;
    const da = (hbb * ga - hab * gb) / det;
    const db = (haa * gb - hab * ga) / det;
    a += da;
    b += db;
    if (!Number.isFinite(a) || !Number.isFinite(b)) return undefined;
    if (Math.abs(da) + Math.abs(db) < 1e-9) break;
  }
  return b < -2 * Math.sqrt(slopeVariance) ? { intercept: a, slope: b } : undefined;
}

/** The whole-cent price within the bounds that maximises (price − cost) × P(win) under `curve`. */
export function curvePrice(curve: MarginCurve, costCents: number, bounds: PriceBounds): number {
  const profit = (price: number) => (price - costCents) * sigmoid(curve.intercept + (curve.slope * (price - costCents)) / price);
  const span = bounds.highCents - bounds.lowCents;
  const step = Math.max(1, Math.floor(span / 200));
  let best = bounds.lowCents;
  for (let price = bounds.lowCents; price <= bounds.highCents; price += step) if (profit(price) > profit(best)) best = price;
  const top = Math.min(bounds.highCents, best + step);
  for (let price = Math.max(bounds.lowCents, best - step); price <= top; price++) if (profit(price) > profit(best)) best = price;
  return profit(bounds.highCents) > profit(best) ? bounds.highCents : best;
}

/**
 * The per-cell logistic baseline: a margin curve fitted on each segment × category's closed quotes, falling back to
 * the category's (all segments), then to the whole history's, when a cell's own quotes cannot carry a fit; with no
 * fit anywhere, undefined (the caller prices at the segment's median margin).
 */
export function cellLogisticPricer(
  market: Market,
  lines: ReadonlyMap<string, readonly HistoryLine[]>,
): (deal: Deal, bounds: PriceBounds) => number | undefined {
  const closed = (from: readonly HistoryLine[]) =>
    from
      .filter((line) => line.kind === 'quote' && (line.outcome === 'won' || line.outcome === 'lost'))
      .map((line) => ({ margin: (line.priceCents - line.costCents) / line.priceCents, won: line.outcome === 'won' }));
  const overall = fitMarginCurve(closed([...lines.values()].flat()));
  const byCategory = new Map([...lines].map(([category, categoryLines]) => [category, fitMarginCurve(closed(categoryLines))]));
  const byCell = new Map<string, MarginCurve | undefined>();
  for (const [category, categoryLines] of lines) {
    for (const segment of market.segments) {
      const cell = categoryLines.filter((line) => line.segment === segment);
      byCell.set(`${segment}\u0000${category}`, fitMarginCurve(closed(cell)));
    }
  }
  return (deal, bounds) => {
    const category = market.categories[deal.product.category] as string;
    const segment = market.segments[deal.customer.segment] as string;
    const curve = byCell.get(`${segment}\u0000${category}`) ?? byCategory.get(category) ?? overall;
    return curve ? curvePrice(curve, deal.product.costCents, bounds) : undefined;
  };
}

/**
 * The expected profit of pricing at the oracle of the cell's true curve (the average customer, the product's typical
 * quantity) at `yearsAgo`: now, what a perfect fit of each segment × category curve would earn; at mid-year, what a
 * perfect fit that ignores time could earn at best.
 */
export function cellCurveProfit(market: Market, deal: Deal, bounds: PriceBounds, yearsAgo: number): number {
  const typical: Deal = { ...deal, customer: { ...deal.customer, effect: 0 }, quantity: deal.product.quantity, yearsAgo };
  return expectedProfit(market, deal, oraclePrice(market, typical, bounds).priceCents);
}
