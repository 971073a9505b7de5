// Who may recompute a workspace's bands: one job at a time, so that bands computed from an older read of history never
// overwrite bands computed from a newer one.
import { DeleteCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { tableName } from '#platform/config.ts';
import { isConditionFailure, tableClient } from '#platform/table/client.ts';
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
  try {
    await tableClient().send(
      new PutCommand({
        TableName: tableName(),
        Item: { ...keys.bandsLease(workspaceId), type: 'bandsLease', leaseOwner: owner, leaseUntil: untilMs },
        ConditionExpression: 'attribute_not_exists(PK) OR leaseUntil < :now OR leaseOwner = :owner',
        ExpressionAttributeValues: { ':now': nowMs, ':owner': owner },
      }),
    );
  } catch (error) {
    if (isConditionFailure(error)) throw new BandsLeaseHeld(workspaceId);
    throw error;
  }
}

export async function releaseBandsLease(workspaceId: string, owner: string): Promise<void> {
  try {
    await tableClient().send(
      new DeleteCommand({
        TableName: tableName(),
        Key: keys.bandsLease(workspaceId),
        ConditionExpression: 'leaseOwner = :owner',
        ExpressionAttributeValues: { ':owner': owner },
      }),
    );
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
  }
}
