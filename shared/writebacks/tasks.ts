// Write-back task items: created with an approval, cancelled by a newer one while pending, read by id, and closed out of the indexes.
import * as v from 'valibot';
import { newId } from '#platform/ids.ts';
import type { PricedRecommendation } from '#shared/recommendations/schema.ts';
import { getItems } from '#platform/table/bulk.ts';
import { getItem, type TransactEntry } from '#platform/table/commands.ts';
import { table } from '#platform/table/definition.ts';
import { claimableKeys, listingKeys, lookupKeys, openTaskKeys } from '#platform/table/index-keys.ts';
import { keys } from '#platform/table/keys.ts';
import { queryLookup } from '#platform/table/query.ts';
import { type Task, TaskSchema } from './schema.ts';

const [lookupIndex, , claimableIndex] = table.indexes;

/** Tasks are the record of what was published where; they are kept as long as usage is. */
const TASK_RETENTION_DAYS = 400;
export interface NewTask {
  readonly workspaceId: string;
  readonly connectorId: string;
  readonly channel: string;
  readonly approvalId: string;
  readonly recommendation: PricedRecommendation;
  readonly priceCents: number;
  readonly reasonSummary: string;
  readonly createdAt: string;
  /** The SKU's approval count at publication: see TaskSchema. */
  readonly sequence: number;
  /** The connector's leased task of the SKU that this one waits for, if any. */
  readonly waitsFor: string | undefined;
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
    sequence: input.sequence,
    ...(input.waitsFor === undefined ? {} : { waitsFor: input.waitsFor }),
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
  return pendingTaskItem(task);
}

/** A pending task's item: the task, on the indexes of open tasks, on its connector's listing, and kept as long as usage. */
export function pendingTaskItem(task: Task): Record<string, unknown> {
  const { workspaceId, connectorId, taskId, createdAt } = task;
  return {
    ...keys.writeback(workspaceId, taskId),
    type: 'writeback',
    ...task,
    ...openKeys(workspaceId, connectorId, task.productSku, createdAt, taskId),
    ...openTaskKeys.task(openTaskKeys.shardOf(taskId)),
    ...listingKeys.writeback(workspaceId, connectorId, createdAt, taskId),
    expiresAt: Math.floor(Date.parse(createdAt) / 1000) + TASK_RETENTION_DAYS * 86_400,
  };
}

/** Ending a task takes it out of the indexes of open tasks: claimable, superseded, and waiting for the alarm's look. */
export const CLOSE = 'REMOVE #claimPk, #claimSk, #lookupPk, #lookupSk, #openShard';
export const CLOSE_NAMES = {
  '#claimPk': claimableIndex.partitionKey,
  '#claimSk': claimableIndex.sortKey,
  '#lookupPk': lookupIndex.partitionKey,
  '#lookupSk': lookupIndex.sortKey,
  '#openShard': openTaskKeys.attribute,
};

/** The ids of a connector's open (pending or leased) tasks for a SKU, as the lookup index has them. */
export async function openTaskIds(workspaceId: string, connectorId: string, sku: string): Promise<string[]> {
  const items = await queryLookup(lookupKeys.openWritebacks(workspaceId, connectorId, sku));
  return items.map((item) => String(item[lookupIndex.sortKey]));
}

/**
 * The write that cancels a task a newer approval supersedes: it would be pointless for a connector to apply a price
 * that is no longer the approved one. It holds only while the task is pending: a task that was ever leased is left
 * alone, as the contract has it (a late ack of an expired lease counts as expired and the task can be claimed again).
 */
export function cancelTask(workspaceId: string, taskId: string, supersededBy: string, nowMs: number): TransactEntry {
  return {
    Update: {
      Key: keys.writeback(workspaceId, taskId),
      UpdateExpression: `SET #status = :cancelled, finishedAt = :now, supersededBy = :approval ${CLOSE}`,
      ConditionExpression: '#status = :pending',
      ExpressionAttributeNames: { '#status': 'status', ...CLOSE_NAMES },
      ExpressionAttributeValues: {
        ':cancelled': 'cancelled',
        ':pending': 'pending',
        ':now': new Date(nowMs).toISOString(),
        ':approval': supersededBy,
      },
    },
  };
}

/** Tasks by id, read strongly: an ack judges each result on the task as it stands. */
export async function readTasks(workspaceId: string, taskIds: readonly string[]): Promise<Map<string, Task>> {
  const items = await getItems(
    taskIds.map((id) => keys.writeback(workspaceId, id)),
    { consistent: true },
  );
  return new Map(items.map((item) => v.parse(TaskSchema, item)).map((task) => [task.taskId, task]));
}

export async function readTask(workspaceId: string, taskId: string): Promise<Task | undefined> {
  const Item = await getItem({ Key: keys.writeback(workspaceId, taskId), ConsistentRead: true });
  return Item ? v.parse(TaskSchema, Item) : undefined;
}
