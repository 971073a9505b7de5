// The webhook worker: fans each committed event out to its endpoints, and makes each delivery attempt, side by side within a batch.
import * as v from 'valibot';
import { appendLogKeys, logger } from '#platform/observability.ts';
import { queueWorker } from '#edge/background.ts';
import { backgroundFunction } from '#edge/metering.ts';
import { workers } from '#edge/routes/workers.ts';
import { tracedHandler } from '#platform/tracing.ts';
import { attemptDelivery } from '#shared/webhooks/attempt.ts';
import { fanOut } from '#shared/webhooks/delivery.ts';
import { WebhookMessageSchema } from '#shared/webhooks/queue.ts';

const deliveryFunction = backgroundFunction(workers, 'deliverWebhooks');

export function createDeliveryHandler(clock: () => Date = () => new Date()) {
  return queueWorker(
    deliveryFunction,
    {
      // A message nothing of the service could have sent fails, and ends in the dead-letter queue.
      read: (record) => v.parse(WebhookMessageSchema, JSON.parse(record.body)),
      // Each message's work is charged to its event's workspace, as the drain charges its jobs.
      chargedTo: (message) => ({ workspaceId: message.workspaceId }),
      run: async (message) => {
        const endpoint = message.kind === 'attempt' ? { endpointId: message.endpointId } : {};
        appendLogKeys({ workspaceId: message.workspaceId, eventId: message.eventId, ...endpoint });
        if (message.kind === 'fanOut') {
          logger.info('webhook event fanned out', { ...(await fanOut(message, clock().getTime())) });
        } else {
          logger.info('webhook attempt', { outcome: await attemptDelivery(message, clock), seq: message.seq });
        }
      },
    },
    // Side by side: each attempt mostly waits on its receiver, and a slow receiver must not hold the others back.
    'sideBySide',
  );
}

// Traced by route only: one invocation's messages run side by side and may be of different workspaces.
export const handler = tracedHandler('deliverWebhooks', createDeliveryHandler());
