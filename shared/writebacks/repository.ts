// Write-back task items: created with an approval, superseded by a newer one, leased by claims, finished by acks, extended.
import { GetCommand, QueryCommand, TransactWriteCommand, type TransactWriteCommandInput, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import * as v from 'valibot';
import { getItems, inParallel } from '../canonical/repository.ts';
import { tableName } from '../config.ts';
import { ApiError } from '../errors.ts';
import { newId } from '../ids.ts';
import { logger } from '../observability.ts';
import { computeRecommendations, recommendationItem } from '../recommendations/repository.ts';
import type { PricedRecommendation } from '../recommendations/schema.ts';
import { isConditionFailure, tableClient } from '../table/client.ts';
import { table } from '../table/definition.ts';
import { queryAll } from '../table/query.ts';
import { claimableKeys, keys, lookupKeys, type PrimaryKey } from '../table/keys.ts';
import type { Workspace } from '../workspaces/schema.ts';
import { type AckVerdict, attemptOrder, claimWindow, countedAs, judgeAck } from './rules.ts';
import { type AckCounts, type AckResult, type Task, TaskIdSchema, TaskSchema } from './schema.ts';

const [lookupIndex, , claimableIndex] = table.indexes;

/** Tasks are the record of what was published where; they are kept as long as usage is. */
const TASK_RETENTION_DAYS = 400;
/** Ticket items only need to outlive their window. */
const TICKET_RETENTION_SECONDS = 3600;

export interface NewTask {
  readonly workspaceId: string;
  readonly connectorId: string;
  readonly channel: string;
  readonly approvalId: string;
  readonly recommendation: PricedRecommendation;
  readonly priceCents: number;
  readonly reasonSummary: string;
  readonly createdAt: string;
}

/** The keys that make a task findable while it is open: claimable by its connector, and superseded by a newer approval. */
function openKeys(workspaceId: string, connectorId: string, sku: string, claimableAt: string, taskId: string) {
  return {
    ...claimableKeys.task(workspaceId, connectorId, claimableAt, taskId),
    ...lookupKeys.openWriteback(workspaceId, connectorId, sku, taskId),
  };
}

/** A pending task, as an approval writes it. */
export function newTaskItem(input: NewTask): Record<string, unknown> {
  const taskId = newId('wb');
  const { recommendation } = input;
  const task: Task = {
    taskId,
    workspaceId: input.workspaceId,
    connectorId: input.connectorId,
    channel: input.channel,
    approvalId: input.approvalId,
    productSku: recommendation.sku,
    ...(recommendation.productExternalId === undefined ? {} : { productExternalId: recommendation.productExternalId }),
    priceCents: input.priceCents,
    currency: recommendation.currency,
    ...(recommendation.exchangeRateToBase === undefined ? {} : { exchangeRateToBase: recommendation.exchangeRateToBase }),
    reasonSummary: input.reasonSummary,
    pricingDecisionId: recommendation.pricingDecisionId,
    status: 'pending',
    createdAt: input.createdAt,
    leases: 0,
  };
  return {
    ...keys.writeback(input.workspaceId, taskId),
    type: 'writeback',
    ...task,
    ...openKeys(input.workspaceId, input.connectorId, recommendation.sku, input.createdAt, taskId),
    expiresAt: Math.floor(Date.parse(input.createdAt) / 1000) + TASK_RETENTION_DAYS * 86_400,
  };
}

/** Ending a task takes it out of both indexes. */
const CLOSE = 'REMOVE #claimPk, #claimSk, #lookupPk, #lookupSk';
const CLOSE_NAMES = {
  '#claimPk': claimableIndex.partitionKey,
  '#claimSk': claimableIndex.sortKey,
  '#lookupPk': lookupIndex.partitionKey,
  '#lookupSk': lookupIndex.sortKey,
};

/**
 * A new approval cancels the connector's older tasks for the SKU that are still pending: it would be pointless for the
 * connector to apply a price that is no longer the approved one. A task that was ever leased is left alone, as the
 * contract has it (a late ack of an expired lease counts as expired and the task can be claimed again), and a task of
 * a later approval is never cancelled, however the two approvals' writes interleave.
 */
export async function supersedeOpenTasks(
  workspaceId: string,
  connectorId: string,
  sku: string,
  approval: { readonly approvalId: string; readonly approvedAt: string; readonly taskIds: ReadonlySet<string> },
  nowMs: number,
): Promise<number> {
  const open = lookupKeys.openWritebacks(workspaceId, connectorId, sku);
  const Items = await queryAll({
    TableName: tableName(),
    IndexName: lookupIndex.name,
    KeyConditionExpression: '#pk = :pk',
    ExpressionAttributeNames: { '#pk': lookupIndex.partitionKey },
    ExpressionAttributeValues: { ':pk': open.partitionKey },
  });
  let cancelled = 0;
  await inParallel(
    Items.filter((item) => !approval.taskIds.has(String(item[lookupIndex.sortKey]))),
    8,
    async (item) => {
      try {
        await tableClient().send(
          new UpdateCommand({
            TableName: tableName(),
            Key: { PK: item.PK, SK: item.SK },
            UpdateExpression: `SET #status = :cancelled, finishedAt = :now, supersededBy = :approval ${CLOSE}`,
            ConditionExpression: '#status = :pending AND createdAt < :approvedAt',
            ExpressionAttributeNames: { '#status': 'status', ...CLOSE_NAMES },
            ExpressionAttributeValues: {
              ':cancelled': 'cancelled',
              ':pending': 'pending',
              ':now': new Date(nowMs).toISOString(),
              ':approval': approval.approvalId,
              ':approvedAt': approval.approvedAt,
            },
          }),
        );
        cancelled += 1;
      } catch (error) {
        // Leased meanwhile, or already finished: it is no longer pending, so it stays as it is.
        if (!isConditionFailure(error)) throw error;
      }
    },
  );
  return cancelled;
}

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
  const { Attributes } = await tableClient().send(
    new UpdateCommand({
      TableName: tableName(),
      Key,
      UpdateExpression: 'ADD started :one, running :one SET expiresAt = if_not_exists(expiresAt, :expires)',
      ExpressionAttributeValues: { ':one': 1, ':expires': (window + 1) * CLAIM_WINDOW_SECONDS + TICKET_RETENTION_SECONDS },
      ReturnValues: 'UPDATED_NEW',
    }),
  );
  return {
    ticket: Number(Attributes?.started ?? 1) - 1,
    running: Math.max(1, Number(Attributes?.running ?? 1)),
    leave: async () => {
      await tableClient().send(
        new UpdateCommand({
          TableName: tableName(),
          Key,
          UpdateExpression: 'ADD running :less',
          ExpressionAttributeValues: { ':less': -1 },
        }),
      );
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
  const { Items = [] } = await tableClient().send(
    new QueryCommand({
      TableName: tableName(),
      IndexName: claimableIndex.name,
      KeyConditionExpression: '#pk = :pk AND #sk <= :sk',
      ExpressionAttributeNames: { '#pk': claimableIndex.partitionKey, '#sk': claimableIndex.sortKey },
      ExpressionAttributeValues: { ':pk': range.partitionKey, ':sk': range.sortKeyAtMost },
      Limit: window,
    }),
  );
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
  const taskId = candidate.claimSk.slice(candidate.claimSk.indexOf('#') + 1);
  try {
    const { Attributes } = await tableClient().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: candidate.key,
        UpdateExpression: 'SET #status = :leased, leaseUntilMs = :until, leasedAt = :now, #claimSk = :next ADD leases :one',
        ConditionExpression: '#claimSk = :seen',
        ExpressionAttributeNames: { '#status': 'status', '#claimSk': claimableIndex.sortKey },
        ExpressionAttributeValues: {
          ':leased': 'leased',
          ':until': leaseUntilMs,
          ':now': new Date(nowMs).toISOString(),
          ':next': `${new Date(leaseUntilMs).toISOString()}#${taskId}`,
          ':seen': candidate.claimSk,
          ':one': 1,
        },
        ReturnValues: 'ALL_NEW',
      }),
    );
    return v.parse(TaskSchema, Attributes);
  } catch (error) {
    if (isConditionFailure(error)) return undefined;
    throw error;
  }
}

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
): Promise<Task[]> {
  const { limit } = request;
  const leaseUntilMs = nowMs + request.leaseSeconds * 1000;
  const entry = await enterClaim(workspaceId, connectorId, nowMs);
  const window = claimWindow(limit, entry.running);
  const tasks: Task[] = [];
  try {
    for (let read = 0; read < 2 && tasks.length < limit; read++) {
      const candidates = await readClaimable(workspaceId, connectorId, window, nowMs);
      // A second read starts at a random slice: the claim's own slice was taken, most likely by one that read with it.
      const ticket = entry.running === 1 ? 0 : read === 0 ? entry.ticket : Math.floor(Math.random() * candidates.length);
      // Past this many attempts the window is stale: others have taken what it shows, and a fresh read is cheaper
      // than refused writes.
      const order = attemptOrder(candidates, limit, ticket).slice(0, limit * ATTEMPTS_PER_TASK);
      for (let next = 0; tasks.length < limit && next < order.length;) {
        const wave = order.slice(next, next + limit - tasks.length);
        next += wave.length;
        const outcomes = await Promise.allSettled(wave.map((candidate) => leaseTask(candidate, leaseUntilMs, nowMs)));
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

/** Moves a live lease's end to `leaseSeconds` from now; 409 if the caller holds no live lease on the task. */
export async function extendLease(
  workspaceId: string,
  connectorId: string,
  taskId: string,
  leaseSeconds: number,
  nowMs: number,
): Promise<Task> {
  if (!v.is(TaskIdSchema, taskId)) throw leaseExpired();
  const leaseUntilMs = nowMs + leaseSeconds * 1000;
  try {
    const { Attributes } = await tableClient().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.writeback(workspaceId, taskId),
        UpdateExpression: 'SET leaseUntilMs = :until, #claimSk = :next',
        ConditionExpression: 'connectorId = :connector AND #status = :leased AND leaseUntilMs > :nowMs',
        ExpressionAttributeNames: { '#status': 'status', '#claimSk': claimableIndex.sortKey },
        ExpressionAttributeValues: {
          ':until': leaseUntilMs,
          ':next': `${new Date(leaseUntilMs).toISOString()}#${taskId}`,
          ':connector': connectorId,
          ':leased': 'leased',
          ':nowMs': nowMs,
        },
        ReturnValues: 'ALL_NEW',
      }),
    );
    return v.parse(TaskSchema, Attributes);
  } catch (error) {
    if (isConditionFailure(error)) throw leaseExpired();
    throw error;
  }
}

async function readTasks(workspaceId: string, taskIds: readonly string[]): Promise<Map<string, Task>> {
  const items = await getItems(
    taskIds.map((id) => keys.writeback(workspaceId, id)),
    { consistent: true },
  );
  return new Map(items.map((item) => v.parse(TaskSchema, item)).map((task) => [task.taskId, task]));
}

async function readTask(workspaceId: string, taskId: string): Promise<Task | undefined> {
  const { Item } = await tableClient().send(
    new GetCommand({ TableName: tableName(), Key: keys.writeback(workspaceId, taskId), ConsistentRead: true }),
  );
  return Item ? v.parse(TaskSchema, Item) : undefined;
}

/** The live lease the verdict was made on: a write that finds the task otherwise is refused. */
function finishCondition(task: Task, nowMs: number) {
  return {
    ConditionExpression: 'connectorId = :connector AND #status = :leased AND leaseUntilMs = :seenUntil AND leaseUntilMs > :nowMs',
    values: { ':connector': task.connectorId, ':leased': 'leased', ':seenUntil': task.leaseUntilMs ?? 0, ':nowMs': nowMs },
  };
}

function isRefusal(error: unknown): boolean {
  const name = (error as { name?: string } | undefined)?.name;
  return isConditionFailure(error) || name === 'TransactionCanceledException' || name === 'TransactionConflictException';
}

type Writer = (task: Task) => Promise<void>;

/**
 * An applied task, the product's new current price and its recommendation at that price, all or nothing: a fault in
 * between can neither leave the task applied with the old price in place nor move the price of a task not applied.
 */
function applyWriter(workspaceId: string, recommendations: ReadonlyMap<string, Record<string, unknown>>, nowMs: number): Writer {
  return async (task) => {
    const { ConditionExpression, values } = finishCondition(task, nowMs);
    const recommendation = recommendations.get(task.productSku);
    const items: NonNullable<TransactWriteCommandInput['TransactItems']> = [
      {
        Update: {
          TableName: tableName(),
          Key: keys.writeback(workspaceId, task.taskId),
          UpdateExpression: `SET #status = :applied, finishedAt = :now ${CLOSE}`,
          ConditionExpression,
          ExpressionAttributeNames: { '#status': 'status', ...CLOSE_NAMES },
          ExpressionAttributeValues: { ...values, ':applied': 'applied', ':now': new Date(nowMs).toISOString() },
        },
      },
    ];
    if (recommendation) {
      items.push(
        {
          Update: {
            TableName: tableName(),
            Key: keys.product(workspaceId, task.productSku),
            UpdateExpression: 'SET currentPriceCents = :price',
            ConditionExpression: 'attribute_exists(PK)',
            ExpressionAttributeValues: { ':price': task.priceCents },
          },
        },
        { Put: { TableName: tableName(), Item: recommendation } },
      );
    }
    await tableClient().send(new TransactWriteCommand({ TransactItems: items }));
  };
}

function failWriter(workspaceId: string, error: string | undefined, nowMs: number): Writer {
  return async (task) => {
    const { ConditionExpression, values } = finishCondition(task, nowMs);
    await tableClient().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.writeback(workspaceId, task.taskId),
        UpdateExpression: `SET #status = :failed, finishedAt = :now, #error = :error ${CLOSE}`,
        ConditionExpression,
        ExpressionAttributeNames: { '#status': 'status', '#error': 'error', ...CLOSE_NAMES },
        ExpressionAttributeValues: {
          ...values,
          ':failed': 'failed',
          ':now': new Date(nowMs).toISOString(),
          ':error': error ?? 'The connector reported a failure without a reason.',
        },
      }),
    );
  };
}

/** Attempts at one ack before it is given up as a fault: concurrent acks of one task settle within a few. */
const ACK_ATTEMPTS = 5;

/**
 * Acknowledges a call's results. Each id counts once: the first result for it decides, and later ones in the same call
 * are ignored. Refused writes are judged anew (settleResult), so 20 identical acks at once end in one state and all
 * count it.
 */
export async function acknowledgeTasks(
  workspace: Pick<Workspace, 'workspaceId' | 'baseCurrency' | 'pricing'>,
  connectorId: string,
  results: readonly AckResult[],
  nowMs: number,
): Promise<AckCounts> {
  const counts: AckCounts = { applied: 0, failed: 0, expired: 0, ignored: 0 };
  const firsts = new Map<string, AckResult>();
  for (const result of results) {
    if (firsts.has(result.id) || !v.is(TaskIdSchema, result.id)) counts.ignored += 1;
    else firsts.set(result.id, result);
  }
  const tasks = await readTasks(workspace.workspaceId, [...firsts.keys()]);
  const verdicts = [...firsts.values()].map((result) => ({ result, verdict: judgeAck(tasks.get(result.id), result, connectorId, nowMs) }));

  // The recommendations of the products whose price is about to change, at their new prices, in one snapshot.
  // The newest task of a product is applied last (see below), so its price is the one to recommend from.
  const newPrices = new Map<string, number>();
  const applying = verdicts.flatMap(({ result, verdict }) => {
    const task = tasks.get(result.id);
    return verdict === 'apply' && task ? [task] : [];
  });
  for (const task of applying.sort((a, b) => a.createdAt.localeCompare(b.createdAt))) newPrices.set(task.productSku, task.priceCents);
  const recommendations = new Map(
    (await computeRecommendations(workspace, [...newPrices.keys()], nowMs, newPrices)).map((recommendation) => [
      recommendation.sku,
      recommendationItem(workspace.workspaceId, recommendation),
    ]),
  );

  // Results for one product run one after another, oldest task first, so that the newest approved price lands last;
  // different products run side by side.
  const byProduct = new Map<string, typeof verdicts>();
  for (const entry of verdicts) {
    const sku = tasks.get(entry.result.id)?.productSku ?? `\u0000${entry.result.id}`;
    const chain = byProduct.get(sku);
    if (chain) chain.push(entry);
    else byProduct.set(sku, [entry]);
  }
  const createdAt = (id: string) => tasks.get(id)?.createdAt ?? '';
  const chains = [...byProduct.values()].map((chain) => chain.sort((a, b) => createdAt(a.result.id).localeCompare(createdAt(b.result.id))));
  await inParallel(chains, 16, async (chain) => {
    for (const { result, verdict } of chain) {
      const settled = await settleResult(workspace.workspaceId, connectorId, result, tasks.get(result.id), verdict, recommendations, nowMs);
      counts[countedAs(settled)] += 1;
    }
  });
  return counts;
}

/**
 * Writes what one result's verdict calls for. A write refused because the task changed meanwhile (another ack, a
 * claim after expiry) reads the task again and judges anew; the verdict that stands is returned, to be counted.
 */
async function settleResult(
  workspaceId: string,
  connectorId: string,
  result: AckResult,
  seen: Task | undefined,
  verdict: AckVerdict,
  recommendations: ReadonlyMap<string, Record<string, unknown>>,
  nowMs: number,
): Promise<AckVerdict> {
  let task = seen;
  let current = verdict;
  for (let attempt = 1; (current === 'apply' || current === 'fail') && task; attempt++) {
    const write = current === 'apply' ? applyWriter(workspaceId, recommendations, nowMs) : failWriter(workspaceId, result.error, nowMs);
    try {
      await write(task);
      break;
    } catch (error) {
      if (!isRefusal(error) || attempt >= ACK_ATTEMPTS) throw error;
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 20 * attempt));
      task = await readTask(workspaceId, result.id);
      current = judgeAck(task, result, connectorId, nowMs);
    }
  }
  return current;
}
