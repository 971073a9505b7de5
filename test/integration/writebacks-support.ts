// What the overview and write-back tests share: calls by key, and tasks written straight to the table in bulk.
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { seedPendingTasks } from '../../lib/local/seed.ts';
import { tableName } from '../../shared/config.ts';
import { tableClient } from '../../shared/table/client.ts';
import { keys } from '../../shared/table/keys.ts';
import { type ApiResponse, call } from './support.ts';

export function getPrice(key: string, sku: string, query = ''): Promise<ApiResponse> {
  return call(`/v1/prices/${encodeURIComponent(sku)}${query}`, { key });
}

export function approve(key: string, body: unknown): Promise<ApiResponse> {
  return call('/v1/prices/approve', { method: 'POST', key, body });
}

export function claim(key: string, body?: unknown): Promise<ApiResponse> {
  return call('/api/v1/writebacks/claim', { method: 'POST', key, body });
}

export function ack(key: string, results: unknown): Promise<ApiResponse> {
  return call('/api/v1/writebacks/ack', { method: 'POST', key, body: { results } });
}

export function extend(key: string, taskId: string, body?: unknown): Promise<ApiResponse> {
  return call(`/api/v1/writebacks/${encodeURIComponent(taskId)}/extend`, { method: 'POST', key, body });
}

/** The claimed tasks of a 200 claim. */
export function claimedTasks(response: ApiResponse): Array<Record<string, unknown> & { id: string }> {
  if (response.status !== 200) throw new Error(`claim answered ${response.status}: ${response.text}`);
  return response.json.tasks;
}

/** Pending tasks for one connector, written in bulk, with their products if asked: see seedPendingTasks. */
export function seedTasks(
  workspaceId: string,
  connectorId: string,
  count: number,
  options: { products?: boolean } = {},
): Promise<string[]> {
  return seedPendingTasks(workspaceId, connectorId, count, options);
}

/** A task as stored, for what no endpoint shows: its status and the connector's error. */
export async function storedTask(workspaceId: string, taskId: string): Promise<Record<string, unknown> | undefined> {
  const { Item } = await tableClient().send(
    new GetCommand({ TableName: tableName(), Key: keys.writeback(workspaceId, taskId), ConsistentRead: true }),
  );
  return Item;
}
