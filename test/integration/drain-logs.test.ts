// The drain worker's log lines: each names the message, batch, job and phase it was written for, and no other.
import { randomUUID } from 'node:crypto';
import type { SQSEvent, SQSRecord } from 'aws-lambda';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createDrainHandler } from '../../functions/workers/drain.ts';
import { createLambdaContext } from '#lib/local/lambda-context.ts';
import { newBatchId, newId } from '#platform/ids.ts';
import { type CapturedLogs, captureLogs } from '#test/support/log-lines.ts';

function sqsRecord(body: string): SQSRecord {
  return {
    messageId: randomUUID(),
    receiptHandle: randomUUID(),
    body,
    attributes: {
      ApproximateReceiveCount: '1',
      SentTimestamp: String(Date.now()),
      SenderId: 'local',
      ApproximateFirstReceiveTimestamp: String(Date.now()),
    },
    messageAttributes: {},
    md5OfBody: '',
    eventSource: 'aws:sqs',
    eventSourceARN: 'arn:aws:sqs:us-east-1:000000000000:drain',
    awsRegion: 'us-east-1',
  };
}

/** A job for a batch no workspace has: the worker reads the table once, logs that it ignores it, and succeeds. */
function jobForNoBatch(phase?: 'chunks' | 'bands') {
  const message = { workspaceId: newId('ws'), batchId: newBatchId(), jobId: newId('job'), sentAt: new Date().toISOString(), phase };
  return { message, record: sqsRecord(JSON.stringify(message)) };
}

describe('the log lines of a drain job', () => {
  const drain = createDrainHandler();
  let logs: CapturedLogs;
  beforeEach(() => {
    logs = captureLogs();
  });
  afterEach(() => logs.restore());

  it('carry the batch, job, phase and workspace of their message, and not those of the message before', async () => {
    const bands = jobForNoBatch('bands');
    const chunks = jobForNoBatch();
    const event: SQSEvent = { Records: [bands.record, chunks.record] };
    const response = await drain(event, createLambdaContext({ name: 'drain', memoryMb: 1024, timeoutSeconds: 60 }));
    expect(response.batchItemFailures).toEqual([]);

    for (const [job, phase, other] of [
      [bands, 'bands', chunks],
      [chunks, 'chunks', bands],
    ] as const) {
      const lines = logs.lines.filter((line) => line.messageId === job.record.messageId);
      expect(lines.map((line) => line.message)).toEqual(['drain message for an unknown batch', 'drain job step', 'request completed']);
      for (const line of lines) {
        expect(line).toMatchObject({
          batchId: job.message.batchId,
          jobId: job.message.jobId,
          phase,
          workspaceId: job.message.workspaceId,
        });
      }
      expect(JSON.stringify(lines)).not.toContain(other.message.jobId);
    }
  });

  it('carry the message id of a message that names no job, up to its cost line', async () => {
    const record = sqsRecord('{"batchId": 7}');
    const response = await drain({ Records: [record] }, createLambdaContext({ name: 'drain', memoryMb: 1024, timeoutSeconds: 60 }));
    expect(response.batchItemFailures).toEqual([{ itemIdentifier: record.messageId }]);
    const completed = logs.withMessage('request completed');
    expect(completed).toEqual([expect.objectContaining({ messageId: record.messageId, route: 'drain', status: 500 })]);
    expect(completed[0]).not.toHaveProperty('batchId');
  });
});
