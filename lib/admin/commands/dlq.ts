// The admin CLI's `dlq` commands: list a dead-letter queue's messages with their reason, send them back to work, or delete them.
import * as v from 'valibot';
import type { QueueId } from '#platform/queues.ts';
import { type AdminArguments, type AdminCommand, UsageError } from '#lib/admin/command.ts';
import type { DeadLetter, Handled, Selection } from '#lib/admin/dead-letters.ts';

const queueIds = ['drain', 'webhooks'] as const satisfies readonly QueueId[];

/** SQS names each message by a UUID. */
const MessageIdSchema = v.pipe(v.string(), v.uuid('a message id as `dlq list` prints it (a UUID)'));

/** The queue, and on AWS its URL; refused before anything is read. */
function queueOf(args: AdminArguments): { queueId: QueueId; queueUrl?: string } {
  const queueId = args.oneOf('queue', queueIds, args.required('queue'));
  const queueUrl = args.values['queue-url'];
  if (queueUrl !== undefined && !args.values.aws) throw new UsageError('--queue-url names a deployed queue: it goes with --aws');
  if (args.values.aws && !queueUrl)
    throw new UsageError('--aws needs --queue-url URL (the stack output DrainQueueUrl or WebhooksQueueUrl)');
  if (queueUrl !== undefined && !/^https:\/\/sqs\.[a-z0-9-]+\.amazonaws\.com(\.cn)?\/\d{12}\/[\w-]+$/.test(queueUrl))
    throw new UsageError(
      `invalid --queue-url ${JSON.stringify(queueUrl)}: an SQS queue URL, https://sqs.<region>.amazonaws.com/<account>/<name>`,
    );
  return { queueId, ...(queueUrl === undefined ? {} : { queueUrl }) };
}

/** Exactly one of one message or every one. */
function selectionOf(args: AdminArguments, verb: string): Selection {
  const { message, all } = args.values;
  if ((message === undefined) === !all) throw new UsageError(`dlq ${verb} needs exactly one of --message ID or --all`);
  if (all) return { all: true };
  return { messageIds: [args.checked('message', MessageIdSchema, message)] };
}

function jobText(job: DeadLetter['job']): string {
  if (typeof job === 'string') return `body ${JSON.stringify(job)}`;
  // A drain job without a phase is the commit's own: the drain of the batch's records.
  if (job.batchId !== undefined && job.kind === undefined && job.phase === undefined) job = { ...job, phase: 'chunks' };
  const named = ['kind', 'phase', 'workspaceId', 'batchId', 'jobId', 'eventId', 'endpointId', 'seq'];
  const parts = named.filter((name) => job[name] !== undefined).map((name) => `${name} ${String(job[name])}`);
  return parts.length > 0 ? parts.join('  ') : `body ${JSON.stringify(job)}`;
}

function letterLine(letter: DeadLetter): string {
  return `${letter.messageId}  sent ${letter.sentAt ?? '—'}  ${jobText(letter.job)}\n    reason: ${letter.reason}`;
}

async function handle(queueId: QueueId, queueUrl: string | undefined) {
  const deadLetters = await import('#lib/admin/dead-letters.ts');
  return { deadLetters, pair: await deadLetters.queuePair(queueId, queueUrl) };
}

/** A message named and not found is a failure (exit 1), with what was done before it said. */
function outcome(done: Handled, past: string, queueId: QueueId) {
  if (done.notFound.length > 0)
    throw new Error(
      `no message ${done.notFound.join(', ')} in the ${queueId} dead-letter queue (already redriven or purged, or never there)`,
    );
  const ids = done.handled.map((letter) => letter.messageId);
  return {
    json: { queue: queueId, [past]: ids },
    text: `${past[0]?.toUpperCase()}${past.slice(1)} ${ids.length} message(s) of the ${queueId} dead-letter queue${ids.length ? `: ${ids.join(', ')}` : ''}`,
  };
}

const queueUsage = '--queue drain|webhooks [--aws --queue-url URL]';

export const dlqCommands: readonly AdminCommand[] = [
  {
    name: 'dlq list',
    usage: `  dlq list ${queueUsage}
                                        the dead-letter queue's messages, oldest first, with the reason the worker
                                        gave and the job (workspace, batch, phase; or event, endpoint); takes none off`,
    options: ['queue', 'queue-url'],
    usesTable: false,
    prepare(args) {
      const { queueId, queueUrl } = queueOf(args);
      return async () => {
        const { deadLetters, pair } = await handle(queueId, queueUrl);
        const letters = await deadLetters.listDeadLetters(pair);
        return {
          json: letters,
          text: letters.length === 0 ? `The ${queueId} dead-letter queue is empty` : letters.map(letterLine).join('\n'),
        };
      };
    },
  },
  {
    name: 'dlq redrive',
    usage: `  dlq redrive ${queueUsage} --message ID | --all
                                        sends messages back to the work queue, then deletes them here; again, it
                                        finds nothing of what it moved`,
    options: ['queue', 'queue-url', 'message', 'all'],
    usesTable: false,
    prepare(args) {
      const { queueId, queueUrl } = queueOf(args);
      const selection = selectionOf(args, 'redrive');
      return async () => {
        const { deadLetters, pair } = await handle(queueId, queueUrl);
        return outcome(await deadLetters.redriveDeadLetters(pair, selection), 'redriven', queueId);
      };
    },
  },
  {
    name: 'dlq purge',
    usage: `  dlq purge ${queueUsage} --message ID | --all --yes
                                        deletes messages for good: a job handled otherwise, or not to be run`,
    options: ['queue', 'queue-url', 'message', 'all', 'yes'],
    usesTable: false,
    prepare(args) {
      const { queueId, queueUrl } = queueOf(args);
      const selection = selectionOf(args, 'purge');
      if ('all' in selection && !args.values.yes)
        throw new UsageError('dlq purge --all deletes every message for good: add --yes to say so');
      if (!('all' in selection) && args.values.yes) throw new UsageError('--yes confirms --all; one message needs none');
      return async () => {
        const { deadLetters, pair } = await handle(queueId, queueUrl);
        return outcome(await deadLetters.purgeDeadLetters(pair, selection), 'purged', queueId);
      };
    },
  },
];
