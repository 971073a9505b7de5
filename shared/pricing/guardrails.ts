// The guardrails, clamping in price space after the margin steps, and the rounding that keeps the price within them.
import type { MarginSoFar } from './adjustments.ts';
import type { LineBase } from './line-base.ts';
import type { Guardrail, LineInputs, PricingProduct, ReasonScope } from './model.ts';
import { money, type ReasonStep } from './reason-stack.ts';
import type { PricingSettings } from './settings.ts';

/** A guardrail's clamp: its step in the stack, and the price it set. */
interface Clamp extends ReasonStep {
  readonly param: Guardrail;
  readonly price: number;
  /**
   * A max-change clamp whose move another bound stopped short (the floor under the band it asked for, say): that bound
   * is the one the price sits on, and the one a person is told binds.
   */
  readonly stoppedAt?: Guardrail;
}

/** A bound a max-change move can stop at: the guardrail that sets it, and how a label names it. */
interface Bound {
  readonly price: number;
  readonly guardrail: Guardrail;
  readonly words: string;
}

function clampTo(guardrail: Guardrail, to: number, cost: number, scope: ReasonScope, label: string): Clamp {
  return { param: guardrail, scope, label, margin: (to - cost) / to, clamp: true, price: to };
}

function minMargin(price: number, minMarginPrice: number, cost: number, minMarginPct: number): Clamp | undefined {
  if (price < minMarginPrice) {
    const label = minMarginPct === 0 ? 'Raised to cost: the minimum margin is 0%' : `Raised to the minimum margin of ${minMarginPct}%`;
    return clampTo('min_margin', minMarginPrice, cost, 'workspace', label);
  }
  return undefined;
}

function floor(price: number, floorCents: number | undefined, cost: number, currency: string): Clamp | undefined {
  if (floorCents !== undefined && price < floorCents) {
    return clampTo('floor', floorCents, cost, 'product', `Raised to the floor price ${money(floorCents, currency)}`);
  }
  return undefined;
}

function map(price: number, mapCents: number | undefined, cost: number, currency: string): Clamp | undefined {
  if (mapCents !== undefined && price < mapCents) {
    return clampTo('map', mapCents, cost, 'product', `Raised to the minimum advertised price ${money(mapCents, currency)}`);
  }
  return undefined;
}

/** Lower bounds win: a ceiling under them caps the price at them. */
function ceiling(price: number, ceilingCents: number | undefined, lower: number, cost: number, currency: string): Clamp | undefined {
  if (ceilingCents === undefined) return undefined;
  const cap = Math.max(ceilingCents, lower);
  if (price > cap) {
    const label =
      cap === ceilingCents
        ? `Capped at the ceiling price ${money(ceilingCents, currency)}`
        : `Capped at the lower bound ${money(cap, currency)}, above the ceiling price ${money(ceilingCents, currency)}`;
    return clampTo('ceiling', cap, cost, 'product', label);
  }
  return undefined;
}

/** The change allowed yields to the ceiling, and the lower bounds to nothing; where one stops it, the clamp says which. */
function maxChange(price: number, product: PricingProduct, lower: Bound, maxChangePct: number, currency: string): Clamp | undefined {
  const listPrice = product.currentPriceCents;
  if (listPrice > 0) {
    const share = maxChangePct / 100;
    const within = Math.min(Math.max(price, listPrice * (1 - share)), listPrice * (1 + share));
    const capped = product.ceilingCents === undefined ? within : Math.min(within, product.ceilingCents);
    const kept = Math.max(capped, lower.price);
    if (kept !== price) {
      const ceilingBound: Bound | undefined =
        product.ceilingCents === undefined
          ? undefined
          : { price: product.ceilingCents, guardrail: 'ceiling', words: `the ceiling price ${money(product.ceilingCents, currency)}` };
      const stopped = capped < lower.price ? lower : capped !== within ? ceilingBound : undefined;
      const clamp = clampTo(
        'max_change',
        kept,
        product.costCents,
        'product',
        `Kept within ${maxChangePct}% of the current price ${money(listPrice, currency)}${stopped ? `, stopped at ${stopped.words}` : ''}`,
      );
      return stopped ? { ...clamp, stoppedAt: stopped.guardrail } : clamp;
    }
  }
  return undefined;
}

export interface Guardrails {
  /** The price within the guardrails, not yet rounded. */
  readonly price: number;
  /** Each guardrail's clamp, in the order they apply; undefined where it let the price through. */
  readonly minMargin: Clamp | undefined;
  readonly floor: Clamp | undefined;
  readonly map: Clamp | undefined;
  readonly ceiling: Clamp | undefined;
  readonly maxChange: Clamp | undefined;
  readonly applied: Guardrail[];
  /** The highest lower bound (min margin, floor, and MAP where it applies), its margin, and it rounded up. */
  readonly lower: number;
  readonly lowerMargin: number;
  readonly lowestCents: number;
  readonly ceilingCents: number | undefined;
  /** The margin steps asked for less than the lower bound allows. */
  readonly askedBelowLower: boolean;
  /** Raised to the lowest change allowed, the price is bound from below as surely as by a floor. */
  readonly raisedByMaxChange: boolean;
}

export function guardrails(from: MarginSoFar, base: LineBase, inputs: LineInputs, settings: PricingSettings): Guardrails {
  const { product } = inputs;
  const cost = product.costCents;
  // Unmoved, the price stays the exact base price, so that no guardrail fires on float noise.
  const requested = from.margin === base.margin ? base.priceCents : cost / (1 - from.margin);
  const minMarginPrice = cost / (1 - settings.minMarginPct / 100);
  const mapCents = inputs.enforceMap ? product.mapCents : undefined;
  let bound: Bound = {
    price: minMarginPrice,
    guardrail: 'min_margin',
    words: settings.minMarginPct === 0 ? 'cost' : `the minimum margin of ${settings.minMarginPct}%`,
  };
  if (product.floorCents !== undefined && product.floorCents > bound.price) {
    bound = { price: product.floorCents, guardrail: 'floor', words: `the floor price ${money(product.floorCents, inputs.currency)}` };
  }
  if (mapCents !== undefined && mapCents > bound.price) {
    bound = { price: mapCents, guardrail: 'map', words: `the minimum advertised price ${money(mapCents, inputs.currency)}` };
  }
  const lower = bound.price;
  // Each guardrail sees the price the one before it left.
  const byMinMargin = minMargin(requested, minMarginPrice, cost, settings.minMarginPct);
  const afterMinMargin = byMinMargin ? byMinMargin.price : requested;
  const byFloor = floor(afterMinMargin, product.floorCents, cost, inputs.currency);
  const afterFloor = byFloor ? byFloor.price : afterMinMargin;
  const byMap = map(afterFloor, mapCents, cost, inputs.currency);
  const afterMap = byMap ? byMap.price : afterFloor;
  const byCeiling = ceiling(afterMap, product.ceilingCents, lower, cost, inputs.currency);
  const afterCeiling = byCeiling ? byCeiling.price : afterMap;
  const byMaxChange = maxChange(afterCeiling, product, bound, settings.maxChangePct, inputs.currency);
  const applied: Guardrail[] = [];
  if (byMinMargin) applied.push('min_margin');
  if (byFloor) applied.push('floor');
  if (byMap) applied.push('map');
  if (byCeiling) applied.push('ceiling');
  if (byMaxChange) applied.push('max_change');
  return {
    price: byMaxChange ? byMaxChange.price : afterCeiling,
    minMargin: byMinMargin,
    floor: byFloor,
    map: byMap,
    ceiling: byCeiling,
    maxChange: byMaxChange,
    applied,
    lower,
    lowerMargin: (lower - cost) / lower,
    lowestCents: Math.ceil(lower),
    ceilingCents: product.ceilingCents,
    askedBelowLower: lower > requested,
    raisedByMaxChange: byMaxChange !== undefined && byMaxChange.price > afterCeiling,
  };
}

/** Round last, keeping the bounds whole: up to the lower bound, down to a ceiling that the lower bound leaves room for. */
export function roundWithinBounds({ price, lower, lowestCents: lowest, ceilingCents: ceiling }: Guardrails): number {
  const rounded = Math.round(price);
  const raised = rounded < lower ? lowest : rounded;
  const capped = ceiling !== undefined && ceiling >= lower && raised > ceiling ? Math.max(Math.floor(ceiling), lowest) : raised;
  return Math.min(capped, Number.MAX_SAFE_INTEGER);
}
