// Staging a call's records into an open batch: its place in the batch, the counts and its chunk items, all or nothing.
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import * as v from 'valibot';
import { ApiError } from '#platform/errors.ts';
import type { EntityKind } from '#shared/records/schema.ts';
import { isConditionFailure } from '#platform/table/client.ts';
import { transactWrite, updateItem } from '#platform/table/commands.ts';
import { keys } from '#platform/table/keys.ts';
import { CHUNK_SHARDS, MAX_CALL_CHUNK_BYTES, type ChunkPiece, packChunk } from './chunks.ts';
import { type BatchOwner, getBatch } from './repository.ts';
import { admitCall, type BatchCaps, batchNotFound, chunkExpiresAt, expiryCutoff, kindsRankedAbove, stagingRefusal } from './rules.ts';
import { type Batch, BatchSchema } from './schema.ts';

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
/** A transaction writes at most 100 items: the batch item and 99 pieces. */
const MAX_CALL_PIECES = 99;

/** The lines a record brings: a quote's or an order's, none for a product or a customer. */
function linesOf(record: unknown): number {
  const lines = (record as { lines?: unknown } | null)?.lines;
  return Array.isArray(lines) ? lines.length : 0;
}

function backoff(attempt: number): Promise<void> {
  // Full jitter: concurrent callers that collided spread out instead of colliding again in step.
  const ceiling = Math.min(1000, 20 * 2 ** attempt);
  return new Promise((resolve) => setTimeout(resolve, Math.random() * ceiling));
}

export interface StagingOutcome {
  readonly staged: number;
  readonly skippedOverCap: number;
}

type StagingCondition = ReturnType<typeof stagingCondition>;

/** The call's place among the batch's chunks, taken by a cheap atomic increment under the staging condition. */
async function reserveSequence(owner: BatchOwner, batchId: string, entity: EntityKind, condition: StagingCondition, now: Date) {
  const reserved = await updateItem({
    Key: keys.batch(owner.workspaceId, batchId),
    UpdateExpression: 'ADD chunkSeq :one',
    ConditionExpression: condition.expression,
    ExpressionAttributeNames: condition.names,
    ExpressionAttributeValues: { ...condition.values, ':one': 1 },
    ReturnValues: 'ALL_NEW',
  });
  if (reserved.refused) throw await refusalFor(owner, batchId, entity, now);
  return v.parse(BatchSchema, reserved.attributes);
}

/** What one write of the call comes to: staged, or to be tried again after a conflict or after the batch changed. */
type StagingWrite = StagingOutcome | 'conflict' | 'changed';

/** The call's pieces, refused whole when they are too large for one transaction. */
function piecesOf(records: readonly unknown[]): ChunkPiece[] {
  const pieces = packChunk(records, linesOf);
  const total = pieces?.reduce((sum, piece) => sum + piece.data.byteLength, 0) ?? Infinity;
  if (!pieces || total > MAX_CALL_CHUNK_BYTES || pieces.length > MAX_CALL_PIECES) {
    throw new ApiError('invalid_request', 'The records of this call are too large to stage together; send them in smaller calls.', {
      param: 'records',
    });
  }
  return pieces;
}

interface StagingCall {
  readonly owner: BatchOwner;
  readonly batchId: string;
  readonly entity: EntityKind;
  readonly records: readonly unknown[];
  readonly caps: BatchCaps;
  readonly condition: StagingCondition;
  readonly reserved: Batch;
}

/** A call whose records are all past the caps only counts them skipped. */
async function countSkipped(call: StagingCall, skipped: number): Promise<StagingWrite> {
  const { condition } = call;
  const counted = await updateItem({
    Key: keys.batch(call.owner.workspaceId, call.batchId),
    UpdateExpression: 'ADD skippedOverCap :skipped',
    ConditionExpression: condition.expression,
    ExpressionAttributeNames: condition.names,
    ExpressionAttributeValues: { ...condition.values, ':skipped': skipped },
  });
  return counted.refused ? 'changed' : { staged: 0, skippedOverCap: skipped };
}

/** One transaction: the counts added to the batch, and the chunk's pieces written, so a chunk exists exactly when counted. */
async function writeCall(call: StagingCall, staged: { recordCount: number; lineCount: number }): Promise<StagingWrite> {
  const { owner, batchId, entity, caps, condition, reserved } = call;
  const { accepted, skipped, lines } = admitCall(staged, caps, call.records.map(linesOf));
  if (accepted === 0) return countSkipped(call, skipped);
  const pieces = piecesOf(call.records.slice(0, accepted));
  const expiresAt = chunkExpiresAt(reserved);
  try {
    await transactWrite([
      {
        Update: {
          Key: keys.batch(owner.workspaceId, batchId),
          UpdateExpression: 'ADD recordCount :accepted, lineCount :lines, skippedOverCap :skipped, entities :entity',
          // The caps are checked against the counts as they are at write time, so parallel calls never overshoot them.
          ConditionExpression: `${condition.expression} AND recordCount <= :room AND (attribute_not_exists(lineCount) OR lineCount <= :lineRoom)`,
          ExpressionAttributeNames: condition.names,
          ExpressionAttributeValues: {
            ...condition.values,
            ':accepted': accepted,
            ':skipped': skipped,
            ':entity': new Set([entity]),
            ':room': caps.records - accepted,
            ':lines': lines,
            ':lineRoom': caps.lines - lines,
          },
        },
      },
      ...pieces.map((piece, part) => ({
        Put: {
          Item: {
            ...keys.batchChunk(owner.workspaceId, batchId, reserved.chunkSeq % CHUNK_SHARDS, reserved.chunkSeq, part),
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
    ]);
    return { staged: accepted, skippedOverCap: skipped };
  } catch (error) {
    if (!(error instanceof TransactionCanceledException || isConditionFailure(error))) throw error;
    const reasons = error instanceof TransactionCanceledException ? (error.CancellationReasons ?? []) : [];
    return reasons.some((reason) => reason.Code === 'TransactionConflict') ? 'conflict' : 'changed';
  }
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
  caps: BatchCaps,
  now = new Date(),
): Promise<StagingOutcome> {
  const condition = stagingCondition(entity, owner.connectorId, now);
  const reserved = await reserveSequence(owner, batchId, entity, condition, now);
  const call: StagingCall = { owner, batchId, entity, records, caps, condition, reserved };
  let staged = { recordCount: reserved.recordCount, lineCount: reserved.lineCount };
  for (let attempt = 0; attempt < MAX_STAGING_ATTEMPTS; attempt++) {
    const written = await writeCall(call, staged);
    if (written === 'conflict') {
      await backoff(attempt);
      continue;
    }
    if (written !== 'changed') return written;
    // The batch changed under the call: refused now, or more records than seen arrived and the caps moved.
    const current = await getBatch(owner.workspaceId, batchId);
    const refusal = stagingRefusal(current, owner.connectorId, entity, now);
    if (refusal) throw refusal;
    if (!current) throw batchNotFound();
    staged = { recordCount: current.recordCount, lineCount: current.lineCount };
  }
  throw new Error(`staging into batch ${batchId} did not settle after ${MAX_STAGING_ATTEMPTS} attempts`);
}
