// Write-back task items: created with an approval, superseded by a newer one, read by id, and closed out of the indexes.
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import * as v from 'valibot';
import { tableName } from '../config.ts';
import { newId } from '../ids.ts';
import type { PricedRecommendation } from '../recommendations/schema.ts';
import { getItems, inParallel } from '../table/bulk.ts';
import { isConditionFailure, tableClient } from '../table/client.ts';
import { table } from '../table/definition.ts';
import { claimableKeys, keys, lookupKeys } from '../table/keys.ts';
import { queryLookup } from '../table/query.ts';
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
export const CLOSE = 'REMOVE #claimPk, #claimSk, #lookupPk, #lookupSk';
export const CLOSE_NAMES = {
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
  const Items = await queryLookup(lookupKeys.openWritebacks(workspaceId, connectorId, sku));
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

/** Tasks by id, read strongly: an ack judges each result on the task as it stands. */
export async function readTasks(workspaceId: string, taskIds: readonly string[]): Promise<Map<string, Task>> {
  const items = await getItems(
    taskIds.map((id) => keys.writeback(workspaceId, id)),
    { consistent: true },
  );
  return new Map(items.map((item) => v.parse(TaskSchema, item)).map((task) => [task.taskId, task]));
}

export async function readTask(workspaceId: string, taskId: string): Promise<Task | undefined> {
  const { Item } = await tableClient().send(
    new GetCommand({ TableName: tableName(), Key: keys.writeback(workspaceId, taskId), ConsistentRead: true }),
  );
  return Item ? v.parse(TaskSchema, Item) : undefined;
}
