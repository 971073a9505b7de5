// The webhook worker: fans each committed event out to its endpoints, and makes each delivery attempt, side by side within a batch.
import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import * as v from 'valibot';
import { appendLogKeys, logger, reportRequestCost, withLogKeys } from '../shared/observability.ts';
import { CapacityLedger, withCapacityLedger } from '../shared/table/capacity.ts';
import { attemptDelivery, fanOut } from '../shared/webhooks/delivery.ts';
import { WebhookMessageSchema } from '../shared/webhooks/queue.ts';

export function createDeliveryHandler(clock: () => Date = () => new Date()) {
  const processor = new BatchProcessor(EventType.SQS);

  async function deliverRecord(record: SQSRecord): Promise<void> {
    const ledger = new CapacityLedger();
    const started = performance.now();
    let status = 500;
    let workspaceId: string | undefined;
    try {
      await withCapacityLedger(ledger, async () => {
        // A message nothing of the service could have sent fails, and ends in the dead-letter queue.
        const message = v.parse(WebhookMessageSchema, JSON.parse(record.body));
        workspaceId = message.workspaceId;
        appendLogKeys({ workspaceId, eventId: message.eventId, ...(message.kind === 'attempt' ? { endpointId: message.endpointId } : {}) });
        if (message.kind === 'fanOut') {
          logger.info('webhook event fanned out', { ...(await fanOut(message, clock().getTime())) });
        } else {
          logger.info('webhook attempt', { outcome: await attemptDelivery(message, clock), seq: message.seq });
        }
      });
      status = 200;
    } finally {
      reportRequestCost({ route: 'deliverWebhooks', workspaceId, status, ledger, durationMs: performance.now() - started });
    }
  }

  const scoped = (record: SQSRecord) => withLogKeys({ messageId: record.messageId }, () => deliverRecord(record));

  // In parallel: each attempt mostly waits on its receiver, and a slow receiver must not hold the others back.
  return (event: SQSEvent, context: Context): Promise<SQSBatchResponse> =>
    processPartialResponse(event, scoped, processor, { context, throwOnFullBatchFailure: false, processInParallel: true });
}

export const handler = createDeliveryHandler();
