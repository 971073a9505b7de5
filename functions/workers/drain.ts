// The drain worker: takes drain and bands jobs off the queue, one per invocation, and reports each failed one for redelivery.
import * as v from 'valibot';
import type { DrainHooks } from '#shared/pipeline/job.ts';
import { runDrainJob } from '#shared/pipeline/drain.ts';
import { DrainMessageSchema } from '#shared/batches/drain-queue.ts';
import { appendLogKeys, logger } from '#platform/observability.ts';
import { queueWorker } from '#edge/background.ts';
import { backgroundFunction } from '#edge/metering.ts';
import { workers } from '#edge/routes/workers.ts';
import { annotateWorkspace, tracedHandler } from '#platform/tracing.ts';

const drainFunction = backgroundFunction(workers, 'drain');

/** Builds the worker; tests pass hooks to inject faults between chunks, the deployed worker passes none. */
export function createDrainHandler(hooks: DrainHooks = {}) {
  return queueWorker(
    drainFunction,
    {
      // A message no commit could have sent is a fault of the sender; it fails, and ends in the dead-letter queue.
      read: (record) => v.parse(DrainMessageSchema, JSON.parse(record.body)),
      // The job is charged to its batch's workspace, as drain or bands work.
      chargedTo: (message) => ({ workspaceId: message.workspaceId, route: message.phase === 'bands' ? 'bands' : 'drain' }),
      run: async (message, record, context) => {
        appendLogKeys({
          workspaceId: message.workspaceId,
          batchId: message.batchId,
          jobId: message.jobId,
          phase: message.phase ?? 'chunks',
        });
        annotateWorkspace(message.workspaceId);
        const receiveCount = Number(record.attributes.ApproximateReceiveCount || '1');
        const job = { message, body: record.body, receiveCount, remainingMs: () => context.getRemainingTimeInMillis() };
        logger.info('drain job step', { ...(await runDrainJob(job, hooks)) });
      },
    },
    'oneAtATime',
  );
}

export const handler = tracedHandler('drain', createDrainHandler());
