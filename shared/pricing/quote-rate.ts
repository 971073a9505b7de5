// How often a product is quoted: its quote lines in a recent window, kept on the product by its bands job, and what a per-quote change is worth over a month at that rate.
import * as v from 'valibot';
import type { HistoryLine } from './model.ts';

/** The window a product's quote rate is counted over, in days. */
export const QUOTE_RATE_WINDOW_DAYS = 90;

/** The mean length of a month, in days: 365.25 / 12. */
const DAYS_PER_MONTH = 30.4375;

const DAY_MS = 86_400_000;

/** A product's quote lines (every outcome) in the window to `asOf`, as its last bands job counted them. */
export const RecentQuotesSchema = v.object({
  lines: v.pipe(v.number(), v.safeInteger(), v.minValue(0)),
  days: v.pipe(v.number(), v.safeInteger(), v.minValue(1)),
  /** The day the window ends on, YYYY-MM-DD (UTC). */
  asOf: v.pipe(v.string(), v.isoDate()),
});
export type RecentQuotes = v.InferOutput<typeof RecentQuotesSchema>;

/** Each product's quote lines in the window to `nowMs`, for every product the lines name (0 for one quoted before it). */
export function recentQuoteLines(lines: readonly HistoryLine[], nowMs: number): Map<string, RecentQuotes> {
  const since = nowMs - QUOTE_RATE_WINDOW_DAYS * DAY_MS;
  const asOf = new Date(nowMs).toISOString().slice(0, 10);
  const counts = new Map<string, number>();
  for (const line of lines) {
    const inWindow = line.kind === 'quote' && line.atMs >= since && line.atMs <= nowMs;
    counts.set(line.productSku, (counts.get(line.productSku) ?? 0) + (inWindow ? 1 : 0));
  }
  return new Map([...counts].map(([sku, count]) => [sku, { lines: count, days: QUOTE_RATE_WINDOW_DAYS, asOf }]));
}

/** A stored product's quote rate, read defensively: one written before rates were kept has none. */
export function recentQuotesOf(item: { readonly recentQuotes?: unknown }): RecentQuotes | undefined {
  const parsed = v.safeParse(RecentQuotesSchema, item.recentQuotes);
  return parsed.success ? parsed.output : undefined;
}

/** Quote lines a month at the window's rate. */
export function quoteLinesPerMonth(quotes: RecentQuotes): number {
  return (quotes.lines / quotes.days) * DAYS_PER_MONTH;
}

/** A per-quote amount over a month at the product's recent quote rate, in the same minor units, rounded. */
export function perMonth(perQuoteCents: number, quotes: RecentQuotes): number {
  return Math.round(perQuoteCents * quoteLinesPerMonth(quotes)) + 0;
}
