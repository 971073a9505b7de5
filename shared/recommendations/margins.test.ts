import { describe, expect, it } from 'vitest';
import { monthlyMargins } from './margins.ts';

const at = (iso: string) => Date.parse(iso);

describe('realised margins by month', () => {
  it('sum the order lines of each UTC month, weighted by quantity, and leave quote lines out', () => {
    const margins = monthlyMargins([
      { kind: 'order', atMs: at('2026-09-03T10:00:00Z'), quantity: 10, costCents: 60, priceCents: 100 },
      { kind: 'order', atMs: at('2026-09-20T10:00:00Z'), quantity: 30, costCents: 80, priceCents: 100 },
      { kind: 'quote', atMs: at('2026-09-21T10:00:00Z'), quantity: 1000, costCents: 99, priceCents: 100 },
      { kind: 'order', atMs: at('2026-08-31T23:59:59Z'), quantity: 1, costCents: 50, priceCents: 200 },
    ]);
    expect(margins).toEqual([
      { month: '2026-08', marginPct: 75, lines: 1 },
      { month: '2026-09', marginPct: 25, lines: 2 },
    ]);
  });

  it('convert documents in other currencies at their rate, so that each weighs as much as it sold for', () => {
    const margins = monthlyMargins([
      { kind: 'order', atMs: at('2026-09-01T00:00:00Z'), quantity: 1, costCents: 50, priceCents: 100, exchangeRate: 3 },
      { kind: 'order', atMs: at('2026-09-02T00:00:00Z'), quantity: 1, costCents: 100, priceCents: 100 },
    ]);
    expect(margins).toEqual([{ month: '2026-09', marginPct: 37.5, lines: 2 }]);
  });

  it('are empty without orders', () => {
    expect(monthlyMargins([])).toEqual([]);
  });
});
