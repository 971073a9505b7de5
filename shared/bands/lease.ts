// Who may recompute a workspace's bands: one job at a time, so that bands computed from an older read of history never
// overwrite bands computed from a newer one.
import { deleteItem, putItem } from '#platform/table/commands.ts';
import { keys } from '#platform/table/keys.ts';

export class BandsLeaseHeld extends Error {
  constructor(workspaceId: string) {
    super(`another job is recomputing the bands of workspace ${workspaceId}`);
    this.name = 'BandsLeaseHeld';
  }
}

/**
 * Takes the workspace's bands lease until untilMs, or renews it for its owner. A lease past its time is free: its
 * holder was stopped (a Lambda job's lease outlives the invocation's deadline) or gave up.
 */
export async function takeBandsLease(workspaceId: string, owner: string, untilMs: number, nowMs: number): Promise<void> {
  const taken = await putItem({
    Item: { ...keys.bandsLease(workspaceId), type: 'bandsLease', leaseOwner: owner, leaseUntil: untilMs },
    ConditionExpression: 'attribute_not_exists(PK) OR leaseUntil < :now OR leaseOwner = :owner',
    ExpressionAttributeValues: { ':now': nowMs, ':owner': owner },
  });
  if (taken.refused) throw new BandsLeaseHeld(workspaceId);
}

export async function releaseBandsLease(workspaceId: string, owner: string): Promise<void> {
  // Refused where another owner holds it now: this one's lease is gone either way.
  await deleteItem({
    Key: keys.bandsLease(workspaceId),
    ConditionExpression: 'leaseOwner = :owner',
    ExpressionAttributeValues: { ':owner': owner },
  });
}
