// A workspace's connectors and an approval's fan-out to them: a limit on connectors, and exactly one pending task per connector, the latest, even from an approval cut after its first transaction.
import { describe, expect, it, vi } from 'vitest';
import { type Approver, approvePrice } from '#shared/approvals/approve.ts';
import type * as Commands from '#platform/table/commands.ts';
import { createConnector, listConnectors } from '#shared/connectors/repository.ts';
import { getWorkspace, updateWorkspace } from '#shared/workspaces/repository.ts';
import { drain, LAMP } from './prices-support.ts';
import { newWorkspace, type TestWorkspace } from './support.ts';
import { approve, claim, claimedTasks, storedTask } from './writebacks-support.ts';

vi.setConfig({ testTimeout: 300_000 });

/** Workspaces whose next transactions fail, after how many that commit: a request cut midway, as a timeout cuts it. */
const cutAfter = new Map<string, number>();

vi.mock('#platform/table/commands.ts', async (original) => {
  const actual = await original<typeof Commands>();
  return {
    ...actual,
    transactWrite: async (...args: Parameters<typeof actual.transactWrite>) => {
      const text = JSON.stringify(args[0]);
      for (const [workspaceId, left] of cutAfter) {
        if (!text.includes(workspaceId)) continue;
        if (left === 0) throw new Error('the invocation timed out');
        cutAfter.set(workspaceId, left - 1);
      }
      return actual.transactWrite(...args);
    },
  };
});

/** A workspace with LAMP and `count` connectors that take write-backs, its own included. */
async function withConnectors(name: string, count: number): Promise<TestWorkspace> {
  const workspace = await newWorkspace(name);
  await drain(workspace, { product: [LAMP] });
  for (let made = 1; made < count; made++) {
    await createConnector({ workspaceId: workspace.workspaceId, name: `ERP ${made}`, receivesWritebacks: true });
  }
  return workspace;
}

async function approvedTaskIds(workspace: TestWorkspace, price: number): Promise<string[]> {
  const answer = await approve(workspace.keys.pwLive, { sku: 'LAMP', price });
  expect(answer.status, answer.text).toBe(200);
  return (answer.json as { published_to: Array<{ writeback_id: string }> }).published_to.map((published) => published.writeback_id);
}

async function statusesOf(workspaceId: string, taskIds: readonly string[]): Promise<unknown[]> {
  return Promise.all(taskIds.map(async (taskId) => (await storedTask(workspaceId, taskId))?.status));
}

describe("a workspace's connectors", () => {
  it('are limited to 50 by default', async () => {
    const workspace = await newWorkspace('Default Limit');
    expect((await getWorkspace(workspace.workspaceId))?.connectorLimit).toBe(50);
  });

  it('are refused past the limit with connector_limit_reached, even when created at once', async () => {
    const workspace = await newWorkspace('Limited Connectors');
    await updateWorkspace(workspace.workspaceId, { connectorLimit: 4 });
    const created = await Promise.allSettled(
      Array.from({ length: 8 }, (_, index) =>
        createConnector({ workspaceId: workspace.workspaceId, name: `ERP ${index}`, receivesWritebacks: true }),
      ),
    );
    // The workspace's own connector and three more.
    expect(created.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(3);
    for (const outcome of created.filter((settled) => settled.status === 'rejected')) {
      expect(outcome.reason).toMatchObject({ code: 'connector_limit_reached', status: 422 });
    }
    expect(await listConnectors(workspace.workspaceId)).toHaveLength(4);
    await expect(createConnector({ workspaceId: workspace.workspaceId, name: 'One more', receivesWritebacks: true })).rejects.toMatchObject(
      {
        code: 'connector_limit_reached',
      },
    );
  });
});

describe("an approval's fan-out", () => {
  it('to the limit of 50 connectors leaves each exactly one pending task, the latest', async () => {
    const workspace = await withConnectors('Fifty Connectors', 50);
    const first = await approvedTaskIds(workspace, 15.5);
    expect(first).toHaveLength(50);
    const second = await approvedTaskIds(workspace, 16);
    expect(second).toHaveLength(50);
    expect(new Set(await statusesOf(workspace.workspaceId, second))).toEqual(new Set(['pending']));
    expect(new Set(await statusesOf(workspace.workspaceId, first))).toEqual(new Set(['cancelled']));
  });

  it("cut after its first transaction, is finished by the workspace's next claim: one pending task per connector, the latest", async () => {
    const workspace = await withConnectors('Cut Fan-out', 50);
    const first = await approvedTaskIds(workspace, 15.5);
    const approver: Approver = {
      keyId: 'key_cut',
      family: 'pw_live',
      workspaceId: workspace.workspaceId,
      workspace: (await getWorkspace(workspace.workspaceId)) as NonNullable<Awaited<ReturnType<typeof getWorkspace>>>,
    };
    cutAfter.set(workspace.workspaceId, 1);
    const approval = await approvePrice(approver, { sku: 'LAMP', price: 16 }, new Date());
    cutAfter.delete(workspace.workspaceId);
    const second = approval.publishedTo.map((published) => published.writebackId);
    expect(second).toHaveLength(50);
    // Cut: some of the connectors have no task of the approval yet, and no claim hands out a task of the one before.
    expect((await statusesOf(workspace.workspaceId, second)).filter((status) => status === undefined).length).toBeGreaterThan(0);
    const claimed = claimedTasks(await claim(workspace.keys.connector, { limit: 10 }));
    expect(claimed.map((task) => task.approvalId)).toEqual([approval.approvalId]);
    const statuses = await statusesOf(workspace.workspaceId, second);
    expect(statuses.filter((status) => status === 'pending')).toHaveLength(49);
    expect(statuses.filter((status) => status === 'leased')).toHaveLength(1);
    expect(new Set(await statusesOf(workspace.workspaceId, first))).toEqual(new Set(['cancelled']));
  });
});
