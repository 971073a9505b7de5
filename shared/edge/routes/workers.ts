// The rows of the functions no route calls: the queue workers and the scheduled jobs.
import type { QueueWorker, RouteAccess } from './rows.ts';

export const workers: readonly QueueWorker[] = [
  {
    id: 'drain',
    queue: 'drain',
    entry: 'functions/workers/drain.ts',
    // One job per invocation: each drain gets the whole timeout, and a slow batch never delays another.
    batchSize: 1,
    // Drains of one batch, and bands jobs of one workspace, run one at a time anyway (leases): ten at once serve ten
    // workspaces, about 1% of an account's default concurrency of 1,000. docs/operations.md has the reasoning.
    maxConcurrency: 10,
    memoryMb: 1024,
    // It re-enqueues itself to continue, and parks a job it gives up on in the dead-letter queue.
    access: { table: 'readWrite', tableStatements: true, sendTo: ['drain', 'webhooks'], sendToDeadLetter: ['drain'] },
  },
  {
    id: 'deliverWebhooks',
    queue: 'webhooks',
    entry: 'functions/workers/deliver-webhooks.ts',
    // Attempts run side by side and mostly wait on receivers: ten per invocation share one instance's sockets.
    batchSize: 10,
    // Ten invocations of ten attempts each: a hundred receivers waited on at once, at least ten attempts a second when
    // every receiver takes its full 10 s, with 1% of an account's default concurrency. docs/operations.md has more.
    maxConcurrency: 10,
    memoryMb: 512,
    // It sends its own retries, delayed, to its queue, and opens the endpoints' signing secrets with the data key.
    access: { table: 'readWrite', sendTo: ['webhooks'], webhookSecrets: true },
  },
];

/** A function run on a timer: an EventBridge schedule in the stack, a timer in local mode. */
export interface ScheduledJob {
  readonly id: string;
  readonly entry: string;
  readonly everyMinutes: number;
  readonly memoryMb: number;
  readonly timeoutSeconds: number;
  readonly access: RouteAccess;
}

export const scheduledJobs: readonly ScheduledJob[] = [
  {
    id: 'sweepWebhookOutbox',
    entry: 'functions/workers/sweep-webhook-outbox.ts',
    // Once a minute: an event whose hand-off after commit was lost goes out within about a minute and a half, and a
    // batch whose drain message was lost goes back on the drain queue within a minute of its 15 unseen.
    everyMinutes: 1,
    memoryMb: 256,
    timeoutSeconds: 60,
    access: { table: 'readWrite', sendTo: ['webhooks', 'drain'] },
  },
];
