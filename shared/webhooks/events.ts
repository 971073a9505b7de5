// The webhook event catalogue: every event type, the schema of its payload, and the builder every emission point uses.
import * as v from 'valibot';
import { dataWarningCodes } from '#shared/canonical/data-warnings.ts';
import { randomBase62 } from '#platform/ids.ts';

const moment = v.pipe(v.string(), v.isoTimestamp());
const cents = v.pipe(v.number(), v.safeInteger(), v.minValue(0));
const count = v.pipe(v.number(), v.safeInteger(), v.minValue(0));

/** A batch is named as the ingest API names it, with the connector that staged it. */
const batchFields = { batchId: v.pipe(v.string(), v.uuid()), connectorId: v.string() };

/** Who approved: an API key by its id, or a console user by id and email. */
const approverFields = v.strictObject({ type: v.picklist(['api_key', 'console_user']), id: v.string(), email: v.optional(v.string()) });
/** A move past the workspace's confirmation threshold, or data warnings (their codes), which the approval confirmed. */
const confirmationFields = v.nullable(
  v.strictObject({
    thresholdPct: v.number(),
    changePct: v.nullable(v.number()),
    currentPriceCents: cents,
    warnings: v.optional(v.array(v.picklist(dataWarningCodes))),
  }),
);

/** The most SKUs a `recommendations.updated` event lists; past it the event says how many, and that the list is cut. */
export const MAX_SKUS_PER_EVENT = 1_000;

/**
 * One entry per event type: its `data`. Adding a type here adds it everywhere (docs, OpenAPI, CLI); what it reports is
 * in event-descriptions.ts, which the type checker holds to this list, so that the workers that emit events do not carry
 * the text.
 */
export const eventCatalogue = {
  'batch.committed': {
    data: v.strictObject({ ...batchFields, jobId: v.string(), recordCount: count, committedAt: moment }),
  },
  'batch.drained': {
    data: v.strictObject({ ...batchFields, recordCount: count, drainedCount: count, warnedProducts: count, drainedAt: moment }),
  },
  'batch.failed': {
    data: v.strictObject({ ...batchFields, error: v.string(), failedAt: moment }),
  },
  'recommendations.updated': {
    data: v.strictObject({
      ...batchFields,
      skuCount: count,
      skus: v.pipe(v.array(v.string()), v.maxLength(MAX_SKUS_PER_EVENT)),
      truncated: v.boolean(),
      updatedAt: moment,
    }),
  },
  'price.approved': {
    data: v.strictObject({
      approvalId: v.string(),
      sku: v.string(),
      priceCents: cents,
      currency: v.string(),
      recommendedPriceCents: cents,
      approvedAt: moment,
      livemode: v.boolean(),
      publishedTo: v.array(v.strictObject({ connectorId: v.string(), writebackId: v.string() })),
      approvedBy: approverFields,
      confirmation: confirmationFields,
      secondApprover: v.nullable(v.strictObject({ approvedBy: approverFields, approvedAt: moment })),
    }),
  },
  'price.second_approval': {
    data: v.strictObject({
      approvalId: v.string(),
      sku: v.string(),
      state: v.picklist(['waiting', 'published', 'superseded', 'expired']),
      priceCents: cents,
      currency: v.string(),
      currentPriceCents: cents,
      changePct: v.nullable(v.number()),
      approvedBy: approverFields,
      approvedAt: moment,
      waitingUntil: moment,
      secondApprover: v.nullable(approverFields),
    }),
  },
  'writeback.pending': {
    data: v.strictObject({
      writebackId: v.string(),
      connectorId: v.string(),
      approvalId: v.string(),
      productSku: v.string(),
      priceCents: cents,
      currency: v.string(),
      createdAt: moment,
    }),
  },
  'writeback.applied': {
    data: v.strictObject({
      writebackId: v.string(),
      connectorId: v.string(),
      approvalId: v.string(),
      productSku: v.string(),
      priceCents: cents,
      currency: v.string(),
      appliedAt: moment,
    }),
  },
  'writeback.failed': {
    data: v.strictObject({
      writebackId: v.string(),
      connectorId: v.string(),
      approvalId: v.string(),
      productSku: v.string(),
      error: v.string(),
      failedAt: moment,
    }),
  },
  'webhook.test': {
    data: v.strictObject({ endpointId: v.string(), requestedAt: moment }),
  },
} as const satisfies Record<string, { data: v.GenericSchema }>;

/** The event a test send carries: outside every subscription, so that only the endpoint asked receives it. */
export const TEST_EVENT_TYPE = 'webhook.test' satisfies keyof typeof eventCatalogue;

export type EventType = keyof typeof eventCatalogue;
export const eventTypes = Object.keys(eventCatalogue) as EventType[];
export const EventTypeSchema = v.picklist(eventTypes);

export function isEventType(value: string): value is EventType {
  return Object.hasOwn(eventCatalogue, value);
}

export type EventData<T extends EventType> = v.InferOutput<(typeof eventCatalogue)[T]['data']>;

/** The envelope of one event type: what a receiver parses, and what the OpenAPI document's `webhooks` shows. */
export function eventSchema<T extends EventType>(type: T) {
  return v.strictObject({
    type: v.literal(type),
    /** Also the `webhook-id` header: the same on every attempt and redelivery, so a receiver can drop duplicates. */
    id: v.pipe(v.string(), v.startsWith('evt_')),
    timestamp: moment,
    workspaceId: v.string(),
    data: eventCatalogue[type].data,
  });
}

export interface WebhookEvent<T extends EventType = EventType> {
  readonly type: T;
  readonly id: string;
  readonly timestamp: string;
  readonly workspaceId: string;
  readonly data: EventData<T>;
}

export const WebhookEventSchema = v.variant(
  'type',
  eventTypes.map((type) => eventSchema(type)),
);

/** 22 base62 characters, as every id the service mints. */
export function newEventId(): string {
  return `evt_${randomBase62(22)}`;
}

/**
 * An event, its data checked against the catalogue: a bug in an emission point fails the state change in tests
 * instead of sending receivers something the documents do not describe.
 */
export function newEvent<T extends EventType>(type: T, workspaceId: string, data: EventData<T>, at: Date | string): WebhookEvent<T> {
  return {
    type,
    id: newEventId(),
    timestamp: typeof at === 'string' ? at : at.toISOString(),
    workspaceId,
    data: v.parse(eventCatalogue[type].data, data) as EventData<T>,
  };
}
