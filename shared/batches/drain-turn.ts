// A workspace's drain order: its batches drain one at a time, in the order they were committed, so that a batch committed later is never overwritten by one committed before it.
import { logger } from '#platform/observability.ts';
import { deleteItem, getItem, queryPage, type TransactEntry, updateItem } from '#platform/table/commands.ts';
import { lookupKeys } from '#platform/table/index-keys.ts';
import { keys } from '#platform/table/keys.ts';
import type { Batch } from './schema.ts';

export interface DrainTurnTaken {
  readonly taken: true;
}

/** Not this batch's turn yet: `waitingFor` is the batch whose end it waits for, committed before it or draining now. */
export interface DrainTurnBusy {
  readonly taken: false;
  readonly waitingFor: string;
}

export type QueuedBatch = Pick<Batch, 'workspaceId' | 'batchId'> & { readonly committedAt: string };

/** Entries read at a time from the queue; ended batches' entries found on the way are deleted. */
const QUEUE_PAGE = 5;

/** A batch is still to end while it is committed or draining; a drained or failed one, or none, has ended. */
async function stillToEnd(workspaceId: string, batchId: string): Promise<boolean> {
  const item = await getItem({ Key: keys.batch(workspaceId, batchId), ConsistentRead: true });
  return item?.status === 'committed' || item?.status === 'draining';
}

/** A batch as the drain order keys it: by its commit, or for a batch committed before it kept commit times, its opening. */
function queuedOf(batch: Batch): QueuedBatch {
  return { ...batch, committedAt: batch.committedAt ?? batch.createdAt };
}

/** The batch that holds the workspace's drain turn, if any. */
async function turnHolder(workspaceId: string): Promise<string | undefined> {
  const turn = await getItem({ Key: keys.drainTurn(workspaceId), ConsistentRead: true });
  return turn?.holder === undefined ? undefined : String(turn.holder);
}

export function queuedKey(batch: QueuedBatch) {
  return keys.drainQueued(batch.workspaceId, batch.committedAt, batch.batchId);
}

/** The commit's own entry in the workspace's drain order, written in the commit's transaction. */
export function queuedEntry(batch: QueuedBatch): TransactEntry {
  return {
    Put: {
      Item: {
        ...queuedKey(batch),
        type: 'drainQueued',
        batchId: batch.batchId,
        committedAt: batch.committedAt,
        ...lookupKeys.undrainedBatch(batch.committedAt, batch.workspaceId, batch.batchId),
      },
    },
  };
}

/**
 * The first batch committed before this one that has not ended, if any. An entry whose batch has ended (its drain's
 * end stopped before deleting it) is deleted on the way, unless `readOnly`, so that a fault there never holds up the
 * batches after it.
 */
async function earlierBatchToEnd(batch: QueuedBatch, readOnly = false): Promise<string | undefined> {
  const range = keys.drainQueuedBefore(batch.workspaceId, queuedKey(batch).SK);
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const page = await queryPage({
      KeyConditionExpression: 'PK = :pk AND SK BETWEEN :from AND :below',
      ExpressionAttributeValues: { ':pk': range.PK, ':from': range.SKFrom, ':below': range.SKBelow },
      ConsistentRead: true,
      Limit: QUEUE_PAGE,
      ExclusiveStartKey,
    });
    for (const item of page.Items ?? []) {
      const batchId = String(item.batchId);
      if (batchId === batch.batchId) continue;
      if (await stillToEnd(batch.workspaceId, batchId)) return batchId;
      if (!readOnly) await deleteItem({ Key: { PK: String(item.PK), SK: String(item.SK) } });
    }
    ExclusiveStartKey = page.LastEvaluatedKey;
  } while (ExclusiveStartKey);
  return undefined;
}

/** Holds the workspace's turn for this batch: free, already its own, or held by a batch that has since ended. */
async function holdTurn(batch: QueuedBatch, now: Date): Promise<DrainTurnTaken | DrainTurnBusy> {
  const take = (condition: string, values: Record<string, unknown>) =>
    updateItem({
      Key: keys.drainTurn(batch.workspaceId),
      UpdateExpression: 'SET holder = :batch, heldSince = :now',
      ConditionExpression: condition,
      ExpressionAttributeValues: { ':batch': batch.batchId, ':now': now.toISOString(), ...values },
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
    });
  const first = await take('attribute_not_exists(holder) OR holder = :batch', {});
  if (!first.refused) return { taken: true };
  const holder = String(first.stored?.holder);
  if (await stillToEnd(batch.workspaceId, holder)) return { taken: false, waitingFor: holder };
  // The holder ended without letting go (its drain stopped between its end and the release): the turn passes on.
  const takeover = await take('holder = :previous', { ':previous': holder });
  return takeover.refused ? { taken: false, waitingFor: String(takeover.stored?.holder) } : { taken: true };
}

/**
 * Takes the workspace's drain turn for a batch before its drain writes anything: every batch committed before it must
 * have ended, and no other batch may be draining. A batch committed before the drain order existed has no entry, and
 * waits in the same way for those committed before it. A batch that holds the turn keeps it until it ends, whatever is
 * queued before it: a batch committed moments earlier whose commit landed after the turn was taken waits for it, never
 * the other way round, or each would wait for the other.
 */
export async function takeDrainTurn(batch: Batch, now: Date): Promise<DrainTurnTaken | DrainTurnBusy> {
  const queued = queuedOf(batch);
  const earlier = await earlierBatchToEnd(queued);
  if (earlier && (await turnHolder(batch.workspaceId)) !== batch.batchId) return { taken: false, waitingFor: earlier };
  return holdTurn(queued, now);
}

/**
 * The batch a committed or draining batch waits for, judged as the drain judges it but writing nothing: none while it
 * holds the turn, else the first batch committed before it that has not ended, or else the batch that holds the turn.
 */
export async function drainTurnBlocker(batch: Batch): Promise<string | undefined> {
  const holder = await turnHolder(batch.workspaceId);
  if (holder === batch.batchId) return undefined;
  const earlier = await earlierBatchToEnd(queuedOf(batch), true);
  if (earlier) return earlier;
  return holder !== undefined && (await stillToEnd(batch.workspaceId, holder)) ? holder : undefined;
}

/**
 * Once a batch has ended, drained or failed: its entry goes and its turn is let go, so that the next batch drains. A
 * fault here is logged, not thrown: the next batch's drain finds the entry and the turn of an ended batch, and clears them.
 */
export async function endDrainTurn(batch: Batch): Promise<void> {
  try {
    await Promise.all([
      deleteItem({ Key: queuedKey(queuedOf(batch)) }),
      updateItem({
        Key: keys.drainTurn(batch.workspaceId),
        UpdateExpression: 'REMOVE holder, heldSince',
        ConditionExpression: 'holder = :batch',
        ExpressionAttributeValues: { ':batch': batch.batchId },
      }),
    ]);
  } catch (error) {
    logger.warn('drain turn left for the next drain to clear', { batchId: batch.batchId, error: error as Error });
  }
}
