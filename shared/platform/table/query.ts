// Queries: every item a Query matches, page after page, one page of a list read on past a filter, and the one way the lookup index is read.
import type { QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { queryPage } from './commands.ts';
import { table } from './definition.ts';

/** A query of this table: the table's name is filled in. */
type TableQuery = Omit<QueryCommandInput, 'ExclusiveStartKey' | 'TableName'>;

export async function queryAll(input: TableQuery): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const page = await queryPage({ ...input, ExclusiveStartKey });
    items.push(...(page.Items ?? []));
    ExclusiveStartKey = page.LastEvaluatedKey;
  } while (ExclusiveStartKey);
  return items;
}

const [lookupIndex] = table.indexes;

/**
 * The keys (the index is KEYS_ONLY) of the items under one alternate key of the `lookup` index, as a `lookupKeys`
 * query builder names it: all of them, or the first `limit`.
 */
export async function queryLookup(alternateKey: { readonly partitionKey: string }, limit?: number): Promise<Record<string, unknown>[]> {
  const input = {
    IndexName: lookupIndex.name,
    KeyConditionExpression: '#pk = :pk',
    ExpressionAttributeNames: { '#pk': lookupIndex.partitionKey },
    ExpressionAttributeValues: { ':pk': alternateKey.partitionKey },
  };
  if (limit === undefined) return queryAll(input);
  const { Items } = await queryPage({ ...input, Limit: limit });
  return Items ?? [];
}

const listingIndex = table.indexes[3];

/**
 * The items under one list of the `listing` index, as a `listingKeys` builder names it, whole (the index projects
 * them all): every one in sort-key order, or the last `limit` when `newestFirst`.
 */
export async function queryListing(
  list: { readonly partitionKey: string },
  read: { readonly limit?: number; readonly newestFirst?: boolean } = {},
): Promise<Record<string, unknown>[]> {
  const input = {
    IndexName: listingIndex.name,
    KeyConditionExpression: '#pk = :pk',
    ExpressionAttributeNames: { '#pk': listingIndex.partitionKey },
    ExpressionAttributeValues: { ':pk': list.partitionKey },
    ScanIndexForward: !read.newestFirst,
  };
  if (read.limit === undefined) return queryAll(input);
  const { Items } = await queryPage({ ...input, Limit: read.limit });
  return Items ?? [];
}

/** A filtered page stops after this many reads, short if need be, and says where to go on. */
export const MAX_READS_PER_PAGE = 10;

export interface QueriedPage {
  readonly items: Record<string, unknown>[];
  /** The key of the last item read, where the next page starts; undefined when the list has no more. */
  readonly lastKey?: Record<string, unknown>;
}

/**
 * Up to `limit` items of one Query, in its order. With a FilterExpression a read may keep fewer than it reads, so the
 * page reads on, at most MAX_READS_PER_PAGE times, and may come back short with a key to go on from.
 */
export async function queryListPage(
  input: Omit<QueryCommandInput, 'TableName' | 'ExclusiveStartKey' | 'Limit'>,
  page: { readonly limit: number; readonly start?: Record<string, unknown> | undefined },
): Promise<QueriedPage> {
  const items: Record<string, unknown>[] = [];
  let start = page.start;
  for (let reads = 0; reads < MAX_READS_PER_PAGE; reads++) {
    const { Items = [], LastEvaluatedKey } = await queryPage({
      ...input,
      // Never more than the page has room for: the last item read is then where the next page starts.
      Limit: page.limit - items.length,
      ...(start === undefined ? {} : { ExclusiveStartKey: start }),
    });
    items.push(...Items);
    start = LastEvaluatedKey;
    if (start === undefined || items.length >= page.limit) break;
  }
  return { items, ...(start === undefined ? {} : { lastKey: start }) };
}
