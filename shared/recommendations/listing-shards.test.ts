// Unit tests of the merge of an ordering's shards: rows in sort-key order, as far as every shard not read to its end allows.
import { describe, expect, it } from 'vitest';
import { RECOMMENDATION_ROW_SHARDS } from '#platform/table/index-keys.ts';
import { hashShard } from '#platform/table/key-parts.ts';
import { skuSortKey } from '#platform/table/listing-sort-keys.ts';
import {
  keyOrder,
  mergeShardReads,
  ORDERING_PARTITIONS,
  type ReadShard,
  type ShardRead,
  ShardMerge,
  shardLimit,
} from './listing-shards.ts';

interface Row {
  readonly sku: string;
  readonly listSk: string;
}

const row = (sku: string): Row => ({ sku, listSk: skuSortKey(sku) });
const position = (r: Row) => ({ sku: r.sku, sortKey: r.listSk });

/**
 * A list spread over shards as the table spreads it, read as DynamoDB reads each shard: up to `limit` rows evaluated
 * after `after`, the matching ones returned, and the last evaluated key whenever the limit was reached.
 */
function shardedList(skus: readonly string[], matches: (sku: string) => boolean = () => true) {
  const shards = Array.from({ length: ORDERING_PARTITIONS }, () => [] as Row[]);
  for (const sku of skus) shards[hashShard(sku, RECOMMENDATION_ROW_SHARDS)]?.push(row(sku));
  for (const shard of shards) shard.sort((a, b) => keyOrder(a.listSk, b.listSk));
  return (after: string | undefined, limit: number): ShardRead<Row>[] =>
    shards.map((shard) => {
      const evaluated = shard.filter((r) => after === undefined || keyOrder(r.listSk, after) > 0).slice(0, limit);
      const last = evaluated.length === limit ? evaluated.at(-1) : undefined;
      return { rows: evaluated.filter((r) => matches(r.sku)), read: evaluated.length, ...(last ? { last: position(last) } : {}) };
    });
}

/** Every row of the list, read stretch after stretch from where the merge said to go on. */
function readAll(read: ReturnType<typeof shardedList>, limit: number): { skus: string[]; reads: number } {
  const skus: string[] = [];
  let after: string | undefined;
  let reads = 0;
  for (;;) {
    const merged = mergeShardReads(read(after, limit), true);
    reads += 1;
    skus.push(...merged.rows.map((r) => r.sku));
    if (!merged.more) return { skus, reads };
    after = merged.more.sortKey;
  }
}

/** The same list as ShardMerge reads it, shard by shard, with a count of the Queries each shard is asked. */
function shardReader(skus: readonly string[], matches: (sku: string) => boolean = () => true) {
  const list = shardedList(skus, matches);
  const queries = Array.from({ length: ORDERING_PARTITIONS }, () => 0);
  const read: ReadShard<Row> = async (shard, from, limit) => {
    queries[shard] = (queries[shard] ?? 0) + 1;
    return list(from?.sortKey, limit)[shard] as ShardRead<Row>;
  };
  return { read, queries };
}

/** Every row through one ShardMerge, `limit` rows a shard at a time. */
async function mergeAll(read: ReadShard<Row>, limit: number): Promise<string[]> {
  const merge = new ShardMerge(ORDERING_PARTITIONS, read, true, undefined);
  const skus: string[] = [];
  for (;;) {
    const merged = await merge.read(limit);
    skus.push(...merged.rows.map((r) => r.sku));
    if (!merged.more) return skus;
  }
}

const catalogue = Array.from({ length: 300 }, (_, at) => `SKU-${at + 1}`);
const inOrder = (skus: readonly string[]) => [...skus].sort((a, b) => keyOrder(skuSortKey(a), skuSortKey(b)));

describe('the merge of an ordering’s shards', () => {
  it('lists every row once, in sort-key order, whatever each shard is asked for', () => {
    for (const limit of [1, 3, 11, 500]) expect(readAll(shardedList(catalogue), limit).skus).toEqual(inOrder(catalogue));
  });

  it('ends a stretch at the first key a shard not read to its end stopped at, leaving the rows past it to the next read', () => {
    const merged = mergeShardReads<Row>(
      [
        { rows: [row('A-1'), row('A-5')], last: position(row('A-5')), read: 2 },
        { rows: [row('A-2'), row('A-6')], read: 2 },
        { rows: [row('A-3')], read: 1 },
      ],
      true,
    );
    expect(merged.rows.map((r) => r.sku)).toEqual(['A-1', 'A-2', 'A-3', 'A-5']);
    expect(merged.more).toEqual(position(row('A-5')));
    expect(merged.read).toBe(5);
  });

  it('bounds a searched stretch by the key a shard stopped at even when the search kept none of its rows', () => {
    // The first shard read two rows and kept none: it may still hold a match just past A-4, so A-6 waits.
    const merged = mergeShardReads<Row>(
      [
        { rows: [], last: position(row('A-4')), read: 2 },
        { rows: [row('A-2'), row('A-6')], read: 2 },
      ],
      true,
    );
    expect(merged.rows.map((r) => r.sku)).toEqual(['A-2']);
    expect(merged.more).toEqual(position(row('A-4')));
  });

  it('finds every match of a search, in order and once, though shards return fewer rows than they read', () => {
    const matches = (sku: string) => sku.endsWith('7');
    for (const limit of [2, 5, 40]) {
      expect(readAll(shardedList(catalogue, matches), limit).skus).toEqual(inOrder(catalogue.filter(matches)));
    }
  });

  it('merges a list read backwards highest key first, bounded by the highest key a shard stopped at', () => {
    const merged = mergeShardReads<Row>(
      [
        { rows: [row('A-9'), row('A-4')], last: position(row('A-4')), read: 2 },
        { rows: [row('A-8'), row('A-2')], read: 2 },
      ],
      false,
    );
    expect(merged.rows.map((r) => r.sku)).toEqual(['A-9', 'A-8', 'A-4']);
    expect(merged.more?.sku).toBe('A-4');
  });

  it('asks each shard for its share of a page and a few rows more, and never for more than its share of a budget', () => {
    expect(shardLimit(51)).toBe(Math.ceil(51 / RECOMMENDATION_ROW_SHARDS) + 4);
    expect(shardLimit(500, 500) * ORDERING_PARTITIONS).toBeLessThanOrEqual(500);
    expect(shardLimit(51, 3)).toBe(1);
  });

  it('reads on only the shards whose rows it has handed out, and lists every row once, in order', async () => {
    const whole = shardReader(catalogue);
    const merge = new ShardMerge(ORDERING_PARTITIONS, whole.read, true, undefined);
    const first = await merge.read(6);
    expect(whole.queries).toEqual(Array.from({ length: ORDERING_PARTITIONS }, () => 1));
    const second = await merge.read(6);
    // The shard that ended the first stretch is read again; a shard with rows past it left is not.
    expect(whole.queries.reduce((sum, count) => sum + count, 0)).toBeLessThan(2 * ORDERING_PARTITIONS);
    expect(second.read).toBeGreaterThan(0);
    expect([...first.rows, ...second.rows].map((r) => r.sku)).toEqual(inOrder(catalogue).slice(0, first.rows.length + second.rows.length));
    for (const limit of [1, 4, 11]) expect(await mergeAll(shardReader(catalogue).read, limit)).toEqual(inOrder(catalogue));
    const matches = (sku: string) => sku.includes('3');
    expect(await mergeAll(shardReader(catalogue, matches).read, 3)).toEqual(inOrder(catalogue.filter(matches)));
  });
});
