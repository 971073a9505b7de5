// Two approvers are two people: a key approves as the person who made it, and a user the first approver made during the wait is theirs.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createConsoleUser } from '#edge/console/users.ts';
import { OPERATOR } from '#shared/api-keys/schema.ts';
import type { ProductRecord } from '#shared/records/schema.ts';
import { updateWorkspace } from '#shared/workspaces/repository.ts';
import { makeKey, makeUser } from './console-reveals.ts';
import { ConsoleBrowser } from './console-session.ts';
import { drain } from './prices-support.ts';
import { call, newWorkspace, type TestWorkspace } from './support.ts';
import { approve, claim, claimedTasks } from './writebacks-support.ts';

/** A pump listed at 610.56: 915.84 is +50%, past the workspace's 25% second-approval threshold. */
const PUMP: ProductRecord = { sku: 'PUMP', name: 'Pump', category: 'Pumps', costCents: 30_000, currentPriceCents: 61_056 };
const RAISED = '915.84';
const PRODUCT_PAGE = '/console/recommendations/PUMP';

async function seller(): Promise<TestWorkspace> {
  const workspace = await newWorkspace('Four Eyes Seller');
  await updateWorkspace(workspace.workspaceId, { pricing: { secondApprovalPct: 25 } });
  await drain(workspace, { product: [PUMP] });
  return workspace;
}

/** An admin-and-pricing user made by the operator, signed in with a password of their own. */
async function signedIn(workspace: TestWorkspace, roles: Array<'admin' | 'pricing'> = ['admin', 'pricing']) {
  const email = `approver-${randomUUID()}@example.com`;
  const password = `chosen-${randomUUID()}`;
  const user = await createConsoleUser({ workspaceId: workspace.workspaceId, email, roles, password, createdBy: OPERATOR.id });
  const browser = new ConsoleBrowser();
  expect((await browser.signIn(email, password)).status).toBe(303);
  return { user, browser };
}

/** Approves +50% on the product page, through its confirmation step, as a person pressing the buttons does. */
async function approveInConsole(browser: ConsoleBrowser): Promise<void> {
  const answer = await browser.submit(PRODUCT_PAGE, { _action: 'approve', price: RAISED, confirm: 'yes' });
  expect(answer.status, answer.text.slice(0, 400)).toBe(303);
}

async function newestApproval(workspace: TestWorkspace) {
  const listed = await call('/v1/prices/PUMP/approvals', { key: workspace.keys.pwLive });
  return listed.json.data[0] as { approval_id: string; status: string; second_approval: { approved_by: unknown } | null };
}

describe('a second approval', { timeout: 180_000 }, () => {
  it('does not count from a pw_live key the first approver created in Settings → API keys, on /v1', async () => {
    const workspace = await seller();
    const { browser } = await signedIn(workspace);
    await approveInConsole(browser);
    expect((await newestApproval(workspace)).status).toBe('waiting');

    const key = await makeKey(browser, 'My second hat');
    const seconded = await approve(key, { sku: 'PUMP', price: Number(RAISED), confirm: true });
    expect(seconded.status, seconded.text).toBe(200);
    // The key is its creator: one person approving again, which waits anew and publishes nothing.
    expect(seconded.json).toMatchObject({ status: 'waiting', published_to: [] });
    const newest = await newestApproval(workspace);
    expect(newest).toMatchObject({ approval_id: seconded.json.approval_id, status: 'waiting', second_approval: { approved_by: null } });
    expect(claimedTasks(await claim(workspace.keys.connector))).toEqual([]);
  });

  it('does not count from a console user the first approver created while the approval waits', async () => {
    const workspace = await seller();
    const { browser } = await signedIn(workspace);
    await approveInConsole(browser);
    const waiting = await newestApproval(workspace);

    const email = `made-${randomUUID()}@example.com`;
    const oneTime = await makeUser(browser, email, ['pricing']);
    const other = new ConsoleBrowser();
    expect((await other.signIn(email, oneTime)).status).toBe(303);
    await approveInConsole(other);

    const newest = await newestApproval(workspace);
    expect(newest.approval_id).not.toBe(waiting.approval_id);
    expect(newest).toMatchObject({ status: 'waiting', second_approval: { approved_by: null } });
    expect(claimedTasks(await claim(workspace.keys.connector))).toEqual([]);
  });

  it('counts from another person, on the console or through a key that person created', async () => {
    const workspace = await seller();
    const first = await signedIn(workspace);
    await approveInConsole(first.browser);
    const waiting = await newestApproval(workspace);
    const second = await signedIn(workspace);
    const key = await makeKey(second.browser, 'Colleague');
    const seconded = await approve(key, { sku: 'PUMP', price: Number(RAISED), confirm: true });
    expect(seconded.json).toMatchObject({ approval_id: waiting.approval_id, status: 'published' });
    expect(await newestApproval(workspace)).toMatchObject({
      status: 'published',
      second_approval: { approved_by: { type: 'api_key' } },
    });
    expect(claimedTasks(await claim(workspace.keys.connector)).map((task) => task.priceCents)).toEqual([91_584]);
  });
});
