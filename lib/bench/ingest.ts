// Benchmark: end-to-end ingest (stage, commit, drained) on the local stack against raw BatchWriteItem of the same records.
import { type DynamoDBClient, QueryCommand, type QueryCommandOutput } from '@aws-sdk/client-dynamodb';
import { BatchWriteCommand, DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { keys } from '../../shared/table/keys.ts';
import { entityKinds, type EntityKind } from '../../shared/records/schema.ts';
import { inParallel, WRITE_CONCURRENCY } from '../../shared/table/bulk.ts';
import { itemSize, transactionalWriteUnitsForSize, writeUnitsForSize } from '../../shared/table/capacity.ts';
import { table } from '../../shared/table/definition.ts';
import { tableName } from '../../shared/config.ts';
import { createTable, localDynamoDbClient } from '../local/dynamodb.ts';
import { createWorkspaceWithKeys } from '../local/seed.ts';
import type { LocalStack } from '../local/stack.ts';
import { mixFor, type SampleCatalogue, sampleCatalogue } from '../sample-catalogue.ts';
import { keepAliveClient } from './measure.ts';

const RECORDS_PER_CALL = 1000;
/** Staging calls a connector keeps in flight; the drain is what takes the time, not staging. */
const STAGING_CONCURRENCY = 4;

function recordKey(entity: EntityKind, record: Record<string, unknown>): string {
  return String(entity === 'product' ? record.sku : record.externalId);
}

/** Writes groups of up to 25 items with BatchWriteItem at the drain's concurrency, retrying what is left unprocessed. */
async function batchWriteAll(documents: DynamoDBDocumentClient, tableName: string, groups: ReadonlyArray<Array<Record<string, unknown>>>) {
  await inParallel(groups, WRITE_CONCURRENCY, async (group) => {
    let pending = group.map((item) => ({ PutRequest: { Item: item } }));
    while (pending.length > 0) {
      const { UnprocessedItems } = await documents.send(new BatchWriteCommand({ RequestItems: { [tableName]: pending } }));
      pending = (UnprocessedItems?.[tableName] ?? []) as typeof pending;
    }
  });
}

/**
 * The baseline: each record written as one item, as it came, into a table of the same shape in the same DynamoDB
 * Local, with BatchWriteItem at the drain's own concurrency and the same retry of unprocessed items. A warm-up load
 * first, so that neither side pays for a cold JVM.
 */
async function rawLoad(dynamo: DynamoDBClient, catalogue: SampleCatalogue): Promise<{ seconds: number }> {
  const rawTable = `${tableName()}-raw`;
  await createTable(dynamo, rawTable, table);
  const documents = DynamoDBDocumentClient.from(dynamo, { marshallOptions: { removeUndefinedValues: true } });
  const groups: Array<Array<Record<string, unknown>>> = [];
  for (const entity of entityKinds) {
    const records = catalogue[entity] as unknown as Record<string, unknown>[];
    for (let start = 0; start < records.length; start += 25) {
      groups.push(
        records.slice(start, start + 25).map((record) => ({ PK: `RAW#${entity}#${recordKey(entity, record)}`, SK: 'RAW', ...record })),
      );
    }
  }
  await batchWriteAll(
    documents,
    rawTable,
    groups.slice(0, 400).map((group) => group.map((item) => ({ ...item, PK: `WARMUP#${String(item.PK)}` }))),
  );
  const started = performance.now();
  await batchWriteAll(documents, rawTable, groups);
  return { seconds: (performance.now() - started) / 1000 };
}

interface StagingCall {
  readonly entity: EntityKind;
  readonly body: string;
  readonly recordsJsonBytes: number;
}

function stagingCalls(catalogue: SampleCatalogue): StagingCall[][] {
  // One wave per kind: kinds are staged in rank order, calls of one kind in parallel.
  return entityKinds.map((entity) => {
    const records = catalogue[entity];
    const calls: StagingCall[] = [];
    for (let start = 0; start < records.length; start += RECORDS_PER_CALL) {
      const slice = records.slice(start, start + RECORDS_PER_CALL);
      calls.push({ entity, body: JSON.stringify({ entity, records: slice }), recordsJsonBytes: Buffer.byteLength(JSON.stringify(slice)) });
    }
    return calls;
  });
}

/** Write units of staging, from the items as stored: per call the sequence increment and the transaction. */
async function stagingWriteUnits(dynamo: DynamoDBClient, workspaceId: string, batchId: string, calls: number): Promise<number> {
  const prefix = keys.batchChunkPrefix(workspaceId, batchId);
  let units = 0;
  let ExclusiveStartKey: QueryCommandOutput['LastEvaluatedKey'];
  do {
    const page: QueryCommandOutput = await dynamo.send(
      new QueryCommand({
        TableName: tableName(),
        KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
        ExpressionAttributeValues: { ':pk': { S: prefix.PK }, ':prefix': { S: prefix.SKPrefix } },
        ExclusiveStartKey,
      }),
    );
    for (const item of page.Items ?? []) units += transactionalWriteUnitsForSize(itemSize(item));
    ExclusiveStartKey = page.LastEvaluatedKey;
  } while (ExclusiveStartKey);
  // Each call: 1 unit for the rate window, 1 to take its sequence number, 2 for the batch item's update inside the
  // transaction (items under 1 KB).
  return units + calls * (2 * writeUnitsForSize(1) + transactionalWriteUnitsForSize(1));
}

export interface IngestFigures {
  readonly records: number;
  readonly rawSeconds: number;
  readonly rawRecordsPerSecond: number;
  readonly stagingSeconds: number;
  readonly drainSeconds: number;
  readonly endToEndSeconds: number;
  readonly endToEndRecordsPerSecond: number;
  readonly throughputRatio: number;
  readonly stagedJsonKb: number;
  readonly stagingWriteUnits: number;
  readonly writeUnitsPerStagedKb: number;
  readonly canonicalItemsWritten: number;
  /** Heap the drain retained at its peak (after collection), above where it started. */
  readonly drainHeapPeakMb: number;
  /** From `drained` to the bands job's end, and the heap it retained at its peak. */
  readonly bandsSeconds: number;
  readonly bandsHeapPeakMb: number;
}

/**
 * What the work holds on to while it runs: once a second the heap is collected and what survives is sampled, so the
 * figure is retained memory, not garbage waiting for a collection. The peak above the starting point is reported.
 */
async function retainedHeapPeakDuring<T>(run: () => Promise<T>): Promise<{ result: T; peakMb: number }> {
  const collect = globalThis.gc ?? (() => undefined);
  collect();
  const start = process.memoryUsage().heapUsed;
  let peak = start;
  const timer = setInterval(() => {
    collect();
    peak = Math.max(peak, process.memoryUsage().heapUsed);
  }, 1000);
  try {
    const result = await run();
    return { result, peakMb: (peak - start) / 1024 / 1024 };
  } finally {
    clearInterval(timer);
  }
}

export async function measureIngest(stack: LocalStack, records: number, options: { baseline?: boolean } = {}): Promise<IngestFigures> {
  const catalogue = sampleCatalogue(mixFor(records), { seed: records, prefix: `B${records}-` });
  const dynamo = localDynamoDbClient(stack.dynamoDbEndpoint);
  const raw = options.baseline === false ? { seconds: Number.NaN } : await rawLoad(dynamo, catalogue);

  const seller = await createWorkspaceWithKeys(`Bench ${records}`);
  const headers = { authorization: `Bearer ${seller.keys.connector}`, 'content-type': 'application/json' };
  const clients = Array.from({ length: STAGING_CONCURRENCY }, () => keepAliveClient(stack.gatewayUrl));
  const waves = stagingCalls(catalogue);
  const opened = await clients[0]?.send('POST', '/api/v1/ingest/batches', headers);
  const batchId = (JSON.parse(opened?.body ?? '{}') as { batchId: string }).batchId;

  const started = performance.now();
  for (const wave of waves) {
    let next = 0;
    await Promise.all(
      clients.map(async (client) => {
        while (next < wave.length) {
          const call = wave[next++] as StagingCall;
          const response = await client.send('POST', `/api/v1/ingest/batches/${batchId}/records`, headers, call.body);
          if (response.status !== 202) throw new Error(`staging answered ${response.status}: ${response.body}`);
        }
      }),
    );
  }
  const staged = performance.now();
  const { peakMb } = await retainedHeapPeakDuring(async () => {
    const committed = await clients[0]?.send('POST', `/api/v1/ingest/batches/${batchId}/commit`, headers);
    if (committed?.status !== 202) throw new Error(`commit answered ${committed?.status}`);
    for (;;) {
      const status = JSON.parse((await clients[0]?.send('GET', `/api/v1/ingest/batches/${batchId}`, headers))?.body ?? '{}') as {
        status: string;
      };
      if (status.status === 'drained') return;
      if (status.status === 'failed') throw new Error(`the batch failed: ${JSON.stringify(status)}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  });
  const drained = performance.now();
  // The bands job follows the drain: how long after `drained` the bands of what the batch touched are current.
  const bands = await retainedHeapPeakDuring(async () => {
    for (;;) {
      const status = JSON.parse((await clients[0]?.send('GET', `/api/v1/ingest/batches/${batchId}`, headers))?.body ?? '{}') as {
        bandsRecomputedAt?: string;
      };
      if (status.bandsRecomputedAt) return;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  });
  const bandsReady = performance.now();
  for (const client of clients) client.close();

  const calls = waves.flat();
  const stagedJsonKb = calls.reduce((sum, call) => sum + call.recordsJsonBytes, 0) / 1024;
  const stagingUnits = await stagingWriteUnits(dynamo, seller.workspaceId, batchId, calls.length);
  dynamo.destroy();
  const lines = [...catalogue.quote, ...catalogue.order].reduce((sum, record) => sum + record.lines.length, 0);
  const endToEndSeconds = (drained - started) / 1000;
  return {
    records,
    rawSeconds: raw.seconds,
    rawRecordsPerSecond: records / raw.seconds,
    stagingSeconds: (staged - started) / 1000,
    drainSeconds: (drained - staged) / 1000,
    endToEndSeconds,
    endToEndRecordsPerSecond: records / endToEndSeconds,
    throughputRatio: raw.seconds / endToEndSeconds,
    stagedJsonKb,
    stagingWriteUnits: stagingUnits,
    writeUnitsPerStagedKb: stagingUnits / stagedJsonKb,
    canonicalItemsWritten: catalogue.product.length + catalogue.customer.length + lines,
    drainHeapPeakMb: peakMb,
    bandsSeconds: (bandsReady - drained) / 1000,
    bandsHeapPeakMb: bands.peakMb,
  };
}
