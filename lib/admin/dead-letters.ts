// A queue's dead-letter queue as an operator handles it: read its messages with their reason, send them back to work, or delete them.
import {
  ChangeMessageVisibilityBatchCommand,
  DeleteMessageCommand,
  GetQueueAttributesCommand,
  GetQueueUrlCommand,
  type Message,
  ReceiveMessageCommand,
  SendMessageCommand,
} from '@aws-sdk/client-sqs';
import { environmentNames } from '#platform/config.ts';
import { queueClient } from '#platform/queue-client.ts';
import type { QueueId } from '#platform/queues.ts';

/**
 * How long a read holds the messages it received from everyone else. Every message is made visible again as soon as
 * the read is done; the hold only bounds how long a command that died half-way hides them.
 */
const HOLD_SECONDS = 30;
/** A dead-letter queue deeper than this is a wider fault than one to handle message by message. */
export const MAX_DEAD_LETTERS = 1000;

/** The work queue and its dead-letter queue. */
export interface QueuePair {
  readonly queueId: QueueId;
  readonly url: string;
  readonly deadLetterUrl: string;
}

const workQueueVariables = { drain: environmentNames.drainQueueUrl, webhooks: environmentNames.webhooksQueueUrl } as const;
const deadLetterVariables = {
  drain: environmentNames.drainDeadLetterQueueUrl,
  webhooks: environmentNames.webhooksDeadLetterQueueUrl,
} as const;

/**
 * The queue's URLs: locally both from the stack's description; on AWS the work queue's from the stack's output
 * (`--queue-url`), and its dead-letter queue's from the work queue's own redrive policy, as SQS knows it.
 */
export async function queuePair(queueId: QueueId, workQueueUrl?: string): Promise<QueuePair> {
  const url = workQueueUrl ?? process.env[workQueueVariables[queueId]];
  if (!url)
    throw new Error(
      `the ${queueId} queue's URL is unknown: pass --queue-url (the stack output ${queueId === 'drain' ? 'Drain' : 'Webhooks'}QueueUrl)`,
    );
  const known = workQueueUrl === undefined ? process.env[deadLetterVariables[queueId]] : undefined;
  return { queueId, url, deadLetterUrl: known ?? (await deadLetterUrlOf(url)) };
}

async function deadLetterUrlOf(url: string): Promise<string> {
  const { Attributes } = await queueClient().send(new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['RedrivePolicy'] }));
  const policy = Attributes?.RedrivePolicy ? (JSON.parse(Attributes.RedrivePolicy) as { deadLetterTargetArn?: string }) : {};
  // arn:aws:sqs:<region>:<account>:<name>
  const [, , , , account, name] = (policy.deadLetterTargetArn ?? '').split(':');
  if (!account || !name) throw new Error(`the queue ${url} has no dead-letter queue`);
  const { QueueUrl } = await queueClient().send(new GetQueueUrlCommand({ QueueName: name, QueueOwnerAWSAccountId: account }));
  if (!QueueUrl) throw new Error(`the dead-letter queue ${name} was not found`);
  return QueueUrl;
}

/** A message parked in a dead-letter queue, as an operator reads it. */
export interface DeadLetter {
  readonly messageId: string;
  /** Why it was parked: the worker's own words when it gave the job up itself. */
  readonly reason: string;
  /** When it was first sent: to the dead-letter queue by a worker that gave up, or to the work queue if SQS moved it. */
  readonly sentAt: string | null;
  /** The body's fields (workspace, batch or event, phase or kind), or the body itself when it is not JSON. */
  readonly job: Record<string, unknown> | string;
}

/** Said of a message SQS moved, having been received as often as the queue allows without being deleted. */
export const MOVED_BY_QUEUE =
  'moved by the queue after its receives ran out (no reason recorded: the worker failed each time, see its logs)';

function deadLetterOf(message: Message): DeadLetter {
  const body = message.Body ?? '';
  let job: DeadLetter['job'];
  try {
    const parsed: unknown = JSON.parse(body);
    job = parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : body;
  } catch {
    job = body.slice(0, 500);
  }
  const sent = Number(message.Attributes?.SentTimestamp);
  return {
    messageId: message.MessageId ?? '',
    reason: message.MessageAttributes?.reason?.StringValue ?? MOVED_BY_QUEUE,
    sentAt: Number.isFinite(sent) && sent > 0 ? new Date(sent).toISOString() : null,
    job,
  };
}

/** Every message the dead-letter queue holds, received and held until `release`: receives until one comes back empty. */
async function receiveAll(deadLetterUrl: string): Promise<Message[]> {
  const held = new Map<string, Message>();
  for (;;) {
    const { Messages = [] } = await queueClient().send(
      new ReceiveMessageCommand({
        QueueUrl: deadLetterUrl,
        MaxNumberOfMessages: 10,
        VisibilityTimeout: HOLD_SECONDS,
        // Long polling asks every SQS server, so that a short queue is read whole; the last, empty receive waits 1 s.
        WaitTimeSeconds: 1,
        MessageAttributeNames: ['All'],
        MessageSystemAttributeNames: ['SentTimestamp'],
      }),
    );
    const fresh = Messages.filter((message) => message.MessageId && !held.has(message.MessageId));
    if (fresh.length === 0) return [...held.values()];
    for (const message of fresh) held.set(message.MessageId as string, message);
    if (held.size >= MAX_DEAD_LETTERS) return [...held.values()];
  }
}

/** Makes held messages visible again at once, ten to a call. */
async function release(deadLetterUrl: string, messages: readonly Message[]): Promise<void> {
  for (let start = 0; start < messages.length; start += 10) {
    await queueClient().send(
      new ChangeMessageVisibilityBatchCommand({
        QueueUrl: deadLetterUrl,
        Entries: messages.slice(start, start + 10).map((message, index) => ({
          Id: String(index),
          ReceiptHandle: message.ReceiptHandle,
          VisibilityTimeout: 0,
        })),
      }),
    );
  }
}

/** Reads the dead-letter queue without taking anything off it. */
export async function listDeadLetters(pair: QueuePair): Promise<DeadLetter[]> {
  const messages = await receiveAll(pair.deadLetterUrl);
  await release(pair.deadLetterUrl, messages);
  return messages.map(deadLetterOf).sort((a, b) => (a.sentAt ?? '').localeCompare(b.sentAt ?? ''));
}

/** Which messages a command acts on: every one, or those named. */
export type Selection = { readonly all: true } | { readonly messageIds: readonly string[] };

/** What a redrive or a purge did: the messages it acted on, and those it was asked for and did not find. */
export interface Handled {
  readonly handled: DeadLetter[];
  readonly notFound: string[];
}

/**
 * Holds the selected messages, acts on each, and releases every other one. A message is acted on whole or not at all:
 * should an action fail, the message is released and stays in the dead-letter queue.
 */
async function eachSelected(pair: QueuePair, selection: Selection, act: (message: Message) => Promise<void>): Promise<Handled> {
  const messages = await receiveAll(pair.deadLetterUrl);
  const wanted = 'all' in selection ? undefined : new Set(selection.messageIds);
  const selected = messages.filter((message) => !wanted || wanted.has(message.MessageId ?? ''));
  const handled: DeadLetter[] = [];
  const untouched = messages.filter((message) => !selected.includes(message));
  let failure: unknown;
  for (const message of selected) {
    if (failure === undefined) {
      try {
        await act(message);
        handled.push(deadLetterOf(message));
        continue;
      } catch (error) {
        failure = error;
      }
    }
    untouched.push(message);
  }
  await release(pair.deadLetterUrl, untouched);
  if (failure !== undefined) {
    const done = handled.map((letter) => letter.messageId);
    // What was done before the failure is said, so that the operator knows where the next run starts.
    throw new Error(
      `${(failure as Error).message}; done before it: ${done.length ? done.join(', ') : 'none'}; the rest stay in the dead-letter queue`,
    );
  }
  const found = new Set(messages.map((message) => message.MessageId));
  return { handled, notFound: wanted ? [...wanted].filter((id) => !found.has(id)) : [] };
}

/**
 * Sends each selected message back to its work queue, then deletes it from the dead-letter queue: sent before it is
 * deleted, so that a failure between the two leaves a copy on each side rather than none. Its reason stays behind;
 * the body goes back as the worker first received it. Run again, it finds nothing of what it moved.
 */
export function redriveDeadLetters(pair: QueuePair, selection: Selection): Promise<Handled> {
  return eachSelected(pair, selection, async (message) => {
    await queueClient().send(new SendMessageCommand({ QueueUrl: pair.url, MessageBody: message.Body ?? '' }));
    await queueClient().send(new DeleteMessageCommand({ QueueUrl: pair.deadLetterUrl, ReceiptHandle: message.ReceiptHandle }));
  });
}

/** Deletes the selected messages from the dead-letter queue, for a job that is handled otherwise or not at all. */
export function purgeDeadLetters(pair: QueuePair, selection: Selection): Promise<Handled> {
  return eachSelected(pair, selection, async (message) => {
    await queueClient().send(new DeleteMessageCommand({ QueueUrl: pair.deadLetterUrl, ReceiptHandle: message.ReceiptHandle }));
  });
}
