// The pricing method's vocabulary: history lines, bands per node of the hierarchy, and what pricing a line takes and gives.

/** One quote or order line as pricing reads it from history. Amounts are in the document's currency; margins ignore it. */
export interface HistoryLine {
  readonly kind: 'quote' | 'order';
  /** The quote's or order's external id. */
  readonly documentId: string;
  readonly productSku: string;
  readonly customerExternalId: string | undefined;
  /** The customer's segment when the line was drained; '' for none. */
  readonly segment: string;
  readonly quantity: number;
  readonly costCents: number;
  /** Quoted price for a quote line, sold price for an order line. */
  readonly priceCents: number;
  /** Quote created / order sold, in ms since the epoch. */
  readonly atMs: number;
  /** Quotes only. */
  readonly outcome?: 'open' | 'won' | 'lost';
  /** Orders only: the quote this order came from. Its won lines are then not counted a second time. */
  readonly sourceQuoteExternalId?: string;
}

/**
 * A node's margins, weighted by recency at `asOfMs`. Scaling every weight by the same factor changes neither the
 * percentiles nor n_eff, so a band stays valid as it ages; only `newestAtMs` says how old its evidence is.
 */
export interface Band {
  /** Weighted percentile margins (fractions, 0.25 = 25%). */
  readonly floor: number;
  readonly target: number;
  readonly stretch: number;
  /** Effective sample size (Σw)² / Σw². */
  readonly nEff: number;
  /** Weighted median quantity of the node's lines. */
  readonly medianQuantity: number;
  /** Weighted coefficient of variation of the margins: standard deviation / |mean|, 0 when the mean is 0. */
  readonly cov: number;
  /** The newest line's date. */
  readonly newestAtMs: number;
  /** Σw and Σw² at asOfMs, so that bands can be combined into a parent's. */
  readonly sumW: number;
  readonly sumW2: number;
  readonly asOfMs: number;
  /**
   * The pooled win model's logit offset for this node: the SKU's within its segment on a segment × SKU band, the
   * customer's within the category on a customer × SKU band. Absent where no win model was fitted.
   */
  readonly winOffset?: number;
  /**
   * On a segment × SKU band with a win offset: who in the segment has been quoting the SKU lately (buyers.ts), the
   * buyers the product's recommendation is priced for. Absent on other bands and on bands stored before it was kept.
   */
  readonly buyers?: readonly BuyerGroup[];
}

/** One group of a SKU's recent buyers in a segment: their recency weight, their customers' mean win offset, their typical quantity. */
export interface BuyerGroup {
  /** Σ recency weight of the group's quote lines at the band's asOfMs, with the win model's half-life. */
  readonly weight: number;
  /** The weighted mean of its lines' customers' win offsets in the category (0 for a line without a customer). */
  readonly offset: number;
  /** The weighted geometric mean of its lines' quantities. */
  readonly quantity: number;
}

/**
 * P(win | margin m) = 1 / (1 + exp(−(intercept + slope · m + quantitySlope · log2(q / q_ref) + offsets))): one
 * segment's curve of the category's pooled fit, the offsets those of the SKU and the customer on their bands.
 */
export interface WinModel {
  readonly intercept: number;
  readonly slope: number;
  /** Logit change per doubling of the quantity over the line's reference quantity; 0 when absent. */
  readonly quantitySlope?: number;
  /** The curve's variable: the margin (when absent), or 'list', the log of the price over the list price. */
  readonly feature?: 'margin' | 'list';
  /** The values of that variable the fit's quotes span (5th and 95th percentiles): the optimum is searched near them. */
  readonly supportLow?: number;
  readonly supportHigh?: number;
  /** The slope's standard error: with it, the pull toward the optimum weighs how sure the slope is. */
  readonly slopeSe?: number;
  /** The change of slope past the knot (in the feature's units): + bend · max(0, x − knot) in the logit. */
  readonly bend?: number;
  readonly knot?: number;
  /**
   * Pooling across the workspace's categories: the category's own slope, the centroid its change pivots on, and the
   * change itself, + slopeShift · (x − centroid) in the logit. slopeSe is then the pooled slope's standard error.
   */
  readonly categorySlope?: number;
  readonly centroid?: number;
  readonly slopeShift?: number;
  readonly ownSlopeSe?: number;
  /**
   * The quantity slope pooled the same way across categories: its standard error in the category's own fit, and the
   * change pooling adds to it (the price call uses quantitySlope + quantityShift).
   */
  readonly quantitySlopeSe?: number;
  readonly quantityShift?: number;
  /**
   * The standard error of the segment's level today (its logit at the centroid, its trend extrapolated to now): how
   * far its buyers' tolerance could be from what the fit says, which the line's confidence reads.
   */
  readonly levelSe?: number;
  /**
   * The segment's log-likelihood gain in this category of a curve in price over list over one in margin, and its
   * curve in the feature it is not priced with: the workspace's categories together decide which feature a segment's
   * buyers answer to, and swap the two where their sum disagrees with the category's own choice.
   */
  readonly listGain?: number;
  readonly other?: OtherWinCurve;
  /**
   * Priced in its other curve because the workspace's categories chose that feature: `other` is then the category's
   * own curve, kept whole, so that the swap is undone exactly when the evidence stops favouring it.
   */
  readonly swapped?: boolean;
  /**
   * A thin category's model that the workspace's slopes do not carry (see withoutLoneThinModels): kept, so that a
   * later pooling can let it stand again, but never priced with.
   */
  readonly unpooled?: boolean;
  /** Closed quote lines it was fitted on. */
  readonly closedQuotes: number;
  /** Effective sample size of those lines, for its credibility. */
  readonly nEff: number;
}

/** A segment's curve in the feature it is not priced with, kept so that the workspace's evidence can swap it in. */
export interface OtherWinCurve {
  readonly feature: 'margin' | 'list';
  readonly intercept: number;
  readonly slope: number;
  readonly centroid: number;
  readonly supportLow: number;
  readonly supportHigh: number;
  readonly slopeSe: number;
  readonly levelSe: number;
  /** On a swapped model's own curve only: its bend, knot and category slope, restored with it. */
  readonly bend?: number;
  readonly knot?: number;
  readonly categorySlope?: number;
}

/** Every band one category's history gives: computed together, from one read of the category's lines. */
export interface CategoryBands {
  readonly category: Band | undefined;
  /** segment → the segment × category band and its win model, if it has one. */
  readonly segments: ReadonlyMap<string, { readonly band: Band; readonly winModel: WinModel | undefined }>;
  /** sku → segment → segment × SKU band. */
  readonly segmentSkus: ReadonlyMap<string, ReadonlyMap<string, Band>>;
  /** customer external id → sku → customer × SKU band. */
  readonly customerSkus: ReadonlyMap<string, ReadonlyMap<string, Band>>;
}

/** The bands on one line's path up the hierarchy, most specific first; any may be missing. */
export interface LineBands {
  readonly customerSku?: Band;
  readonly segmentSku?: Band;
  readonly segmentCategory?: Band;
  readonly category?: Band;
  readonly workspace?: Band;
  readonly winModel?: WinModel;
  /** The customer's win offset in the category, from any of its customer × SKU bands there. */
  readonly customerWinOffset?: number;
  /**
   * How far the workspace's win models move the line's segment's prices from its realised margins (win-lift.ts): the
   * move of a line whose category is too thin for a win model of its own.
   */
  readonly workspaceWinLift?: number;
}

/** The bands a line's path passes, as each caller finds them: a price call in the table, the backtest and the quality bench in memory. */
export interface LineBandSources {
  readonly sku: string;
  /** The customer's bands in the product's category, by SKU. */
  readonly customerBands: ReadonlyMap<string, Band> | undefined;
  readonly segmentSku: Band | undefined;
  readonly segmentCategory: { readonly band: Band; readonly winModel?: WinModel } | undefined;
  readonly category: Band | undefined;
  readonly workspace: Band | undefined;
  /** The line's segment's lift, from the workspace bands item. */
  readonly workspaceWinLift?: number | undefined;
}

/** One assembly of a line's bands, so that the price call, the backtest and the quality bench price a line alike. */
export function assembleLineBands(sources: LineBandSources): LineBands {
  const { customerBands, segmentSku, segmentCategory, category, workspace } = sources;
  const customerSku = customerBands?.get(sources.sku);
  // The customer's win offset is one for the category: any of its bands there carries it, this SKU's or another's.
  const customerWinOffset = customerSku?.winOffset ?? customerBands?.values().next().value?.winOffset;
  return {
    ...(customerSku ? { customerSku } : {}),
    ...(customerWinOffset === undefined ? {} : { customerWinOffset }),
    ...(segmentSku ? { segmentSku } : {}),
    ...(segmentCategory ? { segmentCategory: segmentCategory.band } : {}),
    ...(segmentCategory?.winModel ? { winModel: segmentCategory.winModel } : {}),
    ...(category ? { category } : {}),
    ...(workspace ? { workspace } : {}),
    ...(sources.workspaceWinLift === undefined ? {} : { workspaceWinLift: sources.workspaceWinLift }),
  };
}

/** The product as a line is priced: every amount already in the line's currency, in minor units (may be fractional). */
export interface PricingProduct {
  readonly sku: string;
  readonly costCents: number;
  readonly currentPriceCents: number;
  readonly mapCents?: number;
  readonly floorCents?: number;
  readonly ceilingCents?: number;
  readonly inStock?: boolean;
  readonly stockOnHand?: number;
}

export interface LineInputs {
  readonly product: PricingProduct;
  /** The line's currency, which every amount of `product` is in: labels name money in its major units. */
  readonly currency: string;
  /** Whether a customer was named (customer × SKU evidence can only exist then). */
  readonly hasCustomer: boolean;
  readonly quantity: number;
  readonly orderValueCents?: number;
  readonly orderTotalQuantity?: number;
  /** MAP applies to this caller: always for storefront keys, for erp keys by setting. */
  readonly enforceMap: boolean;
  /** The time of the request, for the recency of the evidence. */
  readonly nowMs: number;
}

export type ReasonScope = 'customer' | 'segment' | 'category' | 'product' | 'workspace';
export type Guardrail = 'min_margin' | 'floor' | 'map' | 'ceiling' | 'max_change';

export interface ReasonEntry {
  /** What moved the margin: segment_target, customer_history, quantity, win_model, stock, or a guardrail's name. */
  readonly param: string;
  readonly marginDeltaBps: number;
  readonly label: string;
  readonly scope: ReasonScope;
}

export interface Driver {
  readonly param: string;
  readonly label: string;
  readonly points: number;
  readonly direction: 'up' | 'down';
}

export type ConfidenceLabel = 'high' | 'medium' | 'low';
export type Stance = 'hold_firm' | 'negotiable' | 'at_floor';

export interface Explanation {
  readonly short: string;
  readonly drivers: Driver[];
  readonly stance: Stance;
  readonly marginPct: number;
  readonly targetMarginPct: number;
  readonly confidence: ConfidenceLabel;
}

/** A priced line, without the currency and decision id the caller adds. */
export interface PricedLine {
  readonly priceCents: number;
  readonly reason: ReasonEntry[];
  readonly reasonSummary: string;
  readonly explanation: Explanation;
  readonly guardrailsApplied: Guardrail[];
  readonly confidence: ConfidenceLabel;
  readonly confidenceScore: number;
  /**
   * The guardrails' bounds in whole minor units: the lowest price the lower bounds (min margin, floor, MAP when it
   * applies) allow, and the ceiling, if any. A person approving a price is held to the same bounds.
   */
  readonly bounds: { readonly lowerCents: number; readonly ceilingCents: number | undefined };
}
