// The product page's explanation of a price: its cost and margins, the band and evidence the target came from, the guardrail that binds, and what its confidence means.
import type { PricedRecommendation, RecommendationBasis } from '#shared/recommendations/schema.ts';
import { facts, money } from '#edge/console/formats.ts';
import { type Html, html } from '#edge/console/html.ts';

type Guardrail = RecommendationBasis['guardrailsApplied'][number];

/** A margin fraction as the page writes it: percent to one decimal. */
export function marginText(margin: number | null | undefined): string {
  if (margin === null || margin === undefined) return '—';
  return `${(margin * 100).toFixed(1)}%`;
}

const sourceWords: Record<RecommendationBasis['source'], string> = {
  segment_sku: "this product's own quotes in its segment",
  segment_category: "its category's quotes in the segment",
  category: "its category's quotes across every segment",
  workspace: "the whole workspace's quotes (too few closer to this product)",
  list_price: 'no quotes at all: the list price stands in for a band',
};

export const guardrailWords: Record<Guardrail, string> = {
  min_margin: 'Minimum margin',
  floor: 'Floor price',
  map: 'Minimum advertised price (MAP)',
  ceiling: 'Ceiling price',
  max_change: 'Maximum change from the current price',
};

/** What each confidence label means for the person approving, from how the score is made. */
const confidenceMeaning: Record<PricedRecommendation['confidence'], string> = {
  high: 'plenty of recent, consistent quotes close to this product stand behind the band: the price can be held firm.',
  medium: 'some evidence stands behind the band, but it is thin, scattered, old or from a broader group: check it against what you know.',
  low: 'little evidence stands behind the band (few quotes, a broad group or old ones): treat the price as a starting point.',
};

/** Confidence in words: the label, the score and what it means. */
export function confidenceText(recommendation: Pick<PricedRecommendation, 'confidence' | 'basis'>): string {
  const score = recommendation.basis ? ` (score ${recommendation.basis.confidenceScore.toFixed(2)} of 1)` : '';
  return `${recommendation.confidence}${score}: ${confidenceMeaning[recommendation.confidence]}`;
}

/**
 * The evidence behind the target, in words: which group of quotes, and how many they count for. The page's one
 * effective size, said with what it is once, so that it is not read as a third count beside the closed quotes.
 */
export function evidenceText(basis: RecommendationBasis): string {
  if (basis.source === 'list_price') return sourceWords.list_price;
  return `${sourceWords[basis.source]}, worth ${basis.sourceNEff.toFixed(1)} effective quotes (older quotes and broader groups count for less)`;
}

/** The guardrail the price ended on and its bound, or that none did. */
export function bindingText(basis: RecommendationBasis, currency: string): string {
  if (!basis.binding) return 'None: the price is the target margin with its adjustments, inside every bound.';
  return `${guardrailWords[basis.binding.guardrail]}: the price stops at ${money(basis.binding.valueCents, currency)}.`;
}

/** The explanation, when the recommendation carries its basis. */
const methodWords = {
  win_model:
    'the win model: the one price expected to earn the most margin over the product’s recent buyers, their segments, customers and quantities',
  bands: 'the margin bands: no credible win model covers the product’s buyers, so the target margin below sets the price',
} as const;

export function basisSection(recommendation: PricedRecommendation): Html {
  const { basis, currency } = recommendation;
  if (!basis) {
    return html`<p>
      This recommendation was stored before its basis was: its cost, band and binding guardrail show once the next pricing run recomputes
      it. The floor and ceiling below still hold.
    </p>`;
  }
  return html`${facts('Why this price', [
    ...(basis.method ? [['Priced by', methodWords[basis.method]] as [string, string]] : []),
    ['Target margin', html`<strong>${marginText(basis.band.target)}</strong>, from ${evidenceText(basis)}`],
    [
      'Band (p20 to p90)',
      `${marginText(basis.band.floor)} to ${marginText(basis.band.stretch)}: most won quotes of this group land between these margins`,
    ],
    ['Binding guardrail', bindingText(basis, currency)],
    [
      'Guardrails applied',
      basis.guardrailsApplied.length === 0 ? 'none' : basis.guardrailsApplied.map((guardrail) => guardrailWords[guardrail]).join(', '),
    ],
    [
      'Max-change band',
      basis.maxChange
        ? `${money(basis.maxChange.lowCents, currency)} to ${money(basis.maxChange.highCents, currency)} from the current price`
        : 'none: no limit on change applies',
    ],
  ])}`;
}
