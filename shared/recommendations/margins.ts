// A product's realised margins over time: its order lines, month by month, as the console charts them.
import type { CategoryLine } from '#shared/bands/history-log.ts';
import { readCategoryLines } from '#shared/bands/repository.ts';

/** What a history line carries that a realised margin needs; quote lines are read too, and left out. */
export type MarginLine = Pick<CategoryLine, 'kind' | 'atMs' | 'quantity' | 'costCents' | 'priceCents' | 'exchangeRate'>;

export interface MarginPoint {
  /** YYYY-MM, UTC. */
  readonly month: string;
  /** (revenue − cost) / revenue of the month's order lines, in percent to 2 decimals. */
  readonly marginPct: number;
  readonly lines: number;
}

/** Sold lines, summed per UTC month in the base currency so that documents in other currencies weigh as much as they sold for. */
export function monthlyMargins(lines: readonly MarginLine[]): MarginPoint[] {
  const months = new Map<string, { revenue: number; cost: number; lines: number }>();
  for (const line of lines) {
    if (line.kind !== 'order' || !Number.isFinite(line.atMs)) continue;
    const month = new Date(line.atMs).toISOString().slice(0, 7);
    const rate = line.exchangeRate ?? 1;
    const sums = months.get(month) ?? { revenue: 0, cost: 0, lines: 0 };
    sums.revenue += line.priceCents * line.quantity * rate;
    sums.cost += line.costCents * line.quantity * rate;
    sums.lines += 1;
    months.set(month, sums);
  }
  return [...months.entries()]
    .filter(([, sums]) => sums.revenue > 0)
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([month, sums]) => ({
      month,
      marginPct: Math.round(((sums.revenue - sums.cost) / sums.revenue) * 10_000) / 100,
      lines: sums.lines,
    }));
}

/**
 * The product's order lines, from its category's history log (the lines the bands read, so what was realised under
 * the product's current category): the read the bands job makes for the category, about 1 RRU per 4 KB of log.
 */
export async function readRealisedMargins(
  workspaceId: string,
  sku: string,
  category: string | undefined,
  nowMs: number,
): Promise<MarginPoint[]> {
  if (category === undefined) return [];
  const lines = await readCategoryLines(workspaceId, category, nowMs);
  return monthlyMargins(lines.filter((line) => line.productSku === sku));
}
