// A workspace's approvals waiting for a second approver, as the console's landing page lists them: found on the sweeper's list of waits.
import * as v from 'valibot';
import { getItems } from '#platform/table/bulk.ts';
import { queryPage } from '#platform/table/commands.ts';
import { table } from '#platform/table/definition.ts';
import { lookupKeys } from '#platform/table/index-keys.ts';
import type { PrimaryKey } from '#platform/table/key-parts.ts';
import { type Approval, ApprovalSchema } from './schema.ts';

const lookupIndex = table.indexes[0];

/**
 * Wait entries read at most: the list holds every workspace's waits (keys only, ~150 B each), soonest end first, so
 * one page of 100 is ~2 RRU. Waits last a few days and few moves need a second approver, so the page holds them all
 * but in a very busy deployment; then the count says "at least".
 */
export const WAITING_READ = 100;

export interface WaitingApprovals {
  /** This workspace's waits found, soonest end first. */
  readonly count: number;
  /** False when the list went on past the page read: there may be more. */
  readonly complete: boolean;
  /** The first `show` of them, read whole. */
  readonly approvals: readonly Approval[];
}

/** The sort key of a wait's entry: when it ends, then its workspace and approval (see lookupKeys.waitingApproval). */
function workspaceOfEntry(sortKey: unknown): string | undefined {
  return String(sortKey).split('#')[1];
}

/**
 * The waits still running (ending after now): one Query of the list from now on, keeping this workspace's entries,
 * then one BatchGetItem of the first `show` approvals (0.5 RRU each, eventually consistent). A wait that ended a
 * moment ago is gone from the answer, or shows as no longer waiting and is left out.
 */
export async function readWaitingApprovals(workspaceId: string, nowMs: number, show: number): Promise<WaitingApprovals> {
  const { Items = [], LastEvaluatedKey } = await queryPage({
    IndexName: lookupIndex.name,
    KeyConditionExpression: '#pk = :pk AND #sk > :now',
    ExpressionAttributeNames: { '#pk': lookupIndex.partitionKey, '#sk': lookupIndex.sortKey },
    ExpressionAttributeValues: { ':pk': lookupKeys.waitingApprovals().partitionKey, ':now': new Date(nowMs).toISOString() },
    Limit: WAITING_READ,
  });
  const mine = Items.filter((entry) => workspaceOfEntry(entry[lookupIndex.sortKey]) === workspaceId);
  const keysToRead = mine
    .slice(0, show)
    .map((entry): PrimaryKey => ({ PK: String(entry[table.partitionKey]), SK: String(entry[table.sortKey]) }));
  const found = keysToRead.length === 0 ? [] : await getItems(keysToRead, { consistent: false });
  const approvals = found
    .map((item) => v.parse(ApprovalSchema, item))
    .filter((approval) => approval.status === 'waiting')
    .sort((a, b) => (a.secondApproval?.waitingUntil ?? '').localeCompare(b.secondApproval?.waitingUntil ?? ''));
  return { count: mine.length, complete: LastEvaluatedKey === undefined, approvals };
}
