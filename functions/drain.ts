// The drain worker: takes drain and bands jobs off the queue, one per invocation, and reports each failed one for redelivery.
import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import * as v from 'valibot';
import { type DrainHooks, runDrainJob } from '#shared/pipeline/drain.ts';
import { DrainMessageSchema } from '#shared/batches/drain-queue.ts';
import { chargeWork, flushCostsIfDue } from '#shared/cost/ledger.ts';
import { appendLogKeys, logger, reportRequestCost, withLogKeys } from '#platform/observability.ts';
import { CapacityLedger, withCapacityLedger } from '#platform/table/capacity.ts';
import { annotateWorkspace, tracedHandler } from '#platform/tracing.ts';

/** Builds the worker; tests pass hooks to inject faults between chunks, the deployed worker passes none. */
export function createDrainHandler(hooks: DrainHooks = {}) {
  const processor = new BatchProcessor(EventType.SQS);

  async function drainRecord(record: SQSRecord, context: Context): Promise<void> {
    const ledger = new CapacityLedger();
    const started = performance.now();
    let status = 500;
    let workspaceId: string | undefined;
    let jobKind: 'drain' | 'bands' = 'drain';
    try {
      await withCapacityLedger(ledger, async () => {
        // A message no commit could have sent is a fault of the sender; it fails, and ends in the dead-letter queue.
        const message = v.parse(DrainMessageSchema, JSON.parse(record.body));
        workspaceId = message.workspaceId;
        if (message.phase === 'bands') jobKind = 'bands';
        appendLogKeys({ workspaceId, batchId: message.batchId, jobId: message.jobId, phase: message.phase ?? 'chunks' });
        annotateWorkspace(workspaceId);
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
      const durationMs = performance.now() - started;
      reportRequestCost({ route: 'drain', workspaceId, status, ledger, durationMs });
      // The job is charged to its batch's workspace, as drain or bands work; the receive and the delete of its message
      // are two SQS requests beside the sends the job made.
      if (workspaceId) {
        ledger.queueRequests += 2;
        chargeWork({ workspaceId, route: jobKind, nowMs: Date.now(), status, capacity: ledger, durationMs, apiRequests: 0 });
      }
      await flushCostsIfDue();
    }
  }

  // Each message is its own job: its lines carry its message id, and its batch and job once the body is read.
  const drainScoped = (record: SQSRecord, context: Context) =>
    withLogKeys({ messageId: record.messageId }, () => drainRecord(record, context));

  return (event: SQSEvent, context: Context): Promise<SQSBatchResponse> =>
    processPartialResponse(event, drainScoped, processor, { context, throwOnFullBatchFailure: false, processInParallel: false });
}

export const handler = tracedHandler('drain', createDrainHandler());
