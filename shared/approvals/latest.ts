// A product's latest live approval: the item each live approval advances under a condition, so approvals of one SKU take turns.
import * as v from 'valibot';
import { getItem, type TransactEntry } from '#platform/table/commands.ts';
import { keys } from '#platform/table/keys.ts';

export const LatestApprovalSchema = v.object({
  /** Advanced by one with each live approval; an approval's transaction holds only if it is still what it read. */
  version: v.pipe(v.number(), v.safeInteger(), v.minValue(1)),
  approvalId: v.string(),
  approvedAt: v.string(),
  /** The write-back tasks the approval published: the only ones of the SKU a newer approval may find pending. */
  taskIds: v.array(v.string()),
  /**
   * The approval waiting for a second approver, when the newest is one: what a second approval must match (the
   * price, another approver, in time), and the key of its record, which the approval that ends its wait updates.
   */
  waiting: v.optional(
    v.object({
      approvalId: v.string(),
      approvedAt: v.string(),
      priceCents: v.number(),
      approverId: v.string(),
      waitingUntil: v.string(),
    }),
  ),
  /**
   * The highest sequence of the SKU's tasks acknowledged as applied, which acks advance (shared/writebacks/ack.ts): a
   * task applied after a newer one is recorded without changing the product's price. Turns leave it as it is.
   */
  appliedSequence: v.optional(v.number()),
});
export type LatestApproval = v.InferOutput<typeof LatestApprovalSchema>;

/** Read strongly: a turn taken a moment ago must be seen, or the next approval's condition fails and it reads again. */
export async function readLatestApproval(workspaceId: string, sku: string): Promise<LatestApproval | undefined> {
  const Item = await getItem({ Key: keys.latestApproval(workspaceId, sku), ConsistentRead: true });
  return Item ? v.parse(LatestApprovalSchema, Item) : undefined;
}

/**
 * An approval's moment: now, or a millisecond after the approval before it when the clock says otherwise, so that
 * approvals of a SKU sort by their moments in the order they took their turns, and no two tie.
 */
export function nextApprovedAt(latest: Pick<LatestApproval, 'approvedAt'> | undefined, now: Date): string {
  if (!latest) return now.toISOString();
  const after = Date.parse(latest.approvedAt) + 1;
  return new Date(Math.max(now.getTime(), after)).toISOString();
}

/**
 * The write that takes the approval's turn: the version it read, advanced, or the first if it read none. An update
 * rather than a put, so that what acks keep on the item (appliedSequence) survives the turn.
 */
export function takeTurn(
  workspaceId: string,
  sku: string,
  latest: LatestApproval | undefined,
  next: Omit<LatestApproval, 'version' | 'appliedSequence'>,
): TransactEntry {
  const values: Record<string, unknown> = {
    ':type': 'latestApproval',
    ':approvalId': next.approvalId,
    ':approvedAt': next.approvedAt,
    ':taskIds': next.taskIds,
    ':version': (latest?.version ?? 0) + 1,
    ...(next.waiting ? { ':waiting': next.waiting } : {}),
    ...(latest ? { ':seen': latest.version } : {}),
  };
  const set = '#type = :type, approvalId = :approvalId, approvedAt = :approvedAt, taskIds = :taskIds, #version = :version';
  return {
    Update: {
      Key: keys.latestApproval(workspaceId, sku),
      UpdateExpression: next.waiting ? `SET ${set}, waiting = :waiting` : `SET ${set} REMOVE waiting`,
      ConditionExpression: latest ? '#version = :seen' : 'attribute_not_exists(PK)',
      ExpressionAttributeNames: { '#type': 'type', '#version': 'version' },
      ExpressionAttributeValues: values,
    },
  };
}
