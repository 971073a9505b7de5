// Bulk item calls: BatchWriteItem and BatchGetItem over any number of items, in parallel groups, retried until done.
import { type BatchGetCommandInput, BatchGetCommand, BatchWriteCommand } from '@aws-sdk/lib-dynamodb';
import { tableName } from '#platform/config.ts';
import { tableClient } from './client.ts';
import type { PrimaryKey } from './key-parts.ts';

/** An item as the document client reads and writes it. */
export type TableItem = Record<string, unknown>;

const WRITE_BATCH_SIZE = 25;
const READ_BATCH_SIZE = 100;
const MAX_RETRIES = 10;
/** Parallel BatchWriteItem calls per drain: enough to hide round trips, few enough not to throttle a new table. */
export const WRITE_CONCURRENCY = 8;

/** Full-jitter backoff before a retry: callers that collided spread out instead of colliding again in step. */
export function pause(attempt: number): Promise<void> {
  const ceiling = Math.min(2000, 25 * 2 ** attempt);
  return new Promise((resolve) => setTimeout(resolve, Math.random() * ceiling));
}

/**
 * Runs `run` over the tasks with at most `concurrency` at a time. After a task fails no other starts, and the failure
 * is thrown once every task under way has ended: nothing goes on after the caller is answered.
 */
export async function inParallel<T>(tasks: readonly T[], concurrency: number, run: (task: T) => Promise<void>): Promise<void> {
  let next = 0;
  let failed = false;
  const workers = Array.from({ length: Math.min(concurrency, tasks.length) }, async () => {
    while (next < tasks.length && !failed) {
      const task = tasks[next++] as T;
      try {
        await run(task);
      } catch (error) {
        failed = true;
        throw error;
      }
    }
  });
  const ended = await Promise.allSettled(workers);
  const failure = ended.find((result) => result.status === 'rejected');
  if (failure) throw failure.reason;
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
