// Unit tests of a SKU's recent buyers: its quote lines of the window, grouped by their customers' offsets within each segment.
import { describe, expect, it } from 'vitest';
import { BUYERS_WINDOW_DAYS, GROUPS_PER_SEGMENT, recentBuyers } from './buyers.ts';
import type { HistoryLine } from './model.ts';

const NOW = Date.UTC(2026, 2, 1);
const DAY_MS = 86_400_000;

function quote(customer: string | undefined, quantity: number, daysAgo: number, overrides: Partial<HistoryLine> = {}): HistoryLine {
  return {
    kind: 'quote',
    documentId: `Q-${customer}-${daysAgo}-${quantity}`,
    productSku: 'SKU-1',
    customerExternalId: customer,
    segment: 'smb',
    quantity,
    costCents: 100,
    priceCents: 150,
    atMs: NOW - daysAgo * DAY_MS,
    outcome: 'lost',
    ...overrides,
  };
}

const offsets = new Map([
  ['C-LOW', -1],
  ['C-MID', 0],
  ['C-HIGH', 1],
]);
const evenly = () => 1;

describe("a SKU's recent buyers", () => {
  it('cut a segment into groups of equal weight by their customers’ offsets, each with its mean offset and geometric-mean quantity', () => {
    const lines = [
      quote('C-HIGH', 8, 1),
      quote('C-LOW', 2, 2),
      quote('C-MID', 4, 3),
      quote('C-LOW', 8, 4),
      quote('C-MID', 4, 5),
      quote('C-HIGH', 2, 6),
    ];
    const groups = recentBuyers(lines, offsets, NOW, evenly).get('SKU-1')?.get('smb');
    expect(groups).toHaveLength(GROUPS_PER_SEGMENT);
    expect(groups?.map((group) => group.offset)).toEqual([-1, 0, 1]);
    expect(groups?.map((group) => group.weight)).toEqual([2, 2, 2]);
    // 2 and 8 have a geometric mean of 4.
    for (const group of groups ?? []) expect(group.quantity).toBeCloseTo(4, 12);
  });

  it('count open, won and lost quotes alike, at offset 0 without a customer, and leave out orders and quotes older than the window', () => {
    const lines = [
      quote(undefined, 3, 1, { outcome: 'open' }),
      quote('C-HIGH', 3, 2, { outcome: 'won' }),
      quote('C-HIGH', 3, BUYERS_WINDOW_DAYS + 1),
      { ...quote('C-LOW', 3, 1), kind: 'order' as const, outcome: undefined },
    ];
    const groups = recentBuyers(lines, offsets, NOW, evenly).get('SKU-1')?.get('smb') ?? [];
    expect(groups.reduce((sum, group) => sum + group.weight, 0)).toBe(2);
    expect(groups.map((group) => group.offset).sort()).toEqual([0, 1]);
  });

  it('weigh each line as the weight function says, by its date', () => {
    const lines = [quote('C-LOW', 1, 0), quote('C-HIGH', 1, 180)];
    const halfYear = (atMs: number) => 0.5 ** ((NOW - atMs) / DAY_MS / 180);
    const groups = recentBuyers(lines, offsets, NOW, halfYear).get('SKU-1')?.get('smb') ?? [];
    const total = groups.reduce((sum, group) => sum + group.weight, 0);
    expect(total).toBeCloseTo(1.5, 12);
    const mean = groups.reduce((sum, group) => sum + group.weight * group.offset, 0) / total;
    expect(mean).toBeCloseTo((-1 * 1 + 1 * 0.5) / 1.5, 12);
  });
});
