// Each product's list price over its cost as the bands job reads it: kept per category between runs, read again from the product items only where it may have moved.
import { getItems, type TableItem } from '#platform/table/bulk.ts';
import { getItem, putItem } from '#platform/table/commands.ts';
import type { PrimaryKey } from '#platform/table/key-parts.ts';
import { keys } from '#platform/table/keys.ts';

/**
 * Kept markups are trusted this long after the last run that read every one of a category's products. A product's
 * list price or cost moves only with its record, which a run reads again; this bounds what a rarer path can leave
 * behind (a product moved to another category and repriced there keeps its old markup on the lines it left).
 */
export const KEPT_MARKUPS_TRUSTED_MS = 7 * 24 * 60 * 60 * 1000;
/** A category whose markups would not fit in an item comfortably is read in full every time, as before they were kept. */
export const MAX_KEPT_BYTES = 300_000;

export interface KeptMarkups {
  /** SKU → list price / cost; a product without a list price or a cost is kept as 0, so that it is not read again. */
  readonly markups: ReadonlyMap<string, number>;
  /** When a run last read every product of the category. */
  readonly fullReadAtMs: number;
}

/** What a category's run reads: the kept markups it may trust and the SKUs it must read from their product items. */
export function markupsToRead(
  skus: readonly string[],
  kept: KeptMarkups | undefined,
  mayHaveMoved: (sku: string) => boolean,
  nowMs: number,
): { readonly trusted: ReadonlyMap<string, number>; readonly read: readonly string[]; readonly full: boolean } {
  if (!kept || nowMs - kept.fullReadAtMs >= KEPT_MARKUPS_TRUSTED_MS) return { trusted: new Map(), read: skus, full: true };
  const trusted = new Map<string, number>();
  const read: string[] = [];
  for (const sku of skus) {
    const markup = kept.markups.get(sku);
    if (markup === undefined || mayHaveMoved(sku)) read.push(sku);
    else trusted.set(sku, markup);
  }
  // Every product read again (a rebuild, or a batch that re-sent the whole category) is a full read too.
  return { trusted, read, full: read.length > 0 && read.length === skus.length };
}

/** The markups a category's run last kept; strongly consistent, so that a run never trusts what the one before replaced. */
export async function readKeptMarkups(workspaceId: string, category: string): Promise<KeptMarkups | undefined> {
  const item = await getItem({ Key: keys.listMarkups(workspaceId, category), ConsistentRead: true });
  if (!item || typeof item.markups !== 'string' || typeof item.fullReadAtMs !== 'number') return undefined;
  return { markups: new Map(Object.entries(JSON.parse(item.markups) as Record<string, number>)), fullReadAtMs: item.fullReadAtMs };
}

/** List price / cost of each product asked about, from its item; 0 for one without both, or not in the catalogue. */
async function readProductMarkups(workspaceId: string, skus: readonly string[]): Promise<Map<string, number>> {
  const items = await getItems(
    skus.map((sku) => keys.product(workspaceId, sku)),
    // Strongly: a product the batch re-sent was written moments ago, and what is read here is kept.
    { consistent: true, projection: '#sku, costCents, currentPriceCents', names: { '#sku': 'sku' } },
  );
  const markups = new Map<string, number>(skus.map((sku) => [sku, 0]));
  for (const item of items) {
    const cost = Number(item.costCents);
    const list = Number(item.currentPriceCents);
    if (cost > 0 && list > 0) markups.set(String(item.sku), list / cost);
  }
  return markups;
}

/**
 * The markups of a category's products for the win model, those without one left out, and the item to keep for the
 * next run when anything in it moved (undefined when nothing did).
 */
export async function categoryListMarkups(
  workspaceId: string,
  category: string,
  skus: readonly string[],
  kept: KeptMarkups | undefined,
  mayHaveMoved: (sku: string) => boolean,
  nowMs: number,
): Promise<{ readonly markups: Map<string, number>; readonly keep: TableItem | undefined }> {
  const plan = markupsToRead(skus, kept, mayHaveMoved, nowMs);
  const read = plan.read.length > 0 ? await readProductMarkups(workspaceId, plan.read) : new Map<string, number>();
  const all = new Map([...plan.trusted, ...read]);
  const markups = new Map([...all].filter(([, markup]) => markup > 0));
  const moved = plan.full || [...read].some(([sku, markup]) => kept?.markups.get(sku) !== markup);
  return { markups, keep: moved ? markupsToKeep(keys.listMarkups(workspaceId, category), all, plan.full, kept, nowMs) : undefined };
}

/**
 * The item that keeps a category's markups after a run that moved any. One too large to keep comfortably (in bytes:
 * SKUs may be any text) keeps none: it replaces what was kept, and every run reads the category in full.
 */
export function markupsToKeep(
  key: PrimaryKey,
  markups: ReadonlyMap<string, number>,
  full: boolean,
  kept: KeptMarkups | undefined,
  nowMs: number,
): TableItem | undefined {
  const text = JSON.stringify(Object.fromEntries(markups));
  if (Buffer.byteLength(text) > MAX_KEPT_BYTES) return kept ? { ...key, type: 'listMarkups' } : undefined;
  return { ...key, type: 'listMarkups', markups: text, fullReadAtMs: full ? nowMs : (kept?.fullReadAtMs ?? nowMs) };
}

/** Keeps a category's markups for its next run. */
export async function keepMarkups(item: TableItem | undefined): Promise<void> {
  if (item) await putItem({ Item: item });
}
