// A stretch of one ordering of the console's list, read across the ordering's shards: a Query of each from the same place, merged by sort key.
import * as v from 'valibot';
import { queryPage } from '#platform/table/commands.ts';
import { table } from '#platform/table/definition.ts';
import { listingKeys, RECOMMENDATION_ROW_SHARDS } from '#platform/table/index-keys.ts';
import { keys } from '#platform/table/keys.ts';
import type { CatalogueRow, ListPosition } from './catalogue.ts';
import type { Ordering } from './listing.ts';

const listingIndex = table.indexes[3];

/** Partitions a read of an ordering Queries: its shards, and the partition it had before them (listingKeys.recommendationRows). */
export const ORDERING_PARTITIONS = RECOMMENDATION_ROW_SHARDS + 1;

/**
 * Rows a shard is asked for beyond its even share of a stretch: the SKUs hash evenly, but a stretch of a few dozen
 * rows falls unevenly over eight shards, and a shard read short of its share ends the merged stretch early, so that
 * the page reads on (a round more: 9 Queries). For a page of 51 a shard reads 11 rows of ~300–350 B, within the 4 KB
 * a half read unit pays for; one row more would cross it and double every Query's cost.
 */
const SHARD_SLACK = 4;

/**
 * The Limit of each shard's Query, for `wanted` rows of the merged list and at most `budget` rows read over all
 * partitions: its share of the rows and a few more, and never more than its share of the budget.
 */
export function shardLimit(wanted: number, budget = Infinity): number {
  const share = Math.ceil(wanted / RECOMMENDATION_ROW_SHARDS) + SHARD_SLACK;
  return Math.max(1, Math.min(share, Math.floor(budget / ORDERING_PARTITIONS)));
}

/** Keys compare as DynamoDB compares them: by their UTF-8 bytes. */
export function keyOrder(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a), Buffer.from(b));
}

/** A row of an ordering as a read returns it. */
export type ListedRow = CatalogueRow & { listSk: string };

/** What the Query of one partition returned: its rows, the key it stopped at (absent once it is read to its end), and rows it read. */
export interface ShardRead<Row> {
  readonly rows: readonly Row[];
  readonly last?: ListPosition;
  readonly read: number;
}

/** A stretch of the ordering, merged: its rows in order, where it goes on (absent at its end), and rows read for it. */
export interface MergedRead<Row> {
  readonly rows: Row[];
  readonly more?: ListPosition;
  readonly read: number;
}

/**
 * The shards' rows in the ordering's order, as far as every shard has been read: a shard not read to its end may
 * hold rows just past the key it stopped at, so the first such key (a filter may have kept none of the rows before
 * it) ends the stretch, and the rows other shards returned past it are left for the read that goes on from there.
 */
export function mergeShardReads<Row extends { readonly listSk: string }>(
  reads: readonly ShardRead<Row>[],
  forward: boolean,
): MergedRead<Row> {
  const order = (a: string, b: string) => (forward ? keyOrder(a, b) : keyOrder(b, a));
  let more: ListPosition | undefined;
  for (const { last } of reads) if (last && (more === undefined || order(last.sortKey, more.sortKey) < 0)) more = last;
  const rows = reads
    .flatMap((read) => read.rows)
    .filter((row) => more === undefined || order(row.listSk, more.sortKey) <= 0)
    .sort((a, b) => order(a.listSk, b.listSk));
  return { rows, read: reads.reduce((sum, read) => sum + read.read, 0), ...(more ? { more } : {}) };
}

const RowSchema = v.object({
  sku: v.string(),
  name: v.optional(v.string()),
  category: v.optional(v.string()),
  currency: v.string(),
  currentPriceCents: v.number(),
  recommendedPriceCents: v.optional(v.number()),
  changePct: v.nullable(v.number()),
  confidence: v.optional(v.picklist(['high', 'medium', 'low'])),
  expectedMarginChangeCents: v.optional(v.number()),
  warnings: v.optional(v.array(v.string())),
  listSk: v.string(),
});

/** A stretch of one list, read one way: a sort highest first reads the numbers backwards, then the rest. */
export interface Segment {
  readonly forward: boolean;
  readonly range?: { readonly below: string } | { readonly from: string };
}

/** Which list a read is of: the ordering, within a category or not, searched or not. */
export interface OrderingScope {
  readonly workspaceId: string;
  readonly ordering: Ordering;
  readonly category?: string | undefined;
  readonly search?: string | undefined;
}

function skuOf(workspaceId: string, key: Record<string, unknown>): string {
  const prefix = keys.recommendationRow(workspaceId, '', 'sku').PK;
  return String(key.PK).slice(prefix.length);
}

/** The conditions of a Query of one partition of the ordering, the segment's range and the search's filter. */
function queryOf(partition: string, scope: OrderingScope, segment: Segment) {
  const names: Record<string, string> = { '#pk': listingIndex.partitionKey };
  const values: Record<string, unknown> = { ':pk': partition };
  let condition = '#pk = :pk';
  if (segment.range) names['#sk'] = listingIndex.sortKey;
  if (segment.range && 'below' in segment.range) {
    condition += ' AND #sk < :bound';
    values[':bound'] = segment.range.below;
  } else if (segment.range) {
    condition += ' AND #sk >= :bound';
    values[':bound'] = segment.range.from;
  }
  if (scope.search !== undefined) {
    names['#search'] = 'search';
    values[':needle'] = scope.search.toLowerCase();
  }
  return {
    IndexName: listingIndex.name,
    KeyConditionExpression: condition,
    ...(scope.search === undefined ? {} : { FilterExpression: 'contains(#search, :needle)' }),
    ExpressionAttributeNames: names,
    ExpressionAttributeValues: values,
    ScanIndexForward: segment.forward,
  };
}

/** Reads up to `limit` rows of one partition (by its place in the list of partitions) after `from`. */
export type ReadShard<Row> = (shard: number, from: ListPosition | undefined, limit: number) => Promise<ShardRead<Row>>;

interface ShardState<Row> {
  rows: Row[];
  last?: ListPosition;
  exhausted: boolean;
}

/**
 * One stretch of an ordering read on across its partitions: each read Queries only the partitions whose rows read so
 * far are all handed out (at first, every one), so that a page that reads on pays for the shard that ended the stretch
 * and not for all nine again.
 */
export class ShardMerge<Row extends { readonly listSk: string }> {
  private readonly shards: ShardState<Row>[];
  private readonly readShard: ReadShard<Row>;
  private readonly forward: boolean;
  private readonly start: ListPosition | undefined;

  constructor(partitions: number, readShard: ReadShard<Row>, forward: boolean, start: ListPosition | undefined) {
    this.shards = Array.from({ length: partitions }, () => ({ rows: [], exhausted: false }));
    this.readShard = readShard;
    this.forward = forward;
    this.start = start;
  }

  /** The next rows of the stretch, as far as every partition allows; `more` absent once it is read to its end. */
  async read(limit: number): Promise<MergedRead<Row>> {
    let read = 0;
    await Promise.all(
      this.shards.map(async (shard, at) => {
        if (shard.rows.length > 0 || shard.exhausted) return;
        const page = await this.readShard(at, shard.last ?? this.start, limit);
        read += page.read;
        shard.rows.push(...page.rows);
        if (page.last) shard.last = page.last;
        shard.exhausted = page.last === undefined;
      }),
    );
    const merged = mergeShardReads(
      this.shards.map((shard) => ({ rows: shard.rows, read: 0, ...(shard.exhausted || !shard.last ? {} : { last: shard.last }) })),
      this.forward,
    );
    const handedOut = new Set(merged.rows);
    for (const shard of this.shards) shard.rows = shard.rows.filter((row) => !handedOut.has(row));
    return { ...merged, read };
  }
}

/**
 * A stretch of the ordering after `start`, over every partition of it, read a Query of each at once. The start key is
 * built here from the cursor's SKU and sort key, so a link can only name a row of this list; the sort key is unique
 * within an ordering, so "after it" is the same place in every shard.
 */
export function orderingReader(scope: OrderingScope, segment: Segment, start: ListPosition | undefined): ShardMerge<ListedRow> {
  const { workspaceId, ordering } = scope;
  const partitions = listingKeys.recommendationRows(workspaceId, ordering, scope.category).partitionKeys;
  const readShard: ReadShard<ListedRow> = async (at, from, limit) => {
    const partition = partitions[at] as string;
    const page = await queryPage({
      ...queryOf(partition, scope, segment),
      Limit: limit,
      ...(from
        ? {
            ExclusiveStartKey: {
              ...keys.recommendationRow(workspaceId, from.sku, ordering),
              [listingIndex.partitionKey]: partition,
              [listingIndex.sortKey]: from.sortKey,
            },
          }
        : {}),
    });
    const rows = (page.Items ?? []).map((item) => v.parse(RowSchema, item));
    const last = page.LastEvaluatedKey;
    return {
      rows,
      read: page.ScannedCount ?? rows.length,
      ...(last ? { last: { sku: skuOf(workspaceId, last), sortKey: String(last[listingIndex.sortKey]) } } : {}),
    };
  };
  return new ShardMerge(partitions.length, readShard, segment.forward, start);
}
