// What a change is worth: win probability and expected revenue and margin per quote at the current and recommended prices.
import { recencyWeight } from '#shared/pricing/bands.ts';
import { perMonth, type RecentQuotes } from '#shared/pricing/quote-rate.ts';
import type { Band, WinModel } from '#shared/pricing/model.ts';
import type { PricingSettings } from '#shared/pricing/settings.ts';
import type { PricingSnapshot, ProductView } from '#shared/prices/inputs.ts';
import { type Buyer, buyerMix, mixedWinProbability, modelStands } from './buyer-mix.ts';
import type { Impact } from './schema.ts';

export { CREDIBLE_WIN_MODEL, MIN_COVERED_SHARE } from './buyer-mix.ts';

interface MixPart {
  readonly segment: string;
  readonly weight: number;
}

/** A band's Σw aged to now, so that bands computed at different times weigh what their evidence weighs today. */
function weightNow(band: Band, nowMs: number, settings: PricingSettings): number {
  const weight = band.sumW * recencyWeight(band.asOfMs, nowMs, settings.halfLifeDays);
  return Number.isFinite(weight) && weight > 0 ? weight : 0;
}

/** The buyers' weights by segment, in the order the segments first come. */
function bySegment(buyers: readonly Buyer[]): MixPart[] {
  const weights = new Map<string, number>();
  for (const buyer of buyers) weights.set(buyer.segment, (weights.get(buyer.segment) ?? 0) + buyer.weight);
  return [...weights].map(([segment, weight]) => ({ segment, weight }));
}

/** The SKU's typical quantity: the weighted median of its segment × SKU bands' medians, else its category's median, else 1. */
export function typicalQuantity(product: ProductView, category: Band | undefined, nowMs: number, settings: PricingSettings): number {
  const parts = [...product.segmentBands.values()]
    .map((band) => ({ quantity: band.medianQuantity, weight: weightNow(band, nowMs, settings) }))
    .filter((part) => part.weight > 0 && part.quantity > 0)
    .sort((a, b) => a.quantity - b.quantity);
  const total = parts.reduce((sum, part) => sum + part.weight, 0);
  let seen = 0;
  for (const part of parts) {
    seen += part.weight;
    if (seen >= total / 2) return part.quantity;
  }
  return category && category.medianQuantity > 0 ? category.medianQuantity : 1;
}

const shareOf = (parts: readonly MixPart[]) => {
  const total = parts.reduce((sum, part) => sum + part.weight, 0);
  return parts.map((part) => ({ segment: part.segment, share: Math.round((part.weight / total) * 10_000) / 10_000 }));
};

const round4 = (value: number) => Math.round(value * 10_000) / 10_000 + 0;

function side(priceCents: number, costCents: number, quantity: number, winProbability: number) {
  return {
    priceCents,
    margin: round4((priceCents - costCents) / priceCents),
    winProbability: round4(winProbability),
    expectedRevenueCents: Math.round(winProbability * priceCents * quantity),
    expectedMarginCents: Math.round(winProbability * (priceCents - costCents) * quantity),
  };
}

/**
 * The closed quotes behind some curves, counted once: a category's segment curves are one fit over the category's
 * quotes, and each carries that fit's count.
 */
const closedQuotesOf = (models: readonly WinModel[]) => models.reduce((most, model) => Math.max(most, model.closedQuotes), 0);

function tooThin(reason: string, parts: readonly MixPart[], models: readonly WinModel[]): Impact {
  return {
    status: 'too_thin',
    reason,
    evidence: { closedQuotes: closedQuotesOf(models), segments: parts.length > 0 ? shareOf(parts) : [] },
  };
}

const segmentName = (segment: string) => (segment === '' ? 'customers without a segment' : `segment "${segment}"`);

/** The distinct win models behind some buyers, one per segment. */
function modelsOf(buyers: readonly Buyer[], snapshot: PricingSnapshot, product: ProductView): WinModel[] {
  const category = snapshot.categoryBands.get(product.category);
  return [...new Set(buyers.map((buyer) => buyer.segment))].flatMap((segment) => category?.segments.get(segment)?.winModel ?? []);
}

/** The change over a month at the product's quote rate, once its bands job has counted one. */
function monthOf(expectedMarginChangeCents: number, quotes: RecentQuotes | undefined) {
  if (!quotes) return {};
  const { lines: quoteLines, days, asOf } = quotes;
  return { perMonth: { expectedMarginChangeCents: perMonth(expectedMarginChangeCents, quotes), quoteLines, days, asOf } };
}

/**
 * The expected effect, per quote, of moving from the current price to the recommended one, by the engine's own fitted
 * win model: for the SKU's typical quantity, each group of its recent buyers' chance of winning at both prices (their
 * segment's curve with the SKU's offset, their customers' and their quantity), mixed by their weights: the buyers and
 * curves the recommendation is priced with (buyer-mix.ts). Amounts in the product's own minor units.
 */
export function estimateImpact(
  product: ProductView,
  recommendedPriceCents: number,
  snapshot: PricingSnapshot,
  settings: PricingSettings,
  nowMs: number,
): Impact {
  const category = snapshot.categoryBands.get(product.category);
  const mix = buyerMix(product, snapshot, nowMs, settings);
  const parts = bySegment(mix.buyers);
  const { costCents: cost, currentPriceCents: current } = product;
  const models = modelsOf(mix.buyers, snapshot, product);
  if (!(current > 0)) return tooThin('The product has no current price to compare the recommended one with.', parts, models);
  if (parts.length === 0)
    return tooThin('No quotes for this product or its category yet: there is no win model to estimate with.', parts, []);
  if (models.length === 0) {
    return tooThin(
      `No win model covers the segments that buy this product: each needs ${settings.winModelMinQuotes} closed quotes in the category, with wins and losses.`,
      parts,
      [],
    );
  }
  const atCurrent = mixedWinProbability(mix, cost, current);
  const atRecommended = mixedWinProbability(mix, cost, recommendedPriceCents);
  if (!modelStands(mix) || atCurrent === undefined || atRecommended === undefined) {
    const thin = parts
      .filter((part) => !mix.covered.some((buyer) => buyer.segment === part.segment))
      .map((part) => segmentName(part.segment));
    return tooThin(
      `The win models behind ${Math.round((1 - mix.coveredShare) * 100)}% of recent quotes are not credible enough to say (${thin.slice(0, 3).join(', ')}): they need more closed quotes, or a clearer fall in wins as the price rises.`,
      parts,
      models,
    );
  }
  const quantity = typicalQuantity(product, category?.band, nowMs, settings);
  const currentSide = side(current, cost, quantity, atCurrent);
  const recommendedSide = side(recommendedPriceCents, cost, quantity, atRecommended);
  const expectedMarginChangeCents = recommendedSide.expectedMarginCents - currentSide.expectedMarginCents;
  return {
    status: 'estimated',
    quantity,
    current: currentSide,
    recommended: recommendedSide,
    expectedMarginChangeCents,
    expectedRevenueChangeCents: recommendedSide.expectedRevenueCents - currentSide.expectedRevenueCents,
    evidence: {
      closedQuotes: closedQuotesOf(modelsOf(mix.covered, snapshot, product)),
      segments: shareOf(bySegment(mix.covered)),
    },
    ...monthOf(expectedMarginChangeCents, product.recentQuotes),
  };
}
