// Leasing write-back tasks: claims that take their own slice of the claimable tasks, and extensions of a live lease.
import * as v from 'valibot';
import { ApiError } from '#platform/errors.ts';
import { logger } from '#platform/observability.ts';
import { getItem, queryPage, updateItem } from '#platform/table/commands.ts';
import { table } from '#platform/table/definition.ts';
import { claimableKeys } from '#platform/table/index-keys.ts';
import { keys } from '#platform/table/keys.ts';
import type { PrimaryKey } from '#platform/table/key-parts.ts';
import { attemptOrder, claimWindow, isLeaseLive } from './rules.ts';
import { finishUnfinished } from './publication.ts';
import { CLOSE, CLOSE_NAMES, readTask } from './tasks.ts';
import { type Task, TaskIdSchema, TaskSchema } from './schema.ts';

const [, , claimableIndex] = table.indexes;

/** Ticket items only need to outlive their window. */
const TICKET_RETENTION_SECONDS = 3600;
/** Claims of one connector are counted in windows of this length: a count a crashed claim leaves behind lasts no longer. */
const CLAIM_WINDOW_SECONDS = 10;

interface ClaimTicket {
  /** The claim's place among those the window has seen start, from 0. */
  readonly ticket: number;
  /** Claims of the connector running when it started, itself included. */
  readonly running: number;
  readonly leave: () => Promise<void>;
}

/** Counts the claim in: how many started in the window before it, and how many are running beside it. */
async function enterClaim(workspaceId: string, connectorId: string, nowMs: number): Promise<ClaimTicket> {
  const window = Math.floor(nowMs / 1000 / CLAIM_WINDOW_SECONDS);
  const Key = keys.claimTicket(workspaceId, connectorId, window);
  const entered = await updateItem({
    Key,
    UpdateExpression: 'ADD started :one, running :one SET expiresAt = if_not_exists(expiresAt, :expires)',
    ExpressionAttributeValues: { ':one': 1, ':expires': (window + 1) * CLAIM_WINDOW_SECONDS + TICKET_RETENTION_SECONDS },
    ReturnValues: 'UPDATED_NEW',
  });
  const Attributes = entered.refused ? undefined : entered.attributes;
  return {
    ticket: Number(Attributes?.started ?? 1) - 1,
    running: Math.max(1, Number(Attributes?.running ?? 1)),
    leave: async () => {
      await updateItem({
        Key,
        UpdateExpression: 'ADD running :less',
        ExpressionAttributeValues: { ':less': -1 },
      });
    },
  };
}

interface Candidate {
  readonly key: PrimaryKey;
  /** The sort key the index showed: the lease is conditional on it being unchanged. */
  readonly claimSk: string;
}

/** Up to `window` of the connector's claimable tasks, the longest claimable first. The index may lag: see leaseTask. */
async function readClaimable(workspaceId: string, connectorId: string, window: number, nowMs: number): Promise<Candidate[]> {
  const range = claimableKeys.claimableBy(workspaceId, connectorId, new Date(nowMs).toISOString());
  const { Items = [] } = await queryPage({
    IndexName: claimableIndex.name,
    KeyConditionExpression: '#pk = :pk AND #sk <= :sk',
    ExpressionAttributeNames: { '#pk': claimableIndex.partitionKey, '#sk': claimableIndex.sortKey },
    ExpressionAttributeValues: { ':pk': range.partitionKey, ':sk': range.sortKeyAtMost },
    Limit: window,
  });
  return Items.map((item) => ({
    key: { PK: String(item.PK), SK: String(item.SK) },
    claimSk: String(item[claimableIndex.sortKey]),
  }));
}

/**
 * One lease, by a conditional write on the base item: it holds only if the task's claimable sort key is still the one
 * the index showed, so a task another claim leased meanwhile (or an ack finished) is refused, however stale the index.
 */
async function leaseTask(candidate: Candidate, leaseUntilMs: number, nowMs: number): Promise<Task | undefined> {
  const taskId = claimableKeys.taskIdOf(candidate.claimSk);
  const leased = await updateItem({
    Key: candidate.key,
    UpdateExpression: 'SET #status = :leased, leaseUntilMs = :until, leasedAt = :now, #claimSk = :next ADD leases :one',
    ConditionExpression: '#claimSk = :seen',
    ExpressionAttributeNames: { '#status': 'status', '#claimSk': claimableIndex.sortKey },
    ExpressionAttributeValues: {
      ':leased': 'leased',
      ':until': leaseUntilMs,
      ':now': new Date(nowMs).toISOString(),
      ':next': claimableKeys.sortKey(new Date(leaseUntilMs).toISOString(), taskId),
      ':seen': candidate.claimSk,
      ':one': 1,
    },
    ReturnValues: 'ALL_NEW',
  });
  // Refused: another claim leased the task meanwhile, or an ack finished it.
  return leased.refused ? undefined : v.parse(TaskSchema, leased.attributes);
}

/**
 * A lease, kept only while it is the task's turn: a task a newer approval superseded is cancelled instead (it would be
 * pointless to apply it), and a task whose connector still holds a live lease on an older task of the SKU (waitsFor)
 * is given back, so that one connector never applies two prices of a SKU at once, nor the newer before the older.
 */
async function leaseInTurn(candidate: Candidate, leaseUntilMs: number, nowMs: number): Promise<Task | undefined> {
  const task = await leaseTask(candidate, leaseUntilMs, nowMs);
  if (!task) return undefined;
  const [publication, waited] = await Promise.all([
    currentPublication(task.workspaceId, task.productSku),
    task.waitsFor ? readTask(task.workspaceId, task.waitsFor) : undefined,
  ]);
  if (publication && !publication.taskIds.includes(task.taskId)) {
    await cancelSuperseded(task, publication.approvalId, leaseUntilMs, nowMs);
    return undefined;
  }
  // A lease taken at this claim's moment or after is a claim's fresh lease on the older task, which that claim cancels
  // at once (the older task is superseded, since this one exists): only one taken before holds this task back.
  if (waited && isLeaseLive(waited, nowMs) && Date.parse(waited.leasedAt ?? '') < nowMs) {
    await giveBack(task, candidate, leaseUntilMs, nowMs);
    return undefined;
  }
  return task;
}

/**
 * Undoes a lease just taken: the task is claimable again where it was, pending if it had never been leased before
 * (so that a newer approval still cancels it), or with a lease that has run out.
 */
async function giveBack(task: Task, candidate: Candidate, leaseUntilMs: number, nowMs: number): Promise<void> {
  const first = (task.leases ?? 1) <= 1;
  await updateItem({
    Key: candidate.key,
    UpdateExpression: first
      ? 'SET #status = :pending, #claimSk = :seen REMOVE leaseUntilMs, leasedAt ADD leases :less'
      : 'SET leaseUntilMs = :lapsed, #claimSk = :seen ADD leases :less',
    ConditionExpression: '#status = :leased AND leaseUntilMs = :until',
    ExpressionAttributeNames: { '#status': 'status', '#claimSk': claimableIndex.sortKey },
    ExpressionAttributeValues: {
      ':seen': candidate.claimSk,
      ':less': -1,
      ':leased': 'leased',
      ':until': leaseUntilMs,
      ...(first ? { ':pending': 'pending' } : { ':lapsed': nowMs }),
    },
  });
}

/** A claim stops taking leases this long before its invocation's deadline, to answer the ones it holds. */
export const ANSWER_BEFORE_DEADLINE_MS = 2_000;

/** Leases a claim tries per task it wants, per read of the claimable tasks. */
const ATTEMPTS_PER_TASK = 2;

/**
 * Leases up to `limit` of the connector's claimable tasks. A claim reads a window of the longest-claimable tasks and
 * tries its own slice of it first (see attemptOrder); should others take what it tries, it goes on through the
 * window, and reads a fresh one once if the first ran out.
 */
export async function claimTasks(
  workspaceId: string,
  connectorId: string,
  request: { readonly limit: number; readonly leaseSeconds: number },
  nowMs: number,
  remainingMs: () => number = () => Infinity,
): Promise<Task[]> {
  const { limit } = request;
  const leaseUntilMs = nowMs + request.leaseSeconds * 1000;
  // What a cut approval left unwritten is written first, so that the claim can find its tasks.
  await finishUnfinished(workspaceId, nowMs);
  const entry = await enterClaim(workspaceId, connectorId, nowMs);
  const window = claimWindow(limit, entry.running);
  const tasks: Task[] = [];
  try {
    for (let read = 0; read < 2 && tasks.length < limit && remainingMs() > ANSWER_BEFORE_DEADLINE_MS; read++) {
      const candidates = await readClaimable(workspaceId, connectorId, window, nowMs);
      // A second read starts at a random slice: the claim's own slice was taken, most likely by one that read with it.
      const ticket = entry.running === 1 ? 0 : read === 0 ? entry.ticket : Math.floor(Math.random() * candidates.length);
      // Past this many attempts the window is stale: others have taken what it shows, and a fresh read is cheaper
      // than refused writes.
      const order = attemptOrder(candidates, limit, ticket).slice(0, limit * ATTEMPTS_PER_TASK);
      // A claim slowed down by contention answers what it holds before its invocation ends: a lease taken by an
      // invocation that then timed out would stay hidden from every claim until it ran out.
      for (let next = 0; tasks.length < limit && next < order.length && remainingMs() > ANSWER_BEFORE_DEADLINE_MS;) {
        const wave = order.slice(next, next + limit - tasks.length);
        next += wave.length;
        const outcomes = await Promise.allSettled(wave.map((candidate) => leaseInTurn(candidate, leaseUntilMs, nowMs)));
        let fault: unknown;
        for (const outcome of outcomes) {
          if (outcome.status === 'rejected') fault ??= outcome.reason;
          else if (outcome.value) tasks.push(outcome.value);
        }
        if (fault !== undefined) {
          // Tasks leased are answered rather than hidden until their lease runs out; with none, the fault is.
          if (tasks.length === 0) throw fault;
          logger.warn('a lease failed; answering the tasks leased so far', { error: fault as Error });
          return oldestFirst(tasks);
        }
      }
      // A window that was not full, and tried whole, held every claimable task: another read finds only what others took.
      if (candidates.length < window && candidates.length <= order.length) break;
    }
  } finally {
    // Only bookkeeping: a count left too high makes claims of the next few seconds spread out, nothing more.
    await entry.leave().catch((error: unknown) => logger.warn('a claim was not counted out', { error: error as Error }));
  }
  return oldestFirst(tasks);
}

function oldestFirst(tasks: Task[]): Task[] {
  return tasks.sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.taskId.localeCompare(b.taskId));
}

export function leaseExpired(): ApiError {
  return new ApiError(
    'writeback_lease_expired',
    'The task is not leased to this connector, or its lease has run out: claim it again to work on it.',
  );
}

/**
 * Moves a live lease's end to `leaseSeconds` from now; 409 if the caller holds no live lease on the task. A task a
 * newer approval superseded is cancelled instead, unless `running` says its price is being applied now: cancelling it
 * then would not stop it, and would let the newer task be applied before it.
 */
export async function extendLease(
  workspaceId: string,
  connectorId: string,
  taskId: string,
  leaseSeconds: number,
  nowMs: number,
  running = false,
): Promise<Task> {
  if (!v.is(TaskIdSchema, taskId)) throw leaseExpired();
  const leaseUntilMs = nowMs + leaseSeconds * 1000;
  const extended = await updateItem({
    Key: keys.writeback(workspaceId, taskId),
    UpdateExpression: 'SET leaseUntilMs = :until, #claimSk = :next',
    ConditionExpression: 'connectorId = :connector AND #status = :leased AND leaseUntilMs > :nowMs',
    ExpressionAttributeNames: { '#status': 'status', '#claimSk': claimableIndex.sortKey },
    ExpressionAttributeValues: {
      ':until': leaseUntilMs,
      ':next': claimableKeys.sortKey(new Date(leaseUntilMs).toISOString(), taskId),
      ':connector': connectorId,
      ':leased': 'leased',
      ':nowMs': nowMs,
    },
    ReturnValues: 'ALL_NEW',
  });
  if (extended.refused) throw leaseExpired();
  const task = v.parse(TaskSchema, extended.attributes);
  if (running) return task;
  const publication = await currentPublication(workspaceId, task.productSku);
  // A newer approval left this leased task alone; renewing it would let a worker apply an older price after the newer
  // one. An approval that waits for a second approver publishes nothing, so the tasks before it stay current.
  if (publication && !publication.taskIds.includes(task.taskId)) {
    await cancelSuperseded(task, publication.approvalId, leaseUntilMs, nowMs);
    throw leaseExpired();
  }
  return task;
}

const PublicationSchema = v.object({ approvalId: v.string(), taskIds: v.array(v.string()) });

/**
 * The tasks the SKU's latest approval holds current, from its latest-approval item (shared/approvals/latest.ts owns
 * it), read strongly here by key alone, so that approvals, which create tasks, stay the one folder that imports the other.
 */
async function currentPublication(workspaceId: string, sku: string): Promise<v.InferOutput<typeof PublicationSchema> | undefined> {
  const item = await getItem({ Key: keys.latestApproval(workspaceId, sku), ConsistentRead: true });
  return item ? v.parse(PublicationSchema, item) : undefined;
}

/** Ends a lease the caller just renewed by cancelling its task, on the condition that the renewal is still the lease. */
async function cancelSuperseded(task: Task, supersededBy: string, leaseUntilMs: number, nowMs: number): Promise<void> {
  await updateItem({
    Key: keys.writeback(task.workspaceId, task.taskId),
    UpdateExpression: `SET #status = :cancelled, finishedAt = :now, supersededBy = :approval ${CLOSE}`,
    ConditionExpression: '#status = :leased AND leaseUntilMs = :until',
    ExpressionAttributeNames: { '#status': 'status', ...CLOSE_NAMES },
    ExpressionAttributeValues: {
      ':cancelled': 'cancelled',
      ':leased': 'leased',
      ':until': leaseUntilMs,
      ':now': new Date(nowMs).toISOString(),
      ':approval': supersededBy,
    },
  });
}
