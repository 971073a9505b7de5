// The oracle: the bounds a price must keep, the expected profit of a price under the truth, and the best whole-cent price.
import { type Deal, type Market, trueWinProbability } from './market.ts';

/** The engine's own guardrails for an erp key with default settings: cost (0% minimum margin), floor, ceiling, ±25% of list. */
export interface PriceBounds {
  readonly lowCents: number;
  readonly highCents: number;
}

const MAX_CHANGE = 0.25;

export function priceBounds(deal: Deal): PriceBounds {
  const { product } = deal;
  const lower = Math.max(product.costCents, product.floorCents ?? 0);
  const ceiling = product.ceilingCents ?? Number.POSITIVE_INFINITY;
  // As the guardrails do: within ±25% of list, under the ceiling, and never below the lower bounds, which win.
  const low = Math.max(lower, Math.min(product.listCents * (1 - MAX_CHANGE), ceiling));
  const high = Math.max(lower, Math.min(product.listCents * (1 + MAX_CHANGE), ceiling));
  const lowCents = Math.ceil(low);
  return { lowCents, highCents: Math.max(lowCents, Math.floor(high)) };
}

export function clampToBounds(priceCents: number, bounds: PriceBounds): number {
  return Math.min(Math.max(Math.round(priceCents), bounds.lowCents), bounds.highCents);
}

export function expectedProfit(market: Market, deal: Deal, priceCents: number): number {
  return (priceCents - deal.product.costCents) * trueWinProbability(market, deal, priceCents) * deal.quantity;
}

const COARSE_POINTS = 400;

/** The whole-cent price within the bounds with the highest expected profit: a coarse scan, then every cent near its best. */
export function oraclePrice(market: Market, deal: Deal, bounds: PriceBounds): { priceCents: number; profit: number } {
  const { lowCents, highCents } = bounds;
  const span = highCents - lowCents;
  const step = Math.max(1, Math.floor(span / COARSE_POINTS));
  let best = lowCents;
  let bestProfit = expectedProfit(market, deal, lowCents);
  for (let price = lowCents; price <= highCents; price += step) {
    const profit = expectedProfit(market, deal, price);
    if (profit > bestProfit) {
      best = price;
      bestProfit = profit;
    }
  }
  const from = Math.max(lowCents, best - 2 * step);
  const to = Math.min(highCents, best + 2 * step);
  for (let price = from; price <= to; price++) {
    const profit = expectedProfit(market, deal, price);
    if (profit > bestProfit) {
      best = price;
      bestProfit = profit;
    }
  }
  const top = expectedProfit(market, deal, highCents);
  if (top > bestProfit) return { priceCents: highCents, profit: top };
  return { priceCents: best, profit: bestProfit };
}
