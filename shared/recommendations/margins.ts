// A product's realised margins over time: its order lines, month by month, as the console charts them.
import { getItems } from '../table/bulk.ts';
import { lookupKeys, type PrimaryKey } from '../table/keys.ts';
import { queryLookup } from '../table/query.ts';

/** What a history line carries that a realised margin needs; quote lines are read too, and left out. */
export interface HistoryLine {
  readonly type: string;
  readonly atMs: number;
  readonly quantity: number;
  readonly costCents: number;
  readonly priceCents: number;
  /** Units of the base currency per unit of the document's currency, when the document named one. */
  readonly exchangeRate?: number;
}

export interface MarginPoint {
  /** YYYY-MM, UTC. */
  readonly month: string;
  /** (revenue − cost) / revenue of the month's order lines, in percent to 2 decimals. */
  readonly marginPct: number;
  readonly lines: number;
}

/** Sold lines, summed per UTC month in the base currency so that documents in other currencies weigh as much as they sold for. */
export function monthlyMargins(lines: readonly HistoryLine[]): MarginPoint[] {
  const months = new Map<string, { revenue: number; cost: number; lines: number }>();
  for (const line of lines) {
    if (line.type !== 'orderLine' || !Number.isFinite(line.atMs)) continue;
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
 * The product's history lines, found through the lookup index (keys only) and read back eventually consistent:
 * 0.5 RRU per 4 KB of keys and 0.5 RRU per line. Lines expire with the history's retention, so this stays bounded.
 */
export async function readRealisedMargins(workspaceId: string, sku: string): Promise<MarginPoint[]> {
  const found = await queryLookup(lookupKeys.productLines(workspaceId, sku));
  if (found.length === 0) return [];
  const items = await getItems(
    found.map((item): PrimaryKey => ({ PK: String(item.PK), SK: String(item.SK) })),
    { consistent: false },
  );
  return monthlyMargins(
    items.map((item) => ({
      type: String(item.type),
      atMs: Number(item.atMs),
      quantity: Number(item.quantity),
      costCents: Number(item.costCents),
      priceCents: Number(item.priceCents),
      ...(typeof item.exchangeRate === 'number' ? { exchangeRate: item.exchangeRate } : {}),
    })),
  );
}
