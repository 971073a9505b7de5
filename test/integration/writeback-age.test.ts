// How long write-back tasks wait: every open task of every workspace on the sparse openTasks index until it ends, and the sweeper's reading of the oldest.
import { describe, expect, it } from 'vitest';
import { seedPendingTasks } from '#lib/local/seed.ts';
import { getItem, queryPage } from '#platform/table/commands.ts';
import { table } from '#platform/table/definition.ts';
import { openTaskKeys } from '#platform/table/index-keys.ts';
import { keys } from '#platform/table/keys.ts';
import { oldestOpenTaskSeconds } from '#shared/writebacks/waiting.ts';
import { newWorkspace } from './support.ts';
import { ack, claim, claimedTasks } from './writebacks-support.ts';

const openTasksIndex = table.indexes[4];

/** Whether the task is on the index of open tasks, read as the sweeper reads it. */
async function onTheIndex(workspaceId: string, taskId: string): Promise<boolean> {
  const task = await getItem({ Key: keys.writeback(workspaceId, taskId) });
  const { Items = [] } = await queryPage({
    IndexName: openTasksIndex.name,
    KeyConditionExpression: '#pk = :pk AND #sk = :sk',
    ExpressionAttributeNames: { '#pk': openTaskKeys.attribute, '#sk': openTaskKeys.sortKey },
    ExpressionAttributeValues: { ':pk': openTaskKeys.task(openTaskKeys.shardOf(taskId))[openTaskKeys.attribute], ':sk': task?.createdAt },
  });
  return Items.some((item) => item.PK === keys.writeback(workspaceId, taskId).PK);
}

describe('the tasks that wait', () => {
  it('keeps a task on the index of open tasks while it is pending and leased, and takes it off once acknowledged', async () => {
    const workspace = await newWorkspace('Waiting Write-backs');
    const [applied, failed] = await seedPendingTasks(workspace.workspaceId, workspace.connectorId, 2);
    expect(await onTheIndex(workspace.workspaceId, String(applied))).toBe(true);

    const leased = claimedTasks(await claim(workspace.keys.connector, { limit: 2 }));
    expect(leased.map((task) => task.id).sort()).toEqual([applied, failed].sort());
    expect(await onTheIndex(workspace.workspaceId, String(applied))).toBe(true);

    const acked = await ack(workspace.keys.connector, [
      { id: String(applied), ok: true },
      { id: String(failed), ok: false, error: 'the ERP refused the price' },
    ]);
    expect(acked.status, acked.text).toBe(200);
    expect(await onTheIndex(workspace.workspaceId, String(applied))).toBe(false);
    expect(await onTheIndex(workspace.workspaceId, String(failed))).toBe(false);
  });

  it('reads the age of the oldest open task of any workspace, at least as old as one left open', async () => {
    const workspace = await newWorkspace('Waiting Write-backs');
    const [open] = await seedPendingTasks(workspace.workspaceId, workspace.connectorId, 1);
    const task = await getItem({ Key: keys.writeback(workspace.workspaceId, String(open)) });
    const createdMs = Date.parse(String(task?.createdAt));
    // An hour on, whatever other tests left open: the oldest open task is at least this one's age.
    const later = createdMs + 3_600_000;
    expect(await oldestOpenTaskSeconds(later)).toBeGreaterThanOrEqual(3_600);
  });
});
