// The local SQS event source mapping against the SQS emulator: partial failures and the dead-letter queue.
import { randomUUID } from 'node:crypto';
import { DeleteMessageCommand, ReceiveMessageCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { type QueuePoller, startQueuePoller } from '#lib/local/queue-poller.ts';
import { createQueue, localSqsClient } from '#lib/local/queues.ts';
import { queueClient } from '#platform/queue-client.ts';
import { queues } from '#platform/queues.ts';

const sqs = localSqsClient(inject('stack').sqsEndpoint);
const pollers: QueuePoller[] = [];
afterAll(async () => {
  await Promise.all(pollers.map((poller) => poller.stop()));
  sqs.destroy();
});

async function eventually(check: () => boolean | Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`not reached within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * A queue of its own with the drain queue's redrive, and a visibility timeout of 1 s (unless told otherwise) so that
 * redeliveries come quickly.
 */
async function pollQueue(
  handler: (event: SQSEvent, context: Context) => Promise<SQSBatchResponse | undefined>,
  options: { visibilityTimeoutSeconds?: number; timeoutSeconds?: number; batchSize?: number; concurrency?: number } = {},
) {
  const queue = await createQueue(sqs, `poller-${randomUUID()}`, queues.drain, {
    visibilityTimeoutSeconds: options.visibilityTimeoutSeconds ?? 1,
  });
  pollers.push(
    startQueuePoller({
      sqs,
      queueUrl: queue.url,
      queueArn: queue.arn,
      fn: { name: 'test-worker', memoryMb: 128, timeoutSeconds: options.timeoutSeconds ?? 5 },
      handler,
      batchSize: options.batchSize ?? 10,
      ...(options.concurrency === undefined ? {} : { concurrency: options.concurrency }),
      onInvocationError: () => undefined,
    }),
  );
  return queue;
}

describe('the local SQS event source mapping', () => {
  it('redelivers only the messages a partial batch response reports as failed', async () => {
    const deliveries = new Map<string, number>();
    const queue = await pollQueue(async (event) => {
      const failures = [];
      for (const record of event.Records) {
        const seen = (deliveries.get(record.body) ?? 0) + 1;
        deliveries.set(record.body, seen);
        if (record.body === 'b' && seen === 1) failures.push({ itemIdentifier: record.messageId });
      }
      return { batchItemFailures: failures };
    });
    for (const body of ['a', 'b', 'c']) await sqs.send(new SendMessageCommand({ QueueUrl: queue.url, MessageBody: body }));

    await eventually(() => deliveries.get('b') === 2, 10_000);
    // Past one more visibility timeout: anything not deleted would have come back by now.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(Object.fromEntries(deliveries)).toEqual({ a: 1, b: 2, c: 1 });
  });

  it('runs as many invocations at once as its concurrency allows, and never more', async () => {
    let inFlight = 0;
    let mostAtOnce = 0;
    let handled = 0;
    let release = () => {};
    const released = new Promise<void>((resolve) => (release = resolve));
    const queue = await pollQueue(
      async () => {
        inFlight += 1;
        mostAtOnce = Math.max(mostAtOnce, inFlight);
        await released;
        inFlight -= 1;
        handled += 1;
        return { batchItemFailures: [] };
      },
      { batchSize: 1, concurrency: 3, visibilityTimeoutSeconds: 30, timeoutSeconds: 20 },
    );
    for (let index = 0; index < 8; index++) await sqs.send(new SendMessageCommand({ QueueUrl: queue.url, MessageBody: `m${index}` }));

    // Held invocations keep their pollers busy, so the others' receives find the queue still full.
    await eventually(() => inFlight === 3, 10_000);
    release();
    await eventually(() => handled === 8, 10_000);
    expect(mostAtOnce).toBe(3);
  });

  it('hands the worker SQS records with their receive count and the queue ARN', async () => {
    const records: SQSEvent['Records'] = [];
    const queue = await pollQueue(async (event) => {
      records.push(...event.Records);
      return { batchItemFailures: [] };
    });
    await sqs.send(new SendMessageCommand({ QueueUrl: queue.url, MessageBody: '{"batchId":"x"}' }));
    await eventually(() => records.length === 1, 5_000);
    expect(records[0]).toMatchObject({
      body: '{"batchId":"x"}',
      eventSource: 'aws:sqs',
      eventSourceARN: queue.arn,
      attributes: { ApproximateReceiveCount: '1' },
    });
  });

  it('moves a message that always fails to the dead-letter queue after maxReceiveCount receives', async () => {
    let attempts = 0;
    const queue = await pollQueue(async () => {
      attempts += 1;
      throw new Error('poison');
    });
    await sqs.send(new SendMessageCommand({ QueueUrl: queue.url, MessageBody: 'poison' }));

    const dead: string[] = [];
    await eventually(async () => {
      const { Messages } = await sqs.send(
        new ReceiveMessageCommand({ QueueUrl: queue.deadLetterUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 0 }),
      );
      dead.push(...(Messages ?? []).map((message) => message.Body ?? ''));
      return dead.length > 0;
    }, 20_000);
    expect(dead).toEqual(['poison']);
    expect(attempts).toBe(queues.drain.maxReceiveCount);
  });

  it('delivers the message of an invocation that timed out again, whatever that invocation does with it after its deadline', async () => {
    let deliveries = 0;
    let lateCalls: Promise<unknown> | undefined;
    // The stack's visibility timeout is six times the worker's timeout; here 3 s against 1 s.
    const queue = await pollQueue(
      async (event, context) => {
        deliveries += 1;
        if (deliveries > 1) return { batchItemFailures: [] };
        const [record] = event.Records;
        if (!record) throw new Error('an empty batch');
        await new Promise((resolve) => setTimeout(resolve, context.getRemainingTimeInMillis() + 200));
        // What a worker that gives up on a message does: park it in the dead-letter queue and take it off the queue.
        lateCalls = Promise.allSettled([
          queueClient().send(new SendMessageCommand({ QueueUrl: queue.deadLetterUrl, MessageBody: record.body })),
          queueClient().send(new DeleteMessageCommand({ QueueUrl: queue.url, ReceiptHandle: record.receiptHandle })),
        ]);
        await lateCalls;
        return { batchItemFailures: [] };
      },
      { visibilityTimeoutSeconds: 3, timeoutSeconds: 1 },
    );
    await sqs.send(new SendMessageCommand({ QueueUrl: queue.url, MessageBody: 'slow' }));

    await eventually(() => deliveries === 2, 20_000);
    expect(await lateCalls).toEqual([
      expect.objectContaining({ status: 'rejected', reason: expect.objectContaining({ name: 'InvocationTimedOut' }) }),
      expect.objectContaining({ status: 'rejected', reason: expect.objectContaining({ name: 'InvocationTimedOut' }) }),
    ]);
    const { Messages } = await sqs.send(new ReceiveMessageCommand({ QueueUrl: queue.deadLetterUrl, WaitTimeSeconds: 0 }));
    expect(Messages ?? []).toEqual([]);
  });
});
