// Cancelling an open batch: `failed` with the cancelled error, in one conditional write, and its staged records discarded.
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { isConditionFailure } from '#platform/table/client.ts';
import { pause } from '#platform/table/bulk.ts';
import { deleteItems } from '#platform/table/bulk.ts';
import { keys } from '#platform/table/keys.ts';
import { queryAll } from '#platform/table/query.ts';
import { newEvent } from '#shared/webhooks/events.ts';
import { updateWithEvents } from '#shared/webhooks/outbox.ts';
import { chunkPartitions } from './chunk-items.ts';
import { type BatchOwner, readOwnBatch } from './repository.ts';
import { CANCELLED_ERROR, expiryCutoff, notCancellable } from './rules.ts';
import type { Batch } from './schema.ts';

/**
 * The batch's staged chunks, on every partition they may be on, deleted. Nothing can stage into a batch once it is no
 * longer open (every staging write is conditional on `open`), so what this reads is all there will ever be; a cancel
 * that dies before it ends leaves the rest to the chunks' TTL, and a repeated cancel deletes them.
 */
async function discardStaged(owner: BatchOwner, batchId: string): Promise<void> {
  const staged = await Promise.all(
    chunkPartitions({ workspaceId: owner.workspaceId, batchId }).map((prefix) =>
      queryAll({
        KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
        ExpressionAttributeValues: { ':pk': prefix.PK, ':prefix': prefix.SKPrefix },
        ProjectionExpression: 'PK, SK',
        ConsistentRead: true,
      }),
    ),
  );
  await deleteItems(staged.flat().map((item) => ({ PK: String(item.PK), SK: String(item.SK) })));
}

/** A staging call's transaction on the batch at the same moment cancels the cancel's; it is tried again, as staging is. */
const MAX_CANCEL_ATTEMPTS = 6;

function isConflict(error: unknown): boolean {
  return (
    error instanceof TransactionCanceledException &&
    (error.CancellationReasons ?? []).some((reason) => reason.Code === 'TransactionConflict')
  );
}

async function markCancelled(...write: Parameters<typeof updateWithEvents>): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await updateWithEvents(...write);
    } catch (error) {
      if (!isConflict(error) || attempt >= MAX_CANCEL_ATTEMPTS) throw error;
      await pause(attempt);
    }
  }
}

/**
 * Cancels the caller's open batch: one conditional write moves it from `open` to `failed` with the cancelled error
 * and `cancelledAt`, with its `batch.failed` event. A commit is the same kind of write on the same condition, so of a
 * cancel and a commit that race exactly one lands: the batch is committed or cancelled, never both, and a drain only
 * ever takes a committed batch. Cancelling a cancelled batch answers the same; any other batch that is not open is
 * refused (409), an unknown or another connector's is 404.
 */
export async function cancelBatch(owner: BatchOwner, batchId: string, now = new Date()): Promise<Batch> {
  const at = now.toISOString();
  const failed = newEvent(
    'batch.failed',
    owner.workspaceId,
    { batchId, connectorId: owner.connectorId, error: CANCELLED_ERROR, failedAt: at },
    now,
  );
  try {
    await markCancelled(
      {
        Key: keys.batch(owner.workspaceId, batchId),
        UpdateExpression: 'SET #status = :failed, #error = :error, failedAt = :now, cancelledAt = :now',
        ConditionExpression: 'connectorId = :connector AND #status = :open AND createdAt > :cutoff',
        ExpressionAttributeNames: { '#status': 'status', '#error': 'error' },
        ExpressionAttributeValues: {
          ':failed': 'failed',
          ':error': CANCELLED_ERROR,
          ':now': at,
          ':connector': owner.connectorId,
          ':open': 'open',
          ':cutoff': expiryCutoff(now),
        },
      },
      [failed],
    );
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
    // Unknown, another connector's, past its life, or no longer open: read to say which; a cancelled one is done.
    const batch = await readOwnBatch(owner, batchId, now);
    if (batch.cancelledAt === undefined) throw notCancellable(batch);
  }
  await discardStaged(owner, batchId);
  return readOwnBatch(owner, batchId, now);
}
