// Redriving and purging a dead-letter queue, against a queue client that records each call and fails where told to.
import type { Message } from '@aws-sdk/client-sqs';
import { beforeEach, describe, expect, it, vi } from 'vitest';

interface Call {
  readonly name: string;
  readonly input: Record<string, unknown>;
}

const fake = vi.hoisted(() => ({
  calls: [] as Call[],
  parked: [] as Message[],
  failSendOf: undefined as string | undefined,
}));

vi.mock('#platform/queue-client.ts', () => ({
  queueClient: () => ({
    send: async (command: { constructor: { name: string }; input: Record<string, unknown> }) => {
      const name = command.constructor.name;
      fake.calls.push({ name, input: command.input });
      if (name === 'ReceiveMessageCommand') {
        // Every message is handed out once, then the queue reads as empty, as while they are held.
        const handed = fake.parked;
        fake.parked = [];
        return { Messages: handed };
      }
      if (name === 'SendMessageCommand' && command.input.MessageBody === fake.failSendOf) throw new Error('SQS refused the send');
      return {};
    },
  }),
}));

const { purgeDeadLetters, redriveDeadLetters } = await import('./dead-letters.ts');

const pair = { queueId: 'drain', url: 'https://work', deadLetterUrl: 'https://dead' } as const;
const message = (id: string): Message => ({ MessageId: id, ReceiptHandle: `receipt-${id}`, Body: `{"job":"${id}"}` });
const named = (name: string) => fake.calls.filter((call) => call.name === name);
const released = () =>
  named('ChangeMessageVisibilityBatchCommand').flatMap((call) => call.input.Entries as Array<{ ReceiptHandle: string }>);

beforeEach(() => {
  fake.calls = [];
  fake.parked = [message('a'), message('b'), message('c')];
  fake.failSendOf = undefined;
});

describe('redriving a dead-letter queue', () => {
  it('sends each selected message to the work queue before deleting it, and makes the others visible again at once', async () => {
    const done = await redriveDeadLetters(pair, { messageIds: ['b'] });
    expect(done.handled.map((letter) => letter.messageId)).toEqual(['b']);
    const order = fake.calls.map((call) => call.name).filter((name) => name === 'SendMessageCommand' || name === 'DeleteMessageCommand');
    expect(order).toEqual(['SendMessageCommand', 'DeleteMessageCommand']);
    expect(named('SendMessageCommand')[0]?.input).toMatchObject({ QueueUrl: 'https://work', MessageBody: '{"job":"b"}' });
    expect(named('DeleteMessageCommand')[0]?.input).toMatchObject({ QueueUrl: 'https://dead', ReceiptHandle: 'receipt-b' });
    expect(released().map((entry) => entry.ReceiptHandle)).toEqual(['receipt-a', 'receipt-c']);
  });

  it('keeps a message whose send failed, deletes none after it, and releases it and the rest', async () => {
    fake.failSendOf = '{"job":"b"}';
    await expect(redriveDeadLetters(pair, { all: true })).rejects.toThrow(
      'SQS refused the send; done before it: a; the rest stay in the dead-letter queue',
    );
    expect(named('DeleteMessageCommand').map((call) => call.input.ReceiptHandle)).toEqual(['receipt-a']);
    expect(released().map((entry) => entry.ReceiptHandle)).toEqual(['receipt-b', 'receipt-c']);
  });

  it('says which named messages it did not find, and acts on none of the others', async () => {
    const done = await redriveDeadLetters(pair, { messageIds: ['z'] });
    expect(done).toEqual({ handled: [], notFound: ['z'] });
    expect(named('SendMessageCommand')).toEqual([]);
    expect(released()).toHaveLength(3);
  });
});

describe('purging a dead-letter queue', () => {
  it('deletes only the selected message, and sends nothing', async () => {
    const done = await purgeDeadLetters(pair, { messageIds: ['a'] });
    expect(done.handled.map((letter) => letter.messageId)).toEqual(['a']);
    expect(named('SendMessageCommand')).toEqual([]);
    expect(named('DeleteMessageCommand').map((call) => call.input.ReceiptHandle)).toEqual(['receipt-a']);
  });
});
