// A batch's chunk items: staged chunks read back in staging order, and what each drained chunk touched.
import type { TouchedSet } from '#shared/canonical/items.ts';
import type { EntityKind } from '#shared/records/schema.ts';
import { putItem, queryPage } from '#platform/table/commands.ts';
import { keys } from '#platform/table/keys.ts';
import { queryAll } from '#platform/table/query.ts';
import { CHUNK_SHARDS, decompressRecords, packChunk } from './chunks.ts';
import type { Batch } from './schema.ts';

export interface StagedChunk {
  readonly sk: string;
  readonly entity: EntityKind;
  readonly count: number;
  readonly data: Uint8Array;
}

/** Chunks one read of a partition takes: at most a few hundred KB each, so the drain's memory stays flat. */
const CHUNKS_PER_READ = 2;

/** Every partition a batch's chunks may be on: the batch's own, with those staged before the shards, then each shard. */
export function chunkPartitions(batch: Pick<Batch, 'workspaceId' | 'batchId'>): Array<{ PK: string; SKPrefix: string }> {
  const shards = Array.from({ length: CHUNK_SHARDS }, (_, shard) => shard);
  return [undefined, ...shards].map((shard) => keys.batchChunkPrefix(batch.workspaceId, batch.batchId, shard));
}

/**
 * A batch's staged chunks after `cursor` (the sort key of the last one applied), one a call, in staging order: each of
 * its chunk partitions is read a few chunks at a time, strongly consistent, and of their next chunks the one whose sort
 * key is lowest comes first. A committed batch takes no more chunks, so a partition that gives fewer than asked (a 1 MB
 * page holds two chunks of at most 400 KB) is read to its end.
 */
export function stagedChunksAfter(batch: Pick<Batch, 'workspaceId' | 'batchId'>, cursor: string | undefined) {
  const readers = chunkPartitions(batch).map((partition) => ({ ...partition, after: cursor, chunks: [] as StagedChunk[], more: true }));
  const head = (reader: (typeof readers)[number]) => reader.chunks[0]?.sk ?? '';
  return async (): Promise<StagedChunk | undefined> => {
    await Promise.all(
      readers
        .filter((reader) => reader.more && reader.chunks.length === 0)
        .map(async (reader) => {
          const { Items = [] } = await queryPage({
            // '\u0000' sorts before any character a chunk's sort key goes on with: the range starts just past the cursor.
            KeyConditionExpression: 'PK = :pk AND SK BETWEEN :after AND :end',
            ExpressionAttributeValues: {
              ':pk': reader.PK,
              ':after': `${reader.after ?? reader.SKPrefix}\u0000`,
              ':end': `${reader.SKPrefix}\uffff`,
            },
            ConsistentRead: true,
            Limit: CHUNKS_PER_READ,
          });
          reader.chunks = Items.map((item): StagedChunk => ({
            sk: item.SK as string,
            entity: item.entity as EntityKind,
            count: item.count as number,
            data: item.data as Uint8Array,
          }));
          reader.more = Items.length === CHUNKS_PER_READ;
          reader.after = reader.chunks.at(-1)?.sk;
        }),
    );
    const [first] = readers.filter((reader) => reader.chunks.length > 0).sort((a, b) => (head(a) < head(b) ? -1 : 1));
    return first?.chunks.shift();
  };
}

/**
 * What one chunk touched, compressed like the chunk itself and keyed by it: a redelivered drain that applies the
 * chunk again writes the same items again instead of adding to a list.
 */
export async function recordTouched(
  batch: Pick<Batch, 'workspaceId' | 'batchId'>,
  chunkSk: string,
  touched: TouchedSet,
  expiresAt: number,
) {
  const entries = [
    ...[...touched.products].map((sku) => ['product', sku]),
    ...[...touched.customers].map((id) => ['customer', id]),
    ...[...touched.nodes].map((node) => ['node', node]),
  ];
  if (entries.length === 0) return;
  const pieces = packChunk(entries) ?? [];
  await Promise.all(
    pieces.map((piece, part) =>
      putItem({
        Item: {
          ...keys.batchTouched(batch.workspaceId, batch.batchId, chunkSk, part),
          type: 'touched',
          count: piece.count,
          data: piece.data,
          expiresAt,
        },
      }),
    ),
  );
}

/** Every item of a batch partition under one sort-key prefix, page by page, strongly consistent. */
function readBatchItems(partition: { PK: string; SKPrefix: string }): Promise<Record<string, unknown>[]> {
  return queryAll({
    KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
    ExpressionAttributeValues: { ':pk': partition.PK, ':prefix': partition.SKPrefix },
    ConsistentRead: true,
  });
}

/** Every staged chunk item of a batch, from each of its chunk partitions, in staging order: for inspecting a batch. */
export async function readStagedChunks(batch: Pick<Batch, 'workspaceId' | 'batchId'>): Promise<Record<string, unknown>[]> {
  const partitions = await Promise.all(chunkPartitions(batch).map(readBatchItems));
  return partitions.flat().sort((a, b) => (String(a.SK) < String(b.SK) ? -1 : 1));
}

/** Every product, customer and pricing node a drained batch touched, for the recomputation that follows a drain. */
export async function readTouched(
  batch: Pick<Batch, 'workspaceId' | 'batchId'>,
): Promise<{ products: Set<string>; customers: Set<string>; nodes: Set<string> }> {
  const touched = { products: new Set<string>(), customers: new Set<string>(), nodes: new Set<string>() };
  for (const item of await readBatchItems(keys.batchTouchedPrefix(batch.workspaceId, batch.batchId))) {
    for (const [kind, value] of decompressRecords(item.data as Uint8Array) as Array<[string, string]>) {
      if (kind === 'product') touched.products.add(value);
      else if (kind === 'customer') touched.customers.add(value);
      else touched.nodes.add(value);
    }
  }
  return touched;
}
