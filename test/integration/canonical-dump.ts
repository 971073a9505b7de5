// What drain tests share: a connector's whole ingest run through the gateway, and a dump of a workspace's canonical data.
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { expect } from 'vitest';
import type { SampleCatalogue } from '../../lib/sample-catalogue.ts';
import { tableName } from '../../shared/config.ts';
import { entityKinds } from '../../shared/records/schema.ts';
import { tableClient } from '../../shared/table/client.ts';
import { type ApiResponse, call } from './support.ts';

export async function openBatch(key: string, baseUrl?: string): Promise<string> {
  const opened = await call('/api/v1/ingest/batches', { method: 'POST', key, baseUrl });
  expect(opened.status).toBe(201);
  return opened.json.batchId as string;
}

/** Stages every kind of a catalogue in rank order, in calls of at most `perCall` records. */
export async function stageCatalogue(
  key: string,
  batchId: string,
  catalogue: SampleCatalogue,
  options: { perCall?: number; baseUrl?: string } = {},
) {
  const perCall = options.perCall ?? 1000;
  for (const entity of entityKinds) {
    const records = catalogue[entity];
    for (let start = 0; start < records.length; start += perCall) {
      const response = await call(`/api/v1/ingest/batches/${batchId}/records`, {
        method: 'POST',
        key,
        body: { entity, records: records.slice(start, start + perCall) },
        baseUrl: options.baseUrl,
      });
      expect(response.status, response.text).toBe(202);
    }
  }
}

export async function commit(key: string, batchId: string, baseUrl?: string): Promise<string> {
  const response = await call(`/api/v1/ingest/batches/${batchId}/commit`, { method: 'POST', key, baseUrl });
  expect(response.status, response.text).toBe(202);
  return response.json.jobId as string;
}

/** Polls the batch status until it reaches one of `until`; the body is ApiResponse's, asserted field by field. */
export async function waitForBatch(
  key: string,
  batchId: string,
  until: readonly string[],
  options: { baseUrl?: string; timeoutMs?: number } = {},
): Promise<ApiResponse['json']> {
  const deadline = Date.now() + (options.timeoutMs ?? 20_000);
  for (;;) {
    const response = await call(`/api/v1/ingest/batches/${batchId}`, { key, baseUrl: options.baseUrl });
    expect(response.status).toBe(200);
    if (until.includes(response.json.status)) return response.json;
    if (Date.now() > deadline) throw new Error(`batch ${batchId} still ${response.json.status}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * A workspace's canonical data (everything but batch partitions), with what differs between two runs of the same
 * records taken out: the workspace id, the batch that brought each item and when.
 */
export async function dumpCanonical(workspaceId: string): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const page = await tableClient().send(
      new ScanCommand({
        TableName: tableName(),
        FilterExpression: 'begins_with(PK, :workspace)',
        ExpressionAttributeValues: { ':workspace': `WS#${workspaceId}#` },
        ExclusiveStartKey,
      }),
    );
    items.push(...(page.Items ?? []));
    ExclusiveStartKey = page.LastEvaluatedKey;
  } while (ExclusiveStartKey);
  return items
    .filter((item) => !String(item.PK).includes('#BATCH#'))
    .map((item) => {
      const { batchId: _batchId, syncedAt: _syncedAt, expiresAt: _expiresAt, ...rest } = item;
      return JSON.parse(JSON.stringify(rest).replaceAll(workspaceId, 'WS')) as Record<string, unknown>;
    })
    .sort((a, b) => `${a.PK}|${a.SK}`.localeCompare(`${b.PK}|${b.SK}`));
}
