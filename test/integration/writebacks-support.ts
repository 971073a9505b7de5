// What the overview and write-back tests share: calls by key, and a task as stored.
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { tableName } from '#platform/config.ts';
import { tableClient } from '#platform/table/client.ts';
import { keys } from '#platform/table/keys.ts';
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

/** A task as stored, for what no endpoint shows: its status and the connector's error. */
export async function storedTask(workspaceId: string, taskId: string): Promise<Record<string, unknown> | undefined> {
  const { Item } = await tableClient().send(
    new GetCommand({ TableName: tableName(), Key: keys.writeback(workspaceId, taskId), ConsistentRead: true }),
  );
  return Item;
}
