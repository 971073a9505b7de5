// The webhook worker: fans each committed event out to its endpoints, and makes each delivery attempt, side by side within a batch.
import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import * as v from 'valibot';
import { appendLogKeys, logger, reportWorkerFailure, withLogKeys } from '#platform/observability.ts';
import { backgroundFunction, metered, type MeteredUnit, sideBySideShares } from '#edge/metering.ts';
import { workers } from '#edge/routes/workers.ts';
import { tracedHandler } from '#platform/tracing.ts';
import { attemptDelivery } from '#shared/webhooks/attempt.ts';
import { fanOut } from '#shared/webhooks/delivery.ts';
import { WebhookMessageSchema } from '#shared/webhooks/queue.ts';

const deliveryFunction = backgroundFunction(workers, 'deliverWebhooks');

export function createDeliveryHandler(clock: () => Date = () => new Date()) {
  const processor = new BatchProcessor(EventType.SQS);

  async function deliverRecord(record: SQSRecord, unit: MeteredUnit): Promise<void> {
    // A message nothing of the service could have sent fails, and ends in the dead-letter queue.
    const message = v.parse(WebhookMessageSchema, JSON.parse(record.body));
    unit.workspaceId = message.workspaceId;
    appendLogKeys({
      workspaceId: message.workspaceId,
      eventId: message.eventId,
      ...(message.kind === 'attempt' ? { endpointId: message.endpointId } : {}),
    });
    if (message.kind === 'fanOut') {
      logger.info('webhook event fanned out', { ...(await fanOut(message, clock().getTime())) });
    } else {
      logger.info('webhook attempt', { outcome: await attemptDelivery(message, clock), seq: message.seq });
    }
  }

  // In parallel: each attempt mostly waits on its receiver, and a slow receiver must not hold the others back.
  return (event: SQSEvent, context: Context): Promise<SQSBatchResponse> =>
    metered(
      deliveryFunction,
      (measure) => {
        const scoped = (record: SQSRecord) =>
          withLogKeys({ messageId: record.messageId }, async () => {
            try {
              await measure((unit) => deliverRecord(record, unit));
            } catch (error) {
              reportWorkerFailure(deliveryFunction.id, error);
              throw error;
            }
          });
        return processPartialResponse(event, scoped, processor, { context, throwOnFullBatchFailure: false, processInParallel: true });
      },
      // Each message's work is charged to its event's workspace, as the drain charges its jobs.
      (units, invocationMs) => sideBySideShares('deliverWebhooks', units, event.Records.length, invocationMs),
    );
}

// Traced by route only: one invocation's messages run side by side and may be of different workspaces.
export const handler = tracedHandler('deliverWebhooks', createDeliveryHandler());
