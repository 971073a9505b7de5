// Benchmark: end-to-end ingest (stage, commit, drained, bands) on the local stack against warm raw BatchWriteItem floors of the same records.
import { type DynamoDBClient, QueryCommand, type QueryCommandOutput } from '@aws-sdk/client-dynamodb';
import { BatchWriteCommand, DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { customerItem, documentItem, type DocumentRecord, type Provenance, productItem } from '#shared/canonical/items.ts';
import { documentLogEntries } from '#shared/pipeline/history-log.ts';
import { historyLogItems, type LogEntry } from '#shared/bands/history-log.ts';
import { chunkPartitions } from '#shared/batches/chunk-items.ts';
import { entityKinds, type EntityKind } from '#shared/records/schema.ts';
import { inParallel, WRITE_CONCURRENCY } from '#platform/table/bulk.ts';
import { itemSize, transactionalWriteUnitsForSize, writeUnitsForSize } from '#platform/table/capacity.ts';
import { table } from '#platform/table/definition.ts';
import { tableName } from '#platform/config.ts';
import { createTable, localDynamoDbClient } from '#lib/local/dynamodb.ts';
import { createWorkspaceWithKeys } from '#lib/local/seed.ts';
import type { LocalStack } from '#lib/local/stack.ts';
import { mixFor, type SampleCatalogue, sampleCatalogue } from '#lib/local/sample-catalogue.ts';
import type { JobCounts } from './drain-counts.ts';
import { ingestBatch, RECORDS_PER_CALL } from './ingest-batch.ts';

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

/** One item per record, as it came: the first floor. */
function recordItems(catalogue: SampleCatalogue): Array<Record<string, unknown>> {
  return entityKinds.flatMap((entity) =>
    (catalogue[entity] as unknown as Record<string, unknown>[]).map((record) => ({
      PK: `RAW#${entity}#${recordKey(entity, record)}`,
      SK: 'RAW',
      ...record,
    })),
  );
}

/**
 * The items the drain writes for these records as the canonical layout builds them (products, customers, the
 * documents' lines), with their index keys: the second floor, what the layout itself costs without the drain's work.
 */
export function canonicalItems(catalogue: SampleCatalogue, from: Provenance): Array<Record<string, unknown>> {
  const categories = new Map(catalogue.product.map((product) => [product.sku, product.category]));
  const segments = new Map(catalogue.customer.map((customer) => [customer.externalId, customer.segment ?? undefined]));
  const context = { categoryOf: (sku: string) => categories.get(sku), segmentOf: (id: string) => segments.get(id) };
  const documents: DocumentRecord[] = [
    ...catalogue.quote.map((record) => ({ kind: 'quote' as const, record })),
    ...catalogue.order.map((record) => ({ kind: 'order' as const, record })),
  ];
  // The history log as the drain writes it: per staging call (one chunk), one set of items per category.
  const logItems: Array<Record<string, unknown>> = [];
  for (let start = 0; start < documents.length; start += RECORDS_PER_CALL) {
    const byCategory = new Map<string, LogEntry[]>();
    for (const document of documents.slice(start, start + RECORDS_PER_CALL)) {
      for (const [category, entry] of documentLogEntries(document, context, from, 1)) {
        byCategory.set(category, [...(byCategory.get(category) ?? []), entry]);
      }
    }
    for (const [category, entries] of byCategory)
      logItems.push(...historyLogItems(from.workspaceId, category, `${from.batchId}#${start}`, entries));
  }
  return [
    ...catalogue.product.map((record) => productItem(record, from)),
    ...catalogue.customer.map((record) => customerItem(record, from)),
    ...documents.map((document) => documentItem(document, context, from, 1)),
    ...logItems,
  ];
}

function groupsOf(items: ReadonlyArray<Record<string, unknown>>): Array<Array<Record<string, unknown>>> {
  const groups: Array<Array<Record<string, unknown>>> = [];
  for (let start = 0; start < items.length; start += 25) groups.push(items.slice(start, start + 25));
  return groups;
}

interface RawFigures {
  /** The same load written once before, under other keys, so that the measured one runs on a warm DynamoDB Local. */
  readonly warmupSeconds: number;
  readonly seconds: number;
  /** Today's canonical items for the same records, written the same way after the warm-up. */
  readonly canonicalItems: number;
  readonly canonicalSeconds: number;
}

/**
 * The floors: each record written as one item, and the canonical items the drain would write, into a table of the
 * same shape (indexes included) in the same DynamoDB Local, with BatchWriteItem at the drain's own concurrency and the
 * same retry of unprocessed items. A warm-up as large as the load runs first: measured on a cold JVM, the raw load
 * would take half as long again, and the ratio would flatter the drain.
 */
async function rawLoad(dynamo: DynamoDBClient, catalogue: SampleCatalogue): Promise<RawFigures> {
  const rawTable = `${tableName()}-raw`;
  await createTable(dynamo, rawTable, table);
  const documents = DynamoDBDocumentClient.from(dynamo, { marshallOptions: { removeUndefinedValues: true } });
  const items = recordItems(catalogue);
  const timed = async (groups: ReadonlyArray<Array<Record<string, unknown>>>) => {
    const started = performance.now();
    await batchWriteAll(documents, rawTable, groups);
    return (performance.now() - started) / 1000;
  };
  const warmupSeconds = await timed(groupsOf(items.map((item) => ({ ...item, PK: `WARMUP#${String(item.PK)}` }))));
  const seconds = await timed(groupsOf(items));
  const canonical = canonicalItems(catalogue, {
    workspaceId: `raw-${catalogue.product.length}-${catalogue.order.length}`,
    batchId: 'raw',
    syncedAt: new Date().toISOString(),
  });
  const canonicalSeconds = await timed(groupsOf(canonical));
  return { warmupSeconds, seconds, canonicalItems: canonical.length, canonicalSeconds };
}

/**
 * Write units of staging, from the items as stored: per call the sequence increment and the transaction. The items are
 * read raw, on the bench's own client: their sizes are measured marshalled, as DynamoDB bills them, which the table's
 * calls (unmarshalled) do not give.
 */
async function stagingWriteUnits(dynamo: DynamoDBClient, workspaceId: string, batchId: string, calls: number): Promise<number> {
  let units = 0;
  for (const prefix of chunkPartitions({ workspaceId, batchId })) {
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
  }
  // Each call: 1 unit for the rate window, 1 to take its sequence number, 2 for the batch item's update inside the
  // transaction (items under 1 KB).
  return units + calls * (2 * writeUnitsForSize(1) + transactionalWriteUnitsForSize(1));
}

/** Stage + commit + drain at no less than this fraction of floor 1's rate. */
export const INGEST_RATIO_TARGET = 0.5;
export const WRITE_UNITS_PER_KB_TARGET = 0.35;
/** Flat: a batch ten times the size may not need more than half as much again at its peak. */
export const FLAT_MEMORY_FACTOR = 1.5;
/** Below this, differences are the noise of one collection to the next. */
export const MEMORY_NOISE_MB = 16;

/** A job's totals per 1,000 records: RRU, WRU and Node CPU-seconds. */
export interface JobFigures {
  readonly readUnits: number;
  readonly writeUnits: number;
  readonly cpuSeconds: number;
}

export function jobFigures(counts: JobCounts, kind: 'drain' | 'bands', records: number): JobFigures {
  const total = counts.calls[kind].total();
  const scale = 1000 / records;
  return { readUnits: total.readUnits * scale, writeUnits: total.writeUnits * scale, cpuSeconds: counts.cpuSeconds[kind] * scale };
}

export interface IngestFigures {
  readonly records: number;
  readonly rawWarmupSeconds: number;
  readonly rawSeconds: number;
  readonly rawRecordsPerSecond: number;
  readonly canonicalRawSeconds: number;
  readonly canonicalRawItemsPerSecond: number;
  readonly stagingSeconds: number;
  readonly drainSeconds: number;
  readonly endToEndSeconds: number;
  readonly endToEndRecordsPerSecond: number;
  readonly throughputRatio: number;
  /** The drain against the second floor: the same canonical items written raw, from the commit to `drained`. */
  readonly drainToCanonicalFloorRatio: number;
  readonly stagedJsonKb: number;
  readonly stagingWriteUnits: number;
  readonly writeUnitsPerStagedKb: number;
  readonly canonicalItemsWritten: number;
  /** Heap the drain retained at its peak (after collection), above where it started. */
  readonly drainHeapPeakMb: number;
  /** From `drained` to the bands job's end, and the heap it retained at its peak. */
  readonly bandsSeconds: number;
  readonly bandsHeapPeakMb: number;
  /** Commit until the prices reflect the batch, against commit until drained (the service's own moments). */
  readonly commitToDrainedSeconds: number;
  readonly commitToFreshSeconds: number;
  readonly freshLagRatio: number;
  readonly drain: JobFigures;
  readonly bands: JobFigures;
}

export async function measureIngest(stack: LocalStack, records: number, options: { baseline?: boolean } = {}): Promise<IngestFigures> {
  const catalogue = sampleCatalogue(mixFor(records), { seed: records, prefix: `B${records}-` });
  const dynamo = localDynamoDbClient(stack.dynamoDbEndpoint);
  const raw: RawFigures =
    options.baseline === false
      ? { warmupSeconds: Number.NaN, seconds: Number.NaN, canonicalItems: Number.NaN, canonicalSeconds: Number.NaN }
      : await rawLoad(dynamo, catalogue);

  const seller = await createWorkspaceWithKeys(`Bench ${records}`);
  const run = await ingestBatch(stack, seller.keys.connector, seller.workspaceId, catalogue, { heap: true });
  const stagingUnits = await stagingWriteUnits(dynamo, seller.workspaceId, run.batchId, run.calls);
  dynamo.destroy();
  const lines = [...catalogue.quote, ...catalogue.order].reduce((sum, record) => sum + record.lines.length, 0);
  const endToEndSeconds = run.stagingSeconds + run.drainSeconds;
  return {
    records,
    rawWarmupSeconds: raw.warmupSeconds,
    rawSeconds: raw.seconds,
    rawRecordsPerSecond: records / raw.seconds,
    canonicalRawSeconds: raw.canonicalSeconds,
    canonicalRawItemsPerSecond: raw.canonicalItems / raw.canonicalSeconds,
    stagingSeconds: run.stagingSeconds,
    drainSeconds: run.drainSeconds,
    endToEndSeconds,
    endToEndRecordsPerSecond: records / endToEndSeconds,
    throughputRatio: raw.seconds / endToEndSeconds,
    drainToCanonicalFloorRatio: raw.canonicalSeconds / run.commitToDrainedSeconds,
    stagedJsonKb: run.stagedJsonKb,
    stagingWriteUnits: stagingUnits,
    writeUnitsPerStagedKb: stagingUnits / run.stagedJsonKb,
    canonicalItemsWritten: catalogue.product.length + catalogue.customer.length + lines,
    drainHeapPeakMb: run.drainHeapPeakMb,
    bandsSeconds: run.bandsSeconds,
    bandsHeapPeakMb: run.bandsHeapPeakMb,
    commitToDrainedSeconds: run.commitToDrainedSeconds,
    commitToFreshSeconds: run.commitToFreshSeconds,
    freshLagRatio: run.commitToFreshSeconds / run.commitToDrainedSeconds,
    drain: jobFigures(run.counts, 'drain', records),
    bands: jobFigures(run.counts, 'bands', records),
  };
}

/** The deterministic counts: one batch on a fresh workspace, with DynamoDB reporting capacity per index. */
export async function measureIngestCounts(stack: LocalStack, records: number): Promise<{ records: number; counts: JobCounts }> {
  const catalogue = sampleCatalogue(mixFor(records), { seed: records, prefix: `N${records}-` });
  const seller = await createWorkspaceWithKeys(`Bench counts ${records}`);
  const run = await ingestBatch(stack, seller.keys.connector, seller.workspaceId, catalogue, { indexes: true });
  return { records, counts: run.counts };
}

const count = (value: number) => Math.round(value).toLocaleString('en-US');

/** The section's lines, as `npm run bench` prints them, for the large run and the one a tenth its size. */
export function ingestLines(ingest: IngestFigures, small: IngestFigures, verdict: (ok: boolean) => string): string[] {
  const itemsPerRecord = ingest.canonicalItemsWritten / ingest.records;
  const drainItemsPerSecond = ingest.canonicalItemsWritten / ingest.drainSeconds;
  const flat = ingest.drainHeapPeakMb <= Math.max(small.drainHeapPeakMb, MEMORY_NOISE_MB) * FLAT_MEMORY_FACTOR;
  const job = (figures: JobFigures) =>
    `${figures.readUnits.toFixed(0)} RRU, ${figures.writeUnits.toFixed(0)} WRU, ${figures.cpuSeconds.toFixed(3)} CPU-s per 1,000 records`;
  return [
    `  raw BatchWriteItem      ${ingest.rawSeconds.toFixed(1).padStart(6)} s   ${count(ingest.rawRecordsPerSecond).padStart(6)} records/s (floor 1: one item per record; after a warm-up of the same load, which took ${ingest.rawWarmupSeconds.toFixed(1)} s)`,
    `  canonical items raw     ${ingest.canonicalRawSeconds.toFixed(1).padStart(6)} s   ${count(ingest.canonicalRawItemsPerSecond).padStart(6)} items/s (floor 2: the ${count(ingest.canonicalItemsWritten)} items the canonical layout has for these records, with their index entries, written raw)`,
    `  stage + commit + drain  ${ingest.endToEndSeconds.toFixed(1).padStart(6)} s   ${count(ingest.endToEndRecordsPerSecond).padStart(6)} records/s (staging ${ingest.stagingSeconds.toFixed(1)} s, drain ${ingest.drainSeconds.toFixed(1)} s)`,
    `  throughput ratio        ${ingest.throughputRatio.toFixed(2)} of floor 1   ${verdict(ingest.throughputRatio >= INGEST_RATIO_TARGET)} (>= ${INGEST_RATIO_TARGET}); the drain alone ${ingest.drainToCanonicalFloorRatio.toFixed(2)} of floor 2 (${ingest.canonicalRawSeconds.toFixed(1)} s against commit to drained ${ingest.commitToDrainedSeconds.toFixed(1)} s)`,
    `  canonical items         ${count(ingest.canonicalItemsWritten)} (${itemsPerRecord.toFixed(2)} per record: products, customers and one per quote or order line)`,
    `  per item written        drain ${count(drainItemsPerSecond)} items/s = ${((drainItemsPerSecond / ingest.rawRecordsPerSecond) * 100).toFixed(0)}% of floor 1's rate`,
    `  staging write units     ${count(ingest.stagingWriteUnits)} WRU for ${count(ingest.stagedJsonKb)} KB of JSON = ${ingest.writeUnitsPerStagedKb.toFixed(3)} WRU/KB   ${verdict(ingest.writeUnitsPerStagedKb <= WRITE_UNITS_PER_KB_TARGET)} (<= ${WRITE_UNITS_PER_KB_TARGET})`,
    `  drain retained heap     ${small.drainHeapPeakMb.toFixed(0)} MB for ${count(small.records)} records, ${ingest.drainHeapPeakMb.toFixed(0)} MB for ${count(ingest.records)}   ${verdict(flat)} (flat: <= ${FLAT_MEMORY_FACTOR}x)`,
    `  bands job after drain   ${ingest.bandsSeconds.toFixed(1)} s until the touched bands are recomputed (${small.bandsSeconds.toFixed(1)} s for ${count(small.records)} records); retained heap ${ingest.bandsHeapPeakMb.toFixed(0)} MB (${small.bandsHeapPeakMb.toFixed(0)} MB)`,
    `  commit -> prices fresh  ${ingest.commitToFreshSeconds.toFixed(1)} s = ${ingest.freshLagRatio.toFixed(2)}x the drain alone (${ingest.commitToDrainedSeconds.toFixed(1)} s), fresh workspace; ${small.freshLagRatio.toFixed(2)}x for ${count(small.records)} records`,
    `  drain                   ${job(ingest.drain)}`,
    `  bands job               ${job(ingest.bands)}`,
  ];
}
