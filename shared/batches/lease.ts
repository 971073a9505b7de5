// A batch's job lease and checkpoints: one invocation at a time drains a batch or recomputes its bands, and resumes where the last stopped.
import * as v from 'valibot';
import { isConditionFailure } from '#platform/table/client.ts';
import { updateItem } from '#platform/table/commands.ts';
import { keys } from '#platform/table/keys.ts';
import { newEvent, type WebhookEvent } from '#shared/webhooks/events.ts';
import { updateWithEvents } from '#shared/webhooks/outbox.ts';
import { type Batch, BatchSchema, type DrainAttempts } from './schema.ts';

/** Another invocation of the batch's job holds it, and its lease has not run out. */
export class BatchLeaseHeld extends Error {
  constructor(batchId: string) {
    super(`another invocation holds batch ${batchId}`);
    this.name = 'BatchLeaseHeld';
  }
}

/**
 * What each phase of a job may lease: the drain a committed batch (or one a drain left `draining`), moving it to
 * `draining`; the bands job a drained batch whose bands are not yet recomputed. Everything else is the same lease.
 */
const leaseTerms = {
  chunks: {
    set: ', #status = :draining, drainStartedAt = if_not_exists(drainStartedAt, :now), drainSeenAt = :now, drainedCount = if_not_exists(drainedCount, :zero)',
    condition: '#status IN (:committed, :draining)',
    values: (now: Date) => ({ ':draining': 'draining', ':committed': 'committed', ':now': now.toISOString(), ':zero': 0 }),
  },
  bands: {
    set: '',
    condition: '#status = :drained AND attribute_not_exists(bandsRecomputedAt)',
    values: () => ({ ':drained': 'drained' }),
  },
} as const;

export type JobPhase = keyof typeof leaseTerms;

/**
 * Takes the batch for one invocation of its job's phase, if no live invocation holds it. Only the holder may move the
 * phase's checkpoint, so two deliveries of one job never write out of order, nor recompute at once. A drain attempt
 * records itself (`attempts`) in the same write, so that counting attempts costs no request of its own.
 */
export async function leaseBatch(
  batch: Batch,
  phase: JobPhase,
  owner: string,
  leaseUntil: number,
  now: Date,
  attempts?: DrainAttempts,
): Promise<Batch> {
  const terms = leaseTerms[phase];
  const leased = await updateItem({
    Key: keys.batch(batch.workspaceId, batch.batchId),
    UpdateExpression: `SET leaseOwner = :owner, leaseUntil = :until, progressAt = :progressAt${terms.set}${attempts ? ', drainAttempts = :attempts' : ''}`,
    ConditionExpression: `jobId = :job AND ${terms.condition} AND (attribute_not_exists(leaseUntil) OR leaseUntil < :nowMs OR leaseOwner = :owner)`,
    ExpressionAttributeNames: { '#status': 'status' },
    ExpressionAttributeValues: {
      ':owner': owner,
      ':until': leaseUntil,
      ':job': batch.jobId,
      ':nowMs': now.getTime(),
      ':progressAt': now.toISOString(),
      ...terms.values(now),
      ...(attempts ? { ':attempts': attempts } : {}),
    },
    ReturnValues: 'ALL_NEW',
  });
  if (leased.refused) throw new BatchLeaseHeld(batch.batchId);
  return v.parse(BatchSchema, leased.attributes);
}

/** Moves the checkpoint past one applied chunk and renews the lease; fails if this invocation no longer holds it. */
export async function saveCheckpoint(
  batch: Batch,
  owner: string,
  cursor: string,
  counts: { readonly drainedCount: number; readonly warnedProducts: number },
  leaseUntil: number,
  now: Date,
): Promise<Batch> {
  const { drainedCount, warnedProducts } = counts;
  const saved = await updateItem({
    Key: keys.batch(batch.workspaceId, batch.batchId),
    UpdateExpression:
      'SET drainCursor = :cursor, drainedCount = :count, warnedProducts = :warned, leaseUntil = :until, progressAt = :progressAt',
    ConditionExpression: 'leaseOwner = :owner AND #status = :draining',
    ExpressionAttributeNames: { '#status': 'status' },
    ExpressionAttributeValues: {
      ':cursor': cursor,
      ':count': drainedCount,
      ':warned': warnedProducts,
      ':until': leaseUntil,
      ':progressAt': now.toISOString(),
      ':owner': owner,
      ':draining': 'draining',
    },
  });
  if (saved.refused) throw saved.error;
  return { ...batch, drainCursor: cursor, drainedCount, warnedProducts, leaseUntil };
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
  now: Date,
): Promise<Batch> {
  const saved = await updateItem({
    Key: keys.batch(batch.workspaceId, batch.batchId),
    UpdateExpression: 'SET #cursor = :value, leaseUntil = :until, progressAt = :progressAt',
    ConditionExpression: 'leaseOwner = :owner',
    ExpressionAttributeNames: { '#cursor': cursor },
    ExpressionAttributeValues: { ':value': value, ':until': leaseUntil, ':progressAt': now.toISOString(), ':owner': owner },
  });
  if (saved.refused) throw saved.error;
  return { ...batch, [cursor]: value, leaseUntil };
}

/**
 * Records that the job's bands are written and stamped: price calls answer from them from now on. A job run again
 * keeps the first moment.
 */
export async function markPricesFresh(batch: Batch, owner: string, now: Date): Promise<Batch> {
  const saved = await updateItem({
    Key: keys.batch(batch.workspaceId, batch.batchId),
    UpdateExpression: 'SET pricesFreshAt = if_not_exists(pricesFreshAt, :now)',
    ConditionExpression: 'leaseOwner = :owner',
    ExpressionAttributeValues: { ':now': now.toISOString(), ':owner': owner },
    ReturnValues: 'ALL_NEW',
  });
  if (saved.refused) throw saved.error;
  return v.parse(BatchSchema, saved.attributes);
}

/** Ends the bands job; `recommendations.updated` is recorded with it, so it reports only a job that finished. */
export async function finishBands(batch: Batch, owner: string, now: Date, events: readonly WebhookEvent[] = []): Promise<void> {
  await updateWithEvents(
    {
      Key: keys.batch(batch.workspaceId, batch.batchId),
      UpdateExpression: 'SET bandsRecomputedAt = :now REMOVE leaseOwner, leaseUntil',
      ConditionExpression: 'leaseOwner = :owner',
      ExpressionAttributeValues: { ':now': now.toISOString(), ':owner': owner },
    },
    events,
  );
}

export async function finishDrain(batch: Batch, owner: string, now: Date): Promise<void> {
  const drained = newEvent(
    'batch.drained',
    batch.workspaceId,
    {
      batchId: batch.batchId,
      connectorId: batch.connectorId,
      recordCount: batch.recordCount,
      drainedCount: batch.drainedCount ?? 0,
      warnedProducts: batch.warnedProducts ?? 0,
      drainedAt: now.toISOString(),
    },
    now,
  );
  await updateWithEvents(
    {
      Key: keys.batch(batch.workspaceId, batch.batchId),
      UpdateExpression: 'SET #status = :drained, drainedAt = :now REMOVE leaseOwner, leaseUntil',
      ConditionExpression: 'leaseOwner = :owner AND #status = :draining',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: { ':drained': 'drained', ':now': now.toISOString(), ':owner': owner, ':draining': 'draining' },
    },
    [drained],
  );
}

/** Lets another invocation take over at once rather than after the lease runs out; a lease already lost is fine. */
export async function releaseBatchLease(batch: Batch, owner: string): Promise<void> {
  await updateItem({
    Key: keys.batch(batch.workspaceId, batch.batchId),
    UpdateExpression: 'REMOVE leaseOwner, leaseUntil',
    ConditionExpression: 'leaseOwner = :owner',
    ExpressionAttributeValues: { ':owner': owner },
  });
}

/** `committed` / `draining` → `failed`, with the text a connector reads in the batch status. */
export async function failDrain(batch: Batch, error: string, now: Date): Promise<void> {
  const failed = newEvent(
    'batch.failed',
    batch.workspaceId,
    { batchId: batch.batchId, connectorId: batch.connectorId, error, failedAt: now.toISOString() },
    now,
  );
  try {
    await updateWithEvents(
      {
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
      },
      [failed],
    );
  } catch (caught) {
    // updateWithEvents throws its update's refusal, as one UpdateItem would: a batch no longer failing is no fault.
    if (!isConditionFailure(caught)) throw caught;
  }
}
