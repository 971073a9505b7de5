// Staged records at rest: a staging call's records as brotli-compressed JSON, cut into pieces that fit a table item.
import { packJson, unpackJson } from '#platform/table/packed.ts';

/**
 * Each piece stays far below DynamoDB's 400 KB item limit, and a call's pieces together below the 4 MB a transaction
 * may write. A piece is split in two until it fits.
 */
export const MAX_CHUNK_BYTES = 300 * 1024;
export const MAX_CALL_CHUNK_BYTES = 3.5 * 1024 * 1024;

/**
 * A batch's chunks take turns, by the staging call's sequence number, over this many partitions of their own, so that a
 * fast sync's chunks leave the batch item's partition to its counters (docs/decisions.md); a call's pieces share one.
 */
export const CHUNK_SHARDS = 2;

export const compressRecords = (records: readonly unknown[]): Buffer => packJson(records);

export const decompressRecords = (data: Uint8Array): unknown[] => unpackJson(data) as unknown[];

export interface ChunkPiece {
  readonly data: Buffer;
  readonly count: number;
  /** Uncompressed JSON bytes, for the figures finance reads. */
  readonly jsonBytes: number;
}

/**
 * The table items a piece's records may write at most: a drain applies a piece and checkpoints after it, so a piece
 * must be quick to apply however a call's records are shaped. A quote or order line is one item, as is any other
 * record; a piece always takes at least one record, and a document (at most 1,000 lines) is never split.
 */
export const MAX_PIECE_ITEMS = 3_000;

/** Pieces in record order; one piece for any ordinary call. Returns undefined if even one record cannot fit an item. */
export function packChunk(records: readonly unknown[], itemsOf?: (record: unknown) => number): ChunkPiece[] | undefined {
  if (!itemsOf) return packBytes(records);
  const pieces: ChunkPiece[] = [];
  let start = 0;
  let items = 0;
  for (let index = 0; index <= records.length; index++) {
    const next = index < records.length ? Math.max(1, itemsOf(records[index])) : Infinity;
    if (index > start && items + next > MAX_PIECE_ITEMS) {
      const packed = packBytes(records.slice(start, index));
      if (!packed) return undefined;
      pieces.push(...packed);
      start = index;
      items = 0;
    }
    items += next;
  }
  return pieces;
}

/** Splits in two until every piece fits an item. */
function packBytes(records: readonly unknown[]): ChunkPiece[] | undefined {
  const data = compressRecords(records);
  if (data.byteLength <= MAX_CHUNK_BYTES) {
    return [{ data, count: records.length, jsonBytes: Buffer.byteLength(JSON.stringify(records), 'utf8') }];
  }
  if (records.length === 1) return undefined;
  const half = Math.ceil(records.length / 2);
  const first = packBytes(records.slice(0, half));
  const second = packBytes(records.slice(half));
  return first && second ? [...first, ...second] : undefined;
}
