// A test event sent to one endpoint on request: stored as any event is (so that its attempts and payload can be read), tried once.
import { ApiError } from '#platform/errors.ts';
import { putItem } from '#platform/table/commands.ts';
import { keys } from '#platform/table/keys.ts';
import { RETRY_SCHEDULE_MS } from './retry-schedule.ts';
import { requireEndpoint } from './endpoints.ts';
import { newEvent, TEST_EVENT_TYPE, type WebhookEvent } from './events.ts';
import { EVENT_RETENTION_DAYS } from './outbox.ts';
import { sendInLine } from './fair-share.ts';
import { takeRedelivery } from './redelivery-limit.ts';

/**
 * The place in a run that has no wait after it: a test attempt that fails is parked at once, instead of being retried
 * for three days against a receiver someone is still setting up.
 */
export const TEST_TRY_IN_RUN = RETRY_SCHEDULE_MS.length + 1;

/**
 * Sends a `webhook.test` event to one enabled endpoint of the workspace, and only to it. It counts against the
 * endpoint's redelivery limit (20 a minute), so that the button cannot be used to flood a receiver. The event is
 * written without the outbox's sweeper entry: it is handed to the queue here, for this endpoint alone.
 */
export async function sendTestEvent(workspaceId: string, endpointId: string, nowMs: number): Promise<WebhookEvent> {
  const endpoint = await requireEndpoint(workspaceId, endpointId);
  if (!endpoint.enabled) {
    throw new ApiError('invalid_request', 'The endpoint is disabled: enable it before sending it a test event.', { param: 'enabled' });
  }
  await takeRedelivery(workspaceId, endpointId, nowMs);
  const event = newEvent(TEST_EVENT_TYPE, workspaceId, { endpointId, requestedAt: new Date(nowMs).toISOString() }, new Date(nowMs));
  const stored = await putItem({
    Item: {
      ...keys.webhookEvent(workspaceId, event.id),
      type: 'webhookEvent',
      event,
      dispatchedAt: event.timestamp,
      endpointIds: [endpointId],
      expiresAt: Math.floor(nowMs / 1000) + EVENT_RETENTION_DAYS * 86_400,
    },
    ConditionExpression: 'attribute_not_exists(PK)',
  });
  if (stored.refused) throw stored.error;
  await sendInLine(
    workspaceId,
    [{ kind: 'attempt', workspaceId, eventId: event.id, endpointId, seq: 1, tryInRun: TEST_TRY_IN_RUN }],
    nowMs,
  );
  return event;
}
