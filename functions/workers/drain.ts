// The drain worker: takes drain and bands jobs off the queue, one per invocation, and reports each failed one for redelivery.
import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import * as v from 'valibot';
import type { DrainHooks } from '#shared/pipeline/job.ts';
import { runDrainJob } from '#shared/pipeline/drain.ts';
import { type DrainMessage, DrainMessageSchema } from '#shared/batches/drain-queue.ts';
import { appendLogKeys, logger, reportWorkerFailure, withLogKeys } from '#platform/observability.ts';
import { backgroundFunction, metered, type MeteredUnit, workspaceShare } from '#edge/metering.ts';
import { workers } from '#edge/routes/workers.ts';
import { annotateWorkspace, tracedHandler } from '#platform/tracing.ts';

const drainFunction = backgroundFunction(workers, 'drain');

/** Builds the worker; tests pass hooks to inject faults between chunks, the deployed worker passes none. */
export function createDrainHandler(hooks: DrainHooks = {}) {
  const processor = new BatchProcessor(EventType.SQS);

  async function drainJob(record: SQSRecord, message: DrainMessage, context: Context): Promise<void> {
    appendLogKeys({ workspaceId: message.workspaceId, batchId: message.batchId, jobId: message.jobId, phase: message.phase ?? 'chunks' });
    annotateWorkspace(message.workspaceId);
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
  }

  // The job is charged to its batch's workspace, as drain or bands work; the receive and the delete of its message
  // are two SQS requests beside the sends the job made.
  async function drainRecord(record: SQSRecord, context: Context): Promise<void> {
    let jobKind: 'drain' | 'bands' = 'drain';
    const job = async (unit: MeteredUnit) => {
      // A message no commit could have sent is a fault of the sender; it fails, and ends in the dead-letter queue.
      const message = v.parse(DrainMessageSchema, JSON.parse(record.body));
      unit.workspaceId = message.workspaceId;
      if (message.phase === 'bands') jobKind = 'bands';
      await drainJob(record, message, context);
    };
    await metered(
      drainFunction,
      (measure) => measure(job),
      ([unit]) => {
        if (unit?.workspaceId) unit.ledger.queueRequests += 2;
        return workspaceShare(unit, { route: jobKind, nowMs: Date.now(), apiRequests: 0 });
      },
    );
  }

  // Each message is its own job: its lines carry its message id, and its batch and job once the body is read; a
  // failure is reported once, in that scope, then answered as a failed message.
  const drainScoped = (record: SQSRecord, context: Context) =>
    withLogKeys({ messageId: record.messageId }, async () => {
      try {
        await drainRecord(record, context);
      } catch (error) {
        reportWorkerFailure(drainFunction.id, error);
        throw error;
      }
    });

  return (event: SQSEvent, context: Context): Promise<SQSBatchResponse> =>
    processPartialResponse(event, drainScoped, processor, { context, throwOnFullBatchFailure: false, processInParallel: false });
}

export const handler = tracedHandler('drain', createDrainHandler());
