// A connector's recent write-back tasks, newest first, as the console lists them.
import * as v from 'valibot';
import { listingKeys } from '#platform/table/index-keys.ts';
import { queryListing } from '#platform/table/query.ts';
import { type Task, TaskSchema } from './schema.ts';

/** Tasks the console shows per connector: the newest, whatever their status. */
export const RECENT_TASKS = 50;

/** The connector's newest tasks from the listing index, eventually consistent: one Query of one page. */
export async function recentTasks(workspaceId: string, connectorId: string, limit = RECENT_TASKS): Promise<Task[]> {
  const items = await queryListing(listingKeys.writebacks(workspaceId, connectorId), { limit, newestFirst: true });
  return items.map((item) => v.parse(TaskSchema, item));
}

/**
 * The failed tasks among a connector's newest that still stand for their SKU: a later task of the same SKU (a new
 * approval, or the failed one sent again) replaces it, so it no longer needs anyone. Newest first, as listed.
 */
export function standingFailures<T extends Pick<Task, 'status' | 'productSku' | 'createdAt'>>(newestFirst: readonly T[]): T[] {
  const seen = new Set<string>();
  const standing: T[] = [];
  for (const task of newestFirst) {
    if (task.status === 'failed' && !seen.has(task.productSku)) standing.push(task);
    seen.add(task.productSku);
  }
  return standing;
}

/** A leased task whose lease has run out is claimable again: the console says so rather than show it as held. */
export function shownStatus(task: Pick<Task, 'status' | 'leaseUntilMs'>, nowMs: number): Task['status'] | 'lease expired' {
  if (task.status === 'leased' && task.leaseUntilMs !== undefined && task.leaseUntilMs <= nowMs) return 'lease expired';
  return task.status;
}
