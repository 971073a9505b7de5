// What a bulk selection is worth: its lines' expected margin changes summed per currency, per quote and per month.
import type { BulkLine } from './bulk.ts';

/** The selection's expected margin change per quote, one quote of each product, summed per currency (never across currencies). */
export interface ImpactTotal {
  readonly currency: string;
  readonly expectedMarginChangeCents: number;
  /** Products whose impact is in the sum. */
  readonly estimated: number;
  /** Products of this currency whose impact is too thin to say. */
  readonly tooThin: number;
  /** The same products' change over a month at their recent quote rates, and how many of them have a rate. */
  readonly perMonthCents: number;
  readonly perMonthProducts: number;
}

export function impactTotals(lines: readonly BulkLine[]): ImpactTotal[] {
  const totals = new Map<string, Omit<ImpactTotal, 'currency'>>();
  for (const line of lines) {
    const total = totals.get(line.currency) ?? {
      expectedMarginChangeCents: 0,
      estimated: 0,
      tooThin: 0,
      perMonthCents: 0,
      perMonthProducts: 0,
    };
    const month = line.expectedMarginChangePerMonthCents;
    totals.set(
      line.currency,
      line.expectedMarginChangeCents === undefined
        ? { ...total, tooThin: total.tooThin + 1 }
        : {
            ...total,
            expectedMarginChangeCents: total.expectedMarginChangeCents + line.expectedMarginChangeCents,
            estimated: total.estimated + 1,
            perMonthCents: total.perMonthCents + (month ?? 0),
            perMonthProducts: total.perMonthProducts + (month === undefined ? 0 : 1),
          },
    );
  }
  return [...totals].sort(([a], [b]) => a.localeCompare(b)).map(([currency, total]) => ({ currency, ...total }));
}
