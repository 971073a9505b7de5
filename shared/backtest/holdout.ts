// Pricing the holdout: what the engine, fitted at the cut-off, would have quoted for each scored line, in the base currency.
import { conversionFactor } from '#shared/pricing/currency.ts';
import type { PricingSettings } from '#shared/pricing/settings.ts';
import { enginePrice, type LineBands } from './engine.ts';
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
