// A batch's chunk items: staged chunks read back in staging order, and what each drained chunk touched.
import type { TouchedSet } from '#shared/canonical/items.ts';
import type { EntityKind } from '#shared/records/schema.ts';
import { putItem, queryPage } from '#platform/table/commands.ts';
import { keys } from '#platform/table/keys.ts';
import { queryAll } from '#platform/table/query.ts';
import { decompressRecords, packChunk } from './chunks.ts';
import type { Batch } from './schema.ts';

export interface StagedChunk {
  readonly sk: string;
  readonly entity: EntityKind;
  readonly count: number;
  readonly data: Uint8Array;
}

/** The next chunks after `cursor`, in staging order; a page holds few enough to keep the drain's memory flat. */
export async function readChunksAfter(batch: Pick<Batch, 'workspaceId' | 'batchId'>, cursor: string | undefined, limit: number) {
  const prefix = keys.batchChunkPrefix(batch.workspaceId, batch.batchId);
  const { Items } = await queryPage({
    KeyConditionExpression: cursor ? 'PK = :pk AND SK BETWEEN :after AND :end' : 'PK = :pk AND begins_with(SK, :prefix)',
    ExpressionAttributeValues: cursor
      ? { ':pk': prefix.PK, ':after': `${cursor}\u0000`, ':end': `${prefix.SKPrefix}\uffff` }
      : { ':pk': prefix.PK, ':prefix': prefix.SKPrefix },
    ConsistentRead: true,
    Limit: limit,
  });
  return (Items ?? []).map((item): StagedChunk => ({
    sk: item.SK as string,
    entity: item.entity as EntityKind,
    count: item.count as number,
    data: item.data as Uint8Array,
  }));
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

/** Every staged chunk item of a batch, in staging order: for inspecting a batch, never on the drain's path. */
export function readStagedChunks(batch: Pick<Batch, 'workspaceId' | 'batchId'>): Promise<Record<string, unknown>[]> {
  return readBatchItems(keys.batchChunkPrefix(batch.workspaceId, batch.batchId));
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
