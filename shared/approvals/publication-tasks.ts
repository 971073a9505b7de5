// The tasks an approval publishes: one per connector with the SKU's next sequence, what the approval before leaves (pending tasks to cancel, leased ones to wait for), and each task's event.
import type { Connector } from '#shared/connectors/schema.ts';
import { newTaskItem, openTaskIds, readTasks } from '#shared/writebacks/tasks.ts';
import { newEvent, type WebhookEvent } from '#shared/webhooks/events.ts';
import type { LatestApproval } from './latest.ts';
import type { ApprovalPlan } from './publish.ts';

export interface PublishedTask {
  readonly connectorId: string;
  readonly taskId: string;
  readonly item: Record<string, unknown>;
}

/** What the approval before leaves: the pending tasks to cancel, and per connector the leased task the new one waits for. */
export interface Predecessors {
  /** The pending tasks to cancel, with their connectors. */
  readonly cancels: Array<{ readonly connectorId: string; readonly taskId: string }>;
  readonly waitsFor: ReadonlyMap<string, string>;
}

/**
 * The tasks a live approval finds before it: those of the approval published before it, which the latest-approval
 * item names (a SKU approved before that item existed has its open tasks found through the lookup index instead).
 * Pending ones are cancelled; a leased one is left to its lease, and the connector's new task waits for it, as it
 * waits for whatever a cancelled one waited for.
 */
export async function predecessors(
  workspaceId: string,
  sku: string,
  latest: LatestApproval | undefined,
  connectors: readonly Connector[],
): Promise<Predecessors> {
  const ids = latest
    ? latest.taskIds
    : (await Promise.all(connectors.map((connector) => openTaskIds(workspaceId, connector.connectorId, sku)))).flat();
  const cancels: Array<{ connectorId: string; taskId: string }> = [];
  const waitsFor = new Map<string, string>();
  if (ids.length === 0) return { cancels, waitsFor };
  for (const task of (await readTasks(workspaceId, ids)).values()) {
    if (task.status === 'pending') {
      cancels.push({ connectorId: task.connectorId, taskId: task.taskId });
      if (task.waitsFor && !waitsFor.has(task.connectorId)) waitsFor.set(task.connectorId, task.waitsFor);
    } else if (task.status === 'leased') waitsFor.set(task.connectorId, task.taskId);
  }
  return { cancels, waitsFor };
}

/** One write-back task per connector, created at the moment the approval publishes, with the SKU's next sequence. */
export function publishedTasks(
  plan: ApprovalPlan,
  approvalId: string,
  createdAt: string,
  sequence: number,
  waitsFor: ReadonlyMap<string, string>,
): PublishedTask[] {
  return plan.connectors.map((connector) => {
    const item = newTaskItem({
      workspaceId: plan.workspaceId,
      connectorId: connector.connectorId,
      channel: connector.name,
      approvalId,
      recommendation: plan.recommendation,
      priceCents: plan.priceCents,
      reasonSummary: plan.reasonSummary,
      createdAt,
      sequence,
      waitsFor: waitsFor.get(connector.connectorId),
    });
    return { connectorId: connector.connectorId, taskId: String(item.taskId), item };
  });
}

export function pendingEvent(
  plan: ApprovalPlan,
  approvalId: string,
  { connectorId, taskId }: PublishedTask,
  createdAt: string,
): WebhookEvent {
  const { recommendation } = plan;
  return newEvent(
    'writeback.pending',
    plan.workspaceId,
    {
      writebackId: taskId,
      connectorId,
      approvalId,
      productSku: recommendation.sku,
      priceCents: plan.priceCents,
      currency: recommendation.currency,
      createdAt,
    },
    plan.now,
  );
}
