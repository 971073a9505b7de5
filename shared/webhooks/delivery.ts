// Webhook delivery: fan-out of an event to its endpoints and redelivery; one attempt, its transport and its log are beside it.
import { ApiError } from '#platform/errors.ts';
import { listAttempts } from './attempt-log.ts';
import type { DeliverySummary } from './delivery-schema.ts';
import { endpointsSubscribedTo, getEndpoint } from './endpoints.ts';
import { fanOutWaits, sendInLine } from './fair-share.ts';
import { EVENT_RETENTION_DAYS, markDispatched, readEvent } from './outbox.ts';
import type { FanOutMessage } from './queue.ts';
import { takeRedelivery } from './redelivery-limit.ts';

export type FanOutOutcome = 'fannedOut' | 'waiting' | 'duplicate' | 'unknown';

/**
 * Queues the first attempt of an event at every endpoint subscribed to it, in their places on the workspace's line,
 * then takes it off the sweeper's list.
 */
export async function fanOut(message: FanOutMessage, nowMs: number): Promise<{ outcome: FanOutOutcome; endpoints: number }> {
  if (await fanOutWaits(message, nowMs)) return { outcome: 'waiting', endpoints: 0 };
  const stored = await readEvent(message.workspaceId, message.eventId);
  if (!stored) return { outcome: 'unknown', endpoints: 0 };
  if (stored.dispatchedAt) return { outcome: 'duplicate', endpoints: 0 };
  const { event } = stored;
  // Only the event's own workspace's endpoints are read: another workspace's can never be found from here.
  const endpoints = await endpointsSubscribedTo(event.workspaceId, event.type);
  await sendInLine(
    event.workspaceId,
    endpoints.map((endpoint) => ({
      kind: 'attempt' as const,
      workspaceId: event.workspaceId,
      eventId: event.id,
      endpointId: endpoint.endpointId,
      seq: 1,
      tryInRun: 1,
    })),
    nowMs,
  );
  await markDispatched(
    event,
    endpoints.map((endpoint) => endpoint.endpointId),
    nowMs,
  );
  return { outcome: 'fannedOut', endpoints: endpoints.length };
}

/**
 * Sends a parked or past event to an endpoint again, with the same `webhook-id`, as a new run of the retry schedule.
 * The endpoint must be the event's workspace's, and subscribed or not, it receives what it is asked to. Each endpoint
 * may be asked for so many a minute (redelivery-limit.ts); past that, 429 and nothing is queued.
 */
export async function redeliver(workspaceId: string, endpointId: string, eventId: string, nowMs: number): Promise<DeliverySummary> {
  const [stored, endpoint] = await Promise.all([readEvent(workspaceId, eventId), getEndpoint(workspaceId, endpointId)]);
  if (!endpoint) throw new ApiError('not_found', `No webhook endpoint ${endpointId} in this workspace.`);
  if (!stored) throw new ApiError('not_found', `No event ${eventId} in this workspace in the last ${EVENT_RETENTION_DAYS} days.`);
  const { event } = stored;
  await takeRedelivery(workspaceId, endpointId, nowMs);
  const attempts = await listAttempts(workspaceId, endpointId, eventId);
  const seq = attempts.reduce((highest, attempt) => Math.max(highest, attempt.seq), 0) + 1;
  await sendInLine(workspaceId, [{ kind: 'attempt', workspaceId, eventId, endpointId, seq, tryInRun: 1 }], nowMs);
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
