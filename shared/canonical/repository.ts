// Canonical items in the table: batched upserts and deletes, the reads a drain needs, and FX rates.
import { type BatchGetCommandInput, BatchGetCommand, BatchWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { tableName } from '../config.ts';
import { isConditionFailure, tableClient } from '../table/client.ts';
import { type DocumentKind, keys, type PrimaryKey } from '../table/keys.ts';
import type { DocumentFeeds, FxObservation, TableItem } from './items.ts';

const WRITE_BATCH_SIZE = 25;
const READ_BATCH_SIZE = 100;
const MAX_RETRIES = 10;
/** Parallel BatchWriteItem calls per drain: enough to hide round trips, few enough not to throttle a new table. */
export const WRITE_CONCURRENCY = 8;

function pause(attempt: number): Promise<void> {
  const ceiling = Math.min(2000, 25 * 2 ** attempt);
  return new Promise((resolve) => setTimeout(resolve, Math.random() * ceiling));
}

/** Runs `run` over the tasks with at most `concurrency` at a time. */
export async function inParallel<T>(tasks: readonly T[], concurrency: number, run: (task: T) => Promise<void>): Promise<void> {
  let next = 0;
  const workers = Array.from({ length: Math.min(concurrency, tasks.length) }, async () => {
    while (next < tasks.length) {
      const task = tasks[next++] as T;
      await run(task);
    }
  });
  await Promise.all(workers);
}

type WriteRequest = { PutRequest: { Item: TableItem } } | { DeleteRequest: { Key: PrimaryKey } };

/** BatchWriteItem in groups of 25, retrying what DynamoDB leaves unprocessed with backoff until all of it is written. */
async function batchWrite(requests: readonly WriteRequest[]): Promise<void> {
  const groups: WriteRequest[][] = [];
  for (let i = 0; i < requests.length; i += WRITE_BATCH_SIZE) groups.push(requests.slice(i, i + WRITE_BATCH_SIZE));
  await inParallel(groups, WRITE_CONCURRENCY, async (group) => {
    let pending: WriteRequest[] = group;
    for (let attempt = 0; pending.length > 0; attempt++) {
      if (attempt > MAX_RETRIES) throw new Error(`BatchWriteItem left ${pending.length} items unprocessed after ${MAX_RETRIES} retries`);
      if (attempt > 0) await pause(attempt);
      const { UnprocessedItems } = await tableClient().send(new BatchWriteCommand({ RequestItems: { [tableName()]: pending } }));
      pending = (UnprocessedItems?.[tableName()] ?? []) as WriteRequest[];
    }
  });
}

export function putItems(items: readonly TableItem[]): Promise<void> {
  return batchWrite(items.map((Item) => ({ PutRequest: { Item } })));
}

export function deleteItems(itemKeys: readonly PrimaryKey[]): Promise<void> {
  return batchWrite(itemKeys.map((Key) => ({ DeleteRequest: { Key } })));
}

export interface ItemRead {
  /** The drain reads strongly, to see what its previous chunk wrote; price calls read eventually, at half the cost. */
  readonly consistent: boolean;
  readonly projection?: string;
  readonly names?: Record<string, string>;
  /** Keys per BatchGetItem call (at most 100): smaller groups, sent in parallel, come back sooner. */
  readonly groupSize?: number;
}

/** BatchGetItem over any number of keys, 100 per call, in parallel, retrying unprocessed keys with backoff. */
export async function getItems(itemKeys: readonly PrimaryKey[], read: ItemRead): Promise<TableItem[]> {
  const found: TableItem[] = [];
  const groups: PrimaryKey[][] = [];
  const size = Math.min(READ_BATCH_SIZE, read.groupSize ?? READ_BATCH_SIZE);
  for (let i = 0; i < itemKeys.length; i += size) groups.push(itemKeys.slice(i, i + size));
  await inParallel(groups, WRITE_CONCURRENCY, async (group) => {
    let pending: Record<string, unknown>[] = group.map((key) => ({ ...key }));
    for (let attempt = 0; pending.length > 0; attempt++) {
      if (attempt > MAX_RETRIES) throw new Error(`BatchGetItem left ${pending.length} keys unprocessed after ${MAX_RETRIES} retries`);
      if (attempt > 0) await pause(attempt);
      const input: BatchGetCommandInput = {
        RequestItems: {
          [tableName()]: {
            Keys: pending,
            ConsistentRead: read.consistent,
            ...(read.projection ? { ProjectionExpression: read.projection, ExpressionAttributeNames: read.names } : {}),
          },
        },
      };
      const { Responses, UnprocessedKeys } = await tableClient().send(new BatchGetCommand(input));
      found.push(...((Responses?.[tableName()] ?? []) as TableItem[]));
      pending = (UnprocessedKeys?.[tableName()]?.Keys ?? []) as Record<string, unknown>[];
    }
  });
  return found;
}

/** Each product's category, for the skus asked about that exist. */
export async function readCategories(workspaceId: string, skus: readonly string[]): Promise<Map<string, string>> {
  const items = await getItems(
    skus.map((sku) => keys.product(workspaceId, sku)),
    {
      consistent: true,
      projection: '#sku, #category',
      names: { '#sku': 'sku', '#category': 'category' },
    },
  );
  return new Map(items.map((item) => [item.sku as string, item.category as string]));
}

/** The segment × SKU bands (JSON text) each product carries, for the products asked about that have them. */
export async function readSegmentBands(workspaceId: string, skus: readonly string[]): Promise<Map<string, string>> {
  const items = await getItems(
    skus.map((sku) => keys.product(workspaceId, sku)),
    { consistent: true, projection: '#sku, segmentBands', names: { '#sku': 'sku' } },
  );
  return new Map(items.flatMap((item) => (typeof item.segmentBands === 'string' ? [[item.sku as string, item.segmentBands]] : [])));
}

/** Each customer's segment ('' when it has none), for the customers asked about that exist. */
export async function readSegments(workspaceId: string, customerIds: readonly string[]): Promise<Map<string, string>> {
  const items = await getItems(
    customerIds.map((id) => keys.customer(workspaceId, id)),
    {
      consistent: true,
      projection: '#id, #segment',
      names: { '#id': 'externalId', '#segment': 'segment' },
    },
  );
  return new Map(items.map((item) => [item.externalId as string, (item.segment as string | undefined) ?? '']));
}

/** What a newer version of a document replaces: its line count, its text as staged, and the nodes it fed. */
export interface StoredDocument {
  readonly lineCount: number;
  /** The document as staged, as JSON text. */
  readonly document: string;
  /** The batch that wrote it: the same text from the same batch is the same version, written by an earlier attempt. */
  readonly batchId: string;
  /** Undefined on a line 0 written before line 0 kept its feeds: its lines' SKUs and customer are read from the text. */
  readonly feeds: DocumentFeeds | undefined;
  readonly replacedFeeds: DocumentFeeds | undefined;
}

/**
 * The stored version of each document asked about that exists, from its line 0. Reading the staged document and the
 * feeds along with the count costs nothing more: a read is charged by the item's size, whatever it projects.
 */
export async function readStoredDocuments(
  workspaceId: string,
  kind: DocumentKind,
  externalIds: readonly string[],
): Promise<Map<string, StoredDocument>> {
  const items = await getItems(
    externalIds.map((id) => keys.documentLine(workspaceId, kind, id, 0)),
    {
      consistent: true,
      projection: '#id, #count, #document, #batch, #feeds, #replaced',
      names: {
        '#id': 'externalId',
        '#count': 'lineCount',
        '#document': 'document',
        '#batch': 'batchId',
        '#feeds': 'feeds',
        '#replaced': 'replacedFeeds',
      },
    },
  );
  const feeds = (text: unknown) => (typeof text === 'string' ? (JSON.parse(text) as DocumentFeeds) : undefined);
  return new Map(
    items.map((item) => [
      item.externalId as string,
      {
        lineCount: item.lineCount as number,
        document: String(item.document ?? ''),
        batchId: String(item.batchId ?? ''),
        feeds: feeds(item.feeds),
        replacedFeeds: feeds(item.replacedFeeds),
      },
    ]),
  );
}

/** Keeps the newest rate per currency: an older observation, from this batch or a later-synced one, never replaces a newer. */
export async function recordFxRates(workspaceId: string, observations: readonly FxObservation[], syncedAt: string): Promise<void> {
  await inParallel(observations, WRITE_CONCURRENCY, async (observation) => {
    try {
      await tableClient().send(
        new UpdateCommand({
          TableName: tableName(),
          Key: keys.fxRate(workspaceId, observation.currency),
          UpdateExpression:
            'SET #type = :type, currency = :currency, rate = :rate, asOf = :asOf, asOfMs = :asOfMs, #source = :source, syncedAt = :syncedAt',
          ConditionExpression: 'attribute_not_exists(asOfMs) OR asOfMs <= :asOfMs',
          ExpressionAttributeNames: { '#type': 'type', '#source': 'source' },
          ExpressionAttributeValues: {
            ':type': 'fxRate',
            ':currency': observation.currency,
            ':rate': observation.rate,
            ':asOf': observation.asOf,
            ':asOfMs': observation.asOfMs,
            ':source': observation.source,
            ':syncedAt': syncedAt,
          },
        }),
      );
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
    }
  });
}
