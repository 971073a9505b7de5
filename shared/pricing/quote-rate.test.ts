// Unit tests of a product's quote rate: its quote lines in the window, and a per-quote change over a month at that rate.
import { describe, expect, it } from 'vitest';
import type { HistoryLine } from './model.ts';
import { perMonth, QUOTE_RATE_WINDOW_DAYS, quoteLinesPerMonth, recentQuoteLines, recentQuotesOf } from './quote-rate.ts';

const NOW = Date.UTC(2026, 10, 30, 12);
const DAY_MS = 86_400_000;

function line(sku: string, daysAgo: number, kind: 'quote' | 'order' = 'quote'): HistoryLine {
  return {
    kind,
    documentId: `${kind}-${sku}-${daysAgo}`,
    productSku: sku,
    customerExternalId: 'C-1',
    segment: '',
    quantity: 1,
    costCents: 100,
    priceCents: 150,
    atMs: NOW - daysAgo * DAY_MS,
    ...(kind === 'quote' ? { outcome: 'won' as const } : {}),
  };
}

describe("a product's quote rate", () => {
  it(`counts its quote lines of every outcome in the last ${QUOTE_RATE_WINDOW_DAYS} days, and no order line`, () => {
    const rates = recentQuoteLines([line('A', 1), line('A', 89), line('A', 91), line('A', 5, 'order'), line('B', 200)], NOW);
    expect(rates.get('A')).toEqual({ lines: 2, days: 90, asOf: '2026-11-30' });
    // Quoted only before the window: known, at no quote a month.
    expect(rates.get('B')).toEqual({ lines: 0, days: 90, asOf: '2026-11-30' });
  });

  it('turns a per-quote change into a month at that rate, a month being a twelfth of a year', () => {
    const quotes = { lines: 90, days: 90, asOf: '2026-11-30' };
    expect(quoteLinesPerMonth(quotes)).toBeCloseTo(30.4375, 6);
    expect(perMonth(120, quotes)).toBe(3653);
    expect(perMonth(-120, quotes)).toBe(-3652);
    expect(perMonth(120, { ...quotes, lines: 0 })).toBe(0);
  });

  it('reads a stored rate defensively, none from an item written before rates were kept', () => {
    expect(recentQuotesOf({ recentQuotes: { lines: 3, days: 90, asOf: '2026-11-30' } })).toEqual({
      lines: 3,
      days: 90,
      asOf: '2026-11-30',
    });
    expect(recentQuotesOf({})).toBeUndefined();
    expect(recentQuotesOf({ recentQuotes: { lines: -1, days: 90, asOf: '2026-11-30' } })).toBeUndefined();
  });
});
