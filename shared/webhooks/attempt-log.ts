// The webhook attempt log: one item per attempt and one per delivery, written together, and the reads of both.
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import * as v from 'valibot';
import { decodeCursor, encodeCursor } from '#platform/pages.ts';
import { queryListPage } from '#platform/table/query.ts';
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

/** What a cursor names: the event's timestamp and id, the delivery's place in its endpoint's partition. */
const CURSOR_PATTERN = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,3})?Z#evt_[0-9A-Za-z]{22}$/;

export interface DeliveryPage {
  readonly deliveries: DeliverySummary[];
  /** Where the next page starts (opaque: `starting_after`), or undefined when this page is the last. */
  readonly next?: string;
}

/**
 * An endpoint's deliveries, newest event first, a page at a time, optionally only those in one state. The state is
 * a filter on the read: a page of a rare state may come back short, with `next` to read on from.
 */
export async function listDeliveries(workspaceId: string, endpointId: string, listing: DeliveryListing = {}): Promise<DeliveryPage> {
  const prefix = keys.webhookDeliveryPrefix(workspaceId, endpointId);
  const start =
    listing.startingAfter === undefined
      ? undefined
      : { PK: prefix.PK, SK: `${prefix.SKPrefix}${decodeCursor(listing.startingAfter, CURSOR_PATTERN)}` };
  const page = await queryListPage(
    {
      KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
      ExpressionAttributeValues: {
        ':pk': prefix.PK,
        ':prefix': prefix.SKPrefix,
        ...(listing.status === undefined ? {} : { ':status': listing.status }),
      },
      ...(listing.status === undefined ? {} : { FilterExpression: '#status = :status', ExpressionAttributeNames: { '#status': 'status' } }),
      ScanIndexForward: false,
    },
    { limit: listing.limit ?? 50, start },
  );
  const deliveries = page.items.map((item) => v.parse(DeliverySummarySchema, item));
  const next = page.lastKey === undefined ? undefined : encodeCursor(String(page.lastKey.SK).slice(prefix.SKPrefix.length));
  return { deliveries, ...(next === undefined ? {} : { next }) };
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
