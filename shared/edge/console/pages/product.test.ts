import { describe, expect, it } from 'vitest';
import { expectShown } from '#test/support/markup.ts';
import type { ApprovalHistoryEntry } from '#shared/approvals/history.ts';
import type { Impact, PricedRecommendation, RecommendationBasis } from '#shared/recommendations/schema.ts';
import { signedPoints } from '#edge/console/sections/impact.ts';
import { productView } from './recommendations.ts';

const basis: RecommendationBasis = {
  costCents: 1200,
  margin: 0.4419,
  currentMargin: 0.3997,
  band: { floor: 0.3, target: 0.38, stretch: 0.45 },
  source: 'segment_category',
  sourceNEff: 42.4,
  guardrailsApplied: ['max_change'],
  binding: { guardrail: 'max_change', valueCents: 2150 },
  maxChange: { lowCents: 1599, highCents: 2150 },
  confidenceScore: 0.52,
};

const estimated: Impact = {
  status: 'estimated',
  quantity: 3,
  current: { priceCents: 1999, margin: 0.3997, winProbability: 0.62, expectedRevenueCents: 3718, expectedMarginCents: 1486 },
  recommended: { priceCents: 2150, margin: 0.4419, winProbability: 0.55, expectedRevenueCents: 3548, expectedMarginCents: 1568 },
  expectedMarginChangeCents: 82,
  expectedRevenueChangeCents: -170,
  evidence: {
    closedQuotes: 140,
    segments: [
      { segment: 'Contractors', share: 0.75 },
      { segment: 'Retail', share: 0.25 },
    ],
  },
};

function recommendation(extra: Partial<PricedRecommendation> = {}): PricedRecommendation {
  return {
    status: 'priced',
    sku: 'LAMP-1',
    name: 'Desk lamp',
    category: 'Lighting',
    currency: 'EUR',
    currentPriceCents: 1999,
    recommendedPriceCents: 2150,
    pricingDecisionId: 'pd_1',
    updatedAt: '2026-11-01T08:00:00.000Z',
    floorCents: 1500,
    ceilingCents: 3000,
    rationale: 'Priced at the segment target.',
    reasonSummary: 'segment target 38%',
    drivers: [],
    confidence: 'medium',
    basis,
    impact: estimated,
    ...extra,
  };
}

function approval(extra: Partial<ApprovalHistoryEntry> = {}): ApprovalHistoryEntry {
  return {
    approval_id: 'apv_1',
    status: 'published',
    approved_by: { type: 'console_user', id: 'usr_1', email: 'a@example.com' },
    approved_at: '2026-11-02T09:00:00.000Z',
    price: 20.4,
    currency: 'EUR',
    livemode: true,
    recommendation: { recommended_price: 21.5, current_price: 19.99, pricing_decision_id: 'pd_1' },
    change_pct: 2.05,
    confirmation: null,
    second_approval: null,
    tasks: [],
    ...extra,
  } as ApprovalHistoryEntry;
}

const margins = [
  { month: '2025-08', marginPct: 33.1, lines: 12 },
  { month: '2026-02', marginPct: 36.4, lines: 9 },
];

function page(input: { recommendation?: PricedRecommendation; newestApproval?: ApprovalHistoryEntry } = {}): string {
  return productView({
    sku: 'LAMP-1',
    recommendation: input.recommendation ?? recommendation(),
    margins,
    canApprove: true,
    csrfToken: 't',
    ...(input.newestApproval ? { newestApproval: input.newestApproval } : {}),
  }).body.text;
}

describe("a product's page explains its price", () => {
  it('gives the cost and both prices with their margins, every amount with its currency', () => {
    const markup = page();
    expectShown(markup, '<dt>Cost</dt><dd>12.00 EUR</dd>');
    expectShown(markup, '<dt>Current price</dt><dd>19.99 EUR <span class="subtitle">(margin 40.0%)</span></dd>');
    expectShown(markup, '<dt>Recommended price</dt><dd>21.50 EUR <span class="subtitle">(margin 44.2%)</span></dd>');
    expectShown(markup, '<dt>Expected impact</dt><dd>+0.82 EUR margin per quote</dd>');
  });

  it('says plainly to keep the current price when the recommendation keeps it, and that the win model priced it', () => {
    const kept = recommendation({
      recommendedPriceCents: 1999,
      rationale: 'Keep the current price: the win model expects the change to earn less margin. (segment target 38%)',
      basis: { ...basis, margin: 0.3997, guardrailsApplied: [], binding: undefined, method: 'win_model', keep: true },
      impact: { ...estimated, recommended: estimated.current, expectedMarginChangeCents: 0, expectedRevenueChangeCents: 0 },
    });
    const markup = page({ recommendation: kept });
    expectShown(markup, '<dt>Recommended price</dt><dd><strong>Keep</strong> 19.99 EUR <span class="subtitle">(margin 40.0%)</span></dd>');
    expectShown(markup, '<dt>Change</dt><dd>none: keep the current price</dd>');
    expectShown(markup, '<p class="rationale">Keep the current price: the win model expects the change to earn less margin.');
    expectShown(
      markup,
      '<dt>Priced by</dt><dd>the win model: the one price expected to earn the most margin over the product’s recent buyers',
    );
  });

  it('names the target margin and its evidence, the band, the binding guardrail with its value and the max-change band', () => {
    const markup = page();
    expectShown(
      markup,
      '<strong>38.0%</strong>, from its category&#39;s quotes in the segment, worth 42.4 effective quotes (older quotes and broader groups count for less)',
    );
    expectShown(markup, '<dt>Band (p20 to p90)</dt><dd>30.0% to 45.0%');
    expectShown(markup, '<dt>Binding guardrail</dt><dd>Maximum change from the current price: the price stops at 21.50 EUR.</dd>');
    expectShown(markup, '<dt>Max-change band</dt><dd>15.99 EUR to 21.50 EUR from the current price</dd>');
  });

  it('says what its confidence means in words, with the score', () => {
    expectShown(page(), '<dt>Confidence</dt><dd>medium (score 0.52 of 1): some evidence stands behind the band');
  });

  it('shows the expected impact at both prices, the change and its evidence', () => {
    const markup = page();
    expectShown(markup, 'expected to add 0.82 EUR of margin per quote');
    expectShown(markup, 'Per quote of 3 units (the typical quantity), in EUR');
    expectShown(
      markup,
      '<th scope="row">Win probability</th><td class="number">62.0%</td><td class="number">55.0%</td><td class="number">−7.0 pts</td>',
    );
    expectShown(
      markup,
      '<th scope="row">Expected margin</th><td class="number">14.86 EUR</td><td class="number">15.68 EUR</td><td class="number">+0.82 EUR</td>',
    );
    expectShown(
      markup,
      'From the win model fitted on the category&#39;s 140 closed quotes, weighted by the recent segment mix: Contractors 75.0%, Retail 25.0%.',
    );
  });

  it('puts the change over a month at the recent quote rate, naming the window, once the bands job counted it', () => {
    expect(page()).not.toContain('a month');
    const perMonth = { expectedMarginChangeCents: 1_025, quoteLines: 37, days: 90, asOf: '2026-11-30' };
    const markup = page({ recommendation: recommendation({ impact: { ...estimated, perMonth } }) });
    expectShown(markup, 'About <strong>+10.25 EUR a month</strong> at its recent quote rate: 37 quote lines in the 90 days to 2026-11-30.');
  });

  it('says plainly when the evidence is too thin to say what the change is worth', () => {
    const thin: Impact = {
      status: 'too_thin',
      reason: 'Fewer than 30 closed quotes in its segments.',
      evidence: { closedQuotes: 4, segments: [] },
    };
    const markup = page({ recommendation: recommendation({ impact: thin }) });
    expectShown(markup, '<dt>Expected impact</dt><dd>too thin to say</dd>');
    expectShown(markup, '<p><strong>Too thin to say.</strong> Fewer than 30 closed quotes in its segments.</p>');
    expect(markup).not.toContain('Win probability');
  });

  it('degrades to what it has for a recommendation stored before its basis and impact', () => {
    const { basis: _basis, impact: _impact, ...older } = recommendation();
    const markup = page({ recommendation: older as PricedRecommendation });
    expectShown(markup, '<dt>Cost</dt><dd>not stored with this recommendation</dd>');
    expectShown(markup, '<dt>Current price</dt><dd>19.99 EUR</dd>');
    expectShown(markup, 'This recommendation was stored before its basis was');
    expectShown(markup, 'Not estimated: this recommendation was stored before expected impact was computed.');
    expect(markup).not.toContain('class="band"');
    expect(markup).not.toContain('NaN');
  });

  it('draws the target and the p20–p90 band on the margin chart, months at their real distance', () => {
    const markup = page();
    expect(markup.match(/<rect\s+class="band"/g)).toHaveLength(2);
    expect(markup.match(/<line\s+class="target"/g)).toHaveLength(2);
    expectShown(markup, '<li><span class="key key-target" aria-hidden="true"></span>Target 38.0%</li>');
    expectShown(markup, 'Band p20–p90, 30.0% to 45.0%');
    // Six months apart, the two points are the axis's two ends, and the months between are labelled though empty.
    expectShown(markup, '>2025-11</text>');
    expectShown(markup, '<th scope="row">2025-08</th><td class="number">33.1%</td><td class="number">12</td>');
  });
});

describe("a product's approve form", () => {
  it('holds the approved price after an approval of this recommendation, not the recommended one again', () => {
    const markup = page({ newestApproval: approval() });
    expectShown(markup, 'value="20.40"');
    expect(markup).not.toContain('value="21.50"');
    expectShown(markup, 'Approved: <strong>20.40 EUR</strong> (recommended 21.50 EUR).');
  });

  it('says an approval still waits for a second approver', () => {
    const markup = page({ newestApproval: approval({ status: 'waiting' }) });
    expectShown(markup, 'Approved: <strong>20.40 EUR</strong>, waiting for a second approver');
  });

  it('offers the recommended price again once a newer recommendation replaces the one approved, or the approval lapsed', () => {
    const older = approval({ recommendation: { recommended_price: 19, current_price: 18, pricing_decision_id: 'pd_0' } });
    expectShown(page({ newestApproval: older }), 'value="21.50"');
    expectShown(page({ newestApproval: approval({ status: 'expired' }) }), 'value="21.50"');
  });

  it('writes a change of margin too small to show at one decimal without a sign', () => {
    expect(signedPoints(-0.0004)).toBe('0.0 pts');
    expect(signedPoints(0.042)).toBe('+4.2 pts');
    expect(signedPoints(-0.07)).toBe('−7.0 pts');
  });
});
