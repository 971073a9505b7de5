// The end of second-approval waits that ran out: found on the sweeper's list each minute, each ended once with its `expired` event.
import * as v from 'valibot';
import { lookupKeys } from '#platform/table/index-keys.ts';
import { table } from '#platform/table/definition.ts';
import { cancellationCodes, getItem, queryPage, transactWrite } from '#platform/table/commands.ts';
import { handOn } from '#shared/webhooks/outbox.ts';
import { expiry } from './publish.ts';
import { waitHasRunOut } from './rules.ts';
import { ApprovalSchema } from './schema.ts';

const lookupIndex = table.indexes[0];
/** Waits ended per sweep at most; more wait for the next minute's. */
const EXPIRY_PAGE = 100;

export interface ExpiryOutcome {
  readonly expired: number;
  readonly perWorkspace: Map<string, number>;
}

/**
 * Ends every wait whose time ran out by `nowMs`: one Query of the list, then per wait a strong read of the approval and
 * a transaction of its end and its event. A wait that an approval ended meanwhile refuses the update and is passed
 * over; a sweep that dies midway leaves the rest on the list, for the next one.
 */
export async function expireWaitingApprovals(nowMs: number): Promise<ExpiryOutcome> {
  const now = new Date(nowMs);
  const { Items = [] } = await queryPage({
    IndexName: lookupIndex.name,
    KeyConditionExpression: '#pk = :pk AND #sk < :now',
    ExpressionAttributeNames: { '#pk': lookupIndex.partitionKey, '#sk': lookupIndex.sortKey },
    ExpressionAttributeValues: { ':pk': lookupKeys.waitingApprovals().partitionKey, ':now': now.toISOString() },
    Limit: EXPIRY_PAGE,
  });
  const perWorkspace = new Map<string, number>();
  let expired = 0;
  for (const found of Items) {
    const Item = await getItem({
      Key: { [table.partitionKey]: found[table.partitionKey], [table.sortKey]: found[table.sortKey] },
      ConsistentRead: true,
    });
    const waiting = Item ? v.parse(ApprovalSchema, Item) : undefined;
    if (waiting?.status !== 'waiting' || !waitHasRunOut(waiting, now)) continue;
    const { event, entries } = expiry(waiting, now);
    try {
      await transactWrite(entries);
    } catch (error) {
      // Ended by an approval between the read and the write: its own event says how.
      if (cancellationCodes(error)?.[0] === 'ConditionalCheckFailed') continue;
      throw error;
    }
    await handOn([event]);
    expired++;
    perWorkspace.set(waiting.workspaceId, (perWorkspace.get(waiting.workspaceId) ?? 0) + 1);
  }
  return { expired, perWorkspace };
}
