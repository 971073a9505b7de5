// The webhook attempt log: one item per attempt and one per delivery, written together, and the reads of both.
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import * as v from 'valibot';
import { ApiError } from '#platform/errors.ts';
import { getItem, queryPage, transactWrite } from '#platform/table/commands.ts';
import { keys } from '#platform/table/keys.ts';
import {
  type DeliveryAttempt,
  DeliveryAttemptSchema,
  type DeliveryListing,
  type DeliverySummary,
  DeliverySummarySchema,
} from './delivery-schema.ts';
import type { WebhookEvent } from './events.ts';
import { EVENT_RETENTION_DAYS, readEvent } from './outbox.ts';

/** Attempts and delivery records are kept as long as the events they deliver. */
const LOG_RETENTION_SECONDS = EVENT_RETENTION_DAYS * 86_400;

function isCancelled(error: unknown): boolean {
  return error instanceof TransactionCanceledException || (error as { name?: string } | undefined)?.name === 'TransactionCanceledException';
}

/** Records one attempt and its delivery's new state; refused if an attempt with this number was already recorded. */
export async function recordAttempt(
  event: WebhookEvent,
  attempt: DeliveryAttempt,
  summary: DeliverySummary,
  nowMs: number,
): Promise<boolean> {
  const expiresAt = Math.floor(nowMs / 1000) + LOG_RETENTION_SECONDS;
  const { workspaceId } = event;
  try {
    await transactWrite([
      {
        Put: {
          Item: {
            ...keys.webhookAttempt(workspaceId, attempt.endpointId, event.timestamp, event.id, attempt.seq),
            type: 'webhookAttempt',
            ...attempt,
            expiresAt,
          },
          ConditionExpression: 'attribute_not_exists(PK)',
        },
      },
      {
        Put: {
          Item: {
            ...keys.webhookDelivery(workspaceId, attempt.endpointId, event.timestamp, event.id),
            type: 'webhookDelivery',
            ...summary,
            expiresAt,
          },
          // A late duplicate of an earlier attempt never rolls the delivery back.
          ConditionExpression: 'attribute_not_exists(PK) OR attempts < :seq',
          ExpressionAttributeValues: { ':seq': attempt.seq },
        },
      },
    ]);
    return true;
  } catch (error) {
    if (isCancelled(error)) return false;
    throw error;
  }
}

export async function readDelivery(event: WebhookEvent, endpointId: string): Promise<DeliverySummary | undefined> {
  const Item = await getItem({ Key: keys.webhookDelivery(event.workspaceId, endpointId, event.timestamp, event.id), ConsistentRead: true });
  return Item ? v.parse(DeliverySummarySchema, Item) : undefined;
}

/** A filtered page stops after this many reads, short if need be, and says where to go on. */
const MAX_READS_PER_PAGE = 10;
/** What a cursor names: the event's timestamp and id, the delivery's place in its endpoint's partition. */
const CURSOR_PATTERN = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,3})?Z#evt_[0-9A-Za-z]{22}$/;

export interface DeliveryPage {
  readonly deliveries: DeliverySummary[];
  /** Where the next page starts (opaque: `starting_after`), or undefined when this page is the last. */
  readonly next?: string;
}

function encodeCursor(sortKey: string, prefix: string): string {
  return Buffer.from(sortKey.slice(prefix.length), 'utf8').toString('base64url');
}

/** A cursor the service did not hand out is refused, so that a page can start nowhere but at a delivery's place. */
function decodeCursor(cursor: string): string {
  const position = /^[A-Za-z0-9_-]{1,200}$/.test(cursor) ? Buffer.from(cursor, 'base64url').toString('utf8') : '';
  if (!CURSOR_PATTERN.test(position)) {
    throw new ApiError('invalid_request', 'starting_after must be the next cursor of an earlier page.', { param: 'starting_after' });
  }
  return position;
}

/**
 * An endpoint's deliveries, newest event first, a page at a time, optionally only those in one state. The state is
 * a filter on the read: a page of a rare state may come back short, with `next` to read on from.
 */
export async function listDeliveries(workspaceId: string, endpointId: string, listing: DeliveryListing = {}): Promise<DeliveryPage> {
  const limit = listing.limit ?? 50;
  const prefix = keys.webhookDeliveryPrefix(workspaceId, endpointId);
  let start =
    listing.startingAfter === undefined ? undefined : { PK: prefix.PK, SK: `${prefix.SKPrefix}${decodeCursor(listing.startingAfter)}` };
  const deliveries: DeliverySummary[] = [];
  for (let reads = 0; reads < MAX_READS_PER_PAGE; reads++) {
    const { Items = [], LastEvaluatedKey } = await queryPage({
      KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
      ExpressionAttributeValues: {
        ':pk': prefix.PK,
        ':prefix': prefix.SKPrefix,
        ...(listing.status === undefined ? {} : { ':status': listing.status }),
      },
      ...(listing.status === undefined ? {} : { FilterExpression: '#status = :status', ExpressionAttributeNames: { '#status': 'status' } }),
      ScanIndexForward: false,
      // Never more than the page has room for: the last item read is then where the next page starts.
      Limit: limit - deliveries.length,
      ...(start === undefined ? {} : { ExclusiveStartKey: start }),
    });
    deliveries.push(...Items.map((item) => v.parse(DeliverySummarySchema, item)));
    start = LastEvaluatedKey as { PK: string; SK: string } | undefined;
    if (start === undefined || deliveries.length >= limit) break;
  }
  return { deliveries, ...(start === undefined ? {} : { next: encodeCursor(start.SK, prefix.SKPrefix) }) };
}

/** Every logged attempt of one event at one endpoint, oldest first. */
export async function listAttempts(workspaceId: string, endpointId: string, eventId: string): Promise<DeliveryAttempt[]> {
  const stored = await readEvent(workspaceId, eventId);
  if (!stored) return [];
  const prefix = keys.webhookAttemptPrefix(workspaceId, endpointId, stored.event.timestamp, eventId);
  const { Items = [] } = await queryPage({
    KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
    ExpressionAttributeValues: { ':pk': prefix.PK, ':prefix': prefix.SKPrefix },
    ConsistentRead: true,
  });
  return Items.map((item) => v.parse(DeliveryAttemptSchema, item));
}
