// What an order's new version takes out of its products' months: what they hold of the version it replaces, folded or not.
import { describe, expect, it } from 'vitest';
import type { StoredDocument } from '#shared/canonical/repository.ts';
import type { OrderRecord } from '#shared/records/schema.ts';
import { type FoldedChunk, orderMarginChange, replacedContribution, sumMargins } from './margin-fold.ts';

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

const folded: FoldedChunk = () => true;
const notFolded: FoldedChunk = () => false;
const first = JSON.stringify({ '2026-09 LAMP': [10_000, 6_000, 1] });

describe("an order's margin change", () => {
  it('adds the whole order when no version of it is stored', () => {
    expect(orderMarginChange(order(600), replacedContribution(undefined, folded))).toEqual({ '2026-09 LAMP': [10_000, 6_000, 1] });
  });

  it('takes out what a folded version added, read from its text, and so changes nothing for a copy of it', () => {
    for (const chunk of ['b-1#CHUNK#1', undefined]) {
      expect(orderMarginChange(order(800), replacedContribution(stored(order(600), chunk), folded))).toEqual({
        '2026-09 LAMP': [0, 2_000, 0],
      });
      expect(orderMarginChange(order(600), replacedContribution(stored(order(600), chunk), folded))).toEqual({});
    }
  });

  it('takes out what the version before it added while the stored version is not folded yet', () => {
    // An attempt at the same chunk, or a batch staged again after a drain given up before that chunk's checkpoint.
    expect(orderMarginChange(order(800), replacedContribution(stored(order(800), 'b-2#CHUNK#3', first), notFolded))).toEqual({
      '2026-09 LAMP': [0, 2_000, 0],
    });
    // A version that replaced nothing leaves nothing in the months until it is folded.
    expect(orderMarginChange(order(800), replacedContribution(stored(order(800), 'b-2#CHUNK#3'), notFolded))).toEqual({
      '2026-09 LAMP': [10_000, 8_000, 1],
    });
  });

  it('reads a version written before documents kept their chunk as folded', () => {
    expect(orderMarginChange(order(600), replacedContribution(stored(order(600), undefined, first), notFolded))).toEqual({});
  });

  it('sums the changes of many orders, dropping the months they cancel out in', () => {
    const change = { '2026-09 LAMP': [10_000, 6_000, 1] as const, '2026-10 LAMP': [500, 300, 1] as const };
    const undone = { '2026-10 LAMP': [-500, -300, -1] as const };
    expect(sumMargins([change, change, undone])).toEqual({ '2026-09 LAMP': [20_000, 12_000, 2], '2026-10 LAMP': [500, 300, 1] });
    expect(sumMargins([undone, { '2026-10 LAMP': [500, 300, 1] }])).toEqual({});
  });
});
