// Sending a failed write-back again, at a person's request: a new pending task for the same approved price, only while that price is still the SKU's approved one, and only once.
import { newId } from '#platform/ids.ts';
import { pause } from '#platform/table/bulk.ts';
import { cancellationCodes, type TransactEntry, transactWrite } from '#platform/table/commands.ts';
import { keys } from '#platform/table/keys.ts';
import { type LatestApproval, readLatestApproval } from './latest.ts';
import { handOn, outboxEntry } from '#shared/webhooks/outbox.ts';
import { newEvent } from '#shared/webhooks/events.ts';
import type { Task } from '#shared/writebacks/schema.ts';
import { openTaskIds, pendingTaskItem, readTask } from '#shared/writebacks/tasks.ts';

export type ResendOutcome = { readonly resent: Task } | { readonly refused: string };

/**
 * Why a failed task may not be sent again, or undefined when it may. The service never retries a failed task itself (a
 * connector's failure may mean the ERP refused the price for good): a person decides, and only for the price that is
 * still approved, so that a second try can never publish a price a newer approval replaced.
 */
export function resendRefusal(
  sku: string,
  task: Task | undefined,
  latest: { readonly approvalId: string; readonly taskIds: readonly string[]; readonly waiting?: unknown } | undefined,
  openOfSku: readonly string[],
): string | undefined {
  if (!task || task.productSku !== sku) return `No such write-back task of ${sku}.`;
  if (task.status !== 'failed') return `Only a failed write-back can be sent again; ${task.taskId} is ${task.status}.`;
  if (task.resentAs) return `${task.taskId} was sent again already, as ${task.resentAs}.`;
  if (!latest || latest.approvalId !== task.approvalId || !latest.taskIds.includes(task.taskId)) {
    return `${task.productSku} has been approved again since: its newest approval's write-backs carry the price now.`;
  }
  if (latest.waiting) return `A newer approval of ${task.productSku} waits for a second approver: send it again once that is settled.`;
  if (openOfSku.length > 0) {
    return `The connector still holds a write-back of ${task.productSku} (${openOfSku.join(', ')}): send this one again once it is finished.`;
  }
  return undefined;
}

/**
 * A new pending task for the failed one's connector and price, in one transaction with: the failed task marked as sent
 * again (only if it is still failed and was not sent again: a double click makes one task), the SKU's latest-approval
 * item naming the new task in the failed one's place and taking a turn (so that an approval at the same moment reads
 * again, and a later one cancels the new task while it is pending), the approval's record listing the new task, and its
 * writeback.pending event. `by` is the person, for the audit.
 */
export async function resendTask(workspaceId: string, taskId: string, who: ResendBy, now: Date): Promise<ResendOutcome> {
  for (let attempt = 1; ; attempt++) {
    const outcome = await resendOnce(workspaceId, taskId, who, now);
    // Two sends at the very same moment can make DynamoDB cancel both: read again, and the loser is refused by name.
    if (outcome !== 'conflict') return outcome;
    if (attempt >= CONFLICT_ATTEMPTS) throw new Error(`sending ${taskId} again kept conflicting with other writes`);
    await pause(attempt);
  }
}

const CONFLICT_ATTEMPTS = 3;

/** The SKU the person sent it for (the page they were on), and who they are. */
export interface ResendBy {
  readonly sku: string;
  readonly by: string;
}

/** The failed task as a new pending one: what a claim and an ack read of it, without what its first try left. */
function pendingCopy(task: Task, by: string, createdAt: string): Task {
  return {
    taskId: newId('wb'),
    workspaceId: task.workspaceId,
    connectorId: task.connectorId,
    channel: task.channel,
    approvalId: task.approvalId,
    ...(task.sequence === undefined ? {} : { sequence: task.sequence }),
    productSku: task.productSku,
    ...(task.productExternalId === undefined ? {} : { productExternalId: task.productExternalId }),
    priceCents: task.priceCents,
    currency: task.currency,
    ...(task.exchangeRateToBase === undefined ? {} : { exchangeRateToBase: task.exchangeRateToBase }),
    reasonSummary: task.reasonSummary,
    pricingDecisionId: task.pricingDecisionId,
    status: 'pending',
    createdAt,
    leases: 0,
    resendOf: { taskId: task.taskId, by },
  };
}

/**
 * The new task; the failed one marked as sent again, while it is still failed and was not; the SKU's turn naming the new
 * task in its place, while its approval is still the newest; the approval's record listing the new task.
 */
function resendWrites(task: Task, resent: Task, latest: LatestApproval): TransactEntry[] {
  const { workspaceId, productSku: sku } = task;
  return [
    { Put: { Item: pendingTaskItem(resent), ConditionExpression: 'attribute_not_exists(PK)' } },
    {
      Update: {
        Key: keys.writeback(workspaceId, task.taskId),
        UpdateExpression: 'SET resentAs = :resent',
        ConditionExpression: '#status = :failed AND attribute_not_exists(resentAs)',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':resent': resent.taskId, ':failed': 'failed' },
      },
    },
    {
      Update: {
        Key: keys.latestApproval(workspaceId, sku),
        UpdateExpression: 'SET taskIds = :taskIds, #version = :next',
        ConditionExpression: '#version = :seen AND approvalId = :approval',
        ExpressionAttributeNames: { '#version': 'version' },
        ExpressionAttributeValues: {
          ':taskIds': latest.taskIds.map((id) => (id === task.taskId ? resent.taskId : id)),
          ':next': latest.version + 1,
          ':seen': latest.version,
          ':approval': task.approvalId,
        },
      },
    },
    {
      Update: {
        Key: keys.approval(workspaceId, sku, latest.approvedAt, task.approvalId),
        UpdateExpression: 'SET publishedTo = list_append(publishedTo, :resent)',
        ConditionExpression: 'attribute_exists(PK)',
        ExpressionAttributeValues: { ':resent': [{ connectorId: task.connectorId, writebackId: resent.taskId }] },
      },
    },
  ];
}

async function resendOnce(workspaceId: string, taskId: string, who: ResendBy, now: Date): Promise<ResendOutcome | 'conflict'> {
  const task = await readTask(workspaceId, taskId);
  const latest = task ? await readLatestApproval(workspaceId, task.productSku) : undefined;
  const open = task ? await openTaskIds(workspaceId, task.connectorId, task.productSku) : [];
  const refusal = resendRefusal(who.sku, task, latest, open);
  if (refusal || !task || !latest) return { refused: refusal ?? `No such write-back task of ${who.sku}.` };
  const createdAt = now.toISOString();
  const resent = pendingCopy(task, who.by, createdAt);
  const event = newEvent(
    'writeback.pending',
    workspaceId,
    {
      writebackId: resent.taskId,
      connectorId: task.connectorId,
      approvalId: task.approvalId,
      productSku: task.productSku,
      priceCents: task.priceCents,
      currency: task.currency,
      createdAt,
    },
    now,
  );
  try {
    await transactWrite([...resendWrites(task, resent, latest), outboxEntry(event)]);
  } catch (error) {
    const codes = cancellationCodes(error);
    if (codes?.includes('TransactionConflict')) return 'conflict';
    if (codes?.[1] === 'ConditionalCheckFailed') return { refused: `${task.taskId} was sent again already.` };
    if (codes?.[2] === 'ConditionalCheckFailed') {
      return { refused: `${task.productSku} was approved again meanwhile: its newest approval's write-backs carry the price now.` };
    }
    throw error;
  }
  await handOn([event]);
  return { resent };
}
