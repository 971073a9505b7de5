// The drain worker: takes drain and bands jobs off the queue, one per invocation, and reports each failed one for redelivery.
import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import * as v from 'valibot';
import { type DrainHooks, runDrainJob } from '../shared/batches/drain.ts';
import { DrainMessageSchema } from '../shared/batches/drain-queue.ts';
import { appendLogKeys, logger, reportRequestCost, withLogKeys } from '../shared/observability.ts';
import { CapacityLedger, withCapacityLedger } from '../shared/table/capacity.ts';

/** Builds the worker; tests pass hooks to inject faults between chunks, the deployed worker passes none. */
export function createDrainHandler(hooks: DrainHooks = {}) {
  const processor = new BatchProcessor(EventType.SQS);

  async function drainRecord(record: SQSRecord, context: Context): Promise<void> {
    const ledger = new CapacityLedger();
    const started = performance.now();
    let status = 500;
    let workspaceId: string | undefined;
    try {
      await withCapacityLedger(ledger, async () => {
        // A message no commit could have sent is a fault of the sender; it fails, and ends in the dead-letter queue.
        const message = v.parse(DrainMessageSchema, JSON.parse(record.body));
        workspaceId = message.workspaceId;
        appendLogKeys({ workspaceId, batchId: message.batchId, jobId: message.jobId, phase: message.phase ?? 'chunks' });
        const result = await runDrainJob(
          {
            message,
            body: record.body,
            receiveCount: Number(record.attributes.ApproximateReceiveCount || '1'),
            remainingMs: () => context.getRemainingTimeInMillis(),
          },
          hooks,
        );
        logger.info('drain job step', { ...result });
      });
      status = 200;
    } finally {
      reportRequestCost({ route: 'drain', workspaceId, status, ledger, durationMs: performance.now() - started });
    }
  }

  // Each message is its own job: its lines carry its message id, and its batch and job once the body is read.
  const drainScoped = (record: SQSRecord, context: Context) =>
    withLogKeys({ messageId: record.messageId }, () => drainRecord(record, context));

  return (event: SQSEvent, context: Context): Promise<SQSBatchResponse> =>
    processPartialResponse(event, drainScoped, processor, { context, throwOnFullBatchFailure: false, processInParallel: false });
}

export const handler = createDrainHandler();
