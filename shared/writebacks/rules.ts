// The rules of write-back tasks, free of storage: what an ack does to a task, the order claims try tasks in, and the task a connector sees.
import type { AckResult, Task, TaskView } from './schema.ts';

/** Whether the task is under a lease that has not run out. */
export function isLeaseLive(task: Pick<Task, 'status' | 'leaseUntilMs'>, nowMs: number): boolean {
  return task.status === 'leased' && (task.leaseUntilMs ?? 0) > nowMs;
}

/**
 * What one acknowledgement does. `apply` and `fail` finish a live lease; `applied` and `failed` are the same ack again
 * for a task it already finished, counted the same and changing nothing; the rest change nothing either.
 */
export type AckVerdict = 'apply' | 'fail' | 'applied' | 'failed' | 'expired' | 'ignored';

export function judgeAck(task: Task | undefined, result: Pick<AckResult, 'ok'>, connectorId: string, nowMs: number): AckVerdict {
  // Another connector's task is as unknown to the caller as one that does not exist.
  if (!task || task.connectorId !== connectorId) return 'ignored';
  if (task.status === 'leased') {
    if (!isLeaseLive(task, nowMs)) return 'expired';
    return result.ok ? 'apply' : 'fail';
  }
  if (task.status === 'applied' && result.ok) return 'applied';
  if (task.status === 'failed' && !result.ok) return 'failed';
  return 'ignored';
}

/** How a verdict is counted in the ack response. */
export function countedAs(verdict: AckVerdict): 'applied' | 'failed' | 'expired' | 'ignored' {
  switch (verdict) {
    case 'apply':
    case 'applied':
      return 'applied';
    case 'fail':
    case 'failed':
      return 'failed';
    default:
      return verdict;
  }
}

/**
 * A claim reads a slice of `limit` tasks for each claim of its connector running beside it, and at least this many
 * slices, so that it can step past tasks others took; never more than CLAIM_WINDOW_MAX tasks.
 */
export const CLAIM_SLICES = 10;
export const CLAIM_WINDOW_MAX = 1000;

export function claimWindow(limit: number, running = 1): number {
  return Math.min(CLAIM_WINDOW_MAX, limit * Math.max(CLAIM_SLICES, running));
}

/**
 * The order a claim tries the claimable tasks it read, oldest first. Claims of one connector that run at the same time
 * hold successive tickets, and each starts at its own slice of `limit` tasks: concurrent workers then lease different
 * tasks instead of all racing for the oldest, while a claim that runs alone (ticket 0) takes the oldest. Tasks before
 * the slice come last, should the rest be taken.
 */
export function attemptOrder<T>(candidates: readonly T[], limit: number, ticket: number): T[] {
  const slices = Math.max(1, Math.floor(candidates.length / limit));
  const start = (ticket % slices) * limit;
  return [...candidates.slice(start), ...candidates.slice(0, start)];
}

export function taskView(task: Task): TaskView {
  return {
    id: task.taskId,
    productSku: task.productSku,
    ...(task.productExternalId === undefined ? {} : { productExternalId: task.productExternalId }),
    priceCents: task.priceCents,
    currency: task.currency,
    leaseUntil: new Date(task.leaseUntilMs ?? 0).toISOString(),
    target: { connectorId: task.connectorId, channel: task.channel },
    ...(task.exchangeRateToBase === undefined ? {} : { exchangeRateToBase: task.exchangeRateToBase }),
    reasonSummary: task.reasonSummary,
    pricingDecisionId: task.pricingDecisionId,
    approvalId: task.approvalId,
    sequence: task.sequence ?? 0,
  };
}
