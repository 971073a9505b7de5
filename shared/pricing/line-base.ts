// The base of a line's price: the segment chain's bands shrunk into one target, or the list price without history.
import type { Band, LineBands, LineInputs, ReasonScope } from './model.ts';
import { money, percent, type ReasonStep } from './reason-stack.ts';
import type { PricingSettings } from './settings.ts';
import { clamp, credibility, shrink } from './shrinkage.ts';

/** Where the base came from, and what it is. */
export interface LineBase {
  /** Shrunk floor, target and stretch margins, clamped to the history margin range. */
  readonly floor: number;
  readonly target: number;
  readonly stretch: number;
  /** The most specific band of the segment chain; undefined with no history, when the base is the list price. */
  readonly node: Band | undefined;
  /** 0 segment × SKU, 1 segment × category, 2 category, 3 workspace, 4 list price. */
  readonly depth: number;
  readonly scope: ReasonScope;
  /** The base price, a whole number of minor units, and its margin: the reference the reason stack starts from. */
  readonly priceCents: number;
  readonly margin: number;
}

const nodeNames = ['this SKU in the segment', 'the segment in this category', 'the category', 'the workspace', 'the list price'] as const;

/**
 * Shrinks the segment chain from its most general present band down to its most specific one, and rounds the base to
 * a whole price: its margin, not the raw target, is the base, so that with no history and no move the price is exactly
 * the list price.
 */
export function lineBase(inputs: LineInputs, bands: LineBands, settings: PricingSettings): LineBase {
  const { costCents: cost, currentPriceCents: listPrice } = inputs.product;
  const lo = settings.minHistoryMarginPct / 100;
  const hi = settings.maxHistoryMarginPct / 100;
  let node: Band | undefined;
  let floor = 0;
  let target = 0;
  let stretch = 0;
  for (const band of [bands.workspace, bands.category, bands.segmentCategory, bands.segmentSku]) {
    if (!band) continue;
    if (node) {
      const z = credibility(band.nEff, settings.credibilityK);
      floor = shrink(z, band.floor, floor);
      target = shrink(z, band.target, target);
      stretch = shrink(z, band.stretch, stretch);
    } else {
      floor = band.floor;
      target = band.target;
      stretch = band.stretch;
    }
    node = band;
  }
  const depth = bands.segmentSku ? 0 : bands.segmentCategory ? 1 : bands.category ? 2 : bands.workspace ? 3 : 4;
  const scope: ReasonScope = depth <= 1 ? 'segment' : depth === 2 ? 'category' : depth === 3 ? 'workspace' : 'product';
  let priceCents: number;
  if (node) {
    floor = clamp(floor, lo, hi);
    target = clamp(target, lo, hi);
    stretch = clamp(stretch, lo, hi);
    priceCents = Math.min(Number.MAX_SAFE_INTEGER, Math.max(1, Math.round(cost / (1 - target))));
  } else {
    // The list price as it is, even outside the history margin range: that range filters evidence, and there is none.
    // Without a list price the base is cost at the lowest history margin, and min_margin takes it from there.
    priceCents = Math.min(Number.MAX_SAFE_INTEGER, Math.max(1, Math.round(listPrice > 0 ? listPrice : cost / (1 - lo))));
    target = (priceCents - cost) / priceCents;
    floor = target;
    stretch = target;
  }
  return { floor, target, stretch, node, depth, scope, priceCents, margin: (priceCents - cost) / priceCents };
}

/** The stack's first step: it moves nothing, and every later step is measured from it. */
export function baseStep(base: LineBase, listPrice: number, currency: string): ReasonStep {
  const { node, depth } = base;
  return {
    param: 'segment_target',
    scope: base.scope,
    label: node
      ? `Target margin ${percent(base.margin)} from ${nodeNames[depth]} (n_eff ${node.nEff.toFixed(1)})` +
        (depth < 3 ? ', shrunk toward broader history' : '')
      : `No history: the list price ${money(listPrice, currency)} at ${percent(base.margin)} margin`,
    margin: base.margin,
  };
}
