// An approval's tasks past its first transaction: kept in one durable item until written, finished by the approval's request or by the workspace's next claim.
import * as v from 'valibot';
import { logger } from '#platform/observability.ts';
import { getItems } from '#platform/table/bulk.ts';
import { deleteItem, queryPage, type TransactEntry, transactWrite, updateItem } from '#platform/table/commands.ts';
import { keys } from '#platform/table/keys.ts';
import { type WebhookEvent, WebhookEventSchema } from '#shared/webhooks/events.ts';
import { handOn, outboxEntry } from '#shared/webhooks/outbox.ts';
import { cancelTask } from './tasks.ts';

/** One connector's share of a publication: its new task, the task's event, and the pending task of the approval before. */
export interface PublicationSlot {
  readonly task: Record<string, unknown> & { readonly taskId: string };
  readonly event: WebhookEvent;
  /** Pending tasks of the approval before, of this connector. */
  readonly cancels: string[];
}

const UnfinishedSchema = v.object({
  workspaceId: v.string(),
  sku: v.string(),
  approvalId: v.string(),
  slots: v.array(v.object({ task: v.looseObject({ taskId: v.string() }), event: WebhookEventSchema, cancels: v.array(v.string()) })),
});
export type UnfinishedPublication = v.InferOutput<typeof UnfinishedSchema>;

/** Slots per transaction: each is a task, its event, and the turn's version moved on in every transaction. */
const SLOTS_PER_TRANSACTION = 45;
/** Unfinished publications a claim finishes at most, so that a claim stays bounded whatever was left. */
const FINISHED_PER_CLAIM = 2;
/** Tries at one transaction of a finish, against approvals and other finishers of the SKU at once. */
const FINISH_ATTEMPTS = 5;

/** The durable item of what is left to write, in the transaction that takes the approval's turn. */
export function unfinishedPublicationPut(publication: UnfinishedPublication): TransactEntry {
  return {
    Put: {
      Item: {
        ...keys.unfinishedPublication(publication.workspaceId, publication.approvalId),
        type: 'unfinishedPublication',
        ...publication,
      },
      ConditionExpression: 'attribute_not_exists(PK)',
    },
  };
}

/**
 * The tasks of slots not yet written, with their events, on the condition that the approval still holds the SKU's
 * turn; the turn's version moves on, so that a newer approval reading the tasks before this commits takes its turn
 * only after reading them again, and cancels them.
 */
function slotWrites(publication: UnfinishedPublication, slots: UnfinishedPublication['slots']): TransactEntry[] {
  const first = slots[0]?.task.taskId ?? '';
  return [
    {
      Update: {
        Key: keys.latestApproval(publication.workspaceId, publication.sku),
        UpdateExpression: 'SET #version = #version + :one',
        ConditionExpression: 'contains(taskIds, :task)',
        ExpressionAttributeNames: { '#version': 'version' },
        ExpressionAttributeValues: { ':one': 1, ':task': first },
      },
    },
    ...slots.flatMap((slot): TransactEntry[] => [
      { Put: { Item: slot.task, ConditionExpression: 'attribute_not_exists(PK)' } },
      outboxEntry(slot.event),
    ]),
  ];
}

/** Writes one transaction's slots; false when the approval no longer holds the turn, and nothing of it is to be written. */
async function writeSlots(publication: UnfinishedPublication, slots: UnfinishedPublication['slots']): Promise<boolean> {
  for (let attempt = 1; ; attempt++) {
    const written = new Set(
      (
        await getItems(
          slots.map((slot) => keys.writeback(publication.workspaceId, slot.task.taskId)),
          { consistent: true },
        )
      ).map((item) => String(item.taskId)),
    );
    const left = slots.filter((slot) => !written.has(slot.task.taskId));
    if (left.length === 0) return true;
    try {
      await transactWrite(slotWrites(publication, left));
      await handOn(left.map((slot) => slot.event));
      return true;
    } catch (error) {
      const reasons = (error as { CancellationReasons?: Array<{ Code?: string }> }).CancellationReasons;
      // The turn is another approval's now: it publishes its own tasks, and cancels whatever of these it found.
      if (reasons?.[0]?.Code === 'ConditionalCheckFailed') return false;
      if (attempt >= FINISH_ATTEMPTS || (error as { name?: string }).name?.startsWith('Transaction') !== true) throw error;
    }
  }
}

/**
 * Finishes an unfinished publication: the tasks left, a transaction at a time, then the cancels of the pending tasks
 * of the approval before (which no claim hands out meanwhile: they are no longer the SKU's turn), then the item. Any
 * number of finishers at once, or one after a cut, end the same: writes already made are skipped.
 */
export async function finishPublication(publication: UnfinishedPublication, nowMs: number): Promise<void> {
  let current = true;
  for (let start = 0; current && start < publication.slots.length; start += SLOTS_PER_TRANSACTION) {
    current = await writeSlots(publication, publication.slots.slice(start, start + SLOTS_PER_TRANSACTION));
  }
  if (current) {
    for (const taskId of publication.slots.flatMap((slot) => slot.cancels)) {
      // Refused when the task is no longer pending: a claim leased it (and cancels it there), or it was cancelled already.
      const { Update } = cancelTask(publication.workspaceId, taskId, publication.approvalId, nowMs);
      if (Update) await updateItem(Update);
    }
  }
  await deleteItem({ Key: keys.unfinishedPublication(publication.workspaceId, publication.approvalId) });
}

/** Finishes what cut requests left in the workspace, a few at a time: a claim runs this before it reads its tasks. */
export async function finishUnfinished(workspaceId: string, nowMs: number): Promise<void> {
  const prefix = keys.unfinishedPublications(workspaceId);
  const { Items = [] } = await queryPage({
    KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
    ExpressionAttributeValues: { ':pk': prefix.PK, ':prefix': prefix.SKPrefix },
    Limit: FINISHED_PER_CLAIM,
  });
  for (const item of Items) {
    try {
      await finishPublication(v.parse(UnfinishedSchema, item), nowMs);
    } catch (error) {
      // Left for the next claim: the claim itself goes on.
      logger.warn('an unfinished publication was left for the next claim', { error: error as Error });
    }
  }
}
