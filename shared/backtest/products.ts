// The product recommendations as the bands job would have made them at the cut-off, judged on the quotes that came after it.
import { lineMargin } from '#shared/pricing/bands.ts';
import type { PricingSettings } from '#shared/pricing/settings.ts';
import type { PricingSnapshot, ProductView } from '#shared/prices/inputs.ts';
import { recommendProduct } from '#shared/recommendations/recommend.ts';
import { bandsForLine, type EngineState, engineWinProbability, type WinModel, workspaceWinProbability } from './engine.ts';
import { type BacktestProduct, listMarkupOf, toBaseFactor } from './holdout.ts';
import type { BacktestLine } from './split.ts';

/** A recommendation earning less than the current price by more than this share is counted as losing. */
export const LOSS_TOLERANCE = 0.005;
const GRID_STEPS = 200;

export interface ProductFigures {
  /** Products with a won or lost quote after the cut-off that the engine could price. */
  readonly products: number;
  /** Σ expected margin at the recommendations, and at the current prices, over Σ at the best single price per product. */
  readonly recommendationShare: number;
  readonly currentShare: number;
  /** Share of products whose recommendation earns less than their current price by more than 0.5%. */
  readonly losingShare: number;
  /** Share of products whose recommendation is their current price. */
  readonly keptShare: number;
}

interface Fit {
  readonly engine: EngineState;
  readonly fallback: WinModel | undefined;
  readonly trainingWinRate: number;
}

/** The snapshot the bands job would have read at the cut-off: today's products with the bands fitted then. */
function snapshotAt(
  engine: EngineState,
  products: ReadonlyMap<string, BacktestProduct>,
  categoryOf: ReadonlyMap<string, string>,
): PricingSnapshot {
  const views = new Map<string, ProductView>();
  for (const [sku, category] of categoryOf) {
    const product = products.get(sku);
    if (!product) continue;
    views.set(sku, { ...product, category, segmentBands: engine.categories.get(category)?.segmentSkus.get(sku) ?? new Map() });
  }
  return {
    products: views,
    skuByExternalId: new Map(),
    customers: new Map(),
    categoryBands: new Map(
      [...engine.categories].map(([category, bands]) => [category, { category, band: bands.category, segments: bands.segments }]),
    ),
    customerBands: new Map(),
    workspaceBand: engine.workspaceBand,
    ...(engine.winLifts ? { workspaceWinLifts: engine.winLifts } : {}),
    rates: new Map(),
  };
}

/**
 * A price's expected margin over a product's scored quote lines, in base minor units: each line at the price scaled by
 * its cost over today's cost (as the holdout scales bounds), by the fitted model's chance of winning it there.
 */
function expectedMargin(fit: Fit, lines: readonly BacktestLine[], product: BacktestProduct, priceCents: number, baseCurrency: string) {
  const listMarkup = listMarkupOf(product);
  let total = 0;
  for (const line of lines) {
    const price = (priceCents * line.costCents) / product.costCents;
    const margin = (price - line.costCents) / price;
    const own = engineWinProbability(bandsForLine(fit.engine, line), line, margin, listMarkup);
    const p = own ?? (fit.fallback ? workspaceWinProbability(fit.fallback, margin) : fit.trainingWinRate);
    total += (price - line.costCents) * line.quantity * (toBaseFactor(line, baseCurrency) ?? 0) * p;
  }
  return total;
}

/** The prices the guardrails allow a product (the lower bounds, MAP included, win over the ceiling and max change). */
function allowed(product: BacktestProduct, settings: PricingSettings): [number, number] {
  const lower = Math.max(product.costCents / (1 - settings.minMarginPct / 100), product.floorCents ?? 0, product.mapCents ?? 0);
  const share = settings.maxChangePct / 100;
  const ceiling = product.ceilingCents ?? Number.POSITIVE_INFINITY;
  const low = Math.max(lower, Math.min(product.currentPriceCents * (1 - share), ceiling));
  return [low, Math.max(low, Math.min(ceiling, product.currentPriceCents * (1 + share)))];
}

function bestMargin(value: (price: number) => number, [lo, hi]: [number, number]): number {
  let best = value(lo);
  for (let i = 1; i <= GRID_STEPS; i++) best = Math.max(best, value(lo + ((hi - lo) * i) / GRID_STEPS));
  return best;
}

/**
 * Each product with scored quotes after the cut-off: its recommendation at the cut-off, its current price and the best
 * single price within its guardrails, each judged by the expected margin over those quotes under the model fitted at
 * the cut-off (the only curve the backtest has: the figures say how the recommendation uses the engine's own evidence,
 * on buyers it had not seen, not how the truth would answer). Undefined when no product can be scored.
 */
export function scoreProducts(
  fit: Fit & { readonly cutoffMs: number },
  holdout: readonly BacktestLine[],
  products: ReadonlyMap<string, BacktestProduct>,
  options: { readonly settings: PricingSettings; readonly baseCurrency: string },
): ProductFigures | undefined {
  const bySku = new Map<string, BacktestLine[]>();
  for (const line of holdout) {
    const product = products.get(line.productSku);
    if (!product || !(product.costCents > 0) || !(product.currentPriceCents > 0)) continue;
    if (lineMargin(line) === undefined || toBaseFactor(line, options.baseCurrency) === undefined) continue;
    bySku.set(line.productSku, [...(bySku.get(line.productSku) ?? []), line]);
  }
  if (bySku.size === 0) return undefined;
  const categoryOf = new Map([...bySku].map(([sku, lines]) => [sku, (lines[0] as BacktestLine).category]));
  const snapshot = snapshotAt(fit.engine, products, categoryOf);
  const context = { baseCurrency: options.baseCurrency, settings: options.settings, nowMs: fit.cutoffMs, decisionId: () => 'pd_backtest' };
  let recommended = 0;
  let current = 0;
  let best = 0;
  let losing = 0;
  let kept = 0;
  for (const [sku, lines] of bySku) {
    const product = products.get(sku) as BacktestProduct;
    const recommendation = recommendProduct(snapshot.products.get(sku) as ProductView, snapshot, context);
    const price = recommendation.status === 'priced' ? recommendation.recommendedPriceCents : product.currentPriceCents;
    const value = (at: number) => expectedMargin(fit, lines, product, at, options.baseCurrency);
    const atRecommended = value(price);
    const atCurrent = value(product.currentPriceCents);
    recommended += atRecommended;
    current += atCurrent;
    best += Math.max(bestMargin(value, allowed(product, options.settings)), atRecommended, atCurrent);
    if (atRecommended < atCurrent - LOSS_TOLERANCE * Math.abs(atCurrent)) losing += 1;
    if (price === product.currentPriceCents) kept += 1;
  }
  return {
    products: bySku.size,
    recommendationShare: best > 0 ? recommended / best : 1,
    currentShare: best > 0 ? current / best : 1,
    losingShare: losing / bySku.size,
    keptShare: kept / bySku.size,
  };
}
