// Committed batches that wait with no drain message in flight: seen by the worker as their messages arrive, found by the sweeper and put back on the drain queue.
import { logger } from '#platform/observability.ts';
import { deleteItem, getItem, queryPage, updateItem } from '#platform/table/commands.ts';
import { table } from '#platform/table/definition.ts';
import { lookupKeys } from '#platform/table/index-keys.ts';
import { keys } from '#platform/table/keys.ts';
import { sendDrainMessage } from './drain-queue.ts';
import { queuedKey } from './drain-turn.ts';
import { type Batch, BatchSchema } from './schema.ts';
import * as v from 'valibot';

const [lookupIndex] = table.indexes;

/**
 * A committed or draining batch no drain message was seen of for this long has none in flight, and is put back on
 * the queue. Longer than any wait a message of a live batch has between two receipts: a failed attempt's redelivery
 * (the queue's 12-minute visibility timeout) plus an invocation (2 minutes); a batch waiting its turn is seen every
 * 5 s, a draining one at each invocation's lease.
 */
export const REQUEUE_AFTER_MS = 15 * 60_000;

/** A waiting batch's look at its turn records itself at most this often: a write a minute, not one each 5 s. */
const SEEN_EVERY_MS = 60_000;

/** Places read per sweep, oldest commit first; more are read at the next sweep. */
const SWEEP_PAGE = 100;

function stillToEnd(batch: Batch | undefined): batch is Batch {
  return batch?.status === 'committed' || batch?.status === 'draining';
}

/** Records that a message of the batch is in hand, unless it was recorded within the last minute. */
export async function noteDrainMessage(batch: Batch, now: Date): Promise<void> {
  if (batch.drainSeenAt !== undefined && now.getTime() - Date.parse(batch.drainSeenAt) < SEEN_EVERY_MS) return;
  // Refused once the batch has ended or taken another job: nothing left to watch.
  await updateItem({
    Key: keys.batch(batch.workspaceId, batch.batchId),
    UpdateExpression: 'SET drainSeenAt = :now',
    ConditionExpression: 'jobId = :job AND #status IN (:committed, :draining)',
    ExpressionAttributeNames: { '#status': 'status' },
    ExpressionAttributeValues: { ':now': now.toISOString(), ':job': batch.jobId, ':committed': 'committed', ':draining': 'draining' },
  });
}

export type Requeued = 'requeued' | 'ended';

/**
 * Puts a committed or draining batch's drain job back on the queue, as its commit sent it, and records that it did.
 * A message that arrives late besides it changes nothing: two messages of one batch wait their turn, or meet its
 * lease, or find it drained, and the drain resumes from its checkpoint whichever comes first. The attempts' count
 * goes on from where it was, so a batch whose every attempt fails is still given up.
 */
export async function requeueBatch(batch: Batch, now: Date): Promise<Requeued> {
  if (!stillToEnd(batch) || batch.jobId === undefined) return 'ended';
  const recorded = await updateItem({
    Key: keys.batch(batch.workspaceId, batch.batchId),
    UpdateExpression: 'SET drainSeenAt = :now',
    ConditionExpression: 'jobId = :job AND #status IN (:committed, :draining)',
    ExpressionAttributeNames: { '#status': 'status' },
    ExpressionAttributeValues: { ':now': now.toISOString(), ':job': batch.jobId, ':committed': 'committed', ':draining': 'draining' },
  });
  if (recorded.refused) return 'ended';
  await sendDrainMessage({
    workspaceId: batch.workspaceId,
    batchId: batch.batchId,
    jobId: batch.jobId,
    sentAt: now.toISOString(),
    phase: 'chunks',
    continuation: batch.drainAttempts?.continuation ?? 0,
  });
  logger.warn('drain message put back on the queue', { workspaceId: batch.workspaceId, batchId: batch.batchId, jobId: batch.jobId });
  return 'requeued';
}

export interface DrainWatch {
  /** The batches put back on the queue, by workspace. */
  readonly requeued: ReadonlyMap<string, number>;
  /** Seconds since the commit of the oldest batch of any workspace still to drain; 0 when none is. */
  readonly oldestUndrainedSeconds: number;
}

/**
 * The sweep: every committed batch not yet drained, oldest commit first (one Query of the lookup index, and a
 * strongly consistent read of each batch); those unseen for `REQUEUE_AFTER_MS` are put back on the queue. A place
 * whose batch has ended (its drain's end stopped before clearing it) is cleared on the way.
 */
export async function requeueLostDrains(nowMs: number): Promise<DrainWatch> {
  const { Items = [] } = await queryPage({
    IndexName: lookupIndex.name,
    KeyConditionExpression: '#pk = :pk',
    ExpressionAttributeNames: { '#pk': lookupIndex.partitionKey },
    ExpressionAttributeValues: { ':pk': lookupKeys.undrainedBatches().partitionKey },
    Limit: SWEEP_PAGE,
  });
  const requeued = new Map<string, number>();
  let oldestMs: number | undefined;
  for (const item of Items) {
    const place = lookupKeys.undrainedBatchOf(item[lookupIndex.sortKey]);
    const stored = await getItem({ Key: keys.batch(place.workspaceId, place.batchId), ConsistentRead: true });
    const batch = stored ? v.parse(BatchSchema, stored) : undefined;
    if (!stillToEnd(batch)) {
      await deleteItem({ Key: queuedKey(place) });
      continue;
    }
    oldestMs ??= Date.parse(place.committedAt);
    const seenMs = Date.parse(batch.drainSeenAt ?? place.committedAt);
    if (nowMs - seenMs < REQUEUE_AFTER_MS) continue;
    if ((await requeueBatch(batch, new Date(nowMs))) === 'requeued')
      requeued.set(batch.workspaceId, (requeued.get(batch.workspaceId) ?? 0) + 1);
  }
  return { requeued, oldestUndrainedSeconds: oldestMs === undefined ? 0 : Math.max(0, (nowMs - oldestMs) / 1000) };
}
