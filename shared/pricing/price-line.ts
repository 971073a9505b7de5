// Pricing one line: the base from the shrunk bands, the reason stack in margin space, guardrails, confidence and explanation.
import type {
  Band,
  ConfidenceLabel,
  Driver,
  Guardrail,
  LineBands,
  LineInputs,
  PricedLine,
  ReasonEntry,
  ReasonScope,
  Stance,
} from './model.ts';
import type { PricingSettings } from './settings.ts';
import { profitMaximisingMargin } from './win-model.ts';

const DAY_MS = 86_400_000;

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

const credibility = (nEff: number, k: number) => (nEff > 0 ? nEff / (nEff + k) : 0);

/** Clamps to [lo, hi]; NaN becomes lo, so that a broken band can never turn into a NaN price. */
function clamp(value: number, lo: number, hi: number): number {
  if (!(value >= lo)) return lo;
  return value > hi ? hi : value;
}

/** Adding 0 turns a −0 from rounding a tiny negative margin into 0. */
const bps = (margin: number) => Math.round(margin * 10_000) + 0;

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
      floor = z * band.floor + (1 - z) * floor;
      target = z * band.target + (1 - z) * target;
      stretch = z * band.stretch + (1 - z) * stretch;
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

interface Step {
  readonly param: string;
  readonly scope: ReasonScope;
  readonly label: string;
  /** A guardrail's clamp: kept in the stack even when its move rounds to 0 bps, since guardrailsApplied names it. */
  readonly clamp?: boolean;
  margin: number;
}

const baseNames = ['segment target', 'segment target', 'category target', 'workspace target', 'list price'] as const;
const nodeNames = ['this SKU in the segment', 'the segment in this category', 'the category', 'the workspace', 'the list price'] as const;
const parentNames = ['segment', 'segment', 'category', 'workspace', 'list price'] as const;

const summaryNames: Record<string, string> = {
  customer_history: 'customer history',
  quantity: 'quantity',
  win_model: 'win model',
  stock: 'stock',
  min_margin: 'min margin',
  floor: 'floor',
  map: 'MAP',
  ceiling: 'ceiling',
  max_change: 'max change',
};

const driverPhrases: Record<string, string> = {
  customer_history: "the customer's own history",
  quantity: 'the deal size',
  win_model: 'the win model',
  stock: 'stock levels',
  min_margin: 'the minimum margin',
  floor: 'the floor price',
  map: 'the minimum advertised price',
  ceiling: 'the ceiling price',
  max_change: 'the limit on change from the current price',
};

const percent = (margin: number) => `${(margin * 100).toFixed(2)}%`;
const amount = (cents: number) => (Number.isInteger(cents) ? String(cents) : cents.toFixed(2));
const signedPoints = (deltaBps: number) => `${deltaBps < 0 ? '−' : '+'}${(Math.abs(deltaBps) / 100).toFixed(2)}`;

export function priceLine(inputs: LineInputs, bands: LineBands, settings: PricingSettings): PricedLine {
  const { product } = inputs;
  const cost = product.costCents;
  const listPrice = product.currentPriceCents;
  const k = settings.credibilityK;

  // 1. Base.
  const base = lineBase(inputs, bands, settings);
  // The steps keep the margin within the history range, widened to the base: a list price outside it is not pulled in.
  const lo = Math.min(settings.minHistoryMarginPct / 100, base.margin);
  const hi = Math.max(settings.maxHistoryMarginPct / 100, base.margin);
  const { node, depth } = base;
  let { floor, stretch } = base;
  let m = base.margin;
  const steps: Step[] = [
    {
      param: 'segment_target',
      scope: base.scope,
      label: node
        ? `Target margin ${percent(base.margin)} from ${nodeNames[depth]} (n_eff ${node.nEff.toFixed(1)})` +
          (depth < 3 ? ', shrunk toward broader history' : '')
        : `No history: the list price ${amount(listPrice)} at ${percent(base.margin)} margin`,
      margin: m,
    },
  ];

  // 2. Customer history. The target is shrunk alongside the margin, unrounded: it is what the explanation reports.
  let shrunkTarget = base.target;
  let used = node;
  let zUsed = node ? credibility(node.nEff, k) : 0;
  const customer = inputs.hasCustomer ? bands.customerSku : undefined;
  if (customer) {
    const z = credibility(customer.nEff, k);
    const gap = (customer.target - m) * 100;
    m = clamp(z * customer.target + (1 - z) * m, lo, hi);
    shrunkTarget = clamp(z * customer.target + (1 - z) * shrunkTarget, lo, hi);
    floor = clamp(z * customer.floor + (1 - z) * floor, lo, hi);
    stretch = clamp(z * customer.stretch + (1 - z) * stretch, lo, hi);
    used = customer;
    zUsed = z;
    steps.push({
      param: 'customer_history',
      scope: 'customer',
      label: `Customer pays ${Math.abs(gap).toFixed(1)} points ${gap >= 0 ? 'more' : 'less'} than the ${parentNames[depth]} on this SKU (n_eff ${customer.nEff.toFixed(1)})`,
      margin: m,
    });
  }

  // 3. Quantity: only history has a median to compare the deal with.
  const median = used?.medianQuantity;
  if (node && median !== undefined && median > 0) {
    let dealSize = inputs.quantity / median;
    if (inputs.orderTotalQuantity !== undefined) dealSize = Math.max(dealSize, inputs.orderTotalQuantity / median);
    if (inputs.orderValueCents !== undefined && listPrice > 0) dealSize = Math.max(dealSize, inputs.orderValueCents / (median * listPrice));
    if (dealSize > 1) {
      const discount = Math.min(settings.quantityBreakBpsPerDoubling * Math.log2(dealSize), settings.maxQuantityBreakBps) / 10_000;
      // The break only ever lowers the margin, and never below the floor; a margin already under it stays put.
      if (m > floor) {
        m = Math.max(m - discount, floor);
        steps.push({
          param: 'quantity',
          scope: base.scope,
          label: `Deal is ${dealSize.toFixed(1)}× the median quantity of ${amount(median)}: a break of up to ${(discount * 100).toFixed(2)} points, not below the floor ${percent(floor)}`,
          margin: m,
        });
      }
    }
  }

  // 4. Win model.
  const winModel = bands.winModel;
  if (node && winModel) {
    const best = profitMaximisingMargin(winModel, floor, stretch);
    const z = credibility(winModel.nEff, k);
    m = clamp(m + z * (best - m), lo, hi);
    steps.push({
      param: 'win_model',
      scope: 'segment',
      label: `Win model on ${winModel.closedQuotes} closed quotes (n_eff ${winModel.nEff.toFixed(1)}) puts the most profitable margin at ${percent(best)}`,
      margin: m,
    });
  }

  // 5. Stock.
  const onHand = product.stockOnHand;
  if (product.inStock === false || (onHand !== undefined && onHand <= 0)) {
    m = clamp(m + settings.outOfStockBps / 10_000, lo, hi);
    steps.push({
      param: 'stock',
      scope: 'product',
      label: `Out of stock: ${(settings.outOfStockBps / 100).toFixed(2)} points up`,
      margin: m,
    });
  } else if (onHand !== undefined && onHand <= settings.lowStockUnits) {
    m = clamp(m + settings.lowStockBps / 10_000, lo, hi);
    steps.push({
      param: 'stock',
      scope: 'product',
      label: `Low stock (${amount(onHand)} on hand): ${(settings.lowStockBps / 100).toFixed(2)} points up`,
      margin: m,
    });
  }

  // 6. Guardrails, in price space. Unmoved, the price stays the exact base price, so no guardrail fires on float noise.
  const preGuardrail = m === base.margin ? base.priceCents : cost / (1 - m);
  let price = preGuardrail;
  const applied: Guardrail[] = [];
  const clampTo = (guardrail: Guardrail, to: number, scope: ReasonScope, label: string) => {
    price = to;
    applied.push(guardrail);
    steps.push({ param: guardrail, scope, label, margin: (to - cost) / to, clamp: true });
  };
  const minMarginPrice = cost / (1 - settings.minMarginPct / 100);
  let lower = minMarginPrice;
  if (price < minMarginPrice) {
    clampTo(
      'min_margin',
      minMarginPrice,
      'workspace',
      settings.minMarginPct === 0
        ? 'Raised to cost: the minimum margin is 0%'
        : `Raised to the minimum margin of ${settings.minMarginPct}%`,
    );
  }
  const floorCents = product.floorCents;
  if (floorCents !== undefined) {
    lower = Math.max(lower, floorCents);
    if (price < floorCents) clampTo('floor', floorCents, 'product', `Raised to the floor price ${amount(floorCents)}`);
  }
  const mapCents = inputs.enforceMap ? product.mapCents : undefined;
  if (mapCents !== undefined) {
    lower = Math.max(lower, mapCents);
    if (price < mapCents) clampTo('map', mapCents, 'product', `Raised to the minimum advertised price ${amount(mapCents)}`);
  }
  const ceiling = product.ceilingCents;
  if (ceiling !== undefined) {
    // Lower bounds win: a ceiling under them caps the price at them.
    const cap = Math.max(ceiling, lower);
    if (price > cap) {
      clampTo(
        'ceiling',
        cap,
        'product',
        cap === ceiling
          ? `Capped at the ceiling price ${amount(ceiling)}`
          : `Capped at the lower bound ${amount(cap)}, above the ceiling price ${amount(ceiling)}`,
      );
    }
  }
  // Raised to the lowest change allowed, the price is bound from below as surely as by a floor.
  let raisedByMaxChange = false;
  if (listPrice > 0) {
    const share = settings.maxChangePct / 100;
    let kept = Math.min(Math.max(price, listPrice * (1 - share)), listPrice * (1 + share));
    if (ceiling !== undefined) kept = Math.min(kept, ceiling);
    kept = Math.max(kept, lower);
    raisedByMaxChange = kept > price;
    if (kept !== price) {
      clampTo('max_change', kept, 'product', `Kept within ${settings.maxChangePct}% of the current price ${amount(listPrice)}`);
    }
  }

  // Round last, keeping the bounds whole: up to the lower bound, down to a ceiling that the lower bound leaves room for.
  const lowest = Math.ceil(lower);
  let priceCents = Math.round(price);
  if (priceCents < lower) priceCents = lowest;
  if (ceiling !== undefined && ceiling >= lower && priceCents > ceiling) priceCents = Math.max(Math.floor(ceiling), lowest);
  priceCents = Math.min(priceCents, Number.MAX_SAFE_INTEGER);
  const finalMargin = (priceCents - cost) / priceCents;

  // The reason stack telescopes: each entry is the change of the rounded cumulative margin, and the last step ends at
  // the final integer price's margin, so the entries sum exactly to final minus base.
  const lastStep = steps[steps.length - 1];
  if (lastStep && steps.length > 1) lastStep.margin = finalMargin;
  const baseBps = bps(base.margin);
  const finalBps = bps(finalMargin);
  const [first] = steps;
  const reason: ReasonEntry[] = first ? [{ param: first.param, marginDeltaBps: 0, label: first.label, scope: first.scope }] : [];
  const drivers: Driver[] = [];
  let summary = `${baseNames[depth]} ${(baseBps / 100).toFixed(2)}%`;
  let previous = baseBps;
  for (let i = 1; i < steps.length; i++) {
    const step = steps[i];
    if (!step) continue;
    const current = bps(step.margin);
    const delta = current - previous;
    previous = current;
    if (delta === 0 && !step.clamp) continue;
    reason.push({ param: step.param, marginDeltaBps: delta, label: step.label, scope: step.scope });
    summary += ` · ${summaryNames[step.param] ?? step.param} ${signedPoints(delta)}`;
    if (delta === 0) continue;
    drivers.push({ param: step.param, label: step.label, points: delta / 100, direction: delta > 0 ? 'up' : 'down' });
  }
  summary += ` · final ${(finalBps / 100).toFixed(2)}%`;

  // 7. Confidence.
  let score = 0;
  if (used) {
    const ageDays = Math.max(0, (inputs.nowMs - used.newestAtMs) / DAY_MS);
    const recency = 0.5 ** (ageDays / settings.halfLifeDays);
    const cov = Math.min(Math.max(used.cov, 0), 1);
    score = zUsed * (1 - 0.1 * depth) * (1 - 0.5 * cov) * recency;
  }
  score = Math.round(clamp(score, 0, 1) * 100) / 100;
  const confidence: ConfidenceLabel = score >= 0.7 ? 'high' : score >= 0.4 ? 'medium' : 'low';

  // 8. Stance. Without history there is no evidence floor: only the guardrails' lower bound says how far the price can go.
  const lowerMargin = (lower - cost) / lower;
  const effectiveFloor = used ? Math.max(floor, lowerMargin) : lowerMargin;
  const lowerApplied = applied.includes('min_margin') || applied.includes('floor') || applied.includes('map');
  const boundByLower = raisedByMaxChange || (priceCents <= lowest && (lowerApplied || (priceCents === lowest && lower > preGuardrail)));
  const stance: Stance =
    boundByLower || finalBps - bps(effectiveFloor) < settings.negotiableRoomBps
      ? 'at_floor'
      : confidence === 'high'
        ? 'hold_firm'
        : 'negotiable';

  // 9. Explanation: the main driver is the largest move in the direction the price went.
  const total = finalBps - baseBps;
  let main: Driver | undefined;
  for (const driver of drivers) {
    const size = Math.abs(driver.points);
    if (total !== 0 && Math.sign(driver.points) !== Math.sign(total)) continue;
    if (!main || size > Math.abs(main.points)) main = driver;
  }
  const baseName = baseNames[depth];
  const short = !main
    ? `Priced at the ${baseName}; no adjustments.`
    : total === 0
      ? `Priced at the ${baseName}; its adjustments cancel out (the largest: ${driverPhrases[main.param] ?? main.param}).`
      : `Priced ${(Math.abs(total) / 100).toFixed(2)} points ${total > 0 ? 'above' : 'below'} the ${baseName}, mainly for ${driverPhrases[main.param] ?? main.param}.`;

  return {
    priceCents,
    reason,
    reasonSummary: summary,
    explanation: {
      short,
      drivers,
      stance,
      marginPct: finalBps / 100,
      targetMarginPct: bps(shrunkTarget) / 100,
      confidence,
    },
    guardrailsApplied: applied,
    confidence,
    confidenceScore: score,
    bounds: { lowerCents: lowest, ceilingCents: ceiling },
  };
}
