// Drain jobs on the queue: the message a commit sends, the bands job a drain sends, and continuation, bounce and dead-letter sends.
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import * as v from 'valibot';
import { drainDeadLetterQueueUrl, drainQueueUrl } from '#platform/config.ts';
import { queueClient } from '#platform/queue-client.ts';
import { currentLedger } from '#platform/meter.ts';

export const DrainMessageSchema = v.object({
  workspaceId: v.string(),
  batchId: v.string(),
  jobId: v.string(),
  sentAt: v.string(),
  /** How many times this job has handed itself on to a fresh invocation; for logs and limits. */
  continuation: v.optional(v.pipe(v.number(), v.safeInteger(), v.minValue(0))),
  /** `chunks` (the commit's job) applies the staged records; `bands`, sent when that is done, recomputes bands. */
  phase: v.optional(v.picklist(['chunks', 'bands'])),
});
export type DrainMessage = v.InferOutput<typeof DrainMessageSchema>;

export async function sendDrainMessage(message: DrainMessage, delaySeconds = 0): Promise<void> {
  await queueClient().send(
    new SendMessageCommand({ QueueUrl: drainQueueUrl(), MessageBody: JSON.stringify(message), DelaySeconds: delaySeconds }),
  );
  countQueueRequest();
}

/** Each message here is far under 64 KB: one SQS request per send. */
function countQueueRequest(): void {
  const ledger = currentLedger();
  if (ledger) ledger.queueRequests += 1;
}

/** Parks a job the worker gave up on where an operator looks for failed messages, with the reason beside it. */
export async function sendToDrainDeadLetter(body: string, reason: string): Promise<void> {
  await queueClient().send(
    new SendMessageCommand({
      QueueUrl: drainDeadLetterQueueUrl(),
      MessageBody: body,
      MessageAttributes: { reason: { DataType: 'String', StringValue: reason.slice(0, 1000) } },
    }),
  );
  countQueueRequest();
}
