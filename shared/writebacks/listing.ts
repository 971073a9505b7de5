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

/** A leased task whose lease has run out is claimable again: the console says so rather than show it as held. */
export function shownStatus(task: Pick<Task, 'status' | 'leaseUntilMs'>, nowMs: number): Task['status'] | 'lease expired' {
  if (task.status === 'leased' && task.leaseUntilMs !== undefined && task.leaseUntilMs <= nowMs) return 'lease expired';
  return task.status;
}
