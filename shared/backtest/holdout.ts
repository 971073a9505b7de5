// Pricing the holdout: what the engine, fitted at the cut-off, would have quoted for each scored line, in the base currency.
import { conversionFactor } from '#shared/pricing/currency.ts';
import type { PricingSettings } from '#shared/pricing/settings.ts';
import {
  bandsForLine,
  enginePrice,
  type EngineState,
  engineWinProbability,
  type LineBands,
  type WinModel,
  workspaceWinProbability,
} from './engine.ts';
import { lineMargin } from '#shared/pricing/bands.ts';
import type { WinModelLevel } from './report.ts';
import type { BacktestLine } from './split.ts';

/** The product as it stands today: the engine's bounds (list price, floor, ceiling, MAP) come from it. */
export interface BacktestProduct {
  readonly sku: string;
  readonly costCents: number;
  readonly currentPriceCents: number;
  readonly floorCents?: number;
  readonly ceilingCents?: number;
  readonly mapCents?: number;
}

/** A scored line: its outcome and what the fitted model said of it, at the price quoted and at the service's. */
export interface ScoredLine {
  readonly quoteId: string;
  /** When its quote was created: calibration over time groups by it. */
  readonly atMs: number;
  readonly won: boolean;
  readonly level: WinModelLevel;
  readonly quotedMargin: number;
  /** P(win) at the price quoted. */
  readonly quotedProbability: number;
  readonly priced?: {
    readonly serviceMargin: number;
    readonly serviceProbability: number;
    /** (price − cost) × quantity in base minor units: the margin a win at that price earns. */
    readonly quotedProfit: number;
    readonly serviceProfit: number;
  };
}

/** The product's list price over its cost, today; undefined when either is unknown. */
export function listMarkupOf(product: BacktestProduct | undefined): number | undefined {
  return product && product.costCents > 0 && product.currentPriceCents > 0 ? product.currentPriceCents / product.costCents : undefined;
}

/** Minor units of the base currency per minor unit of the line's currency; undefined without a usable rate. */
export function toBaseFactor(line: BacktestLine, baseCurrency: string): number | undefined {
  const currency = line.currency || baseCurrency;
  if (currency === baseCurrency) return 1;
  if (!(line.exchangeRate !== undefined && line.exchangeRate > 0)) return undefined;
  return conversionFactor({ currency, rate: line.exchangeRate }, { currency: baseCurrency, rate: 1 });
}

/**
 * What the engine would have quoted for a scored line, with bands as they stood at the cut-off. The product's bounds are
 * today's (history keeps no list price), scaled by the line's cost over today's cost: that puts them in the line's
 * currency and keeps their ratio to cost. Stock is left out: history does not say what was on hand then.
 */
export function servicePrice(
  line: BacktestLine,
  product: BacktestProduct,
  deal: { readonly valueCents: number; readonly quantity: number },
  bands: LineBands,
  settings: PricingSettings,
  currency: string,
): number {
  const scale = line.costCents / product.costCents;
  const bounds = {
    ...(product.floorCents === undefined ? {} : { floorCents: product.floorCents * scale }),
    ...(product.ceilingCents === undefined ? {} : { ceilingCents: product.ceilingCents * scale }),
    ...(product.mapCents === undefined ? {} : { mapCents: product.mapCents * scale }),
  };
  const priced = enginePrice(
    {
      product: { sku: product.sku, costCents: line.costCents, currentPriceCents: product.currentPriceCents * scale, ...bounds },
      currency,
      hasCustomer: line.customerExternalId !== undefined,
      quantity: line.quantity,
      orderValueCents: deal.valueCents,
      orderTotalQuantity: deal.quantity,
      enforceMap: settings.enforceMapForErp,
      nowMs: line.atMs,
    },
    bands,
    settings,
  );
  return priced.priceCents;
}

const PROGRESS_EVERY = 1000;

/** The models fitted at the cut-off that the holdout is scored with. */
export interface HoldoutModels {
  readonly engine: EngineState;
  readonly fallback: WinModel | undefined;
  readonly trainingWinRate: number;
}

/** What scoring the holdout reads of the backtest's options. */
export interface HoldoutOptions {
  readonly settings: PricingSettings;
  readonly baseCurrency: string;
  readonly onProgress?: (done: number, total: number) => void;
}

export type Unpriced = Record<'unknown_product' | 'no_cost_basis' | 'no_exchange_rate', number>;

/** Each holdout line scored: the fitted model's chance at the price quoted, and, where the engine can price it, at its price. */
export function scoreHoldout(
  holdout: readonly BacktestLine[],
  fitted: HoldoutModels,
  products: ReadonlyMap<string, BacktestProduct>,
  options: HoldoutOptions,
): { scored: ScoredLine[]; unpriced: Unpriced } {
  const deals = new Map<string, { valueCents: number; quantity: number }>();
  for (const line of holdout) {
    const deal = deals.get(line.documentId) ?? { valueCents: 0, quantity: 0 };
    deal.valueCents += line.priceCents * line.quantity;
    deal.quantity += line.quantity;
    deals.set(line.documentId, deal);
  }
  const unpriced = { unknown_product: 0, no_cost_basis: 0, no_exchange_rate: 0 };
  const scored: ScoredLine[] = [];
  holdout.forEach((line, index) => {
    if ((index + 1) % PROGRESS_EVERY === 0 || index + 1 === holdout.length) options.onProgress?.(index + 1, holdout.length);
    const one = scoreLine(fitted, line, products, deals, unpriced, options);
    if (one) scored.push(one);
  });
  return { scored, unpriced };
}

function scoreLine(
  fitted: HoldoutModels,
  line: BacktestLine,
  products: ReadonlyMap<string, BacktestProduct>,
  deals: ReadonlyMap<string, { valueCents: number; quantity: number }>,
  unpriced: Unpriced,
  options: HoldoutOptions,
): ScoredLine | undefined {
  const { engine, fallback, trainingWinRate } = fitted;
  const quotedMargin = lineMargin(line);
  if (quotedMargin === undefined) {
    unpriced.no_cost_basis += 1;
    return undefined;
  }
  const bands = bandsForLine(engine, line);
  const product = products.get(line.productSku);
  const listMarkup = listMarkupOf(product);
  // The engine's own model where it has one; else the workspace's; else the win rate.
  const probability = (margin: number): { p: number; level: WinModelLevel } => {
    const own = engineWinProbability(bands, line, margin, listMarkup);
    if (own !== undefined) return { p: own, level: 'engine' };
    if (fallback) return { p: workspaceWinProbability(fallback, margin), level: 'workspace' };
    return { p: trainingWinRate, level: 'base_rate' };
  };
  const quoted = probability(quotedMargin);
  const base = {
    quoteId: line.documentId,
    atMs: line.atMs,
    won: line.outcome === 'won',
    level: quoted.level,
    quotedMargin,
    quotedProbability: quoted.p,
  };
  const factor = toBaseFactor(line, options.baseCurrency);
  if (!product) unpriced.unknown_product += 1;
  else if (!(product.costCents > 0)) unpriced.no_cost_basis += 1;
  else if (factor === undefined) unpriced.no_exchange_rate += 1;
  if (!product || !(product.costCents > 0) || factor === undefined) return base;
  const price = servicePrice(
    line,
    product,
    deals.get(line.documentId) as { valueCents: number; quantity: number },
    bands,
    options.settings,
    line.currency || options.baseCurrency,
  );
  const serviceMargin = (price - line.costCents) / price;
  return {
    ...base,
    priced: {
      serviceMargin,
      serviceProbability: probability(serviceMargin).p,
      quotedProfit: (line.priceCents - line.costCents) * line.quantity * factor,
      serviceProfit: (price - line.costCents) * line.quantity * factor,
    },
  };
}
