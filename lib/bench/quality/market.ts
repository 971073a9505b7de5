// Simulated B2B markets for the pricing-quality bench: a true chance of winning at each price, and the history it produced.
import { seededRandom } from '#platform/seeded-random.ts';

/**
 * The steady families: the shape of the true acceptance curve, with plentiful history and one curve per cell that
 * barely moves. The engine never sees which one a market uses.
 */
export const steadyFamilies = ['margin', 'list', 'kinked', 'mixture'] as const;
/**
 * The hard families: the margin family's market of the same seed with conditions real B2B data has layered on, each
 * alone and the first four together (`hard`); `steep` is the margin market with buyers for whom price matters a lot.
 * See `conditionsOf`.
 */
export const hardFamilies = ['sparse', 'drift', 'anchored', 'confounded', 'hard', 'steep'] as const;
/** Steady first: a family's place in this list seeds its markets, so the steady ones keep theirs. */
export const families = [...steadyFamilies, ...hardFamilies] as const;
export type Family = (typeof families)[number];
export type SteadyFamily = (typeof steadyFamilies)[number];
export type HardFamily = (typeof hardFamilies)[number];

/** What makes a market hard; all off in the steady families. */
export interface MarketConditions {
  /** A quarter of the quotes: a few hundred closed quotes for the whole catalogue. */
  readonly sparse: boolean;
  /** Each segment × category's curve slid along the margin over the last half year, some cells warming, some cooling. */
  readonly drift: boolean;
  /** One segment's buyers judge the price against list, not the margin (the others stay margin buyers). */
  readonly anchored: boolean;
  /** Salespeople gave smaller discounts to the customers who tolerated more margin. */
  readonly confounded: boolean;
  /** Every cell's buyers steep: a logistic scale of STEEP_SCALE in margin at the median cell, where a point of margin costs deals. */
  readonly steep: boolean;
}

const noConditions: MarketConditions = { sparse: false, drift: false, anchored: false, confounded: false, steep: false };

export function conditionsOf(family: Family): MarketConditions {
  switch (family) {
    case 'sparse':
    case 'drift':
    case 'anchored':
    case 'confounded':
    case 'steep':
      return { ...noConditions, [family]: true };
    case 'hard':
      return { sparse: true, drift: true, anchored: true, confounded: true, steep: false };
    default:
      return noConditions;
  }
}

/** The steady family a market's curves come from: the hard families are margin markets with conditions on top. */
export function baseFamily(family: Family): SteadyFamily {
  return (steadyFamilies as readonly string[]).includes(family) ? (family as SteadyFamily) : 'margin';
}

/** How far a drifting cell's curve slides along the margin, at most (each cell half to all of it; its best margin moves 0.3–0.9 of it). */
export const MAX_CELL_DRIFT = 0.075;
/** The drifting cells moved over the last half year, steadily: the older half of the history shows last year's buyers. */
export const DRIFT_YEARS = 0.5;
/** Discount off list given per logit of the customer's tolerance, in the confounded history (about −0.6 correlation). */
export const CONFOUNDING = 0.06;
/** The steep condition's logistic scale in margin at the median cell (1 / slope): a 3-point rise in margin costs e in odds. */
export const STEEP_SCALE = 0.03;
/** The median of a margin cell's slope factor (0.6 + 0.9u): the steep cells keep their spread about STEEP_SCALE. */
const MEDIAN_SLOPE_FACTOR = 1.05;
/** The sparse history keeps this share of the quotes. */
export const SPARSE_SHARE = 0.25;

export interface SimProduct {
  readonly sku: string;
  readonly category: number;
  readonly costCents: number;
  readonly listCents: number;
  readonly floorCents?: number;
  readonly ceilingCents?: number;
  readonly mapCents?: number;
  /** Price relative to list that the product's buyers treat as fair (the kinked family's reference point). */
  readonly reference: number;
  /** Typical quantity of a line. */
  readonly quantity: number;
}

export interface SimCustomer {
  readonly externalId: string;
  readonly segment: number;
  /** Logit shift of this customer's acceptance: loyal or hard-nosed buyers. */
  readonly effect: number;
  /** How often this customer asks for quotes, relative to others. */
  readonly activity: number;
}

/** Everything the truth depends on. The service never reads it; only the oracle and the scoring do. */
export interface Market {
  readonly family: Family;
  readonly seed: number;
  readonly conditions: MarketConditions;
  readonly segments: readonly string[];
  readonly categories: readonly string[];
  readonly products: readonly SimProduct[];
  readonly customers: readonly SimCustomer[];
  /** Logit level by segment × category ([segment][category]). */
  readonly cellEffect: readonly (readonly number[])[];
  /** Price sensitivity by segment × category (a positive slope, in the family's own price unit). */
  readonly cellSlope: readonly (readonly number[])[];
  /** Logit change per doubling of the deal over the product's typical quantity (negative: big buyers bargain). */
  readonly sizeEffect: number;
  /** Logit change over the year of history (positive: the market warms). */
  readonly drift: number;
  /** Mixture family: share of deals with price-driven buyers, by segment. */
  readonly priceBuyerShare: readonly number[];
  /** The history's own pricing policy: the usual discount off list, by segment. */
  readonly policyDiscount: readonly number[];
  /** The moment the history ends and request lines are priced. */
  readonly nowMs: number;
  /**
   * Drift condition: how far each cell's curve has slid along the margin from before the drift to now
   * ([segment][category]; positive: its buyers now accept more margin). Zero without the condition.
   */
  readonly cellDrift: readonly (readonly number[])[];
  /** The drift happened over the last this many years, steadily; before that the curves stood still. */
  readonly driftYears: number;
  /** Anchored condition: the segment whose buyers judge price over list. */
  readonly anchoredSegment: number | undefined;
  /** Confounded condition: discount off list taken away per logit of the customer's effect (0 without). */
  readonly confounding: number;
}

export interface Deal {
  readonly product: SimProduct;
  readonly customer: SimCustomer;
  readonly quantity: number;
  /** Years before now (0 = now, 1 = a year ago), for the drift. */
  readonly yearsAgo: number;
}

const MARGIN_SLOPE_SCALE = 9;
const LIST_SLOPE_SCALE = 7;

const sigmoid = (z: number) => (z >= 0 ? 1 / (1 + Math.exp(-z)) : Math.exp(z) / (1 + Math.exp(z)));

/** The true chance of winning `deal` at `priceCents`. */
export function trueWinProbability(market: Market, deal: Deal, priceCents: number): number {
  const { product, customer } = deal;
  const level =
    (market.cellEffect[customer.segment]?.[product.category] ?? 0) +
    customer.effect +
    market.sizeEffect * Math.log2(deal.quantity / product.quantity) -
    market.drift * deal.yearsAgo;
  const cellSlope = market.cellSlope[customer.segment]?.[product.category] ?? 1;
  const margin = (priceCents - product.costCents) / priceCents;
  const relative = priceCents / product.listCents;
  // Drift slides the cell's curve along the margin: at this deal's date its buyers took `slide` less margin than now.
  const slide = (market.cellDrift[customer.segment]?.[product.category] ?? 0) * Math.min(1, deal.yearsAgo / market.driftYears);
  const anchored = customer.segment === market.anchoredSegment;
  // The list-anchored segment's slope is in price over list, on the list family's scale.
  const slope = anchored ? (cellSlope * LIST_SLOPE_SCALE) / MARGIN_SLOPE_SCALE : cellSlope;
  switch (anchored ? 'list' : baseFamily(market.family)) {
    case 'margin':
      return sigmoid(level + slope * (0.3 - slide - margin));
    case 'list':
      // A slide of s in margin is one of s × (price over list) / (1 − margin) in price over list, at this deal's cost.
      return sigmoid(level + slope * (1 - relative - (slide * relative) / (1 - margin)));
    case 'kinked': {
      // Loss aversion: above the reference price every point costs three times as many deals as one below it.
      const gap = relative - product.reference;
      return sigmoid(level - slope * (gap <= 0 ? gap : 3 * gap));
    }
    case 'mixture': {
      // Two kinds of buyer the seller cannot tell apart: price buyers compare, value buyers mostly want it now.
      const share = market.priceBuyerShare[customer.segment] ?? 0.5;
      return (
        share * sigmoid(level + 1 + 2 * slope * (0.95 - relative)) + (1 - share) * sigmoid(level + 0.5 + 0.4 * slope * (1.1 - relative))
      );
    }
  }
}

export function normal(random: () => number): number {
  // Box–Muller; 1 − u keeps the log finite.
  return Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
}

export interface MarketSize {
  readonly products: number;
  readonly customers: number;
  readonly quotes: number;
  /** Request lines priced at the end. */
  readonly requests: number;
}

export const fullSize: MarketSize = { products: 80, customers: 80, quotes: 1500, requests: 300 };
export const quickSize: MarketSize = { products: 60, customers: 60, quotes: 1000, requests: 200 };

/** A market of one family from one seed: the same seed and family always make the same market. */
export function makeMarket(family: Family, seed: number, size: MarketSize, nowMs: number): Market {
  // A hard family draws its base market as the margin family of the same seed does: the conditions alone differ.
  const random = seededRandom(seed * 7919 + families.indexOf(baseFamily(family)) * 104_729 + 1);
  const segments = ['enterprise', 'mid-market', 'smb'];
  const categories = ['Fasteners', 'Hand Tools', 'Electrical', 'Plumbing', 'Safety'];
  // The slope's unit differs by family (margin, or price over list); its scale is set so that a typical cell's best
  // price lands within ±25% of list, where the engine is allowed to price.
  const base = baseFamily(family);
  const slopeScale = base === 'margin' ? MARGIN_SLOPE_SCALE : base === 'kinked' ? 6 : LIST_SLOPE_SCALE;
  const cellEffect = segments.map(() => categories.map(() => 0.3 + 0.7 * normal(random)));
  const cellSlope = segments.map(() => categories.map(() => slopeScale * (0.6 + 0.9 * random())));
  const products: SimProduct[] = [];
  for (let i = 0; i < size.products; i++) {
    const costCents = Math.round(200 * 100 ** random());
    const listCents = Math.round(costCents * (1.2 + 0.6 * random()));
    const guard = random();
    products.push({
      sku: `SIM-${String(i).padStart(4, '0')}`,
      category: Math.floor(random() * categories.length),
      costCents,
      listCents,
      ...(guard < 0.12 ? { floorCents: Math.round(costCents * (1.1 + 0.1 * random())) } : {}),
      ...(guard > 0.9 ? { ceilingCents: Math.round(listCents * (1 + 0.1 * random())) } : {}),
      ...(guard > 0.8 && guard <= 0.9 ? { mapCents: Math.round(listCents * (0.85 + 0.1 * random())) } : {}),
      reference: 0.85 + 0.2 * random(),
      quantity: Math.max(1, Math.round(2 * 100 ** random())),
    });
  }
  const customers: SimCustomer[] = [];
  for (let i = 0; i < size.customers; i++) {
    customers.push({
      externalId: `SIM-C-${String(i).padStart(4, '0')}`,
      // Uneven segments: the last is thin.
      segment: random() < 0.45 ? 0 : random() < 0.75 ? 1 : 2,
      effect: 0.5 * normal(random),
      activity: 0.2 + random() ** 2 * 3,
    });
  }
  return withConditions(family, {
    family,
    seed,
    conditions: noConditions,
    segments,
    categories,
    products,
    customers,
    cellEffect,
    cellSlope,
    sizeEffect: -(0.05 + 0.25 * random()),
    drift: (random() - 0.5) * 1.2,
    priceBuyerShare: segments.map(() => 0.3 + 0.5 * random()),
    policyDiscount: segments.map(() => 0.02 + 0.12 * random()),
    nowMs,
    cellDrift: segments.map(() => categories.map(() => 0)),
    driftYears: 1,
    anchoredSegment: undefined,
    confounding: 0,
  });
}

/** The family's conditions laid on its base market, from a random stream of their own so that the base stays the same. */
function withConditions(family: Family, base: Market): Market {
  const conditions = conditionsOf(family);
  const random = seededRandom(base.seed * 6271 + 99_991);
  // Drawn whatever the conditions, so that `hard` drifts and anchors exactly as `drift` and `anchored` do.
  const cellDrift = base.segments.map(() => base.categories.map(() => (random() < 0.5 ? -1 : 1) * MAX_CELL_DRIFT * (0.5 + 0.5 * random())));
  // The anchored segment is one of the two large ones: the thin one would hide it.
  const anchoredSegment = random() < 0.5 ? 0 : 1;
  return {
    ...base,
    conditions,
    ...(conditions.drift ? { cellDrift, driftYears: DRIFT_YEARS } : {}),
    ...(conditions.anchored ? { anchoredSegment } : {}),
    ...(conditions.confounded ? { confounding: CONFOUNDING } : {}),
    ...(conditions.steep
      ? { cellSlope: base.cellSlope.map((row) => row.map((slope) => slope / (MARGIN_SLOPE_SCALE * MEDIAN_SLOPE_FACTOR * STEEP_SCALE))) }
      : {}),
  };
}
