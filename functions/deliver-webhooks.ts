// The webhook worker: fans each committed event out to its endpoints, and makes each delivery attempt, side by side within a batch.
import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import * as v from 'valibot';
import { chargeWork, flushCostsIfDue } from '#shared/cost/ledger.ts';
import { appendLogKeys, logger, reportRequestCost, withLogKeys } from '#platform/observability.ts';
import { CapacityLedger, withCapacityLedger } from '#platform/meter.ts';
import { tracedHandler } from '#platform/tracing.ts';
import { attemptDelivery, fanOut } from '#shared/webhooks/delivery.ts';
import { WebhookMessageSchema } from '#shared/webhooks/queue.ts';

/** One message's work, charged once the batch it came in has ended. */
interface MessageWork {
  readonly workspaceId: string;
  readonly status: number;
  readonly ledger: CapacityLedger;
  readonly durationMs: number;
}

/**
 * Charges each message's work to its event's workspace under `deliverWebhooks`, as the drain charges its jobs. Two
 * things are shared by the batch and split over its messages: the one receive and the one delete of the batch (two
 * SQS requests), and the invocation's time, since its messages run side by side: their own durations, which overlap,
 * are scaled down to add up to the invocation's at most.
 */
function chargeBatch(done: readonly MessageWork[], messages: number, invocationMs: number): void {
  const busyMs = done.reduce((sum, work) => sum + work.durationMs, 0);
  const overlap = busyMs > invocationMs && busyMs > 0 ? invocationMs / busyMs : 1;
  for (const work of done) {
    work.ledger.queueRequests += 2 / Math.max(1, messages);
    chargeWork({
      workspaceId: work.workspaceId,
      route: 'deliverWebhooks',
      nowMs: Date.now(),
      status: work.status,
      capacity: work.ledger,
      durationMs: work.durationMs * overlap,
      apiRequests: 0,
    });
  }
}

export function createDeliveryHandler(clock: () => Date = () => new Date()) {
  const processor = new BatchProcessor(EventType.SQS);

  async function deliverRecord(record: SQSRecord, done: MessageWork[]): Promise<void> {
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
      const durationMs = performance.now() - started;
      reportRequestCost({ route: 'deliverWebhooks', workspaceId, status, ledger, durationMs });
      if (workspaceId) done.push({ workspaceId, status, ledger, durationMs });
    }
  }

  // In parallel: each attempt mostly waits on its receiver, and a slow receiver must not hold the others back.
  return async (event: SQSEvent, context: Context): Promise<SQSBatchResponse> => {
    const started = performance.now();
    const done: MessageWork[] = [];
    const scoped = (record: SQSRecord) => withLogKeys({ messageId: record.messageId }, () => deliverRecord(record, done));
    try {
      return await processPartialResponse(event, scoped, processor, { context, throwOnFullBatchFailure: false, processInParallel: true });
    } finally {
      chargeBatch(done, event.Records.length, performance.now() - started);
      await flushCostsIfDue();
    }
  };
}

// Traced by route only: one invocation's messages run side by side and may be of different workspaces.
export const handler = tracedHandler('deliverWebhooks', createDeliveryHandler());
