// Staged records at rest: a staging call's records as brotli-compressed JSON, cut into pieces that fit a table item.
import { brotliCompressSync, brotliDecompressSync, constants } from 'node:zlib';

/**
 * Each piece stays far below DynamoDB's 400 KB item limit, and a call's pieces together below the 4 MB a transaction
 * may write. A piece is split in two until it fits.
 */
export const MAX_CHUNK_BYTES = 300 * 1024;
export const MAX_CALL_CHUNK_BYTES = 3.5 * 1024 * 1024;

/** Quality 5 compresses JSON records about 8:1 in a few milliseconds per 1,000; higher levels cost 5x the time for 3% less. */
const BROTLI_QUALITY = 5;

export function compressRecords(records: readonly unknown[]): Buffer {
  const json = Buffer.from(JSON.stringify(records), 'utf8');
  return brotliCompressSync(json, {
    params: { [constants.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY, [constants.BROTLI_PARAM_SIZE_HINT]: json.length },
  });
}

export function decompressRecords(data: Uint8Array): unknown[] {
  return JSON.parse(brotliDecompressSync(data).toString('utf8')) as unknown[];
}

export interface ChunkPiece {
  readonly data: Buffer;
  readonly count: number;
  /** Uncompressed JSON bytes, for the figures finance reads. */
  readonly jsonBytes: number;
}

/** Pieces in record order; one piece for any ordinary call. Returns undefined if even one record cannot fit an item. */
export function packChunk(records: readonly unknown[]): ChunkPiece[] | undefined {
  const data = compressRecords(records);
  if (data.byteLength <= MAX_CHUNK_BYTES) {
    return [{ data, count: records.length, jsonBytes: Buffer.byteLength(JSON.stringify(records), 'utf8') }];
  }
  if (records.length === 1) return undefined;
  const half = Math.ceil(records.length / 2);
  const first = packChunk(records.slice(0, half));
  const second = packChunk(records.slice(half));
  return first && second ? [...first, ...second] : undefined;
}
