// The margin fold: what an order chunk changes in its products' monthly margins, folded at its checkpoint as the adherence fold is.
import { chunkMarkerParts } from '#platform/table/batch-keys.ts';
import { getBatch } from '#shared/batches/repository.ts';
import type { Provenance } from '#shared/canonical/items.ts';
import type { StoredDocument } from '#shared/canonical/repository.ts';
import { addContributions, type MarginContribution, orderContribution } from '#shared/recommendations/margins.ts';
import type { OrderRecord } from '#shared/records/schema.ts';
import type { DrainMemory } from './memory.ts';

/** What a chunk changes in margins: the sum of its orders' changes, folded at its checkpoint beside the other chunks'. */
export interface MarginWork {
  readonly workspaceId: string;
  readonly delta: MarginContribution;
}

/** Whether the chunk that wrote a stored version (its chunk marker, batch-keys.ts) has been folded into the months. */
export type FoldedChunk = (chunk: string) => boolean;

/**
 * Which stored versions' chunks are in the months: those at or before their batch's checkpoint, which is saved only
 * after the checkpoint's folds. The drain's own checkpoint is the one it last saved; any other batch's is read (one
 * strongly consistent GetItem each), and kept for the drain once the batch is drained or failed, when it no longer
 * moves. A batch no longer stored drained long ago.
 */
export async function foldedChunks(from: Provenance, chunks: Iterable<string | undefined>, memory: DrainMemory): Promise<FoldedChunk> {
  const others = new Set<string>();
  for (const chunk of chunks) {
    const batchId = chunk && chunkMarkerParts(chunk).batchId;
    if (batchId && batchId !== from.batchId && !memory.finishedCursors.has(batchId)) others.add(batchId);
  }
  const read = new Map(
    await Promise.all(
      [...others].map(async (batchId) => {
        const batch = await getBatch(from.workspaceId, batchId);
        const cursor = batch ? (batch.drainCursor ?? '') : null;
        if (!batch || batch.status === 'drained' || batch.status === 'failed') memory.finishedCursors.set(batchId, cursor);
        return [batchId, cursor] as const;
      }),
    ),
  );
  const checkpoint = memory.checkpoint ?? '';
  return (chunk) => {
    const { batchId, chunkSk } = chunkMarkerParts(chunk);
    const cursor = batchId === from.batchId ? checkpoint : (read.get(batchId) ?? memory.finishedCursors.get(batchId));
    return cursor === null || cursor === undefined || chunkSk <= cursor;
  };
}

/**
 * What an order's new version takes out of its products' months: what the months hold of it. The stored version is
 * read anyway to version the document. Once its chunk was folded, the months hold what its text adds. Until then they
 * hold what the version before it added, which it keeps: so an attempt that writes a chunk again takes out what the
 * first attempt took out, and after a drain given up between a chunk's writes and its checkpoint, the batch its
 * records are staged into again takes out what the months really hold. A version written before documents kept
 * their chunk was folded by its drain, or by the margins backfill.
 */
export function replacedContribution(previous: StoredDocument | undefined, folded: FoldedChunk): MarginContribution {
  if (!previous) return {};
  if (previous.chunk === undefined || folded(previous.chunk)) return orderContribution(JSON.parse(previous.document) as OrderRecord);
  return previous.replacedMargin ? (JSON.parse(previous.replacedMargin) as MarginContribution) : {};
}

/** An order's change to the months: its contribution less the one it replaces. */
export function orderMarginChange(order: OrderRecord, replaced: MarginContribution): MarginContribution {
  return addContributions(orderContribution(order), replaced, -1);
}

/**
 * The sum of many contributions in one pass, as `addContributions` adds two (sums rounded as it rounds them, entries
 * that come to nothing dropped).
 */
export function sumMargins(changes: readonly MarginContribution[]): MarginContribution {
  const sums = new Map<string, [number, number, number]>();
  for (const change of changes) {
    for (const [key, [revenue, cost, lines]] of Object.entries(change)) {
      const sum = sums.get(key) ?? [0, 0, 0];
      sums.set(key, [sum[0] + revenue, sum[1] + cost, sum[2] + lines]);
    }
  }
  // Through addContributions once, for its rounding and its dropping of entries that cancel out.
  return addContributions({}, Object.fromEntries(sums), 1);
}
