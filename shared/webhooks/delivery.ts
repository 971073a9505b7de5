// Webhook delivery: fan-out of an event to its endpoints, one signed attempt at a time, the retry schedule, the attempt log and redelivery.
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { GetCommand, QueryCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { Webhook } from 'standardwebhooks';
import * as v from 'valibot';
import { environmentNames, tableName } from '#platform/config.ts';
import { ApiError } from '#platform/errors.ts';
import { logger } from '#platform/observability.ts';
import { tableClient } from '#platform/table/client.ts';
import { keys } from '#platform/table/keys.ts';
import { endpointsSubscribedTo, getEndpoint, markEndpointFailure, markEndpointSuccess, type WebhookEndpoint } from './endpoints.ts';
import { type DeliveryStatus, DeliveryStatusSchema } from './delivery-schema.ts';
import type { WebhookEvent } from './events.ts';
import { EVENT_RETENTION_DAYS, markDispatched, readEvent } from './outbox.ts';
import { type AttemptMessage, type FanOutMessage, MAX_DELAY_SECONDS, sendWebhookMessages } from './queue.ts';
import { signingSecrets } from './secrets.ts';
import { assertDeliverableUrl, loopbackHttpAllowed, pinnedLookup, type ResolvedTarget, UnsafeWebhookUrl } from './url-guard.ts';

const SECOND = 1_000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

/**
 * The waits between attempts: the first attempt goes at once, and each failure waits the next entry. Twelve attempts
 * over 71 h 35 min, about three days; after the last failure the delivery is parked and the endpoint marked failing.
 */
export const RETRY_SCHEDULE_MS: readonly number[] = [
  5 * SECOND,
  5 * MINUTE,
  30 * MINUTE,
  2 * HOUR,
  5 * HOUR,
  10 * HOUR,
  10 * HOUR,
  10 * HOUR,
  10 * HOUR,
  12 * HOUR,
  12 * HOUR,
];

/** Only a 2xx within this long counts as delivered. */
export const DELIVERY_TIMEOUT_MS = 10 * SECOND;
/** How much of a receiver's answer the attempt log keeps. */
export const LOGGED_RESPONSE_BYTES = 1_024;
/** Attempts and delivery records are kept as long as the events they deliver. */
const LOG_RETENTION_SECONDS = EVENT_RETENTION_DAYS * 86_400;

function positiveNumber(text: string | undefined): number | undefined {
  const value = Number(text);
  return text && Number.isFinite(value) && value > 0 ? value : undefined;
}

/** The schedule as this process runs it: local mode and tests may scale it down (WEBHOOK_RETRY_SCALE). */
export function retrySchedule(): number[] {
  const scale = positiveNumber(process.env[environmentNames.webhookRetryScale]) ?? 1;
  return RETRY_SCHEDULE_MS.map((wait) => Math.round(wait * scale));
}

export function deliveryTimeoutMs(): number {
  return positiveNumber(process.env[environmentNames.webhookTimeoutMs]) ?? DELIVERY_TIMEOUT_MS;
}

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

/** The Standard Webhooks headers: one `v1,` signature per secret in use (two for 24 h after a rotation). */
export function signedHeaders(event: WebhookEvent, body: string, secrets: readonly string[], at: Date): Record<string, string> {
  const signatures = secrets.map((secret) => new Webhook(secret).sign(event.id, at, body));
  return {
    'webhook-id': event.id,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': signatures.join(' '),
  };
}

interface PostOutcome {
  readonly status?: number;
  readonly latencyMs: number;
  readonly error?: string;
  readonly response?: string;
}

/** The first bytes of an answer, up to the log's limit; the rest is not read. */
function readHead(response: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const done = () => {
      response.destroy();
      resolve(Buffer.concat(chunks).subarray(0, LOGGED_RESPONSE_BYTES).toString('utf8'));
    };
    response.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      size += chunk.length;
      if (size >= LOGGED_RESPONSE_BYTES) done();
    });
    response.on('end', done);
    response.on('error', done);
    response.on('aborted', done);
  });
}

/**
 * POSTs to the checked address only (the name is kept for Host and TLS SNI), follows no redirect, and gives up at the
 * deadline: only a 2xx whose status line arrives within it counts.
 */
export function postToTarget(
  target: ResolvedTarget,
  headers: Record<string, string>,
  body: string,
  timeoutMs: number,
): Promise<PostOutcome> {
  const url = new URL(target.url);
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  const started = performance.now();
  const latency = () => Math.round(performance.now() - started);
  return new Promise((resolve) => {
    let settled = false;
    const finish = (outcome: PostOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(outcome);
    };
    const request = send(
      {
        protocol: url.protocol,
        hostname: target.hostname,
        port: target.port,
        path: `${url.pathname}${url.search}`,
        method: 'POST',
        lookup: pinnedLookup(target),
        ...(url.protocol === 'https:' ? { servername: target.hostname } : {}),
        headers: {
          ...headers,
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
          'user-agent': 'pricing-service-webhooks/1',
        },
        // A keep-alive pool would reuse a socket opened to an address checked for another endpoint.
        agent: false,
      },
      (response) => {
        const status = response.statusCode ?? 0;
        const latencyMs = latency();
        void readHead(response).then((text) => finish({ status, latencyMs, response: text }));
      },
    );
    const timer = setTimeout(() => {
      request.destroy();
      finish({ latencyMs: latency(), error: `no answer within ${timeoutMs} ms` });
    }, timeoutMs);
    request.on('error', (error) => finish({ latencyMs: latency(), error: `request failed: ${error.message}` }));
    request.end(body);
  });
}

export type FanOutOutcome = 'fannedOut' | 'duplicate' | 'unknown';

/** Queues the first attempt of an event at every endpoint subscribed to it, then takes it off the sweeper's list. */
export async function fanOut(message: FanOutMessage, nowMs: number): Promise<{ outcome: FanOutOutcome; endpoints: number }> {
  const stored = await readEvent(message.workspaceId, message.eventId);
  if (!stored) return { outcome: 'unknown', endpoints: 0 };
  if (stored.dispatchedAt) return { outcome: 'duplicate', endpoints: 0 };
  const { event } = stored;
  // Only the event's own workspace's endpoints are read: another workspace's can never be found from here.
  const endpoints = await endpointsSubscribedTo(event.workspaceId, event.type);
  await sendWebhookMessages(
    endpoints.map((endpoint) => ({
      kind: 'attempt' as const,
      workspaceId: event.workspaceId,
      eventId: event.id,
      endpointId: endpoint.endpointId,
      seq: 1,
      tryInRun: 1,
    })),
  );
  await markDispatched(
    event,
    endpoints.map((endpoint) => endpoint.endpointId),
    nowMs,
  );
  return { outcome: 'fannedOut', endpoints: endpoints.length };
}

export type AttemptOutcome = 'delivered' | 'retrying' | 'parked' | 'waiting' | 'duplicate' | 'dropped';

function isCancelled(error: unknown): boolean {
  return error instanceof TransactionCanceledException || (error as { name?: string } | undefined)?.name === 'TransactionCanceledException';
}

/** A wait this short is slept by the worker rather than spent in the queue. */
const SHORT_WAIT_MS = 1_000;

/** Sends an attempt message on, delayed as far as SQS allows, towards its `notBefore`. */
async function waitFor(message: AttemptMessage, nowMs: number): Promise<void> {
  const remainingMs = (message.notBefore ?? nowMs) - nowMs;
  // Whole seconds, rounded down: the message arrives at most a second early, and the worker sleeps the rest.
  await sendWebhookMessages([message], remainingMs <= SHORT_WAIT_MS ? 0 : Math.min(MAX_DELAY_SECONDS, Math.floor(remainingMs / 1000)));
}

/** Records one attempt and its delivery's new state; refused if an attempt with this number was already recorded. */
async function recordAttempt(event: WebhookEvent, attempt: DeliveryAttempt, summary: DeliverySummary, nowMs: number): Promise<boolean> {
  const expiresAt = Math.floor(nowMs / 1000) + LOG_RETENTION_SECONDS;
  const { workspaceId } = event;
  try {
    await tableClient().send(
      new TransactWriteCommand({
        TransactItems: [
          {
            Put: {
              TableName: tableName(),
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
              TableName: tableName(),
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
        ],
      }),
    );
    return true;
  } catch (error) {
    if (isCancelled(error)) return false;
    throw error;
  }
}

async function attemptOnce(endpoint: WebhookEndpoint, event: WebhookEvent, now: Date): Promise<PostOutcome> {
  let target: ResolvedTarget;
  try {
    // Checked again at every send: the name may resolve elsewhere now than when the endpoint was registered.
    target = await assertDeliverableUrl(endpoint.url, { allowLoopbackHttp: loopbackHttpAllowed() });
  } catch (error) {
    if (error instanceof UnsafeWebhookUrl) return { latencyMs: 0, error: `refused: ${error.message}` };
    throw error;
  }
  const body = JSON.stringify(event);
  const secrets = await signingSecrets(endpoint, now.getTime());
  return postToTarget(target, signedHeaders(event, body, secrets, now), body, deliveryTimeoutMs());
}

/**
 * One attempt of one event at one endpoint. A failure queues the next attempt before it is recorded, so that a worker
 * stopped in between still leaves the delivery going (a duplicate attempt is refused by the log); the last failure
 * parks the delivery and marks the endpoint failing.
 */
export async function attemptDelivery(message: AttemptMessage, clock: () => Date = () => new Date()): Promise<AttemptOutcome> {
  const nowMs = clock().getTime();
  const early = (message.notBefore ?? nowMs) - nowMs;
  if (early > SHORT_WAIT_MS) {
    await waitFor(message, nowMs);
    return 'waiting';
  }
  // SQS delays in whole seconds: the last fraction of a wait is slept here instead of re-sent.
  if (early > 0) await new Promise((resolve) => setTimeout(resolve, early));
  const stored = await readEvent(message.workspaceId, message.eventId);
  // The event outlived its retention: nothing is left to deliver.
  if (!stored) return 'dropped';
  const { event } = stored;
  const [endpoint, logged] = await Promise.all([
    getEndpoint(message.workspaceId, message.endpointId),
    readDelivery(event, message.endpointId),
  ]);
  if (!endpoint) return 'dropped';
  // A second receive of a message whose attempt is already logged: its next attempt was queued before the log was written.
  if (logged && logged.attempts >= message.seq) return 'duplicate';
  const base = { eventId: event.id, eventType: event.type, eventTimestamp: event.timestamp, endpointId: endpoint.endpointId };
  const attemptedAt = clock();
  if (!endpoint.enabled || endpoint.status === 'disabled') {
    const attempt = {
      eventId: event.id,
      endpointId: endpoint.endpointId,
      seq: message.seq,
      attemptedAt: attemptedAt.toISOString(),
      latencyMs: 0,
      error: 'not sent: the endpoint is disabled',
    };
    await recordAttempt(
      event,
      attempt,
      { ...base, status: 'parked', attempts: message.seq, lastAttemptAt: attempt.attemptedAt, lastError: attempt.error },
      nowMs,
    );
    return 'parked';
  }
  const outcome = await attemptOnce(endpoint, event, attemptedAt);
  const delivered = outcome.status !== undefined && outcome.status >= 200 && outcome.status < 300;
  const wait = delivered ? undefined : retrySchedule()[message.tryInRun - 1];
  const status: DeliveryStatus = delivered ? 'delivered' : wait === undefined ? 'parked' : 'pending';
  const doneMs = clock().getTime();
  const next: AttemptMessage | undefined =
    status === 'pending' && wait !== undefined
      ? { ...message, seq: message.seq + 1, tryInRun: message.tryInRun + 1, notBefore: doneMs + wait }
      : undefined;
  if (next) await waitFor(next, doneMs);
  const attempt: DeliveryAttempt = {
    eventId: event.id,
    endpointId: endpoint.endpointId,
    seq: message.seq,
    attemptedAt: attemptedAt.toISOString(),
    latencyMs: outcome.latencyMs,
    ...(outcome.status === undefined ? {} : { status: outcome.status }),
    ...(outcome.error === undefined ? {} : { error: outcome.error }),
    ...(outcome.response === undefined ? {} : { response: outcome.response }),
  };
  const recorded = await recordAttempt(
    event,
    attempt,
    {
      ...base,
      status,
      attempts: message.seq,
      lastAttemptAt: attempt.attemptedAt,
      ...(attempt.status === undefined ? {} : { lastStatus: attempt.status }),
      ...(attempt.error === undefined ? {} : { lastError: attempt.error }),
      ...(next?.notBefore === undefined ? {} : { nextAttemptAt: new Date(next.notBefore).toISOString() }),
    },
    doneMs,
  );
  if (!recorded) return 'duplicate';
  if (delivered) {
    if (endpoint.status !== 'healthy' || endpoint.failingSince) await markEndpointSuccess(event.workspaceId, endpoint.endpointId, doneMs);
    return 'delivered';
  }
  if (status === 'parked') {
    logger.warn('webhook delivery parked', { eventId: event.id, endpointId: endpoint.endpointId, attempts: message.seq });
    await markEndpointFailure(event.workspaceId, endpoint.endpointId, doneMs);
    return 'parked';
  }
  return 'retrying';
}

async function readDelivery(event: WebhookEvent, endpointId: string): Promise<DeliverySummary | undefined> {
  const { Item } = await tableClient().send(
    new GetCommand({
      TableName: tableName(),
      Key: keys.webhookDelivery(event.workspaceId, endpointId, event.timestamp, event.id),
      ConsistentRead: true,
    }),
  );
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

export interface DeliveryListing {
  readonly limit?: number;
  /** A `next` of an earlier page. */
  readonly startingAfter?: string;
  readonly status?: DeliveryStatus;
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
    const { Items = [], LastEvaluatedKey } = await tableClient().send(
      new QueryCommand({
        TableName: tableName(),
        KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
        ExpressionAttributeValues: {
          ':pk': prefix.PK,
          ':prefix': prefix.SKPrefix,
          ...(listing.status === undefined ? {} : { ':status': listing.status }),
        },
        ...(listing.status === undefined
          ? {}
          : { FilterExpression: '#status = :status', ExpressionAttributeNames: { '#status': 'status' } }),
        ScanIndexForward: false,
        // Never more than the page has room for: the last item read is then where the next page starts.
        Limit: limit - deliveries.length,
        ...(start === undefined ? {} : { ExclusiveStartKey: start }),
      }),
    );
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
  const { Items = [] } = await tableClient().send(
    new QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
      ExpressionAttributeValues: { ':pk': prefix.PK, ':prefix': prefix.SKPrefix },
      ConsistentRead: true,
    }),
  );
  return Items.map((item) => v.parse(DeliveryAttemptSchema, item));
}

/**
 * Sends a parked or past event to an endpoint again, with the same `webhook-id`, as a new run of the retry schedule.
 * The endpoint must be the event's workspace's, and subscribed or not, it receives what it is asked to.
 */
export async function redeliver(workspaceId: string, endpointId: string, eventId: string, nowMs: number): Promise<DeliverySummary> {
  const [stored, endpoint] = await Promise.all([readEvent(workspaceId, eventId), getEndpoint(workspaceId, endpointId)]);
  if (!endpoint) throw new ApiError('not_found', `No webhook endpoint ${endpointId} in this workspace.`);
  if (!stored) throw new ApiError('not_found', `No event ${eventId} in this workspace in the last ${EVENT_RETENTION_DAYS} days.`);
  const { event } = stored;
  const attempts = await listAttempts(workspaceId, endpointId, eventId);
  const seq = attempts.reduce((highest, attempt) => Math.max(highest, attempt.seq), 0) + 1;
  await sendWebhookMessages([{ kind: 'attempt', workspaceId, eventId, endpointId, seq, tryInRun: 1 }]);
  return {
    eventId,
    eventType: event.type,
    eventTimestamp: event.timestamp,
    endpointId,
    status: 'pending',
    attempts: seq - 1,
    nextAttemptAt: new Date(nowMs).toISOString(),
  };
}
