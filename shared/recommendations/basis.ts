// What a recommendation stood on, kept with it: cost and margins, the base band, the guardrails and the one that binds.
import type { PricedLineBasis } from '#shared/pricing/price-line.ts';
import type { PricingSettings } from '#shared/pricing/settings.ts';
import type { PricingProduct } from '#shared/pricing/model.ts';
import type { RecommendationBasis } from './schema.ts';

const sources = ['segment_sku', 'segment_category', 'category', 'workspace', 'list_price'] as const;

/** Margins are stored to a hundredth of a point: finer says nothing a person reads, and keeps items small. */
const roundMargin = (margin: number) => Math.round(margin * 10_000) / 10_000 + 0;

/**
 * The clamp the price ended on: each guardrail sees the price the one before it left, so the last that applied; or the
 * bound that stopped its move, when that clamp is the max change's and the floor, say, stopped it.
 */
function binding({ guarded }: PricedLineBasis, priceCents: number): RecommendationBasis['binding'] {
  const clamps = [guarded.minMargin, guarded.floor, guarded.map, guarded.ceiling, guarded.maxChange];
  const last = clamps.findLast((clamp) => clamp !== undefined);
  if (!last) return undefined;
  // The bound as a whole price: the rounding keeps the price on it, so it is the price itself when that sits at it.
  const valueCents = Math.abs(last.price - priceCents) < 1 ? priceCents : Math.round(last.price);
  return { guardrail: last.stoppedAt ?? last.param, valueCents };
}

export function recommendationBasis(priced: PricedLineBasis, product: PricingProduct, settings: PricingSettings): RecommendationBasis {
  const { line, base } = priced;
  const { costCents, currentPriceCents } = product;
  const bound = binding(priced, line.priceCents);
  const share = settings.maxChangePct / 100;
  return {
    costCents,
    margin: roundMargin((line.priceCents - costCents) / line.priceCents),
    currentMargin: currentPriceCents > 0 ? roundMargin((currentPriceCents - costCents) / currentPriceCents) : null,
    band: { floor: roundMargin(base.floor), target: roundMargin(base.target), stretch: roundMargin(base.stretch) },
    source: sources[base.depth] ?? 'list_price',
    sourceNEff: base.node ? Math.round(base.node.nEff * 10) / 10 : 0,
    guardrailsApplied: [...line.guardrailsApplied],
    ...(bound ? { binding: bound } : {}),
    ...(currentPriceCents > 0
      ? { maxChange: { lowCents: Math.ceil(currentPriceCents * (1 - share)), highCents: Math.floor(currentPriceCents * (1 + share)) } }
      : {}),
    confidenceScore: line.confidenceScore,
  };
}
