// A batch's keys: its item, its staged chunks and what each touched, its place in the drain order (callers take these from `keys`, which spreads them in), and the marker naming the chunk a stored version came from.
import { pad, type PrimaryKey } from './key-parts.ts';

export const batchKeys = {
  /** The workspace id is part of the partition key, so another workspace's batch id can never be found. */
  batch: (workspaceId: string, batchId: string): PrimaryKey => ({ PK: batchPartition(workspaceId, batchId), SK: 'BATCH' }),
  /** Staged records, by staging call (`seq`) and piece (`part`), on a `shard` of the batch's chunk partitions (batches/chunks.ts). */
  batchChunk: (workspaceId: string, batchId: string, shard: number, seq: number, part: number): PrimaryKey => ({
    PK: `${batchPartition(workspaceId, batchId)}#C${shard}`,
    SK: `${CHUNK_PREFIX}${pad(seq, 10)}#${pad(part, 3)}`,
  }),
  /** Without a shard, the batch's own partition: it holds the chunks staged before the shards, and takes no more. */
  batchChunkPrefix: (workspaceId: string, batchId: string, shard?: number) => ({
    PK: `${batchPartition(workspaceId, batchId)}${shard === undefined ? '' : `#C${shard}`}`,
    SKPrefix: CHUNK_PREFIX,
  }),
  /** What one drained chunk touched; the pricing side recomputes from these instead of from the whole catalogue. */
  batchTouched: (workspaceId: string, batchId: string, chunkSk: string, part: number): PrimaryKey => ({
    PK: batchPartition(workspaceId, batchId),
    SK: `${TOUCHED_PREFIX}${chunkSk.slice(CHUNK_PREFIX.length)}#${pad(part, 3)}`,
  }),
  batchTouchedPrefix: (workspaceId: string, batchId: string) => ({ PK: batchPartition(workspaceId, batchId), SKPrefix: TOUCHED_PREFIX }),
  /** A committed batch's place in its workspace's drain order until it ends (batches/drain-turn.ts): by commit, then id. */
  drainQueued: (workspaceId: string, committedAt: string, batchId: string): PrimaryKey => ({
    PK: `WS#${workspaceId}#DRAINS`,
    SK: `QUEUED#${committedAt}#${batchId}`,
  }),
  /** The places from the first to `before`, the sort key of the batch asking; and the batch holding the drain turn. */
  drainQueuedBefore: (workspaceId: string, before: string) => ({ PK: `WS#${workspaceId}#DRAINS`, SKFrom: 'QUEUED#', SKBelow: before }),
  drainTurn: (workspaceId: string): PrimaryKey => ({ PK: `WS#${workspaceId}#DRAINS`, SK: 'TURN' }),
} as const;

const CHUNK_PREFIX = 'CHUNK#';
const TOUCHED_PREFIX = 'TOUCHED#';

function batchPartition(workspaceId: string, batchId: string): string {
  return `WS#${workspaceId}#BATCH#${batchId}`;
}

/**
 * The chunk a stored version was written from, across batches: the batch id, then the chunk's sort key. A document
 * keeps it so that a later drain can tell whether that chunk's margins are folded yet; history log items are keyed by it.
 */
export function chunkMarker(batchId: string, chunkSk: string): string {
  return `${batchId}#${chunkSk}`;
}

/** A chunk marker read back. Batch ids are UUIDs, which hold no `#`, so the first one ends the id. */
export function chunkMarkerParts(marker: string): { batchId: string; chunkSk: string } {
  const at = marker.indexOf('#');
  return at < 0 ? { batchId: marker, chunkSk: '' } : { batchId: marker.slice(0, at), chunkSk: marker.slice(at + 1) };
}
