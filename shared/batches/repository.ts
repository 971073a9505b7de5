// Batch items: open, read, commit and status; an open batch past its life is recorded as failed.
import * as v from 'valibot';
import { newBatchId, newId } from '#platform/ids.ts';
import { isConditionFailure } from '#platform/table/client.ts';
import { getItem, putItem } from '#platform/table/commands.ts';
import { keys } from '#platform/table/keys.ts';
import { listingKeys } from '#platform/table/index-keys.ts';
import { newEvent } from '#shared/webhooks/events.ts';
import { updateWithEvents } from '#shared/webhooks/outbox.ts';
import { queuedEntry } from './drain-turn.ts';
import { batchNotFound, EXPIRED_ERROR, expired, expiryCutoff, isOwnBatch, notOpen } from './rules.ts';
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
  const written = await putItem({
    Item: {
      ...keys.batch(batch.workspaceId, batch.batchId),
      ...listingKeys.batch(batch.workspaceId, batch.connectorId, batch.createdAt, batch.batchId),
      type: 'batch',
      ...item,
    },
    // A v4 UUID does not collide in practice; the condition makes sure a collision could never overwrite a batch.
    ConditionExpression: 'attribute_not_exists(PK)',
  });
  if (written.refused) throw written.error;
  return batch;
}

export async function getBatch(workspaceId: string, batchId: string): Promise<Batch | undefined> {
  const item = await getItem({ Key: keys.batch(workspaceId, batchId), ConsistentRead: true });
  return item ? v.parse(BatchSchema, item) : undefined;
}

/** A batch past its open life is written as failed the first time anyone looks; until then it only reads as failed. */
async function recordExpiry(batch: Batch, now: Date): Promise<Batch> {
  const current = expired(batch, now);
  if (current === batch) return batch;
  const failedAt = current.failedAt ?? now.toISOString();
  const failed = newEvent(
    'batch.failed',
    batch.workspaceId,
    { batchId: batch.batchId, connectorId: batch.connectorId, error: EXPIRED_ERROR, failedAt },
    now,
  );
  try {
    await updateWithEvents(
      {
        Key: keys.batch(batch.workspaceId, batch.batchId),
        UpdateExpression: 'SET #status = :failed, #error = :error, failedAt = :failedAt',
        ConditionExpression: '#status = :open AND createdAt <= :cutoff',
        ExpressionAttributeNames: { '#status': 'status', '#error': 'error' },
        ExpressionAttributeValues: {
          ':failed': 'failed',
          ':error': EXPIRED_ERROR,
          ':failedAt': failedAt,
          ':open': 'open',
          ':cutoff': expiryCutoff(now),
        },
      },
      [failed],
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
  const committed = newEvent(
    'batch.committed',
    owner.workspaceId,
    { batchId, connectorId: owner.connectorId, jobId: job.jobId, recordCount: batch.recordCount, committedAt: now.toISOString() },
    now,
  );
  try {
    await updateWithEvents(
      {
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
      },
      [committed],
      // The batch takes its place in the workspace's drain order with its commit, never without it.
      [queuedEntry({ workspaceId: owner.workspaceId, batchId, committedAt: now.toISOString() })],
    );
  } catch (error) {
    if (isConditionFailure(error)) throw notOpen(await readOwnBatch(owner, batchId, now));
    throw error;
  }
  return { jobId: job.jobId };
}
