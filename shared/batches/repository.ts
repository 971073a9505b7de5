// Batch items and their staged chunks in the table: open, stage, commit, status, and the drain's lease and checkpoint.
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { GetCommand, PutCommand, QueryCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import * as v from 'valibot';
import { tableName } from '../config.ts';
import { ApiError } from '../errors.ts';
import { newBatchId, newId } from '../ids.ts';
import type { EntityKind } from '../records/schema.ts';
import { isConditionFailure, tableClient } from '../table/client.ts';
import { keys } from '../table/keys.ts';
import { queryAll } from '../table/query.ts';
import type { TouchedSet } from '../canonical/items.ts';
import { decompressRecords, MAX_CALL_CHUNK_BYTES, packChunk } from './chunks.ts';
import {
  admitRecords,
  batchNotFound,
  chunkExpiresAt,
  EXPIRED_ERROR,
  expired,
  expiryCutoff,
  isOwnBatch,
  kindsRankedAbove,
  notOpen,
  stagingRefusal,
} from './rules.ts';
import { type Batch, BatchSchema } from './schema.ts';

export interface BatchOwner {
  readonly workspaceId: string;
  readonly connectorId: string;
}

export async function openBatch(owner: BatchOwner, now = new Date()): Promise<Batch> {
  const batch = v.parse(BatchSchema, {
    batchId: newBatchId(),
    workspaceId: owner.workspaceId,
    connectorId: owner.connectorId,
    status: 'open',
    recordCount: 0,
    skippedOverCap: 0,
    chunkSeq: 0,
    createdAt: now.toISOString(),
  });
  // `entities` is left out: it becomes a string set with the first staging call, and DynamoDB has no empty sets.
  const { entities: _entities, ...item } = batch;
  await tableClient().send(
    new PutCommand({
      TableName: tableName(),
      Item: { ...keys.batch(batch.workspaceId, batch.batchId), type: 'batch', ...item },
      // A v4 UUID does not collide in practice; the condition makes sure a collision could never overwrite a batch.
      ConditionExpression: 'attribute_not_exists(PK)',
    }),
  );
  return batch;
}

export async function getBatch(workspaceId: string, batchId: string): Promise<Batch | undefined> {
  const { Item } = await tableClient().send(
    new GetCommand({ TableName: tableName(), Key: keys.batch(workspaceId, batchId), ConsistentRead: true }),
  );
  return Item ? v.parse(BatchSchema, Item) : undefined;
}

/** The condition every staging write repeats: the caller's own batch, open, within its life, and not past `entity` in order. */
function stagingCondition(entity: EntityKind, connectorId: string, now: Date) {
  const above = kindsRankedAbove(entity);
  const values: Record<string, unknown> = { ':connector': connectorId, ':open': 'open', ':cutoff': expiryCutoff(now) };
  const order = above.map((kind, index) => {
    values[`:above${index}`] = kind;
    return `NOT contains(entities, :above${index})`;
  });
  return {
    expression: ['attribute_exists(PK)', 'connectorId = :connector', '#status = :open', 'createdAt > :cutoff', ...order].join(' AND '),
    names: { '#status': 'status' },
    values,
  };
}

/** Why a staging write's condition failed, read back from the batch; a batch that allows staging means a bug here. */
async function refusalFor(owner: BatchOwner, batchId: string, entity: EntityKind, now: Date): Promise<Error> {
  return (
    stagingRefusal(await getBatch(owner.workspaceId, batchId), owner.connectorId, entity, now) ??
    new Error('staging condition failed, yet the batch allows staging')
  );
}

const MAX_STAGING_ATTEMPTS = 8;

function backoff(attempt: number): Promise<void> {
  // Full jitter: concurrent callers that collided spread out instead of colliding again in step.
  const ceiling = Math.min(1000, 20 * 2 ** attempt);
  return new Promise((resolve) => setTimeout(resolve, Math.random() * ceiling));
}

export interface StagingOutcome {
  readonly staged: number;
  readonly skippedOverCap: number;
}

/**
 * Stages one call's records, all or nothing. A cheap atomic increment first takes the call's sequence number, which
 * orders the chunk among the batch's others; then one transaction adds the counts and writes the chunk, so a chunk
 * exists exactly when it is counted. A call that dies between the two leaves only a gap in the sequence.
 */
export async function stageRecords(
  owner: BatchOwner,
  batchId: string,
  entity: EntityKind,
  records: readonly unknown[],
  cap: number,
  now = new Date(),
): Promise<StagingOutcome> {
  const condition = stagingCondition(entity, owner.connectorId, now);
  const key = keys.batch(owner.workspaceId, batchId);
  let reserved: Batch;
  try {
    const { Attributes } = await tableClient().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: key,
        UpdateExpression: 'ADD chunkSeq :one',
        ConditionExpression: condition.expression,
        ExpressionAttributeNames: condition.names,
        ExpressionAttributeValues: { ...condition.values, ':one': 1 },
        ReturnValues: 'ALL_NEW',
      }),
    );
    reserved = v.parse(BatchSchema, Attributes);
  } catch (error) {
    if (isConditionFailure(error)) throw await refusalFor(owner, batchId, entity, now);
    throw error;
  }

  let recordCount = reserved.recordCount;
  for (let attempt = 0; attempt < MAX_STAGING_ATTEMPTS; attempt++) {
    const { accepted, skipped } = admitRecords(recordCount, cap, records.length);
    try {
      if (accepted === 0) {
        await tableClient().send(
          new UpdateCommand({
            TableName: tableName(),
            Key: key,
            UpdateExpression: 'ADD skippedOverCap :skipped',
            ConditionExpression: condition.expression,
            ExpressionAttributeNames: condition.names,
            ExpressionAttributeValues: { ...condition.values, ':skipped': skipped },
          }),
        );
        return { staged: 0, skippedOverCap: skipped };
      }
      const pieces = packChunk(records.slice(0, accepted));
      const total = pieces?.reduce((sum, piece) => sum + piece.data.byteLength, 0) ?? Infinity;
      if (!pieces || total > MAX_CALL_CHUNK_BYTES) {
        throw new ApiError('invalid_request', 'The records of this call are too large to stage together; send them in smaller calls.', {
          param: 'records',
        });
      }
      const expiresAt = chunkExpiresAt(reserved);
      await tableClient().send(
        new TransactWriteCommand({
          TransactItems: [
            {
              Update: {
                TableName: tableName(),
                Key: key,
                UpdateExpression: 'ADD recordCount :accepted, skippedOverCap :skipped, entities :entity',
                // The cap is checked against the count as it is at write time, so parallel calls never overshoot it.
                ConditionExpression: `${condition.expression} AND recordCount <= :room`,
                ExpressionAttributeNames: condition.names,
                ExpressionAttributeValues: {
                  ...condition.values,
                  ':accepted': accepted,
                  ':skipped': skipped,
                  ':entity': new Set([entity]),
                  ':room': cap - accepted,
                },
              },
            },
            ...pieces.map((piece, part) => ({
              Put: {
                TableName: tableName(),
                Item: {
                  ...keys.batchChunk(owner.workspaceId, batchId, reserved.chunkSeq, part),
                  type: 'chunk',
                  entity,
                  count: piece.count,
                  jsonBytes: piece.jsonBytes,
                  data: piece.data,
                  expiresAt,
                },
                ConditionExpression: 'attribute_not_exists(PK)',
              },
            })),
          ],
        }),
      );
      return { staged: accepted, skippedOverCap: skipped };
    } catch (error) {
      if (error instanceof TransactionCanceledException || isConditionFailure(error)) {
        const reasons = error instanceof TransactionCanceledException ? (error.CancellationReasons ?? []) : [];
        if (reasons.some((reason) => reason.Code === 'TransactionConflict')) {
          await backoff(attempt);
          continue;
        }
        // The batch changed under the call: refused now, or more records than seen arrived and the cap moved.
        const current = await getBatch(owner.workspaceId, batchId);
        const refusal = stagingRefusal(current, owner.connectorId, entity, now);
        if (refusal) throw refusal;
        if (!current) throw batchNotFound();
        recordCount = current.recordCount;
        continue;
      }
      throw error;
    }
  }
  throw new Error(`staging into batch ${batchId} did not settle after ${MAX_STAGING_ATTEMPTS} attempts`);
}

/** A batch past its open life is written as failed the first time anyone looks; until then it only reads as failed. */
async function recordExpiry(batch: Batch, now: Date): Promise<Batch> {
  const current = expired(batch, now);
  if (current === batch) return batch;
  try {
    await tableClient().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.batch(batch.workspaceId, batch.batchId),
        UpdateExpression: 'SET #status = :failed, #error = :error, failedAt = :failedAt',
        ConditionExpression: '#status = :open AND createdAt <= :cutoff',
        ExpressionAttributeNames: { '#status': 'status', '#error': 'error' },
        ExpressionAttributeValues: {
          ':failed': 'failed',
          ':error': EXPIRED_ERROR,
          ':failedAt': current.failedAt,
          ':open': 'open',
          ':cutoff': expiryCutoff(now),
        },
      }),
    );
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
  }
  return current;
}

/** The caller's own batch as it stands now, or batch_not_found. */
export async function readOwnBatch(owner: BatchOwner, batchId: string, now = new Date()): Promise<Batch> {
  const batch = await getBatch(owner.workspaceId, batchId);
  if (!isOwnBatch(batch, owner.connectorId)) throw batchNotFound();
  return recordExpiry(batch, now);
}

export interface DrainJob {
  readonly workspaceId: string;
  readonly batchId: string;
  readonly jobId: string;
  /** When the commit sent it: a message whose commit never landed is recognised by its age. */
  readonly sentAt: string;
}

/**
 * Commits a batch: `open` → `committed`, and one drain message. The message goes first: if sending fails, the batch
 * is still open and the caller's retry can commit it. If the state change then fails, the message names a job the
 * batch never took, and the drain drops it.
 */
export async function commitBatch(
  owner: BatchOwner,
  batchId: string,
  sendDrainJob: (job: DrainJob) => Promise<void>,
  now = new Date(),
): Promise<{ jobId: string }> {
  const batch = await readOwnBatch(owner, batchId, now);
  if (batch.status !== 'open') throw notOpen(batch);
  const job: DrainJob = { workspaceId: owner.workspaceId, batchId, jobId: newId('job'), sentAt: now.toISOString() };
  await sendDrainJob(job);
  try {
    await tableClient().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.batch(owner.workspaceId, batchId),
        UpdateExpression: 'SET #status = :committed, jobId = :jobId, committedAt = :now',
        ConditionExpression: 'connectorId = :connector AND #status = :open AND createdAt > :cutoff',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: {
          ':committed': 'committed',
          ':jobId': job.jobId,
          ':now': now.toISOString(),
          ':connector': owner.connectorId,
          ':open': 'open',
          ':cutoff': expiryCutoff(now),
        },
      }),
    );
  } catch (error) {
    if (isConditionFailure(error)) throw notOpen(await readOwnBatch(owner, batchId, now));
    throw error;
  }
  return { jobId: job.jobId };
}

export interface StagedChunk {
  readonly sk: string;
  readonly entity: EntityKind;
  readonly count: number;
  readonly data: Uint8Array;
}

/** The next chunks after `cursor`, in staging order; a page holds few enough to keep the drain's memory flat. */
export async function readChunksAfter(batch: Pick<Batch, 'workspaceId' | 'batchId'>, cursor: string | undefined, limit: number) {
  const prefix = keys.batchChunkPrefix(batch.workspaceId, batch.batchId);
  const { Items } = await tableClient().send(
    new QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: cursor ? 'PK = :pk AND SK BETWEEN :after AND :end' : 'PK = :pk AND begins_with(SK, :prefix)',
      ExpressionAttributeValues: cursor
        ? { ':pk': prefix.PK, ':after': `${cursor}\u0000`, ':end': `${prefix.SKPrefix}\uffff` }
        : { ':pk': prefix.PK, ':prefix': prefix.SKPrefix },
      ConsistentRead: true,
      Limit: limit,
    }),
  );
  return (Items ?? []).map((item): StagedChunk => ({
    sk: item.SK as string,
    entity: item.entity as EntityKind,
    count: item.count as number,
    data: item.data as Uint8Array,
  }));
}

/** Another invocation is draining the batch and its lease has not run out. */
export class DrainLeaseHeld extends Error {
  constructor(batchId: string) {
    super(`another drain holds batch ${batchId}`);
    this.name = 'DrainLeaseHeld';
  }
}

/**
 * Takes the batch for one drain invocation: `committed` or `draining` → `draining`, if no live invocation holds it.
 * Only the holder may move the checkpoint, so two deliveries of one job never write out of order.
 */
export async function acquireDrainLease(batch: Batch, owner: string, leaseUntil: number, now: Date): Promise<Batch> {
  try {
    const { Attributes } = await tableClient().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.batch(batch.workspaceId, batch.batchId),
        UpdateExpression:
          'SET #status = :draining, leaseOwner = :owner, leaseUntil = :until, drainStartedAt = if_not_exists(drainStartedAt, :now), drainedCount = if_not_exists(drainedCount, :zero)',
        ConditionExpression:
          'jobId = :job AND #status IN (:committed, :draining) AND (attribute_not_exists(leaseUntil) OR leaseUntil < :nowMs OR leaseOwner = :owner)',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: {
          ':draining': 'draining',
          ':committed': 'committed',
          ':owner': owner,
          ':until': leaseUntil,
          ':now': now.toISOString(),
          ':nowMs': now.getTime(),
          ':zero': 0,
          ':job': batch.jobId,
        },
        ReturnValues: 'ALL_NEW',
      }),
    );
    return v.parse(BatchSchema, Attributes);
  } catch (error) {
    if (isConditionFailure(error)) throw new DrainLeaseHeld(batch.batchId);
    throw error;
  }
}

/** Moves the checkpoint past one applied chunk and renews the lease; fails if this invocation no longer holds it. */
export async function saveCheckpoint(
  batch: Batch,
  owner: string,
  cursor: string,
  drainedCount: number,
  leaseUntil: number,
): Promise<Batch> {
  await tableClient().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: keys.batch(batch.workspaceId, batch.batchId),
      UpdateExpression: 'SET drainCursor = :cursor, drainedCount = :count, leaseUntil = :until',
      ConditionExpression: 'leaseOwner = :owner AND #status = :draining',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: {
        ':cursor': cursor,
        ':count': drainedCount,
        ':until': leaseUntil,
        ':owner': owner,
        ':draining': 'draining',
      },
    }),
  );
  return { ...batch, drainCursor: cursor, drainedCount, leaseUntil };
}

/**
 * The bands job holds the same lease fields as the drain did, on a drained batch whose bands are not yet recomputed;
 * so two deliveries of it never recompute at once.
 */
export async function acquireBandsLease(batch: Batch, owner: string, leaseUntil: number, now: Date): Promise<Batch> {
  try {
    const { Attributes } = await tableClient().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.batch(batch.workspaceId, batch.batchId),
        UpdateExpression: 'SET leaseOwner = :owner, leaseUntil = :until',
        ConditionExpression:
          'jobId = :job AND #status = :drained AND attribute_not_exists(bandsRecomputedAt) AND (attribute_not_exists(leaseUntil) OR leaseUntil < :nowMs OR leaseOwner = :owner)',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: {
          ':owner': owner,
          ':until': leaseUntil,
          ':job': batch.jobId,
          ':drained': 'drained',
          ':nowMs': now.getTime(),
        },
        ReturnValues: 'ALL_NEW',
      }),
    );
    return v.parse(BatchSchema, Attributes);
  } catch (error) {
    if (isConditionFailure(error)) throw new DrainLeaseHeld(batch.batchId);
    throw error;
  }
}

/**
 * The bands job's checkpoints: `bandCursor` after each category it recomputes, then `recommendationCursor` after each
 * page of recommendations it stores.
 */
export async function saveBandsJobCursor(
  batch: Batch,
  owner: string,
  cursor: 'bandCursor' | 'recommendationCursor',
  value: string,
  leaseUntil: number,
): Promise<Batch> {
  await tableClient().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: keys.batch(batch.workspaceId, batch.batchId),
      UpdateExpression: 'SET #cursor = :value, leaseUntil = :until',
      ConditionExpression: 'leaseOwner = :owner',
      ExpressionAttributeNames: { '#cursor': cursor },
      ExpressionAttributeValues: { ':value': value, ':until': leaseUntil, ':owner': owner },
    }),
  );
  return { ...batch, [cursor]: value, leaseUntil };
}

export async function finishBands(batch: Batch, owner: string, now: Date): Promise<void> {
  await tableClient().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: keys.batch(batch.workspaceId, batch.batchId),
      UpdateExpression: 'SET bandsRecomputedAt = :now REMOVE leaseOwner, leaseUntil',
      ConditionExpression: 'leaseOwner = :owner',
      ExpressionAttributeValues: { ':now': now.toISOString(), ':owner': owner },
    }),
  );
}

export async function finishDrain(batch: Batch, owner: string, now: Date): Promise<void> {
  await tableClient().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: keys.batch(batch.workspaceId, batch.batchId),
      UpdateExpression: 'SET #status = :drained, drainedAt = :now REMOVE leaseOwner, leaseUntil',
      ConditionExpression: 'leaseOwner = :owner AND #status = :draining',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: { ':drained': 'drained', ':now': now.toISOString(), ':owner': owner, ':draining': 'draining' },
    }),
  );
}

/** Lets another invocation take over at once rather than after the lease runs out; a lease already lost is fine. */
export async function releaseDrainLease(batch: Batch, owner: string): Promise<void> {
  try {
    await tableClient().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.batch(batch.workspaceId, batch.batchId),
        UpdateExpression: 'REMOVE leaseOwner, leaseUntil',
        ConditionExpression: 'leaseOwner = :owner',
        ExpressionAttributeValues: { ':owner': owner },
      }),
    );
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
  }
}

/** `committed` / `draining` → `failed`, with the text a connector reads in the batch status. */
export async function failDrain(batch: Batch, error: string, now: Date): Promise<void> {
  try {
    await tableClient().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.batch(batch.workspaceId, batch.batchId),
        UpdateExpression: 'SET #status = :failed, #error = :error, failedAt = :now REMOVE leaseOwner, leaseUntil',
        ConditionExpression: 'jobId = :job AND #status IN (:committed, :draining)',
        ExpressionAttributeNames: { '#status': 'status', '#error': 'error' },
        ExpressionAttributeValues: {
          ':failed': 'failed',
          ':error': error,
          ':now': now.toISOString(),
          ':job': batch.jobId,
          ':committed': 'committed',
          ':draining': 'draining',
        },
      }),
    );
  } catch (caught) {
    if (!isConditionFailure(caught)) throw caught;
  }
}

/**
 * What one chunk touched, compressed like the chunk itself and keyed by it: a redelivered drain that applies the
 * chunk again writes the same items again instead of adding to a list.
 */
export async function recordTouched(
  batch: Pick<Batch, 'workspaceId' | 'batchId'>,
  chunkSk: string,
  touched: TouchedSet,
  expiresAt: number,
) {
  const entries = [
    ...[...touched.products].map((sku) => ['product', sku]),
    ...[...touched.customers].map((id) => ['customer', id]),
    ...[...touched.nodes].map((node) => ['node', node]),
  ];
  if (entries.length === 0) return;
  const pieces = packChunk(entries) ?? [];
  await Promise.all(
    pieces.map((piece, part) =>
      tableClient().send(
        new PutCommand({
          TableName: tableName(),
          Item: {
            ...keys.batchTouched(batch.workspaceId, batch.batchId, chunkSk, part),
            type: 'touched',
            count: piece.count,
            data: piece.data,
            expiresAt,
          },
        }),
      ),
    ),
  );
}

/** Every item of a batch partition under one sort-key prefix, page by page, strongly consistent. */
function readBatchItems(partition: { PK: string; SKPrefix: string }): Promise<Record<string, unknown>[]> {
  return queryAll({
    TableName: tableName(),
    KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
    ExpressionAttributeValues: { ':pk': partition.PK, ':prefix': partition.SKPrefix },
    ConsistentRead: true,
  });
}

/** Every staged chunk item of a batch, in staging order: for inspecting a batch, never on the drain's path. */
export function readStagedChunks(batch: Pick<Batch, 'workspaceId' | 'batchId'>): Promise<Record<string, unknown>[]> {
  return readBatchItems(keys.batchChunkPrefix(batch.workspaceId, batch.batchId));
}

/** Every product, customer and pricing node a drained batch touched, for the recomputation that follows a drain. */
export async function readTouched(
  batch: Pick<Batch, 'workspaceId' | 'batchId'>,
): Promise<{ products: Set<string>; customers: Set<string>; nodes: Set<string> }> {
  const touched = { products: new Set<string>(), customers: new Set<string>(), nodes: new Set<string>() };
  for (const item of await readBatchItems(keys.batchTouchedPrefix(batch.workspaceId, batch.batchId))) {
    for (const [kind, value] of decompressRecords(item.data as Uint8Array) as Array<[string, string]>) {
      if (kind === 'product') touched.products.add(value);
      else if (kind === 'customer') touched.customers.add(value);
      else touched.nodes.add(value);
    }
  }
  return touched;
}
