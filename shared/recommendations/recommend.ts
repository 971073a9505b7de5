// A product's recommendation: the pricing method with no customer at quantity 1, MAP held, with its bounds and rationale.
import type { Touched } from '#shared/bands/recompute.ts';
import { priceLineWithBasis } from '#shared/pricing/price-line.ts';
import type { PricingSettings } from '#shared/pricing/settings.ts';
import type { PricingSnapshot, ProductView } from '#shared/prices/inputs.ts';
import { convertProduct, lineBands } from '#shared/prices/price-lines.ts';
import { recommendationBasis } from './basis.ts';
import { estimateImpact } from './impact.ts';
import type { Recommendation } from './schema.ts';

export interface RecommendationContext {
  readonly baseCurrency: string;
  readonly settings: PricingSettings;
  readonly nowMs: number;
  readonly decisionId: () => string;
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
  const pricing = convertProduct(product, 1);
  const explained = priceLineWithBasis(
    { product: pricing, hasCustomer: false, quantity: 1, enforceMap: true, nowMs: context.nowMs },
    lineBands(product, undefined, snapshot),
    context.settings,
  );
  const priced = explained.line;
  const rate = currency === context.baseCurrency ? 1 : snapshot.rates.get(currency)?.rate;
  return {
    status: 'priced',
    ...common,
    recommendedPriceCents: priced.priceCents,
    floorCents: priced.bounds.lowerCents,
    ...(priced.bounds.ceilingCents === undefined ? {} : { ceilingCents: priced.bounds.ceilingCents }),
    rationale: `${priced.explanation.short} (${priced.reasonSummary})`,
    reasonSummary: priced.reasonSummary,
    drivers: priced.explanation.drivers,
    confidence: priced.confidence,
    ...(rate === undefined ? {} : { exchangeRateToBase: rate }),
    basis: recommendationBasis(explained, pricing, context.settings),
    impact: estimateImpact(product, priced.priceCents, snapshot, context.settings, context.nowMs),
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
