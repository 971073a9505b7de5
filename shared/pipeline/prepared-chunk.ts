// A chunk made ready to write, and how it is written: preparing reads, applying only writes.
import { deleteItems, putItems, type TableItem } from '#platform/table/bulk.ts';
import type { PrimaryKey } from '#platform/table/key-parts.ts';
import type { FxObservation, Provenance, TouchedSet } from '#shared/canonical/items.ts';
import { recordFxRates } from '#shared/canonical/repository.ts';
import type { AdherenceWork } from './adherence-fold.ts';
import type { MarginWork } from './margin-fold.ts';

/**
 * A chunk made ready to write: its items, the stale lines to remove first, the rates it observed and what it touches.
 * Preparing reads; applying only writes, so the next chunk can be prepared while this one is applied.
 */
export interface PreparedChunk {
  readonly puts: TableItem[];
  readonly deletes: PrimaryKey[];
  readonly rates: FxObservation[];
  readonly touched: TouchedSet;
  /** Quotes or orders whose stored line counts were read: a chunk that rewrites any of them must be applied first. */
  readonly documents: ReadonlySet<string>;
  /** Quote and order chunks: what they change in the adherence aggregates, applied at the chunk's checkpoint. */
  readonly adherence?: AdherenceWork;
  /** Order chunks: what they change in their products' monthly margins, applied at the chunk's checkpoint. */
  readonly margins?: MarginWork;
  /** Product chunks: the products written with data warnings, counted into the batch's `warnedProducts` at the checkpoint. */
  readonly warned?: number;
}

function keyText(key: { PK?: unknown; SK?: unknown }): string {
  return `${String(key.PK)}|${String(key.SK)}`;
}

/**
 * Whether `next` must wait for `current` to be written before it is prepared and written itself: when it read line
 * counts `current` changes, or writes an item `current` writes too (the later record must land last).
 */
export function dependsOn(next: PreparedChunk, current: PreparedChunk): boolean {
  for (const document of next.documents) if (current.documents.has(document)) return true;
  const written = new Set([...current.puts.map(keyText), ...current.deletes.map(keyText)]);
  return next.puts.some((item) => written.has(keyText(item))) || next.deletes.some((key) => written.has(keyText(key)));
}

/**
 * Writes a prepared chunk's items: stale line items of the older layout are removed before the document that replaces
 * them is written, so a drain that dies halfway and runs again still finds the old layout on line 0 and removes the
 * same lines.
 */
export async function writeChunk(prepared: PreparedChunk): Promise<void> {
  await deleteItems(prepared.deletes);
  await putItems(prepared.puts);
}

/** Rates are recorded in chunk order, after the chunk's items, so that of two rates at one moment the later-staged wins. */
export async function recordChunkRates(prepared: PreparedChunk, from: Provenance): Promise<void> {
  await recordFxRates(from.workspaceId, prepared.rates, from.syncedAt);
}
