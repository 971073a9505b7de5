// Unit tests of where the backtest cuts the history and what falls on each side.
import { describe, expect, it } from 'vitest';
import { type BacktestLine, chooseCutoff, splitAtCutoff } from './split.ts';

const DAY_MS = 86_400_000;
const day = (n: number) => Date.UTC(2026, 0, 1) + n * DAY_MS;

function line(fields: Partial<BacktestLine> & Pick<BacktestLine, 'atMs'>): BacktestLine {
  return {
    kind: 'quote',
    documentId: `Q-${fields.atMs}`,
    productSku: 'SKU-1',
    customerExternalId: 'C-1',
    segment: 'smb',
    category: 'Fasteners',
    quantity: 1,
    costCents: 100,
    priceCents: 150,
    outcome: 'won',
    ...fields,
  };
}

describe('the cut-off', () => {
  it('falls the holdout days before the newest won or lost quote, whatever is open or ordered later', () => {
    const lines = [
      line({ atMs: day(10) }),
      line({ atMs: day(100), outcome: 'lost' }),
      line({ atMs: day(150), outcome: 'open' }),
      line({ atMs: day(160), kind: 'order', outcome: undefined }),
    ];
    expect(chooseCutoff(lines, 60)).toEqual({ cutoffMs: day(40), latestClosedAtMs: day(100) });
  });

  it('is undefined when no quote was ever won or lost', () => {
    expect(chooseCutoff([line({ atMs: day(1), outcome: 'open' })], 60)).toBeUndefined();
    expect(chooseCutoff([], 60)).toBeUndefined();
  });
});

describe('the split', () => {
  it('trains on every line before the cut-off and scores the closed quote lines at or after it', () => {
    const lines = [
      line({ atMs: day(1), documentId: 'A' }),
      line({ atMs: day(2), documentId: 'B', kind: 'order', outcome: undefined }),
      line({ atMs: day(5), documentId: 'C', outcome: 'lost' }),
      line({ atMs: day(6), documentId: 'D', outcome: 'open' }),
      line({ atMs: day(7), documentId: 'E', kind: 'order', outcome: undefined }),
    ];
    const split = splitAtCutoff(lines, day(5));
    expect(split.training.map((item) => item.documentId)).toEqual(['A', 'B']);
    expect(split.holdout.map((item) => item.documentId)).toEqual(['C']);
    expect(split).toMatchObject({ openAfter: 1, ordersAfter: 1, decidedLater: 0 });
  });

  it('trains a quote decided after the cut-off as open, since its outcome was not known then', () => {
    const split = splitAtCutoff([line({ atMs: day(1), decidedAtMs: day(9) }), line({ atMs: day(2), decidedAtMs: day(3) })], day(5));
    expect(split.training.map((item) => item.outcome)).toEqual(['open', 'won']);
    expect(split.decidedLater).toBe(1);
  });

  it('counts a quote without a decision date as decided when it was created', () => {
    const split = splitAtCutoff([line({ atMs: day(1), outcome: 'lost' })], day(5));
    expect(split.training[0]?.outcome).toBe('lost');
  });
});
