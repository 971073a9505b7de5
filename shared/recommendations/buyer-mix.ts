// Who a product's recommendation is priced for: its recent buyers under their segments' win curves, and what a price earns over them.
import { winCredibility } from '#shared/pricing/adjustments.ts';
import { recencyWeight } from '#shared/pricing/bands.ts';
import { assembleLineBands, type Band, type LineBands, type WinModel } from '#shared/pricing/model.ts';
import type { PricingSettings } from '#shared/pricing/settings.ts';
import { lineWinProbability, referenceQuantity } from '#shared/pricing/win-model.ts';
import { credibility } from '#shared/pricing/shrinkage.ts';
import type { PricingSnapshot, ProductView } from '#shared/prices/inputs.ts';

/**
 * A segment's win model is credible when the engine would move a price at least halfway to its optimum: the
 * credibility the win_model step moves by (its sample's, times how surely its slope is negative) of at least this.
 */
export const CREDIBLE_WIN_MODEL = 0.5;
/** The credible models must cover at least this share of the product's buyers, or the model speaks for too few. */
export const MIN_COVERED_SHARE = 0.5;
/** Buyer groups are weighed as the win model weighs its quotes: with twice the bands' half-life (pricing/bands.ts). */
const BUYER_HALF_LIFE_FACTOR = 2;

/** One group of buyers: its weight today, its quantity, the bands its lines are priced with (its offset as the customer's). */
export interface Buyer {
  readonly segment: string;
  readonly weight: number;
  readonly quantity: number;
  readonly bands: LineBands;
  /** The segment's model when credible, with its credibility; undefined where none stands for this group. */
  readonly model: WinModel | undefined;
  readonly credibility: number;
}

export interface BuyerMix {
  readonly buyers: readonly Buyer[];
  /** The buyers a credible model covers, and their share of the weight. */
  readonly covered: readonly Buyer[];
  readonly coveredShare: number;
  /** `buyers`: the product's own recent quotes; `segments`: its segments' realised lines; `category`: its category's. */
  readonly source: 'buyers' | 'segments' | 'category';
  /** The product's price over its cost, for curves in price over list; undefined without both. */
  readonly listMarkup: number | undefined;
}

/** A band's weight aged to now, so that bands computed at different times weigh what their evidence weighs today. */
function aged(weight: number, band: Band, nowMs: number, halfLifeDays: number): number {
  const today = weight * recencyWeight(band.asOfMs, nowMs, halfLifeDays);
  return Number.isFinite(today) && today > 0 ? today : 0;
}

interface Group {
  readonly segment: string;
  readonly weight: number;
  /** Undefined: at the reference quantity the line's size is measured against. */
  readonly quantity: number | undefined;
  readonly offset: number | undefined;
}

/**
 * The product's recent buyers as its segment × SKU bands keep them (pricing/buyers.ts), shrunk toward its category's
 * segment mix by their weight (Σ recency weight w, credibility w / (w + credibilityK)); without any, its segments'
 * realised lines; else its category's segments. A group without a customer offset is priced as a line without a
 * customer, at the reference quantity its size is measured against.
 */
function groupsOf(product: ProductView, snapshot: PricingSnapshot, nowMs: number, settings: PricingSettings) {
  const halfLife = settings.halfLifeDays;
  const own: Group[] = [...product.segmentBands].flatMap(([segment, band]) =>
    (band.buyers ?? []).map((group) => ({
      segment,
      weight: aged(group.weight, band, nowMs, BUYER_HALF_LIFE_FACTOR * halfLife),
      quantity: group.quantity,
      offset: group.offset,
    })),
  );
  const category = snapshot.categoryBands.get(product.category);
  const byCategory: Group[] = [...(category?.segments ?? [])].map(([segment, { band }]) => ({
    segment,
    weight: aged(band.sumW, band, nowMs, halfLife),
    quantity: undefined,
    offset: undefined,
  }));
  const ownWeight = own.reduce((sum, group) => sum + group.weight, 0);
  if (ownWeight > 0) {
    // A few quotes say little of who will buy next: the product's buyers are shrunk toward its category's, by their weight.
    const z = credibility(ownWeight, settings.credibilityK);
    const categoryWeight = byCategory.reduce((sum, group) => sum + group.weight, 0);
    const scaledOwn = own.map((group) => ({ ...group, weight: (group.weight / ownWeight) * z }));
    const scaledCategory =
      categoryWeight > 0 && z < 1 ? byCategory.map((group) => ({ ...group, weight: (group.weight / categoryWeight) * (1 - z) })) : [];
    return { groups: [...scaledOwn, ...scaledCategory], source: 'buyers' as const };
  }
  const bySku: Group[] = [...product.segmentBands].map(([segment, band]) => ({
    segment,
    weight: aged(band.sumW, band, nowMs, halfLife),
    quantity: undefined,
    offset: undefined,
  }));
  if (bySku.some((group) => group.weight > 0)) return { groups: bySku, source: 'segments' as const };
  return { groups: byCategory, source: 'category' as const };
}

/** The product's buyers, each with the bands a price call for one of them would read, and which of them a credible model covers. */
export function buyerMix(product: ProductView, snapshot: PricingSnapshot, nowMs: number, settings: PricingSettings): BuyerMix {
  const category = snapshot.categoryBands.get(product.category);
  const { costCents: cost, currentPriceCents: current } = product;
  const listMarkup = cost > 0 && current > 0 ? current / cost : undefined;
  const { groups, source } = groupsOf(product, snapshot, nowMs, settings);
  const buyers: Buyer[] = groups
    .filter((group) => group.weight > 0)
    .map((group) => {
      const segment = category?.segments.get(group.segment);
      const assembled = assembleLineBands({
        sku: product.sku,
        customerBands: undefined,
        segmentSku: product.segmentBands.get(group.segment),
        segmentCategory: segment,
        category: category?.band,
        workspace: snapshot.workspaceBand,
      });
      const bands = group.offset === undefined ? assembled : { ...assembled, customerWinOffset: group.offset };
      const model = segment?.winModel;
      const usable = model && !(model.feature === 'list' && listMarkup === undefined);
      const credibility = usable ? winCredibility(model, settings) : 0;
      return {
        segment: group.segment,
        weight: group.weight,
        quantity: group.quantity !== undefined && group.quantity > 0 ? group.quantity : (referenceQuantity(bands) ?? 1),
        bands,
        model: credibility >= CREDIBLE_WIN_MODEL ? model : undefined,
        credibility,
      };
    });
  const total = buyers.reduce((sum, buyer) => sum + buyer.weight, 0);
  const covered = buyers.filter((buyer) => buyer.model !== undefined);
  const coveredWeight = covered.reduce((sum, buyer) => sum + buyer.weight, 0);
  return { buyers, covered, coveredShare: total > 0 ? coveredWeight / total : 0, source, listMarkup };
}

/** Whether the win model stands for the product: credible models cover enough of its buyers. */
export function modelStands(mix: BuyerMix): boolean {
  return mix.covered.length > 0 && mix.coveredShare >= MIN_COVERED_SHARE;
}

/** The covered buyers' chance of winning at a price, mixed by their weights; undefined where a curve gives none. */
export function mixedWinProbability(mix: BuyerMix, costCents: number, priceCents: number): number | undefined {
  const margin = (priceCents - costCents) / priceCents;
  let weight = 0;
  let sum = 0;
  for (const buyer of mix.covered) {
    // With the customer's offset: a group's lines named their customers (or carry none, at 0).
    const p = lineWinProbability(buyer.bands, buyer.quantity, margin, mix.listMarkup, true);
    if (p === undefined || !Number.isFinite(p)) continue;
    sum += buyer.weight * p;
    weight += buyer.weight;
  }
  return weight > 0 ? sum / weight : undefined;
}

/** Expected margin per unit quoted at a price, over the covered buyers: what the product's price is chosen to maximise. */
export function expectedUnitMargin(mix: BuyerMix, costCents: number, priceCents: number): number {
  const p = mixedWinProbability(mix, costCents, priceCents);
  return p === undefined ? 0 : p * (priceCents - costCents);
}
