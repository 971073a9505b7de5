// One webhook attempt: sign, send, classify the answer, and schedule the retry or park the delivery.
import { logger } from '#platform/observability.ts';
import { readDelivery, recordAttempt } from './attempt-log.ts';
import { claimProbe, gate, recordBreaker } from './breaker.ts';
import type { DeliveryAttempt, DeliveryStatus } from './delivery-schema.ts';
import { getEndpoint, markEndpointFailure, markEndpointSuccess } from './endpoints.ts';
import { sendInLine } from './fair-share.ts';
import { reportWebhookHealth } from './health-metrics.ts';
import type { WebhookEndpoint } from './endpoint-schema.ts';
import type { WebhookEvent } from './events.ts';
import { type Busy, knownAtBound, LEASE_MARGIN_MS, type Lease, releaseSlot, takeSlot } from './in-flight.ts';
import { readEvent } from './outbox.ts';
import { type AttemptMessage, MAX_DELAY_SECONDS, sendWebhookMessages } from './queue.ts';
import { signingSecrets } from './secrets.ts';
import { deliveryTimeoutMs, type PostOutcome, postToTarget, signedHeaders } from './transport.ts';
import { retrySchedule } from './retry-schedule.ts';
import { assertDeliverableUrl, loopbackHttpAllowed, type ResolvedTarget, UnsafeWebhookUrl } from './url-guard.ts';

const SECOND = 1_000;

export type AttemptOutcome = 'delivered' | 'retrying' | 'parked' | 'waiting' | 'deferred' | 'duplicate' | 'dropped';

/** A wait this short is slept by the worker rather than spent in the queue. */
const SHORT_WAIT_MS = 1_000;

/** Sends an attempt message on, delayed as far as SQS allows, towards its `notBefore`. */
async function waitFor(message: AttemptMessage, nowMs: number): Promise<void> {
  const remainingMs = (message.notBefore ?? nowMs) - nowMs;
  // Whole seconds, rounded down: the message arrives at most a second early, and the worker sleeps the rest.
  await sendWebhookMessages([message], remainingMs <= SHORT_WAIT_MS ? 0 : Math.min(MAX_DELAY_SECONDS, Math.floor(remainingMs / 1000)));
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

/** The event of a message due now, or why it has nothing to deliver. */
type Found = WebhookEvent | 'dropped' | 'duplicate';

/** Whether the message is due: one due later is sent on to wait in the queue. */
async function dueNow(message: AttemptMessage, nowMs: number): Promise<boolean> {
  const early = (message.notBefore ?? nowMs) - nowMs;
  if (early > SHORT_WAIT_MS) {
    await waitFor(message, nowMs);
    return false;
  }
  // SQS delays in whole seconds: the last fraction of a wait is slept here instead of re-sent.
  if (early > 0) await new Promise((resolve) => setTimeout(resolve, early));
  return true;
}

async function findDelivery(message: AttemptMessage, endpoint: WebhookEndpoint, nowMs: number): Promise<Found> {
  const stored = await readEvent(message.workspaceId, message.eventId);
  // The event outlived its retention: nothing is left to deliver.
  if (!stored) return 'dropped';
  const { event } = stored;
  const logged = await readDelivery(event, message.endpointId);
  // A second receive of a message whose attempt is already logged: its next attempt was queued before the log was written.
  if (logged && logged.attempts >= message.seq) {
    if (logged.attempts === message.seq && logged.status === 'parked') await finishParking(endpoint, nowMs);
    return 'duplicate';
  }
  return event;
}

/**
 * A worker that died between parking a delivery and marking its endpoint failing left the endpoint looking healthy:
 * the parking message's second receive marks it, as the first would have. The mark is conditional, so a receive after
 * the first finished changes nothing; the alarm's count is not repeated, since the parking is not.
 */
async function finishParking(endpoint: WebhookEndpoint, nowMs: number): Promise<void> {
  if (!endpoint.enabled || endpoint.status === 'disabled' || endpoint.failingSince) return;
  await markEndpointFailure(endpoint.workspaceId, endpoint.endpointId, nowMs);
}

function deliveryOf(event: WebhookEvent, endpoint: WebhookEndpoint) {
  return { eventId: event.id, eventType: event.type, eventTimestamp: event.timestamp, endpointId: endpoint.endpointId };
}

/** A disabled endpoint is sent nothing: the attempt is logged as not sent, and the delivery parked. */
async function parkAtDisabled(message: AttemptMessage, event: WebhookEvent, endpoint: WebhookEndpoint, attemptedAt: Date, nowMs: number) {
  const attempt = {
    eventId: event.id,
    endpointId: endpoint.endpointId,
    seq: message.seq,
    attemptedAt: attemptedAt.toISOString(),
    latencyMs: 0,
    error: 'not sent: the endpoint is disabled',
  };
  const summary = { status: 'parked' as const, attempts: message.seq, lastAttemptAt: attempt.attemptedAt, lastError: attempt.error };
  await recordAttempt(event, attempt, { ...deliveryOf(event, endpoint), ...summary }, nowMs);
  return 'parked' as const;
}

/** What an answer makes of the delivery: delivered, pending with its next attempt queued, or parked once the schedule is spent. */
async function classify(message: AttemptMessage, outcome: PostOutcome, clock: () => Date) {
  const delivered = outcome.status !== undefined && outcome.status >= 200 && outcome.status < 300;
  const wait = delivered ? undefined : retrySchedule()[message.tryInRun - 1];
  const status: DeliveryStatus = delivered ? 'delivered' : wait === undefined ? 'parked' : 'pending';
  const doneMs = clock().getTime();
  const next: AttemptMessage | undefined =
    status === 'pending' && wait !== undefined
      ? { ...message, seq: message.seq + 1, tryInRun: message.tryInRun + 1, notBefore: doneMs + wait }
      : undefined;
  if (next) await waitFor(next, doneMs);
  return { delivered, status, doneMs, next };
}

function attemptRecord(message: AttemptMessage, event: WebhookEvent, endpoint: WebhookEndpoint, attemptedAt: Date, outcome: PostOutcome) {
  return {
    eventId: event.id,
    endpointId: endpoint.endpointId,
    seq: message.seq,
    attemptedAt: attemptedAt.toISOString(),
    latencyMs: outcome.latencyMs,
    ...(outcome.status === undefined ? {} : { status: outcome.status }),
    ...(outcome.error === undefined ? {} : { error: outcome.error }),
    ...(outcome.response === undefined ? {} : { response: outcome.response }),
  } satisfies DeliveryAttempt;
}

function summaryAfter(attempt: DeliveryAttempt, status: DeliveryStatus, next: AttemptMessage | undefined) {
  return {
    status,
    attempts: attempt.seq,
    lastAttemptAt: attempt.attemptedAt,
    ...(attempt.status === undefined ? {} : { lastStatus: attempt.status }),
    ...(attempt.error === undefined ? {} : { lastError: attempt.error }),
    ...(next?.notBefore === undefined ? {} : { nextAttemptAt: new Date(next.notBefore).toISOString() }),
  };
}

/** The longest a deferral waits, however often the attempt was deferred before. */
const MAX_DEFERRAL_MS = 60 * SECOND;

/**
 * Sends a deferred attempt on to wait until `untilMs` or its place in its workspace's line, whichever is later, in
 * whole seconds (so that no worker sleeps out a fraction). At
 * a full bound (`growing`) it waits longer each time the same attempt is deferred again: a workspace that keeps its
 * slots full has its backlog come back ever more rarely, instead of churning through the queue ahead of others'.
 */
async function defer(message: AttemptMessage, untilMs: number, nowMs: number, why: string, growing = false): Promise<'deferred'> {
  const deferrals = (message.deferrals ?? 0) + 1;
  const growth = growing ? 2 ** Math.min(deferrals - 1, 6) : 1;
  const backoffMs = Math.min(MAX_DEFERRAL_MS, Math.max(untilMs - nowMs, SECOND) * growth);
  // Spread (over a second, or half again as long at a full bound), so that siblings deferred together return apart.
  const spread = growing ? Math.ceil(backoffMs / 2 / SECOND) + 1 : 2;
  const seconds = Math.ceil(backoffMs / SECOND) + Math.floor(Math.random() * spread);
  const notBefore = nowMs + seconds * SECOND;
  logger.info('webhook attempt deferred', { why, deferrals, notBefore: new Date(notBefore).toISOString() });
  // Back in its workspace's line, no sooner than its wait: a workspace's backlog comes round at its line's pace.
  await sendInLine(message.workspaceId, [{ ...message, deferrals, notBefore }], nowMs);
  return 'deferred';
}

/**
 * An attempt beyond a bound. At its endpoint's, it tries again a second or two on, every time: a receiver that answers
 * fast frees its slots that soon, and a burst to one endpoint holds only that endpoint up. At its workspace's, it
 * waits an attempt's timeout, the longest a slot can be held, and longer at each further deferral, so that a flooding
 * workspace's backlog does not come round again and again ahead of other workspaces' messages.
 */
function deferAtBound(message: AttemptMessage, busy: Busy, nowMs: number): Promise<'deferred'> {
  if (busy === 'endpoint') return defer(message, nowMs + SECOND, nowMs, 'endpoint at its in-flight bound');
  return defer(message, nowMs + deliveryTimeoutMs(), nowMs, 'workspace at its in-flight bound', true);
}

/**
 * Whether the attempt may go now: the endpoint's breaker lets it (closed, or half-open with the probe claimed), and a
 * slot under the endpoint's and the workspace's in-flight bounds is free. Otherwise it is deferred: the same message,
 * the same attempt number, sent on to wait, neither dropped nor counted as a failure.
 */
async function admitAttempt(message: AttemptMessage, endpoint: WebhookEndpoint, nowMs: number): Promise<Lease | 'deferred'> {
  const timeoutMs = deliveryTimeoutMs();
  const holdMs = timeoutMs + LEASE_MARGIN_MS;
  const breaker = gate(endpoint, nowMs);
  if ('deferUntil' in breaker) return defer(message, breaker.deferUntil, nowMs, 'circuit open');
  const slot = await takeSlot(message.workspaceId, endpoint.endpointId, holdMs, nowMs);
  // A slot frees within an attempt's timeout: try again about then.
  if (typeof slot === 'string') return deferAtBound(message, slot, nowMs);
  if (breaker.go === 'probe' && !(await claimProbe(endpoint, holdMs, nowMs))) {
    await releaseSlot(slot);
    return defer(message, nowMs + timeoutMs, nowMs, 'another attempt is the probe');
  }
  if (breaker.go === 'probe') logger.info('webhook circuit probe', { endpointId: endpoint.endpointId });
  return slot;
}

/** The attempt's answer made into the delivery's log and state, and the endpoint's health and breaker. */
async function attemptAdmitted(message: AttemptMessage, event: WebhookEvent, endpoint: WebhookEndpoint, clock: () => Date) {
  const attemptedAt = clock();
  const outcome = await attemptOnce(endpoint, event, attemptedAt);
  const { delivered, status, doneMs, next } = await classify(message, outcome, clock);
  const attempt = attemptRecord(message, event, endpoint, attemptedAt, outcome);
  const recorded = await recordAttempt(event, attempt, { ...deliveryOf(event, endpoint), ...summaryAfter(attempt, status, next) }, doneMs);
  if (!recorded) return 'duplicate';
  await recordBreaker(endpoint, delivered, doneMs);
  if (delivered) {
    if (endpoint.failingSince) await markEndpointSuccess(event.workspaceId, endpoint.endpointId, doneMs);
    return 'delivered';
  }
  if (status === 'parked') {
    logger.warn('webhook delivery parked', { eventId: event.id, endpointId: endpoint.endpointId, attempts: message.seq });
    reportWebhookHealth('parked');
    await markEndpointFailure(event.workspaceId, endpoint.endpointId, doneMs);
    return 'parked';
  }
  return 'retrying';
}

/**
 * One attempt of one event at one endpoint. A failure queues the next attempt before it is recorded, so that a worker
 * stopped in between still leaves the delivery going (a duplicate attempt is refused by the log); the last failure
 * parks the delivery and marks the endpoint failing. The attempt holds an in-flight slot while it runs: given back at
 * the end, or lapsing on its own if the worker dies.
 */
export async function attemptDelivery(message: AttemptMessage, clock: () => Date = () => new Date()): Promise<AttemptOutcome> {
  const nowMs = clock().getTime();
  if (!(await dueNow(message, nowMs))) return 'waiting';
  // An attempt this process just found at a full bound is deferred without a read.
  const known = knownAtBound(message.workspaceId, message.endpointId, nowMs);
  if (known) return deferAtBound(message, known, nowMs);
  // The endpoint first: an attempt the breaker or the bounds defer costs no read of the event or its log.
  const endpoint = await getEndpoint(message.workspaceId, message.endpointId);
  if (!endpoint) return 'dropped';
  const disabled = !endpoint.enabled || endpoint.status === 'disabled';
  const slot = disabled ? undefined : await admitAttempt(message, endpoint, clock().getTime());
  if (slot === 'deferred') return slot;
  try {
    const event = await findDelivery(message, endpoint, nowMs);
    if (typeof event === 'string') return event;
    if (disabled) return await parkAtDisabled(message, event, endpoint, clock(), nowMs);
    return await attemptAdmitted(message, event, endpoint, clock);
  } finally {
    if (slot) await releaseSlot(slot);
  }
}
