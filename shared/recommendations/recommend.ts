// A product's recommendation: one price for all its buyers, from the win model where it stands, MAP held, with its bounds and rationale.
import type { Touched } from '#shared/bands/recompute.ts';
import { type PricedLineBasis, priceLineWithBasis } from '#shared/pricing/price-line.ts';
import type { PricingSettings } from '#shared/pricing/settings.ts';
import type { PricingSnapshot, ProductView } from '#shared/prices/inputs.ts';
import { convertProduct, lineBands } from '#shared/prices/price-lines.ts';
import { recommendationBasis } from './basis.ts';
import { buyerMix, modelStands } from './buyer-mix.ts';
import { estimateImpact } from './impact.ts';
import { type KeepReason, keepStep, keepWithoutModel, priceForBuyers } from './product-price.ts';
import type { Recommendation } from './schema.ts';

export interface RecommendationContext {
  readonly baseCurrency: string;
  readonly settings: PricingSettings;
  readonly nowMs: number;
  readonly decisionId: () => string;
}

/** How the recommendation was priced: from the win model over its buyers, or from the bands; and whether it keeps the current price. */
function methodOf(explained: PricedLineBasis, modelled: boolean, kept: KeepReason['why'] | undefined, currentPriceCents: number) {
  const keep = kept !== undefined || (modelled && explained.line.priceCents === currentPriceCents);
  return { method: modelled ? ('win_model' as const) : ('bands' as const), keep, kept };
}

/**
 * Where a credible win model covers the product's buyers, the single price that earns the most over them
 * (product-price.ts). A move the model expects to lose margin on is not offered, and where no model stands none is
 * offered either: the current price is kept, unless a guardrail moves it. A product with no current price yet is
 * priced by the bands, as a call with no customer at quantity 1 is.
 */
function explainedPrice(product: ProductView, snapshot: PricingSnapshot, context: RecommendationContext) {
  const pricing = convertProduct(product, 1);
  const inputs = {
    product: pricing,
    currency: product.currency || context.baseCurrency,
    hasCustomer: false,
    quantity: 1,
    enforceMap: true,
    nowMs: context.nowMs,
  };
  const bands = lineBands(product, undefined, snapshot);
  const mix = buyerMix(product, snapshot, context.nowMs, context.settings);
  const impactAt = (explained: PricedLineBasis) =>
    estimateImpact(product, explained.line.priceCents, snapshot, context.settings, context.nowMs);
  const hasCurrent = product.currentPriceCents > 0;
  if (!modelStands(mix)) {
    const explained = hasCurrent ? keepWithoutModel(inputs, bands, context.settings) : priceLineWithBasis(inputs, bands, context.settings);
    return { explained, modelled: false, kept: hasCurrent ? ('no_model' as const) : undefined, impact: impactAt(explained) };
  }
  const moved = priceForBuyers(inputs, bands, mix, context.settings);
  const impact = impactAt(moved);
  if (impact.status !== 'estimated' || impact.expectedMarginChangeCents >= 0 || !hasCurrent) {
    return { explained: moved, modelled: true, kept: undefined, impact };
  }
  const currency = product.currency || context.baseCurrency;
  const keep = keepStep(product.currentPriceCents, product.costCents, {
    why: 'loss',
    lossCents: -impact.expectedMarginChangeCents,
    currency,
  });
  const kept = priceForBuyers(inputs, bands, mix, context.settings, keep);
  return { explained: kept, modelled: true, kept: 'loss' as const, impact: impactAt(kept) };
}

const keepWhy: Record<KeepReason['why'] | 'no_gain', string> = {
  loss: 'the win model expects the change to earn less margin',
  no_model: 'no win model yet',
  no_gain: 'the win model sees no change that earns more margin beyond its own error',
};

/** What the rationale opens with: a kept price says so plainly, and names the guardrail that moved it anyway. */
function shortText(explained: PricedLineBasis, method: ReturnType<typeof methodOf>): string {
  if (!method.keep) return explained.line.explanation.short;
  const why = keepWhy[method.kept ?? 'no_gain'];
  const moved = explained.line.guardrailsApplied;
  if (moved.length === 0) return `Keep the current price: ${why}.`;
  return `Keep the current price as far as the guardrails allow (moved by ${moved.join(', ')}): ${why}.`;
}

/**
 * The overview shows a list price for anyone, so MAP always holds here, whatever the erp setting: the floor it shows
 * is the largest of the floor price, MAP and the minimum-margin price.
 */
export function recommendProduct(product: ProductView, snapshot: PricingSnapshot, context: RecommendationContext): Recommendation {
  const currency = product.currency || context.baseCurrency;
  const common = {
    sku: product.sku,
    ...(product.externalId ? { productExternalId: product.externalId } : {}),
    ...(product.name ? { name: product.name } : {}),
    category: product.category,
    currency,
    currentPriceCents: product.currentPriceCents,
    pricingDecisionId: context.decisionId(),
    updatedAt: new Date(context.nowMs).toISOString(),
  };
  if (product.costCents === 0) return { status: 'unpriced', ...common, reason: 'no_cost_basis' };
  const { explained, modelled, kept, impact } = explainedPrice(product, snapshot, context);
  const priced = explained.line;
  const method = methodOf(explained, modelled, kept, product.currentPriceCents);
  const rate = currency === context.baseCurrency ? 1 : snapshot.rates.get(currency)?.rate;
  return {
    status: 'priced',
    ...common,
    recommendedPriceCents: priced.priceCents,
    floorCents: priced.bounds.lowerCents,
    ...(priced.bounds.ceilingCents === undefined ? {} : { ceilingCents: priced.bounds.ceilingCents }),
    rationale: `${shortText(explained, method)} (${priced.reasonSummary})`,
    reasonSummary: priced.reasonSummary,
    drivers: priced.explanation.drivers,
    confidence: priced.confidence,
    ...(rate === undefined ? {} : { exchangeRateToBase: rate }),
    basis: { ...recommendationBasis(explained, convertProduct(product, 1), context.settings), method: method.method, keep: method.keep },
    impact,
  };
}

/**
 * The products whose recommendation a drained batch may have moved: the products it carried, and those whose history
 * lines it added or removed. Other products of a touched category keep theirs until they are touched themselves.
 */
export function touchedSkus(touched: Touched): string[] {
  const skus = new Set(touched.products);
  for (const text of touched.nodes) {
    const node = JSON.parse(text) as [string, string, string?];
    if ((node[0] === 'segmentSku' || node[0] === 'categorySku') && node[2] !== undefined) skus.add(node[2]);
  }
  return [...skus].sort();
}
