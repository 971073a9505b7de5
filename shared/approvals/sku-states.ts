// Each SKU's approval state as the console's list shows and filters it, derived on read from its latest-approval item and the tasks that names.
import * as v from 'valibot';
import { getItems } from '#platform/table/bulk.ts';
import { keys, skuOfProductKey } from '#platform/table/keys.ts';
import { type Task, TaskSchema } from '#shared/writebacks/schema.ts';
import { taskState } from './history.ts';
import { type LatestApproval, LatestApprovalSchema } from './latest.ts';

/**
 * What became of the SKU's latest live approval: none yet; waiting for a second approver; published with no connector
 * to write it back; its write-backs under way, one failed, or all applied. A wait that ran out shows what was
 * published before it, which is still what the connectors hold.
 */
export const skuApprovalStates = ['unreviewed', 'waiting', 'approved', 'pending', 'failed', 'applied'] as const;
export type SkuApprovalState = (typeof skuApprovalStates)[number];

export interface SkuApproval {
  readonly state: SkuApprovalState;
  /** When the latest approval took its turn; absent for a SKU never approved. */
  readonly approvedAt?: string;
  /** While `waiting`: the price that waits, and who approved it, whom a second approval of that price seconds. */
  readonly waiting?: { readonly priceCents: number; readonly approverId: string };
}

/** The state from the latest approval and its tasks as they stand: a failure needs a person, so it outranks the rest. */
export function skuApprovalState(latest: LatestApproval | undefined, tasks: readonly Task[], nowMs: number): SkuApprovalState {
  if (!latest) return 'unreviewed';
  if (latest.waiting && Date.parse(latest.waiting.waitingUntil) > nowMs) return 'waiting';
  if (latest.taskIds.length === 0) return 'approved';
  const states = tasks.map((task) => taskState(task, nowMs));
  if (states.includes('failed')) return 'failed';
  // A task past its retention is gone: only the ones still held can say they are not applied.
  return states.every((state) => state === 'applied') ? 'applied' : 'pending';
}

/**
 * The states of a page's SKUs: one BatchGetItem of their latest-approval items and one of the tasks those name, both
 * eventually consistent (0.5 RRU an item), so about 25 RRU and 0.5 RRU a connector for a page of 50 SKUs.
 */
export async function readSkuApprovals(workspaceId: string, skus: readonly string[], nowMs: number): Promise<Map<string, SkuApproval>> {
  const unique = [...new Set(skus)];
  const found =
    unique.length === 0
      ? []
      : await getItems(
          unique.map((sku) => keys.latestApproval(workspaceId, sku)),
          { consistent: false },
        );
  const latest = new Map<string, LatestApproval>();
  for (const item of found) {
    const sku = skuOfProductKey(workspaceId, item.PK);
    if (sku !== undefined) latest.set(sku, v.parse(LatestApprovalSchema, item));
  }
  const taskIds = [...latest.values()].flatMap((entry) => entry.taskIds);
  const taskItems =
    taskIds.length === 0
      ? []
      : await getItems(
          taskIds.map((id) => keys.writeback(workspaceId, id)),
          { consistent: false },
        );
  const tasksBySku = new Map<string, Task[]>();
  for (const task of taskItems.map((item) => v.parse(TaskSchema, item))) {
    tasksBySku.set(task.productSku, [...(tasksBySku.get(task.productSku) ?? []), task]);
  }
  return new Map(
    unique.map((sku) => {
      const entry = latest.get(sku);
      const state = skuApprovalState(entry, tasksBySku.get(sku) ?? [], nowMs);
      const waiting =
        state === 'waiting' && entry?.waiting ? { priceCents: entry.waiting.priceCents, approverId: entry.waiting.approverId } : undefined;
      return [sku, { state, ...(entry ? { approvedAt: entry.approvedAt } : {}), ...(waiting ? { waiting } : {}) }];
    }),
  );
}
