// Webhook endpoints: the stored record, the bodies of /v1/webhook-endpoints, and what those routes answer.
import * as v from 'valibot';
import { ApiError } from '#platform/errors.ts';
import { boundedArray } from '#platform/input.ts';
import { circuitOf, circuitStates } from './breaker.ts';
import { eventTypes, TEST_EVENT_TYPE } from './events.ts';
import { MAX_WEBHOOK_URL_LENGTH } from './url-guard.ts';

/**
 * The event types an endpoint may subscribe to: the whole catalogue but the test event, each by name. There is no
 * `*`, so that an endpoint never starts receiving a kind of event its receiver was not written for when the catalogue
 * grows.
 */
export const subscribableEventTypes = eventTypes.filter((type) => type !== TEST_EVENT_TYPE);
export const SubscribableEventTypeSchema = v.picklist(subscribableEventTypes, 'one of the documented event types');

/** At most this many endpoints per workspace: each event fans out to every subscribed one. */
export const MAX_ENDPOINTS_PER_WORKSPACE = 20;
export const MAX_DESCRIPTION_LENGTH = 256;

export const endpointStatuses = ['healthy', 'failing', 'disabled'] as const;
export const EndpointStatusSchema = v.picklist(endpointStatuses);
export type EndpointStatus = v.InferOutput<typeof EndpointStatusSchema>;

/** `we_` and 22 base62 characters, as `newId('we')` mints them. */
export const EndpointIdSchema = v.pipe(v.string(), v.regex(/^we_[0-9A-Za-z]{22}$/, 'an endpoint id (we_…)'));

/** The item in the table; secrets are sealed text (see secrets.ts), never the plaintext. */
export const WebhookEndpointRecordSchema = v.object({
  endpointId: v.string(),
  workspaceId: v.string(),
  url: v.string(),
  description: v.optional(v.string()),
  eventTypes: v.array(v.string()),
  /** The owner's switch, or the service's after five days of failing. */
  enabled: v.boolean(),
  /** Set by the first parked delivery after a success, cleared by the next success or by re-enabling. */
  failingSince: v.optional(v.string()),
  /** Why it is disabled: `owner` (create or update said so) or `failing` (five days of failures). */
  disabledReason: v.optional(v.picklist(['owner', 'failing'])),
  disabledAt: v.optional(v.string()),
  /** The circuit breaker (breaker.ts): failed attempts in a row, until when it is open (epoch ms), and the probe's claim. */
  breakerFailures: v.optional(v.number()),
  breakerOpenUntil: v.optional(v.number()),
  breakerProbeUntil: v.optional(v.number()),
  secret: v.string(),
  secretCreatedAt: v.string(),
  previousSecret: v.optional(v.string()),
  previousSecretExpiresAt: v.optional(v.string()),
  createdAt: v.string(),
  updatedAt: v.string(),
});
export type WebhookEndpointRecord = v.InferOutput<typeof WebhookEndpointRecordSchema>;

/** An endpoint as the domain hands it around: the record and its status. */
export interface WebhookEndpoint extends WebhookEndpointRecord {
  readonly status: EndpointStatus;
}

/**
 * Failed attempts in a row that make an endpoint `failing` at once, without waiting days for a delivery to be parked.
 * Read from the breaker's counter, which every attempt already updates, so that health costs no write of its own.
 */
export const FAILING_AFTER_ATTEMPTS = 3;

export function statusOf(record: Pick<WebhookEndpointRecord, 'enabled' | 'failingSince' | 'breakerFailures'>): EndpointStatus {
  if (!record.enabled) return 'disabled';
  return record.failingSince || (record.breakerFailures ?? 0) >= FAILING_AFTER_ATTEMPTS ? 'failing' : 'healthy';
}

const UrlSchema = v.pipe(
  v.string('a URL'),
  v.minLength(1, 'a URL'),
  v.maxLength(MAX_WEBHOOK_URL_LENGTH, `at most ${MAX_WEBHOOK_URL_LENGTH} characters`),
);

/** Each item once: the documents say `uniqueItems` for it (shared/edge/openapi/convert.ts). */
export function eachOnce<TItem>(items: readonly TItem[]): boolean {
  return new Set(items).size === items.length;
}

/** At least one field given: the documents say `minProperties: 1` for it. */
export function changesSomething<TChanges extends object>(changes: TChanges): boolean {
  return Object.values(changes).some((value) => value !== undefined);
}

const EventTypesSchema = v.pipe(
  boundedArray(
    SubscribableEventTypeSchema,
    'a list of event types',
    [1, 'at least one event type'],
    [subscribableEventTypes.length, `at most ${subscribableEventTypes.length} event types`],
  ),
  v.check(eachOnce, 'each event type once'),
);

const DescriptionSchema = v.pipe(v.string('text'), v.maxLength(MAX_DESCRIPTION_LENGTH, `at most ${MAX_DESCRIPTION_LENGTH} characters`));

export const CreateEndpointRequestSchema = v.strictObject({
  url: UrlSchema,
  event_types: EventTypesSchema,
  enabled: v.optional(v.boolean('true or false')),
  description: v.optional(DescriptionSchema),
});
export type CreateEndpointRequest = v.InferOutput<typeof CreateEndpointRequestSchema>;

export const UpdateEndpointRequestSchema = v.pipe(
  v.strictObject({
    url: v.optional(UrlSchema),
    event_types: v.optional(EventTypesSchema),
    enabled: v.optional(v.boolean('true or false')),
    /** `null` removes it. */
    description: v.optional(v.nullable(DescriptionSchema)),
  }),
  v.check(changesSomething, 'at least one of url, event_types, enabled, description'),
);
export type UpdateEndpointRequest = v.InferOutput<typeof UpdateEndpointRequestSchema>;

const TimestampSchema = v.pipe(v.string(), v.isoTimestamp());

/** An endpoint as the overview shows it: never its secret. */
export const EndpointViewSchema = v.strictObject({
  id: EndpointIdSchema,
  url: v.string(),
  description: v.nullable(v.string()),
  event_types: v.array(SubscribableEventTypeSchema),
  enabled: v.boolean(),
  status: EndpointStatusSchema,
  failing_since: v.nullable(TimestampSchema),
  /**
   * The circuit breaker: `closed` sends as usual; `open` after consecutive failed attempts, deliveries deferred (not
   * failed) until `circuit_open_until`; `half_open` once that passed, one probe attempt at a time deciding.
   */
  circuit: v.picklist(circuitStates),
  /** Failed attempts in a row at this endpoint, across its deliveries; 0 after any 2xx. */
  consecutive_failures: v.pipe(v.number(), v.integer(), v.minValue(0)),
  /** While the circuit is open, when the next probe may go; null otherwise. */
  circuit_open_until: v.nullable(TimestampSchema),
  /** Until when the secret replaced by the last rotation still signs; null when none does. */
  previous_secret_expires_at: v.nullable(TimestampSchema),
  created_at: TimestampSchema,
  updated_at: TimestampSchema,
});
export type EndpointView = v.InferOutput<typeof EndpointViewSchema>;

/** The answer to a create: the endpoint and its signing secret, shown this once. */
export const CreatedEndpointSchema = v.strictObject({ ...EndpointViewSchema.entries, secret: v.pipe(v.string(), v.startsWith('whsec_')) });
export type CreatedEndpoint = v.InferOutput<typeof CreatedEndpointSchema>;

export const EndpointListSchema = v.strictObject({ data: v.array(EndpointViewSchema) });

export const RotatedSecretSchema = v.strictObject({
  id: EndpointIdSchema,
  secret: v.pipe(v.string(), v.startsWith('whsec_')),
  previous_secret_expires_at: TimestampSchema,
});

export const DeletedEndpointSchema = v.strictObject({ id: EndpointIdSchema, deleted: v.literal(true) });

export function endpointView(endpoint: WebhookEndpointRecord, nowMs: number): EndpointView {
  const previousLives = endpoint.previousSecretExpiresAt !== undefined && Date.parse(endpoint.previousSecretExpiresAt) > nowMs;
  return {
    id: endpoint.endpointId,
    url: endpoint.url,
    description: endpoint.description ?? null,
    event_types: endpoint.eventTypes as EndpointView['event_types'],
    enabled: endpoint.enabled,
    status: statusOf(endpoint),
    failing_since: endpoint.failingSince ?? null,
    circuit: circuitOf(endpoint, nowMs),
    consecutive_failures: endpoint.breakerFailures ?? 0,
    circuit_open_until:
      circuitOf(endpoint, nowMs) === 'open' && endpoint.breakerOpenUntil !== undefined
        ? new Date(endpoint.breakerOpenUntil).toISOString()
        : null,
    previous_secret_expires_at: previousLives ? (endpoint.previousSecretExpiresAt ?? null) : null,
    created_at: endpoint.createdAt,
    updated_at: endpoint.updatedAt,
  };
}

/**
 * The endpoint id of a path. One that is not even shaped like an id names no endpoint: 404, as for another
 * workspace's, so that the answer never tells the two apart.
 */
export function endpointIdOf(pathParameters: Readonly<Record<string, string | undefined>> | undefined): string {
  const raw = pathParameters?.endpointId ?? '';
  if (!v.is(EndpointIdSchema, raw)) throw new ApiError('not_found', 'No webhook endpoint with this id in this workspace.');
  return raw;
}

/**
 * Sandbox (pw_test) keys read the endpoints but change none: what a sandbox does is published nowhere, and an
 * endpoint receives live events.
 */
export function assertLiveKey(family: string): void {
  if (family !== 'pw_live') {
    throw new ApiError('forbidden', 'A pw_test (sandbox) key may read webhook endpoints but not change them: use a pw_live key.');
  }
}
