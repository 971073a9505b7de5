// What a change is worth: win probability and expected revenue and margin per quote at the current and recommended prices.
import type { StoredCategoryBands } from '#shared/bands/items.ts';
import { winCredibility } from '#shared/pricing/adjustments.ts';
import { recencyWeight } from '#shared/pricing/bands.ts';
import { assembleLineBands, type Band, type WinModel } from '#shared/pricing/model.ts';
import type { PricingSettings } from '#shared/pricing/settings.ts';
import { lineWinProbability } from '#shared/pricing/win-model.ts';
import type { PricingSnapshot, ProductView } from '#shared/prices/inputs.ts';
import type { Impact } from './schema.ts';

/**
 * A segment's win model is credible when the engine would move a price at least halfway to its optimum: the
 * credibility the win_model step moves by (its sample's, times how surely its slope is negative) of at least this.
 */
export const CREDIBLE_WIN_MODEL = 0.5;
/** The credible models must cover at least this share of the recent segment mix, or the estimate speaks for too few. */
export const MIN_COVERED_SHARE = 0.5;

interface MixPart {
  readonly segment: string;
  readonly weight: number;
}

/** A band's Σw aged to now, so that bands computed at different times weigh what their evidence weighs today. */
function weightNow(band: Band, nowMs: number, settings: PricingSettings): number {
  const weight = band.sumW * recencyWeight(band.asOfMs, nowMs, settings.halfLifeDays);
  return Number.isFinite(weight) && weight > 0 ? weight : 0;
}

/** Who has been buying the SKU lately: its segment × SKU bands' weights, or else its category's segments'. */
function segmentMix(product: ProductView, category: StoredCategoryBands | undefined, nowMs: number, settings: PricingSettings) {
  const of = (entries: Iterable<[string, Band]>): MixPart[] =>
    [...entries].map(([segment, band]) => ({ segment, weight: weightNow(band, nowMs, settings) })).filter((part) => part.weight > 0);
  const bySku = of(product.segmentBands);
  if (bySku.length > 0) return bySku;
  return of([...(category?.segments ?? [])].map(([segment, { band }]) => [segment, band]));
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

function tooThin(reason: string, parts: readonly MixPart[], models: readonly WinModel[]): Impact {
  const closedQuotes = models.reduce((sum, model) => sum + model.closedQuotes, 0);
  return { status: 'too_thin', reason, evidence: { closedQuotes, segments: parts.length > 0 ? shareOf(parts) : [] } };
}

interface CoveredSegment extends MixPart {
  readonly model: WinModel;
  readonly atCurrent: number;
  readonly atRecommended: number;
}

interface Pricing {
  readonly product: ProductView;
  readonly recommendedPriceCents: number;
  readonly snapshot: PricingSnapshot;
  readonly settings: PricingSettings;
  readonly quantity: number;
}

/** The segments of the mix with a credible win model, and each one's chance of winning at both prices. */
function coveredSegments(mix: readonly MixPart[], pricing: Pricing): CoveredSegment[] {
  const { product, snapshot, settings, quantity } = pricing;
  const category = snapshot.categoryBands.get(product.category);
  const { costCents: cost, currentPriceCents: current } = product;
  const listMarkup = cost > 0 ? current / cost : undefined;
  const covered: CoveredSegment[] = [];
  for (const part of mix) {
    const segmentBands = category?.segments.get(part.segment);
    const model = segmentBands?.winModel;
    if (!model || winCredibility(model, settings) < CREDIBLE_WIN_MODEL) continue;
    const bands = assembleLineBands({
      sku: product.sku,
      customerBands: undefined,
      segmentSku: product.segmentBands.get(part.segment),
      segmentCategory: segmentBands,
      category: category?.band,
      workspace: snapshot.workspaceBand,
    });
    // A customer-less line: the SKU's offset and the size against this segment's reference quantity, no customer's.
    const at = (price: number) => lineWinProbability(bands, quantity, (price - cost) / price, listMarkup, false);
    const atCurrent = at(current);
    const atRecommended = at(pricing.recommendedPriceCents);
    if (atCurrent === undefined || atRecommended === undefined || !Number.isFinite(atCurrent + atRecommended)) continue;
    covered.push({ ...part, model, atCurrent, atRecommended });
  }
  return covered;
}

const segmentName = (segment: string) => (segment === '' ? 'customers without a segment' : `segment "${segment}"`);

/**
 * The expected effect, per quote, of moving from the current price to the recommended one, by the engine's own fitted
 * win model: for the SKU's typical quantity, each segment's chance of winning at both prices (its curve with the SKU's
 * offset), mixed by the recent segment mix. Amounts in the product's own minor units.
 */
export function estimateImpact(
  product: ProductView,
  recommendedPriceCents: number,
  snapshot: PricingSnapshot,
  settings: PricingSettings,
  nowMs: number,
): Impact {
  const category = snapshot.categoryBands.get(product.category);
  const mix = segmentMix(product, category, nowMs, settings);
  const { costCents: cost, currentPriceCents: current } = product;
  const models = mix.flatMap(({ segment }) => category?.segments.get(segment)?.winModel ?? []);
  if (!(current > 0)) return tooThin('The product has no current price to compare the recommended one with.', mix, models);
  if (mix.length === 0) return tooThin('No quotes for this product or its category yet: there is no win model to estimate with.', mix, []);
  if (models.length === 0) {
    return tooThin(
      `No win model covers the segments that buy this product: each needs ${settings.winModelMinQuotes} closed quotes in the category, with wins and losses.`,
      mix,
      [],
    );
  }
  const quantity = typicalQuantity(product, category?.band, nowMs, settings);
  const covered = coveredSegments(mix, { product, recommendedPriceCents, snapshot, settings, quantity });
  const total = mix.reduce((sum, part) => sum + part.weight, 0);
  const coveredWeight = covered.reduce((sum, part) => sum + part.weight, 0);
  if (coveredWeight < MIN_COVERED_SHARE * total) {
    const thin = mix.filter((part) => !covered.some((used) => used.segment === part.segment)).map((part) => segmentName(part.segment));
    return tooThin(
      `The win models behind ${Math.round((1 - coveredWeight / total) * 100)}% of recent quotes are not credible enough to say (${thin.slice(0, 3).join(', ')}): they need more closed quotes, or a clearer fall in wins as the price rises.`,
      mix,
      models,
    );
  }
  const mixed = (pick: (part: CoveredSegment) => number) =>
    covered.reduce((sum, part) => sum + pick(part) * part.weight, 0) / coveredWeight;
  const currentSide = side(
    current,
    cost,
    quantity,
    mixed((part) => part.atCurrent),
  );
  const recommendedSide = side(
    recommendedPriceCents,
    cost,
    quantity,
    mixed((part) => part.atRecommended),
  );
  return {
    status: 'estimated',
    quantity,
    current: currentSide,
    recommended: recommendedSide,
    expectedMarginChangeCents: recommendedSide.expectedMarginCents - currentSide.expectedMarginCents,
    expectedRevenueChangeCents: recommendedSide.expectedRevenueCents - currentSide.expectedRevenueCents,
    evidence: { closedQuotes: covered.reduce((sum, part) => sum + part.model.closedQuotes, 0), segments: shareOf(covered) },
  };
}
