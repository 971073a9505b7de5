// A table of its own for a migration's test: copies of some workspaces' items, so that the migration's Scan reads those and nothing else the run has written.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DeleteTableCommand } from '@aws-sdk/client-dynamodb';
import { BatchWriteCommand } from '@aws-sdk/lib-dynamodb';
import { inject } from 'vitest';
import { createTable, localDynamoDbClient } from '#lib/local/dynamodb.ts';
import { environmentNames, tableName } from '#platform/config.ts';
import { tableClient } from '#platform/table/client.ts';
import { table } from '#platform/table/definition.ts';
import { readWorkspaceItems, type StoredItem } from './workspace-items.ts';

/** BatchWriteItem's most. */
const WRITES_PER_CALL = 25;

async function copyInto(name: string, items: readonly StoredItem[]): Promise<void> {
  for (let start = 0; start < items.length; start += WRITES_PER_CALL) {
    let unprocessed: Record<string, unknown>[] | undefined = items
      .slice(start, start + WRITES_PER_CALL)
      .map((Item) => ({ PutRequest: { Item } }));
    while (unprocessed?.length) {
      const { UnprocessedItems } = await tableClient().send(new BatchWriteCommand({ RequestItems: { [name]: unprocessed as never } }));
      unprocessed = UnprocessedItems?.[name] as Record<string, unknown>[] | undefined;
    }
  }
}

/** What the table of its own holds: copies of these workspaces' items, and of these items beside them. */
export interface HeldItems {
  readonly workspaceIds: readonly string[];
  /** Items outside a workspace's partitions, such as an API key's own item. */
  readonly items?: readonly StoredItem[];
}

/**
 * Runs `run` with the service's code in this process pointed at a new table that holds copies of these workspaces'
 * items, as the shared table has them now; the table is dropped after. What runs over the whole table (a backfill's
 * Scan) then reads these workspaces, and its time does not grow with the run. `run` gets the table's name, for a
 * program in another process (the admin CLI) to be pointed at it too.
 */
export async function withTableHolding<T>(held: HeldItems, run: (table: string) => Promise<T>): Promise<T> {
  const shared = tableName();
  const own = `${shared}-own-${randomUUID().slice(0, 8)}`;
  const dynamo = localDynamoDbClient(inject('stack').dynamoDbEndpoint);
  await createTable(dynamo, own, table);
  try {
    for (const workspaceId of held.workspaceIds) await copyInto(own, await readWorkspaceItems(workspaceId));
    await copyInto(own, held.items ?? []);
    process.env[environmentNames.tableName] = own;
    try {
      return await run(own);
    } finally {
      process.env[environmentNames.tableName] = shared;
    }
  } finally {
    await dynamo.send(new DeleteTableCommand({ TableName: own }));
    dynamo.destroy();
  }
}

/** A stack file for the admin CLI: the run's local stack, its table this one. */
export function stackFileOf(ownTable: string): string {
  const stackFile = join(mkdtempSync(join(tmpdir(), 'pricing-own-table-')), 'stack.json');
  writeFileSync(stackFile, JSON.stringify({ ...JSON.parse(readFileSync(inject('stackFile'), 'utf8')), tableName: ownTable }));
  return stackFile;
}
