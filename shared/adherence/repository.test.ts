import { marshall } from '@aws-sdk/util-dynamodb';
import { describe, expect, it } from 'vitest';
import { itemSize } from '#platform/table/capacity.ts';
import { contributionOf, type OrderPart, type QuotePart } from './attribution.ts';
import { attributionItem, storedAttribution, sumAggregates } from './repository.ts';

describe('reading the adherence aggregates', () => {
  it("adds up one group and month's counters across the shards and the older partition, and keeps its other fields", () => {
    const summed = sumAggregates([
      { PK: 'WS#w#ADHERENCE#03', SK: 'overall#2026-11#', dimension: 'overall', within_n: 2, won_w: 1, m_bt_a: 'CHUNK#2' },
      { PK: 'WS#w#ADHERENCE', SK: 'overall#2026-11#', dimension: 'overall', within_n: 5, above_n: 1 },
      { PK: 'WS#w#ADHERENCE#01', SK: 'category#2026-11#Fasteners', dimension: 'category', within_n: 1 },
    ]);
    expect(summed).toEqual([
      { PK: 'WS#w#ADHERENCE#01', SK: 'category#2026-11#Fasteners', dimension: 'category', within_n: 1 },
      { PK: 'WS#w#ADHERENCE#03', SK: 'overall#2026-11#', dimension: 'overall', within_n: 7, won_w: 1, above_n: 1, m_bt_a: 'CHUNK#2' },
    ]);
  });
});

describe("a quote's attribution item", () => {
  const quote: QuotePart = {
    quoteId: 'Q-1',
    month: '2026-11',
    outcome: 'won',
    segment: 'mid-market',
    rate: 1,
    lines: Array.from({ length: 5 }, (_, index) => ({
      sku: `SKU-${index}`,
      quantity: 10,
      quotedCents: 1_200 + index,
      costCents: 900,
      band: 'within' as const,
      reason: 'none',
      decisionId: `pd_0000000000000000000${index}`,
      guidedCents: 1_210,
      confidence: 'medium',
      category: 'Fasteners',
    })),
  };
  const order: OrderPart = { orderId: 'O-1', rate: 1, lines: [{ sku: 'SKU-0', quantity: 10, priceCents: 1_200, costCents: 900 }] };

  it('packs its parts into one attribute under a kilobyte, one write unit, and reads them back as they were', () => {
    const { item, contribution } = attributionItem('w', 'Q-1', quote, order, '2026-11-20T10:00:00.000Z');
    expect(item).not.toHaveProperty('quote');
    expect(item).not.toHaveProperty('contribution');
    expect(itemSize(marshall(item))).toBeLessThan(1_024);
    expect(storedAttribution(item)).toEqual({ quote, order, contribution });
  });

  it('reads an item written before the parts were packed, each part as JSON text', () => {
    const contribution = contributionOf(quote, undefined);
    const older = {
      PK: 'WS#w#QUOTE#Q-1',
      SK: 'ADHERENCE',
      type: 'quoteAdherence',
      quoteExternalId: 'Q-1',
      quote: JSON.stringify(quote),
      contribution: JSON.stringify(contribution),
    };
    expect(storedAttribution(older)).toEqual({ quote, order: undefined, contribution });
  });
});
