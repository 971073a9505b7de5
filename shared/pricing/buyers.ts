// A SKU's recent buyers, per segment: a few groups of its quote lines by their customers' win offsets, kept on its segment × SKU bands.
import type { Band, BuyerGroup, HistoryLine } from './model.ts';

/** Quote lines older than this do not say who buys the SKU now. */
export const BUYERS_WINDOW_DAYS = 365;
/**
 * Groups per segment: the lines sorted by their customers' offsets and cut into this many of equal weight. Three keep
 * the spread of the offsets (the curve is not linear in them) in about 60 bytes a segment.
 */
export const GROUPS_PER_SEGMENT = 3;
const DAY_MS = 86_400_000;

interface BuyerLine {
  readonly offset: number;
  readonly weight: number;
  readonly logQuantity: number;
}

/** Cuts a segment's lines, sorted by offset, into groups of equal weight. */
function groupsOf(lines: BuyerLine[]): BuyerGroup[] {
  lines.sort((a, b) => a.offset - b.offset);
  const total = lines.reduce((sum, line) => sum + line.weight, 0);
  const groups: BuyerGroup[] = [];
  let weight = 0;
  let offset = 0;
  let logQuantity = 0;
  let seen = 0;
  for (const line of lines) {
    weight += line.weight;
    offset += line.weight * line.offset;
    logQuantity += line.weight * line.logQuantity;
    seen += line.weight;
    const cut = (total * (groups.length + 1)) / GROUPS_PER_SEGMENT;
    if (seen >= cut - 1e-12 * total && weight > 0) {
      groups.push({ weight, offset: offset / weight, quantity: 2 ** (logQuantity / weight) });
      weight = 0;
      offset = 0;
      logQuantity = 0;
    }
  }
  if (weight > 0) groups.push({ weight, offset: offset / weight, quantity: 2 ** (logQuantity / weight) });
  return groups;
}

/**
 * Every SKU's recent buyers in a category, by segment: its quote lines of the last BUYERS_WINDOW_DAYS, open or closed
 * (a quote asked for is a buyer, whatever came of it), each weighed by recency as the win model weighs its quotes and
 * placed by its customer's win offset. sku → segment → groups.
 */
export function recentBuyers(
  lines: readonly HistoryLine[],
  customerOffsets: ReadonlyMap<string, number>,
  asOfMs: number,
  weightOf: (atMs: number) => number,
): Map<string, Map<string, BuyerGroup[]>> {
  const bySku = new Map<string, Map<string, BuyerLine[]>>();
  const since = asOfMs - BUYERS_WINDOW_DAYS * DAY_MS;
  for (const line of lines) {
    if (line.kind !== 'quote' || line.atMs < since || !(line.quantity > 0)) continue;
    const weight = weightOf(line.atMs);
    const offset = line.customerExternalId === undefined ? 0 : (customerOffsets.get(line.customerExternalId) ?? 0);
    let segments = bySku.get(line.productSku);
    if (!segments) bySku.set(line.productSku, (segments = new Map()));
    let list = segments.get(line.segment);
    if (!list) segments.set(line.segment, (list = []));
    list.push({ offset, weight, logQuantity: Math.log2(line.quantity) });
  }
  return new Map([...bySku].map(([sku, segments]) => [sku, new Map([...segments].map(([segment, list]) => [segment, groupsOf(list)]))]));
}

/** Puts each SKU's buyers of a segment on its segment × SKU band (sku → segment → band), where it has one. */
export function withBuyers(
  segmentSkus: Map<string, Map<string, Band>>,
  buyers: ReadonlyMap<string, ReadonlyMap<string, BuyerGroup[]>>,
): void {
  for (const [sku, bySegment] of segmentSkus) {
    for (const [segment, band] of bySegment) {
      const groups = buyers.get(sku)?.get(segment);
      if (groups && groups.length > 0) bySegment.set(segment, { ...band, buyers: groups });
    }
  }
}
