// Local stand-in for Lambda's SQS event source mapping: polls a queue, invokes the worker, honours partial batch failures.
import { DeleteMessageBatchCommand, type Message, ReceiveMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import type { AnyHandler } from './handlers.ts';
import { invokeWithTimeout, LOCAL_REGION, type LocalFunction } from './lambda-context.ts';

export interface QueuePollerOptions {
  readonly sqs: SQSClient;
  readonly queueUrl: string;
  readonly queueArn: string;
  readonly fn: LocalFunction;
  readonly handler: AnyHandler;
  /** Messages per invocation, as the event source mapping's BatchSize (SQS hands out at most 10 per receive). */
  readonly batchSize: number;
  /** Parallel pollers, each invoking one batch at a time: the event source's maximum concurrency. */
  readonly concurrency?: number;
  /** Called when an invocation fails as a whole; the messages then return after their visibility timeout. */
  readonly onInvocationError?: (error: unknown) => void;
}

export interface QueuePoller {
  stop(): Promise<void>;
}

export function toSqsRecord(message: Message, queueArn: string): SQSRecord {
  const attributes = message.Attributes ?? {};
  return {
    messageId: message.MessageId ?? '',
    receiptHandle: message.ReceiptHandle ?? '',
    body: message.Body ?? '',
    attributes: {
      ApproximateReceiveCount: attributes.ApproximateReceiveCount ?? '1',
      SentTimestamp: attributes.SentTimestamp ?? String(Date.now()),
      SenderId: attributes.SenderId ?? 'local',
      ApproximateFirstReceiveTimestamp: attributes.ApproximateFirstReceiveTimestamp ?? String(Date.now()),
    },
    messageAttributes: Object.fromEntries(
      Object.entries(message.MessageAttributes ?? {}).map(([name, value]) => [
        name,
        {
          dataType: value.DataType ?? 'String',
          ...(value.StringValue === undefined ? {} : { stringValue: value.StringValue }),
          ...(value.BinaryValue === undefined ? {} : { binaryValue: Buffer.from(value.BinaryValue).toString('base64') }),
          stringListValues: value.StringListValues ?? [],
          binaryListValues: (value.BinaryListValues ?? []).map((item) => Buffer.from(item).toString('base64')),
        },
      ]),
    ),
    md5OfBody: message.MD5OfBody ?? '',
    eventSource: 'aws:sqs',
    eventSourceARN: queueArn,
    awsRegion: LOCAL_REGION,
  };
}

/**
 * Which messages of a batch to delete, by Lambda's ReportBatchItemFailures rules: all but the reported failures; none
 * if the invocation failed, or if a reported identifier is empty or not in the batch.
 */
export function messagesToDelete(records: readonly SQSRecord[], outcome: { result: unknown } | { error: unknown }): SQSRecord[] {
  if ('error' in outcome) return [];
  const failures = (outcome.result as SQSBatchResponse | undefined)?.batchItemFailures ?? [];
  const ids = new Set(records.map((record) => record.messageId));
  if (failures.some((failure) => !failure.itemIdentifier || !ids.has(failure.itemIdentifier))) return [];
  const failed = new Set(failures.map((failure) => failure.itemIdentifier));
  return records.filter((record) => !failed.has(record.messageId));
}

export function startQueuePoller(options: QueuePollerOptions): QueuePoller {
  const abort = new AbortController();
  let running = true;

  async function pollOnce(): Promise<void> {
    const { Messages } = await options.sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: options.queueUrl,
        MaxNumberOfMessages: Math.min(options.batchSize, 10),
        // A message ready ends the wait at once and a stop aborts it: 5 s, not 1 s, took an idle stack from 4% of a core to 1%.
        WaitTimeSeconds: 5,
        MessageSystemAttributeNames: ['All'],
        MessageAttributeNames: ['All'],
      }),
      { abortSignal: abort.signal },
    );
    if (!Messages?.length) return;
    const records = Messages.map((message) => toSqsRecord(message, options.queueArn));
    const event: SQSEvent = { Records: records };
    let outcome: { result: unknown } | { error: unknown };
    try {
      // A timeout fails the whole invocation, as on Lambda: no message is deleted, and what the timed-out handler
      // goes on to do is fenced off (see invokeWithTimeout), so the redelivery is the only attempt that counts.
      outcome = { result: await invokeWithTimeout(options.fn, options.handler, event) };
    } catch (error) {
      outcome = { error };
      options.onInvocationError?.(error);
    }
    const done = messagesToDelete(records, outcome);
    if (done.length > 0) {
      await options.sqs.send(
        new DeleteMessageBatchCommand({
          QueueUrl: options.queueUrl,
          Entries: done.map((record, index) => ({ Id: String(index), ReceiptHandle: record.receiptHandle })),
        }),
      );
    }
  }

  async function loop(): Promise<void> {
    while (running) {
      try {
        await pollOnce();
      } catch (error) {
        if (!running) return;
        options.onInvocationError?.(error);
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
    }
  }

  const loops = Array.from({ length: options.concurrency ?? 1 }, () => loop());
  return {
    async stop() {
      running = false;
      abort.abort();
      await Promise.all(loops);
    },
  };
}
