// Unit tests of the local event source mapping: which messages a batch response deletes.
import type { SQSRecord } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { messagesToDelete, toSqsRecord } from './queue-poller.ts';

const records = ['m1', 'm2', 'm3'].map((id) => toSqsRecord({ MessageId: id, ReceiptHandle: `r-${id}`, Body: id }, 'arn:queue'));
const ids = (deleted: SQSRecord[]) => deleted.map((record) => record.messageId);

describe('partial batch responses, as the SQS event source mapping reads them', () => {
  it('deletes every message of a batch that succeeded', () => {
    expect(ids(messagesToDelete(records, { result: undefined }))).toEqual(['m1', 'm2', 'm3']);
    expect(ids(messagesToDelete(records, { result: { batchItemFailures: [] } }))).toEqual(['m1', 'm2', 'm3']);
  });

  it('keeps only the reported failures', () => {
    expect(ids(messagesToDelete(records, { result: { batchItemFailures: [{ itemIdentifier: 'm2' }] } }))).toEqual(['m1', 'm3']);
  });

  it('keeps the whole batch when the invocation failed', () => {
    expect(messagesToDelete(records, { error: new Error('x') })).toEqual([]);
  });

  it('keeps the whole batch when a reported identifier is empty or not in the batch', () => {
    expect(messagesToDelete(records, { result: { batchItemFailures: [{ itemIdentifier: '' }] } })).toEqual([]);
    expect(messagesToDelete(records, { result: { batchItemFailures: [{ itemIdentifier: 'other' }] } })).toEqual([]);
  });
});
