// The product-level score: one price per product for all its buyers, against the best single price and the current one.
import { type Deal, type Market, type SimProduct, trueWinProbability } from './market.ts';
import type { PriceBounds } from './oracle.ts';

const MAX_CHANGE = 0.25;
const COARSE_POINTS = 400;
/** A recommendation earning less than the current price by more than this share loses the seller money. */
export const LOSS_TOLERANCE = 0.005;

/** One product scored: what its recommendation, its current price and the best single price earn under the truth. */
export interface ScoredProduct {
  readonly sku: string;
  readonly recommendedPriceCents: number;
  readonly bestPriceCents: number;
  readonly recommended: number;
  readonly current: number;
  readonly best: number;
}

/**
 * The bounds a product's recommendation keeps: the engine's guardrails with default settings, MAP included (the
 * recommendation is shown to anyone): cost, floor and MAP below, the ceiling above, ±25% of list.
 */
export function productBounds(product: SimProduct): PriceBounds {
  const lower = Math.max(product.costCents, product.floorCents ?? 0, product.mapCents ?? 0);
  const ceiling = product.ceilingCents ?? Number.POSITIVE_INFINITY;
  const low = Math.max(lower, Math.min(product.listCents * (1 - MAX_CHANGE), ceiling));
  const high = Math.max(lower, Math.min(product.listCents * (1 + MAX_CHANGE), ceiling));
  const lowCents = Math.ceil(low);
  return { lowCents, highCents: Math.max(lowCents, Math.floor(high)) };
}

/**
 * Expected profit of one price for a product over its buyers: every customer, weighted by how often it asks for
 * quotes (the market draws customers and products apart), at the product's typical quantity, today.
 */
export function productProfit(market: Market, product: SimProduct, priceCents: number): number {
  let total = 0;
  for (const customer of market.customers) {
    const deal: Deal = { product, customer, quantity: product.quantity, yearsAgo: 0 };
    total += customer.activity * (priceCents - product.costCents) * trueWinProbability(market, deal, priceCents) * product.quantity;
  }
  return total;
}

/** The whole-cent price within the bounds with the highest expected profit over the product's buyers. */
export function bestSinglePrice(market: Market, product: SimProduct, bounds: PriceBounds): { priceCents: number; profit: number } {
  const { lowCents, highCents } = bounds;
  const step = Math.max(1, Math.floor((highCents - lowCents) / COARSE_POINTS));
  let best = lowCents;
  let bestProfit = productProfit(market, product, lowCents);
  for (let price = lowCents; price <= highCents; price += step) {
    const profit = productProfit(market, product, price);
    if (profit > bestProfit) [best, bestProfit] = [price, profit];
  }
  for (let price = Math.max(lowCents, best - 2 * step); price <= Math.min(highCents, best + 2 * step); price++) {
    const profit = productProfit(market, product, price);
    if (profit > bestProfit) [best, bestProfit] = [price, profit];
  }
  const top = productProfit(market, product, highCents);
  return top > bestProfit ? { priceCents: highCents, profit: top } : { priceCents: best, profit: bestProfit };
}

/** Each product's recommendation scored; a product without one (refused) earns what its current price does. */
export function scoreProducts(market: Market, recommended: ReadonlyMap<string, number>): ScoredProduct[] {
  return market.products.map((product) => {
    const best = bestSinglePrice(market, product, productBounds(product));
    const current = productProfit(market, product, product.listCents);
    const price = recommended.get(product.sku) ?? product.listCents;
    return {
      sku: product.sku,
      recommendedPriceCents: price,
      bestPriceCents: best.priceCents,
      recommended: productProfit(market, product, price),
      current,
      best: best.profit,
    };
  });
}

/** A market's product figures: shares of the best single prices' profit, and the share of products the recommendation loses on. */
export function productFigures(products: readonly ScoredProduct[]): { share: number; currentShare: number; losers: number } {
  const best = products.reduce((sum, product) => sum + product.best, 0);
  const of = (pick: (product: ScoredProduct) => number) =>
    best > 0 ? products.reduce((sum, product) => sum + pick(product), 0) / best : 1;
  const losing = products.filter((product) => product.recommended < product.current * (1 - LOSS_TOLERANCE)).length;
  return {
    share: of((product) => product.recommended),
    currentShare: of((product) => product.current),
    losers: products.length > 0 ? losing / products.length : 0,
  };
}
