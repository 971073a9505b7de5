// The admin CLI's `batch` commands: a workspace's batches, one batch as a drain left it, and a lost drain message put back, for an operator following a drain.
import * as v from 'valibot';
import { BatchIdSchema, type Batch, BatchStatusSchema } from '#shared/batches/schema.ts';
import { MAX_BATCHES_PAGE } from '#shared/batches/views.ts';
import type { WorkspaceBatchEntry } from '#shared/batches/listing.ts';
import { type AdminArguments, type AdminCommand, existingWorkspace, UsageError } from '#lib/admin/command.ts';

const DEFAULT_LIMIT = 20;

/** Read before the table is: a value no workspace could have is a bad argument, not a workspace that does not exist. */
const WorkspaceIdSchema = v.pipe(v.string(), v.regex(/^ws_\w{1,64}$/, 'a workspace id (ws_ and up to 64 letters, digits or _)'));

function workspaceOf(args: AdminArguments): string {
  return args.checked('workspace', WorkspaceIdSchema, args.required('workspace'));
}

function listingOf(args: AdminArguments) {
  const workspaceId = workspaceOf(args);
  const statusText = args.values.status;
  const status = statusText === undefined ? undefined : args.oneOf('status', BatchStatusSchema.options, String(statusText));
  const limit = args.count('limit') ?? DEFAULT_LIMIT;
  if (limit > MAX_BATCHES_PAGE) throw new UsageError(`--limit must be at most ${MAX_BATCHES_PAGE}`);
  return { workspaceId, listing: { limit, ...(status === undefined ? {} : { status }) } };
}

function entryLine(entry: WorkspaceBatchEntry): string {
  const counts = `${entry.recordCount} records${entry.drainedCount === undefined ? '' : `, ${entry.drainedCount} drained`}${entry.skippedOverCap ? `, ${entry.skippedOverCap} skipped over cap` : ''}`;
  const times = [
    `created ${entry.createdAt}`,
    entry.committedAt && `committed ${entry.committedAt}`,
    entry.drainedAt && `drained ${entry.drainedAt}`,
  ]
    .filter(Boolean)
    .join('  ');
  return [entry.batchId, entry.status, entry.connectorId, counts, times, entry.error ? `error: ${entry.error}` : '']
    .filter(Boolean)
    .join('  ');
}

/**
 * Everything an operator reads of a batch: its status view, the drain's own state (job, lease, attempts), and for a
 * batch still to drain, the batch of its workspace it waits for (docs/decisions.md, the drain order).
 */
function batchDetail(batch: Batch, waitingFor: string | undefined) {
  return {
    batchId: batch.batchId,
    workspaceId: batch.workspaceId,
    connectorId: batch.connectorId,
    status: batch.status,
    entities: batch.entities,
    recordCount: batch.recordCount,
    lineCount: batch.lineCount,
    skippedOverCap: batch.skippedOverCap,
    drainedCount: batch.drainedCount ?? null,
    createdAt: batch.createdAt,
    committedAt: batch.committedAt ?? null,
    drainStartedAt: batch.drainStartedAt ?? null,
    drainedAt: batch.drainedAt ?? null,
    bandsRecomputedAt: batch.bandsRecomputedAt ?? null,
    failedAt: batch.failedAt ?? null,
    cancelledAt: batch.cancelledAt ?? null,
    error: batch.error ?? null,
    jobId: batch.jobId ?? null,
    drainAttempts: batch.drainAttempts ?? null,
    drainSeenAt: batch.drainSeenAt ?? null,
    leaseUntil: batch.leaseUntil === undefined ? null : new Date(batch.leaseUntil).toISOString(),
    waitingFor: waitingFor ?? null,
  };
}

function detailText(detail: ReturnType<typeof batchDetail>): string {
  return Object.entries(detail)
    .filter(([, value]) => value !== null)
    .map(([name, value]) => `${name.padEnd(18)} ${typeof value === 'object' ? JSON.stringify(value) : String(value)}`)
    .join('\n');
}

export const batchCommands: readonly AdminCommand[] = [
  {
    name: 'batch list',
    usage: `  batch list --workspace W [--status open|committed|draining|drained|failed] [--limit 20]
                                        the workspace's newest batches over all its connectors: status, counts,
                                        error and times (the connector's list, eventually consistent)`,
    options: ['workspace', 'status', 'limit'],
    prepare(args) {
      const { workspaceId, listing } = listingOf(args);
      return async () => {
        await existingWorkspace(workspaceId);
        const { listConnectors } = await import('#shared/connectors/repository.ts');
        const { workspaceBatches } = await import('#shared/batches/listing.ts');
        const connectors = await listConnectors(workspaceId);
        const entries = await workspaceBatches(
          workspaceId,
          connectors.map((connector) => connector.connectorId),
          listing,
        );
        return { json: entries, text: entries.length === 0 ? `No batches in workspace ${workspaceId}` : entries.map(entryLine).join('\n') };
      };
    },
  },
  {
    name: 'batch show',
    usage: `  batch show --workspace W --batch B    one batch: status, counts, error, times, the drain's job, lease and
                                        attempts, and the batch it waits for; exit 1 when the workspace has no such batch`,
    options: ['workspace', 'batch'],
    prepare(args) {
      const workspaceId = workspaceOf(args);
      const batchId = args.checked('batch', BatchIdSchema, args.required('batch'));
      return async () => {
        await existingWorkspace(workspaceId);
        const { getBatch } = await import('#shared/batches/repository.ts');
        const { expired } = await import('#shared/batches/rules.ts');
        const stored = await getBatch(workspaceId, batchId);
        if (!stored) throw new Error(`no batch ${batchId} in workspace ${workspaceId}`);
        const { drainTurnBlocker } = await import('#shared/batches/drain-turn.ts');
        // Read as its status route reads it, without recording the expiry: showing a batch writes nothing.
        const shown = expired(stored, new Date());
        const toDrain = shown.status === 'committed' || shown.status === 'draining';
        const detail = batchDetail(shown, toDrain ? await drainTurnBlocker(shown) : undefined);
        return { json: detail, text: detailText(detail) };
      };
    },
  },
  {
    name: 'batch requeue',
    usage: `  batch requeue --workspace W --batch B [--aws --queue-url URL]
                                        puts a committed or draining batch's drain job back on the drain queue, as the
                                        sweeper does for one unseen 15 minutes; it resumes from its checkpoint, and a
                                        message that was only late changes nothing; exit 1 when the batch has ended`,
    options: ['workspace', 'batch', 'queue-url'],
    prepare(args) {
      const workspaceId = workspaceOf(args);
      const batchId = args.checked('batch', BatchIdSchema, args.required('batch'));
      const queueUrl = args.values['queue-url'];
      if (queueUrl !== undefined && !args.values.aws) throw new UsageError('--queue-url names a deployed queue: it goes with --aws');
      if (args.values.aws && !queueUrl) throw new UsageError('--aws needs --queue-url URL (the stack output DrainQueueUrl)');
      return async () => {
        if (queueUrl !== undefined) process.env.DRAIN_QUEUE_URL = queueUrl;
        await existingWorkspace(workspaceId);
        const { getBatch } = await import('#shared/batches/repository.ts');
        const { requeueBatch } = await import('#shared/batches/drain-watch.ts');
        const stored = await getBatch(workspaceId, batchId);
        if (!stored) throw new Error(`no batch ${batchId} in workspace ${workspaceId}`);
        if ((await requeueBatch(stored, new Date())) === 'ended')
          throw new Error(`batch ${batchId} is ${stored.status}: only a committed or draining batch has a drain to put back`);
        const done = { batchId, workspaceId, status: stored.status, requeued: true };
        return { json: done, text: `Put batch ${batchId} (${stored.status}) back on the drain queue` };
      };
    },
  },
];
