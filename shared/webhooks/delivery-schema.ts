// Webhook deliveries' shapes: the delivery and attempt items of the log, the query of /v1/webhook-endpoints/{endpointId}/deliveries, what it and a redelivery answer, and the event id of a path.
import * as v from 'valibot';
import { ApiError } from '#platform/errors.ts';
import { pageLimitSchema, PageCursorSchema, readPageLimit } from '#platform/pages.ts';
import { EventTypeSchema } from './events.ts';

export const DeliveryStatusSchema = v.picklist(['pending', 'delivered', 'parked']);
export type DeliveryStatus = v.InferOutput<typeof DeliveryStatusSchema>;

export const DeliverySummarySchema = v.object({
  eventId: v.string(),
  eventType: v.string(),
  eventTimestamp: v.string(),
  endpointId: v.string(),
  status: DeliveryStatusSchema,
  attempts: v.number(),
  lastAttemptAt: v.optional(v.string()),
  lastStatus: v.optional(v.number()),
  lastError: v.optional(v.string()),
  nextAttemptAt: v.optional(v.string()),
});
export type DeliverySummary = v.InferOutput<typeof DeliverySummarySchema>;

export const DeliveryAttemptSchema = v.object({
  eventId: v.string(),
  endpointId: v.string(),
  seq: v.number(),
  attemptedAt: v.string(),
  /** The receiver's HTTP status; absent when none came (refused URL, connection error, timeout). */
  status: v.optional(v.number()),
  latencyMs: v.number(),
  error: v.optional(v.string()),
  /** The first 1 KB of the receiver's answer. */
  response: v.optional(v.string()),
});
export type DeliveryAttempt = v.InferOutput<typeof DeliveryAttemptSchema>;

export interface DeliveryListing {
  readonly limit?: number;
  /** A `next` of an earlier page. */
  readonly startingAfter?: string;
  readonly status?: DeliveryStatus;
}

/** The most deliveries one page of the overview holds; the admin CLI may ask for more. */
export const MAX_DELIVERIES_PAGE = 100;
export const DEFAULT_DELIVERIES_PAGE = 20;

/** `evt_` and 22 base62 characters, as `newEventId` mints them. */
export const EventIdSchema = v.pipe(v.string(), v.regex(/^evt_[0-9A-Za-z]{22}$/, 'an event id (evt_…)'));

const TimestampSchema = v.pipe(v.string(), v.isoTimestamp());

/** One event's delivery to one endpoint, as the overview shows it. */
export const DeliveryViewSchema = v.strictObject({
  event_id: EventIdSchema,
  event_type: EventTypeSchema,
  /** When the change the event reports committed. */
  event_timestamp: TimestampSchema,
  status: DeliveryStatusSchema,
  /** Attempts made so far, redeliveries included; 0 until the first is logged. */
  attempts: v.pipe(v.number(), v.integer(), v.minValue(0)),
  last_attempt_at: v.nullable(TimestampSchema),
  /** The receiver's HTTP status at the last attempt; null when none came (timeout, refused URL, connection error). */
  last_status: v.nullable(v.pipe(v.number(), v.integer())),
  /** Why the last attempt got no status, or null. */
  last_error: v.nullable(v.string()),
  /** When the next attempt is due; null once delivered or parked. */
  next_attempt_at: v.nullable(TimestampSchema),
});
export type DeliveryView = v.InferOutput<typeof DeliveryViewSchema>;

export const DeliveryListSchema = v.strictObject({
  data: v.array(DeliveryViewSchema),
  /** Pass as `starting_after` for the next page; null when there is none. */
  next: v.nullable(v.string()),
});

export function deliveryView(delivery: DeliverySummary): DeliveryView {
  return {
    event_id: delivery.eventId,
    event_type: delivery.eventType as DeliveryView['event_type'],
    event_timestamp: delivery.eventTimestamp,
    status: delivery.status,
    attempts: delivery.attempts,
    last_attempt_at: delivery.lastAttemptAt ?? null,
    last_status: delivery.lastStatus ?? null,
    last_error: delivery.lastError ?? null,
    next_attempt_at: delivery.nextAttemptAt ?? null,
  };
}

/** The query as it arrives: every value a string, no other parameter. */
export const DeliveriesQuerySchema = v.optional(
  v.strictObject({
    limit: v.optional(v.string()),
    starting_after: v.optional(v.string()),
    status: v.optional(v.string()),
  }),
);

/** The documents' forms of the query's values, which `readDeliveryListing` checks. */
export const DeliveriesLimitSchema = pageLimitSchema(MAX_DELIVERIES_PAGE);
export const DeliveriesCursorSchema = PageCursorSchema;

export function readDeliveryListing(query: v.InferOutput<typeof DeliveriesQuerySchema>): DeliveryListing {
  const { limit: limitText, starting_after: startingAfter, status } = query ?? {};
  const limit = readPageLimit(limitText, { default: DEFAULT_DELIVERIES_PAGE, max: MAX_DELIVERIES_PAGE });
  if (status !== undefined && !v.is(DeliveryStatusSchema, status)) {
    throw new ApiError('invalid_request', 'status must be pending, delivered or parked.', { param: 'status' });
  }
  return { limit, ...(startingAfter === undefined ? {} : { startingAfter }), ...(status === undefined ? {} : { status }) };
}

/** The event id of a path; one not shaped like an id names no event of the workspace: 404, as an unknown one. */
export function eventIdOf(pathParameters: Readonly<Record<string, string | undefined>> | undefined): string {
  const raw = pathParameters?.eventId ?? '';
  if (!v.is(EventIdSchema, raw)) throw new ApiError('not_found', 'No webhook event with this id in this workspace in the last 30 days.');
  return raw;
}
