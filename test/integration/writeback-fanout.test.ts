// A workspace's connectors and an approval's fan-out to them: a limit on connectors, and exactly one pending task per connector, the latest, even from an approval cut after its first transaction.
import { describe, expect, it, vi } from 'vitest';
import { type Approver, approvePrice } from '#shared/approvals/approve.ts';
import type * as Commands from '#platform/table/commands.ts';
import { randomUUID } from 'node:crypto';
import { createConsoleUser } from '#edge/console/users.ts';
import { createConnector, listConnectors } from '#shared/connectors/repository.ts';
import { ConsoleBrowser } from './console-session.ts';
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

describe("the console's connector pages", () => {
  async function adminBrowser(workspaceId: string): Promise<ConsoleBrowser> {
    const user = await createConsoleUser({
      workspaceId,
      email: `admin-${randomUUID()}@example.com`,
      roles: ['admin'],
      password: `chosen-${randomUUID()}`,
    });
    const browser = new ConsoleBrowser();
    expect((await browser.signIn(user.email, user.password)).status).toBe(303);
    return browser;
  }

  it('refuse a connector past the limit with 422, saying so, and create none', async () => {
    const workspace = await newWorkspace('Console Limit');
    await updateWorkspace(workspace.workspaceId, { connectorLimit: 1 });
    const browser = await adminBrowser(workspace.workspaceId);
    const refused = await browser.submit('/console/settings/connectors', {
      _action: 'create',
      name: 'One too many',
      receivesWritebacks: 'yes',
    });
    expect(refused.status).toBe(422);
    expect(refused.text).toContain('its limit');
    expect(await listConnectors(workspace.workspaceId)).toHaveLength(1);
  });

  it('show write-backs and batches five connectors at a time, with a link to the next ones', async () => {
    const workspace = await newWorkspace('Paged Connectors');
    for (let made = 1; made < 7; made++) {
      await createConnector({ workspaceId: workspace.workspaceId, name: `Paged ERP ${made}`, receivesWritebacks: true });
    }
    const browser = await adminBrowser(workspace.workspaceId);
    for (const path of ['/console/writebacks', '/console/batches']) {
      const first = await browser.get(path);
      expect(first.status).toBe(200);
      const next = new RegExp(`href="${path}\\?after=(con_[0-9A-Za-z]+)" rel="next"`).exec(first.text)?.[1];
      expect(next, path).toBeDefined();
      const second = await browser.get(`${path}?after=${next}`);
      const shown = (text: string) => (text.match(/<h2 id="[^"]*">[^<]*<span class="id">con_/g) ?? []).length;
      expect(shown(first.text) + shown(second.text), path).toBe(7);
      expect(second.text).not.toContain('rel="next"');
    }
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
