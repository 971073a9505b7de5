// Every item of one workspace in the shared test table, read partition by partition: a read whose time follows the workspace, not the run.
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { tableName } from '#platform/config.ts';
import { tableClient } from '#platform/table/client.ts';
import { partitionRegistryEnvironmentName } from './partition-registry.ts';

export type StoredItem = Record<string, unknown>;

/** Partitions read at once. */
const PARALLEL_READS = 8;

async function partitionsOf(workspaceId: string): Promise<string[]> {
  const registry = process.env[partitionRegistryEnvironmentName];
  if (!registry) throw new Error(`${partitionRegistryEnvironmentName} is not set`);
  const response = await fetch(`${registry}/partitions/${encodeURIComponent(workspaceId)}`);
  if (!response.ok) throw new Error(`the partition registry answered ${response.status}: ${await response.text()}`);
  return (await response.json()) as string[];
}

async function partitionItems(partition: string): Promise<StoredItem[]> {
  const items: StoredItem[] = [];
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const page = await tableClient().send(
      new QueryCommand({
        TableName: tableName(),
        ConsistentRead: true,
        KeyConditionExpression: 'PK = :pk',
        ExpressionAttributeValues: { ':pk': partition },
        ExclusiveStartKey,
      }),
    );
    items.push(...(page.Items ?? []));
    ExclusiveStartKey = page.LastEvaluatedKey;
  } while (ExclusiveStartKey);
  return items;
}

/**
 * The workspace's items (under `WS#{id}` and every `WS#{id}#…` partition), strongly consistent, in key order. Every
 * partition it ever wrote is known from the table's keys stream, so nothing the workspace holds is missed, however it
 * was written.
 */
export async function readWorkspaceItems(workspaceId: string): Promise<StoredItem[]> {
  const partitions = await partitionsOf(workspaceId);
  const read: StoredItem[][] = [];
  for (let start = 0; start < partitions.length; start += PARALLEL_READS) {
    read.push(...(await Promise.all(partitions.slice(start, start + PARALLEL_READS).map(partitionItems))));
  }
  return read.flat();
}
