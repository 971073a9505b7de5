import { describe, expect, it } from 'vitest';
import type { QuoteRecord } from '#shared/records/schema.ts';
import { attributeQuote, bandOf, contributionDelta, contributionOf, normalizedReason, orderPart, sumContributions } from './attribution.ts';

const NOW = Date.parse('2026-11-20T00:00:00Z');
const DAY_MS = 86_400_000;

function quote(lines: Array<Partial<QuoteRecord['lines'][number]>>, fields: Partial<QuoteRecord> = {}): QuoteRecord {
  return {
    externalId: 'Q-1',
    customerExternalId: 'C-1',
    outcome: 'open',
    createdAt: '2026-11-03T10:00:00Z',
    lines: lines.map((line) => ({
      productSku: 'BOLT',
      quantity: 10,
      costCents: 1000,
      quotedPriceCents: 1500,
      pricingDecisionId: null,
      ...line,
    })),
    ...fields,
  };
}

const decisions: Record<string, { priceCents: number; currency: string; confidence: string; pricedAtMs: number; stance?: string }> = {
  pd_fresh: { priceCents: 1500, currency: 'USD', confidence: 'high', stance: 'hold_firm', pricedAtMs: NOW - DAY_MS },
  pd_old: { priceCents: 1500, currency: 'USD', confidence: 'high', pricedAtMs: NOW - 401 * DAY_MS },
};

function attribute(record: QuoteRecord) {
  return attributeQuote(record, {
    segment: 'enterprise',
    categoryOf: () => 'Fasteners',
    decisionOf: (id) => decisions[id],
    bandPct: 2,
    nowMs: NOW,
    retentionDays: 400,
  });
}

describe('attribution of a quote line to its decision', () => {
  it('places a quoted price within, above or below the band around the guided price, the band’s edges within', () => {
    expect(bandOf(1530, 1500, 2)).toBe('within');
    expect(bandOf(1470, 1500, 2)).toBe('within');
    expect(bandOf(1531, 1500, 2)).toBe('above');
    expect(bandOf(1469, 1500, 2)).toBe('below');
  });

  it('takes the guided price, confidence and stance of a known decision', () => {
    const [line] = attribute(quote([{ pricingDecisionId: 'pd_fresh', quotedPriceCents: 1400 }])).lines;
    expect(line).toMatchObject({ band: 'below', guidedCents: 1500, confidence: 'high', stance: 'hold_firm', category: 'Fasteners' });
  });

  it('counts an unknown id, one older than the retention, or one priced in another currency as unattributed, never guessed', () => {
    const part = attribute(quote([{ pricingDecisionId: 'pd_nowhere' }, { pricingDecisionId: 'pd_old' }, { pricingDecisionId: null }]));
    expect(part.lines.map((line) => line.band)).toEqual(['unattributed', 'unattributed', 'unguided']);
    expect(part.lines[0]).not.toHaveProperty('guidedCents');
    const euro = attribute(quote([{ pricingDecisionId: 'pd_fresh' }], { currency: 'EUR' }));
    expect(euro.lines[0]?.band).toBe('unattributed');
  });

  it('groups reasons lower-cased, trimmed and cut to 40 characters, and a missing one as (none)', () => {
    expect(normalizedReason('  Competitor   MATCH ')).toBe('competitor match');
    expect(normalizedReason(null)).toBe('(none)');
    expect(normalizedReason('x'.repeat(60))).toHaveLength(40);
  });
});

describe('what a quote contributes', () => {
  it('counts a won line below the band with its realised revenue, cost and the leakage against its guidance', () => {
    const part = attribute(quote([{ pricingDecisionId: 'pd_fresh', quotedPriceCents: 1400 }], { outcome: 'won' }));
    const overall = contributionOf(part, undefined)['overall#2026-11#'];
    expect(overall).toEqual({ below_n: 1, below_d: 1, below_w: 1, below_r: 14_000, below_c: 10_000, below_l: 1_000 });
  });

  it('closes the loop with an order that names the quote: won, at the order’s price and in base currency', () => {
    const part = attribute(quote([{ pricingDecisionId: 'pd_fresh', quotedPriceCents: 1400 }]));
    const order = orderPart({
      externalId: 'O-1',
      currency: 'EUR',
      exchangeRate: 1.1,
      soldAt: '2026-11-05T00:00:00Z',
      lines: [{ productSku: 'BOLT', quantity: 8, costCents: 900, soldPriceCents: 1300 }],
    });
    const category = contributionOf(part, order)['category#2026-11#Fasteners'];
    expect(category).toMatchObject({
      below_w: 1,
      below_r: Math.round(8 * 1300 * 1.1),
      below_c: Math.round(8 * 900 * 1.1),
      below_l: Math.round(8 * 200 * 1.1),
    });
  });

  it('adds a guided line to its confidence group, and an unguided one to none', () => {
    const part = attribute(quote([{ pricingDecisionId: 'pd_fresh' }, {}]));
    const contribution = contributionOf(part, undefined);
    expect(contribution['confidence#2026-11#high']).toEqual({ within_n: 1 });
    expect(contribution['overall#2026-11#']).toEqual({ within_n: 1, unguided_n: 1 });
  });

  it('replaces a revision’s earlier contribution: the delta takes the old counts out and puts the new ones in', () => {
    const before = contributionOf(
      attribute(quote([{ pricingDecisionId: 'pd_fresh', quotedPriceCents: 1700 }], { outcome: 'lost' })),
      undefined,
    );
    const after = contributionOf(
      attribute(quote([{ pricingDecisionId: 'pd_fresh', quotedPriceCents: 1500 }], { outcome: 'won' })),
      undefined,
    );
    const delta = contributionDelta(before, after);
    expect(delta['overall#2026-11#']).toEqual({
      above_n: -1,
      above_d: -1,
      within_n: 1,
      within_d: 1,
      within_w: 1,
      within_r: 15_000,
      within_c: 10_000,
    });
    expect(contributionDelta(after, after)).toEqual({});
    expect(sumContributions([delta, contributionDelta(after, before)])).toEqual({});
  });
});
