// A workspace's approvals waiting for a second approver, as the console's landing page lists them: its own list of waits.
import * as v from 'valibot';
import { queryPage } from '#platform/table/commands.ts';
import { table } from '#platform/table/definition.ts';
import { listingKeys } from '#platform/table/index-keys.ts';
import { type Approval, ApprovalSchema } from './schema.ts';

const listingIndex = table.indexes[3];

export interface WaitingApprovals {
  /** This workspace's waits counted, at most the rows shown. */
  readonly count: number;
  /** False when more wait than the rows shown: the count then says "or more". */
  readonly complete: boolean;
  /** The first `show` of them, soonest end first. */
  readonly approvals: readonly Approval[];
}

/**
 * The waits still running (ending after now): one Query of the workspace's list from now on, soonest end first, one
 * more than it shows to know whether more wait. The list is projected whole, so the rows are the approvals themselves
 * (eventually consistent: a wait ended a moment ago may still show, or a new one not yet).
 */
export async function readWaitingApprovals(workspaceId: string, nowMs: number, show: number): Promise<WaitingApprovals> {
  const { Items = [] } = await queryPage({
    IndexName: listingIndex.name,
    KeyConditionExpression: '#pk = :pk AND #sk > :now',
    ExpressionAttributeNames: { '#pk': listingIndex.partitionKey, '#sk': listingIndex.sortKey },
    // A wait ends at its `waitingUntil`: one ending exactly now has run out, and `~` sorts after every id character.
    ExpressionAttributeValues: {
      ':pk': listingKeys.waitingApprovals(workspaceId).partitionKey,
      ':now': `${new Date(nowMs).toISOString()}#~`,
    },
    Limit: show + 1,
  });
  const approvals = Items.map((item) => v.parse(ApprovalSchema, item)).filter((approval) => approval.status === 'waiting');
  return { count: Math.min(approvals.length, show), complete: Items.length <= show, approvals: approvals.slice(0, show) };
}
