// What an order's new version takes out of its products' months, however the drain came to write it.
import { describe, expect, it } from 'vitest';
import type { StoredDocument } from '#shared/canonical/repository.ts';
import type { OrderRecord } from '#shared/records/schema.ts';
import { mergeMargins, orderMarginChange, replacedContribution } from './margin-fold.ts';

function order(cost: number): OrderRecord {
  return {
    externalId: 'O-1',
    customerExternalId: 'C-1',
    currency: 'USD',
    soldAt: '2026-09-10T10:00:00Z',
    lines: [{ productSku: 'LAMP', quantity: 10, costCents: cost, soldPriceCents: 1000 }],
  } as OrderRecord;
}

function stored(record: OrderRecord, chunk: string | undefined, replacedMargin?: string): StoredDocument {
  return {
    lineCount: record.lines.length,
    document: JSON.stringify(record),
    batchId: chunk?.split('#')[0] ?? 'older',
    feeds: undefined,
    replacedFeeds: undefined,
    version: 1,
    lineItems: 1,
    expiresAt: undefined,
    chunk,
    replacedMargin,
  };
}

describe("an order's margin change", () => {
  it('adds the whole order when no version of it is stored', () => {
    expect(orderMarginChange(order(600), replacedContribution(undefined, 'b-2#CHUNK#1'))).toEqual({ '2026-09 LAMP': [10_000, 6_000, 1] });
  });

  it('takes out what the stored version added, read from its text, when another batch or an older release wrote it', () => {
    for (const chunk of ['b-1#CHUNK#1', undefined]) {
      const before = replacedContribution(stored(order(600), chunk), 'b-2#CHUNK#1');
      expect(orderMarginChange(order(800), before)).toEqual({ '2026-09 LAMP': [0, 2_000, 0] });
    }
  });

  it('changes nothing for a copy of a version an earlier chunk of the same batch wrote', () => {
    expect(orderMarginChange(order(600), replacedContribution(stored(order(600), 'b-2#CHUNK#1'), 'b-2#CHUNK#3'))).toEqual({});
  });

  it('takes out what the first attempt took out when the same chunk is written again', () => {
    const kept = JSON.stringify({ '2026-09 LAMP': [10_000, 6_000, 1] });
    expect(orderMarginChange(order(800), replacedContribution(stored(order(800), 'b-2#CHUNK#3', kept), 'b-2#CHUNK#3'))).toEqual({
      '2026-09 LAMP': [0, 2_000, 0],
    });
    // An order new to the batch's first attempt replaced nothing, and still adds itself whole.
    expect(orderMarginChange(order(800), replacedContribution(stored(order(800), 'b-2#CHUNK#3'), 'b-2#CHUNK#3'))).toEqual({
      '2026-09 LAMP': [10_000, 8_000, 1],
    });
  });

  it('sums the chunks taken in at one checkpoint', () => {
    const change = { workspaceId: 'w', delta: { '2026-09 LAMP': [10_000, 6_000, 1] as const } };
    expect(mergeMargins([change, change])?.delta).toEqual({ '2026-09 LAMP': [20_000, 12_000, 2] });
    expect(mergeMargins([])).toBeUndefined();
  });
});
