// Approvals through the local gateway: large moves need confirming, a second approver when the workspace asks for one, and each SKU's history with every connector's task.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, inject, it } from 'vitest';
import { projectRoot } from '#lib/stack/project.ts';
import { issueApiKey } from '#shared/api-keys/repository.ts';
import { tableName } from '#platform/config.ts';
import { createConnector } from '#shared/connectors/repository.ts';
import type { ProductRecord } from '#shared/records/schema.ts';
import { tableClient } from '#platform/table/client.ts';
import { keys } from '#platform/table/keys.ts';
import { recommendationsPage } from '#edge/console/pages/recommendation-list.ts';
import { table } from '#platform/table/definition.ts';
import { lookupKeys } from '#platform/table/index-keys.ts';
import { expireWaitingApprovals } from '#shared/approvals/expiry.ts';
import { readWaitingApprovals } from '#shared/approvals/waiting.ts';
import type { PricingOverrides } from '#shared/pricing/settings.ts';
import { updateWorkspace } from '#shared/workspaces/repository.ts';
import { drain, LAMP } from './prices-support.ts';
import { type ApiResponse, call, newWorkspace, type TestWorkspace } from './support.ts';
import { ack, approve, claim, claimedTasks } from './writebacks-support.ts';
import { readWorkspaceItems } from './workspace-items.ts';

const lookupIndex = table.indexes[0];

/** A pump listed at 610.56 with no ceiling: 6,105.60 is +900%, within its bounds. */
const PUMP: ProductRecord = { sku: 'PUMP', name: 'Pump', category: 'Pumps', costCents: 30_000, currentPriceCents: 61_056 };

function expectOverviewError(response: ApiResponse, status: number, code: string, message?: RegExp): void {
  expect(response.status, response.text).toBe(status);
  expect(response.json).toEqual({
    error: {
      code,
      message: message ? expect.stringMatching(message) : expect.any(String),
      request_id: response.headers.get('x-request-id'),
    },
  });
}

/** A seller of PUMP and LAMP whose settings are set before any overview key is used, so that no cached workspace hides them. */
async function seller(pricing: PricingOverrides = {}): Promise<TestWorkspace> {
  const workspace = await newWorkspace('Approving Seller');
  if (Object.keys(pricing).length > 0) await updateWorkspace(workspace.workspaceId, { pricing });
  await drain(workspace, { product: [PUMP, LAMP] });
  return workspace;
}

function history(key: string, sku: string, query = ''): Promise<ApiResponse> {
  return call(`/v1/prices/${encodeURIComponent(sku)}/approvals${query}`, { key });
}

async function latestApproval(workspaceId: string, sku: string): Promise<Record<string, unknown> | undefined> {
  const { Item } = await tableClient().send(
    new GetCommand({ TableName: tableName(), Key: keys.latestApproval(workspaceId, sku), ConsistentRead: true }),
  );
  return Item;
}

/** The workspace's webhook events as its outbox holds them, oldest first. */
async function workspaceEvents(workspaceId: string): Promise<Array<{ type: string; data: Record<string, unknown>; timestamp: string }>> {
  const events = (await readWorkspaceItems(workspaceId))
    .filter((item) => String(item.PK).startsWith(`WS#${workspaceId}#WHEVENT#`))
    .map((item) => item.event as { type: string; data: Record<string, unknown>; timestamp: string });
  return events.sort((a, b) => a.timestamp.localeCompare(b.timestamp));
}

/** The approvals the workspace's landing page lists as waiting for a second approver. */
async function listedWaits(workspace: TestWorkspace): Promise<string[]> {
  return (await readWaitingApprovals(workspace.workspaceId, Date.now(), 5)).approvals.map((approval) => approval.approvalId);
}

async function secondKey(workspace: TestWorkspace): Promise<string> {
  return (await issueApiKey({ workspaceId: workspace.workspaceId, family: 'pw_live', scopes: [] })).key;
}

describe('an approval that moves the price far from the current price', { timeout: 180_000 }, () => {
  it('is refused with 422 confirmation_required naming both prices and the change, and changes nothing', async () => {
    const workspace = await seller();
    const refused = await approve(workspace.keys.pwLive, { sku: 'PUMP', price: 6105.6 });
    expectOverviewError(refused, 422, 'confirmation_required', /6,105\.60 USD.*\+900\.00%.*610\.56 USD/);
    expectOverviewError(await approve(workspace.keys.pwLive, { sku: 'PUMP', price: 6105.6, confirm: false }), 422, 'confirmation_required');
    expectOverviewError(await approve(workspace.keys.pwTest, { sku: 'PUMP', price: 6105.6 }), 422, 'confirmation_required');
    expect(claimedTasks(await claim(workspace.keys.connector))).toEqual([]);
    expect(await latestApproval(workspace.workspaceId, 'PUMP')).toBeUndefined();
    expect((await history(workspace.keys.pwLive, 'PUMP')).json).toEqual({ data: [], next: null });
    const events = await workspaceEvents(workspace.workspaceId);
    expect(events.filter((event) => event.type.startsWith('price.') || event.type.startsWith('writeback.'))).toEqual([]);
  });

  it('publishes with "confirm": true, and the history and price.approved carry the confirmation and the approver', async () => {
    const workspace = await seller();
    const approved = await approve(workspace.keys.pwLive, { sku: 'PUMP', price: 6105.6, confirm: true });
    expect(approved.status, approved.text).toBe(200);
    expect(approved.json).toMatchObject({ status: 'published', price: 6105.6, waiting_until: null });
    const [task] = claimedTasks(await claim(workspace.keys.connector));
    expect(task).toMatchObject({ productSku: 'PUMP', priceCents: 610_560 });
    const listed = await history(workspace.keys.pwLive, 'PUMP');
    expect(listed.status, listed.text).toBe(200);
    expect(listed.json.data[0]).toMatchObject({
      approval_id: approved.json.approval_id,
      status: 'published',
      approved_by: { type: 'api_key', id: workspace.keyIds.pwLive },
      recommendation: { recommended_price: 610.56, current_price: 610.56 },
      change_pct: 900,
      confirmation: { threshold_pct: 25, change_pct: 900 },
      second_approval: null,
      tasks: [{ connector_id: workspace.connectorId, writeback_id: task?.id, state: 'leased', error: null, finished_at: null }],
    });
    const event = (await workspaceEvents(workspace.workspaceId)).find((candidate) => candidate.type === 'price.approved');
    expect(event?.data).toMatchObject({
      approvalId: approved.json.approval_id,
      approvedBy: { type: 'api_key', id: workspace.keyIds.pwLive },
      confirmation: { thresholdPct: 25, changePct: 900, currentPriceCents: 61_056 },
      secondApprover: null,
    });
  });

  it('is held to the floor and the ceiling whatever the confirmation, and records nothing', async () => {
    const workspace = await seller();
    for (const confirm of [undefined, true]) {
      const body = (price: number) => ({ sku: 'LAMP', price, ...(confirm === undefined ? {} : { confirm }) });
      expectOverviewError(await approve(workspace.keys.pwLive, body(30)), 422, 'guardrail_violation', /above the ceiling of 20\.00 USD/);
      expectOverviewError(await approve(workspace.keys.pwLive, body(5)), 422, 'guardrail_violation', /below the floor of 12\.00 USD/);
    }
    expect(claimedTasks(await claim(workspace.keys.connector))).toEqual([]);
    expect((await history(workspace.keys.pwLive, 'LAMP')).json.data).toEqual([]);
  });

  it("follows the workspace's approvalConfirmPct rather than its max-change percentage when it sets one", async () => {
    const workspace = await seller({ approvalConfirmPct: 1000 });
    const approved = await approve(workspace.keys.pwLive, { sku: 'PUMP', price: 6105.6 });
    expect(approved.status, approved.text).toBe(200);
    expect((await history(workspace.keys.pwLive, 'PUMP')).json.data[0].confirmation).toBeNull();
  });
});

describe('an approval past the second-approval threshold', { timeout: 180_000 }, () => {
  it('waits, publishing nothing and sending no write-back event, until a different key approves the same price', async () => {
    const workspace = await seller({ secondApprovalPct: 100 });
    const other = await secondKey(workspace);
    const first = await approve(workspace.keys.pwLive, { sku: 'PUMP', price: 6105.6, confirm: true });
    expect(first.status, first.text).toBe(200);
    expect(first.json).toMatchObject({ status: 'waiting', published_to: [], waiting_until: expect.any(String) });
    expect(Date.parse(first.json.waiting_until) - Date.parse(first.json.approved_at)).toBe(24 * 3_600_000);
    expect(await listedWaits(workspace)).toEqual([first.json.approval_id]);
    expect(claimedTasks(await claim(workspace.keys.connector))).toEqual([]);
    // The same key again is still one approver: its approval waits anew, superseding its first.
    const again = await approve(workspace.keys.pwLive, { sku: 'PUMP', price: 6105.6, confirm: true });
    expect(again.json.status).toBe('waiting');
    expect(await listedWaits(workspace)).toEqual([again.json.approval_id]);
    expect(claimedTasks(await claim(workspace.keys.connector))).toEqual([]);
    const types = (await workspaceEvents(workspace.workspaceId)).map((event) => event.type);
    expect(types).not.toContain('writeback.pending');
    expect(types).not.toContain('price.approved');

    const second = await approve(other, { sku: 'PUMP', price: 6105.6, confirm: true });
    expect(second.status, second.text).toBe(200);
    expect(second.json).toMatchObject({ approval_id: again.json.approval_id, status: 'published', waiting_until: null });
    expect(await listedWaits(workspace)).toEqual([]);
    const tasks = claimedTasks(await claim(workspace.keys.connector));
    expect(tasks.map((task) => task.priceCents)).toEqual([610_560]);

    const listed = (await history(workspace.keys.pwLive, 'PUMP')).json.data;
    expect(listed.map((entry: { status: string }) => entry.status)).toEqual(['published', 'superseded']);
    expect(listed[0].second_approval).toMatchObject({
      threshold_pct: 100,
      approved_by: { type: 'api_key' },
      approved_at: expect.any(String),
    });
    expect(listed[0].second_approval.approved_by.id).not.toBe(workspace.keyIds.pwLive);
    const events = await workspaceEvents(workspace.workspaceId);
    const states = events.filter((event) => event.type === 'price.second_approval').map((event) => event.data.state);
    expect(states.sort()).toEqual(['published', 'superseded', 'waiting', 'waiting']);
    expect(events.filter((event) => event.type === 'writeback.pending')).toHaveLength(1);
    expect(events.find((event) => event.type === 'price.approved')?.data.secondApprover).toMatchObject({ approvedBy: { type: 'api_key' } });
  });

  it('publishes once when two approvers second it at the same moment', async () => {
    const workspace = await seller({ secondApprovalPct: 100 });
    const [keyB, keyC] = await Promise.all([secondKey(workspace), secondKey(workspace)]);
    const extra = await createConnector({ workspaceId: workspace.workspaceId, name: 'Storefront sync', receivesWritebacks: true });
    const waiting = await approve(workspace.keys.pwLive, { sku: 'PUMP', price: 6105.6, confirm: true });
    expect(waiting.json.status).toBe('waiting');
    const racing = await Promise.all([keyB, keyC].map((key) => approve(key, { sku: 'PUMP', price: 6105.6, confirm: true })));
    for (const answer of racing) expect(answer.status, answer.text).toBe(200);
    // One publishes the waiting approval; the other, finding it published, is a first approval of its own and waits.
    expect(racing.map((answer) => answer.json.status).sort()).toEqual(['published', 'waiting']);
    const published = racing.find((answer) => answer.json.status === 'published');
    expect(published?.json.approval_id).toBe(waiting.json.approval_id);
    expect(published?.json.published_to.map((entry: { connector_id: string }) => entry.connector_id).sort()).toEqual(
      [workspace.connectorId, extra.connectorId].sort(),
    );
    const events = await workspaceEvents(workspace.workspaceId);
    expect(events.filter((event) => event.type === 'price.approved')).toHaveLength(1);
    expect(events.filter((event) => event.type === 'writeback.pending')).toHaveLength(2);
    expect(claimedTasks(await claim(workspace.keys.connector))).toHaveLength(1);
  });

  it('is superseded by a newer approval of another price, and one within the threshold publishes on its own', async () => {
    const workspace = await seller({ secondApprovalPct: 100 });
    const waiting = await approve(workspace.keys.pwLive, { sku: 'PUMP', price: 6105.6, confirm: true });
    expect(await listedWaits(workspace)).toEqual([waiting.json.approval_id]);
    const single = await approve(workspace.keys.pwLive, { sku: 'PUMP', price: 620 });
    expect(single.json.status).toBe('published');
    expect(await listedWaits(workspace)).toEqual([]);
    // The waiting price can no longer be seconded: another key's approval of it waits afresh.
    const late = await approve(await secondKey(workspace), { sku: 'PUMP', price: 6105.6, confirm: true });
    expect(late.json).toMatchObject({ status: 'waiting' });
    expect(late.json.approval_id).not.toBe(waiting.json.approval_id);
    const listed = (await history(workspace.keys.pwLive, 'PUMP')).json.data;
    expect(listed.map((entry: { status: string }) => entry.status)).toEqual(['waiting', 'published', 'superseded']);
    expect(claimedTasks(await claim(workspace.keys.connector)).map((task) => task.priceCents)).toEqual([62_000]);
  });

  it('expires after its time: a different key can no longer second it, and the history and the next approval say so', async () => {
    const workspace = await seller({ secondApprovalPct: 100 });
    const waiting = await approve(workspace.keys.pwLive, { sku: 'PUMP', price: 6105.6, confirm: true });
    // As a day later: the wait's end moved into the past on both items that hold it.
    const past = new Date(Date.now() - 1000).toISOString();
    await tableClient().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.approval(workspace.workspaceId, 'PUMP', waiting.json.approved_at, waiting.json.approval_id),
        UpdateExpression: 'SET secondApproval.waitingUntil = :past',
        ExpressionAttributeValues: { ':past': past },
      }),
    );
    await tableClient().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.latestApproval(workspace.workspaceId, 'PUMP'),
        UpdateExpression: 'SET waiting.waitingUntil = :past',
        ExpressionAttributeValues: { ':past': past },
      }),
    );
    expect((await history(workspace.keys.pwLive, 'PUMP')).json.data[0].status).toBe('expired');
    const late = await approve(await secondKey(workspace), { sku: 'PUMP', price: 6105.6, confirm: true });
    expect(late.json.status).toBe('waiting');
    expect(await listedWaits(workspace)).toEqual([late.json.approval_id]);
    expect(claimedTasks(await claim(workspace.keys.connector))).toEqual([]);
    const states = (await workspaceEvents(workspace.workspaceId))
      .filter((event) => event.type === 'price.second_approval')
      .map((event) => event.data.state);
    expect(states.sort()).toEqual(['expired', 'waiting', 'waiting']);
  });

  it('is ended by the sweeper once its time runs out, with one expired event however many sweeps race, before any approval comes', async () => {
    const workspace = await seller({ secondApprovalPct: 100 });
    const waiting = await approve(workspace.keys.pwLive, { sku: 'PUMP', price: 6105.6, confirm: true });
    const key = keys.approval(workspace.workspaceId, 'PUMP', waiting.json.approved_at, waiting.json.approval_id);
    // As a day later: the wait's end, and its place on the sweeper's list, moved into the past.
    const past = new Date(Date.now() - 1000).toISOString();
    await tableClient().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: key,
        UpdateExpression: 'SET secondApproval.waitingUntil = :past, #listed = :listed',
        ExpressionAttributeNames: { '#listed': lookupIndex.sortKey },
        ExpressionAttributeValues: {
          ':past': past,
          ':listed': lookupKeys.waitingApproval(past, workspace.workspaceId, waiting.json.approval_id)[lookupIndex.sortKey],
        },
      }),
    );
    await Promise.all([expireWaitingApprovals(Date.now()), expireWaitingApprovals(Date.now()), expireWaitingApprovals(Date.now())]);
    const stored = (await tableClient().send(new GetCommand({ TableName: tableName(), Key: key, ConsistentRead: true }))).Item;
    expect(stored).toMatchObject({ status: 'expired', endedAt: expect.any(String) });
    // Off the list: no later sweep reads it again.
    expect(stored?.[lookupIndex.partitionKey]).toBeUndefined();
    expect(await listedWaits(workspace)).toEqual([]);
    const states = async () =>
      (await workspaceEvents(workspace.workspaceId))
        .filter((event) => event.type === 'price.second_approval')
        .map((event) => event.data.state)
        .sort();
    expect(await states()).toEqual(['expired', 'waiting']);
    // The next approval finds the wait ended, and ends nothing again.
    const late = await approve(await secondKey(workspace), { sku: 'PUMP', price: 6105.6, confirm: true });
    expect(late.json.status).toBe('waiting');
    expect(await states()).toEqual(['expired', 'waiting', 'waiting']);
    expect(claimedTasks(await claim(workspace.keys.connector))).toEqual([]);
  });
});

describe('GET /v1/prices/{sku}/approvals', { timeout: 180_000 }, () => {
  /** Three approvals of LAMP, published to two connectors, whose tasks end in every state a task can show. */
  async function everyTaskState() {
    const workspace = await seller();
    const extra = await createConnector({ workspaceId: workspace.workspaceId, name: 'Storefront sync', receivesWritebacks: true });
    const extraKey = (
      await issueApiKey({ workspaceId: workspace.workspaceId, family: 'svc_live', scopes: ['connector'], connectorId: extra.connectorId })
    ).key;
    const first = await approve(workspace.keys.pwLive, { sku: 'LAMP', price: 14 });
    const [applied] = claimedTasks(await claim(workspace.keys.connector));
    const [failed] = claimedTasks(await claim(extraKey));
    expect((await ack(workspace.keys.connector, [{ id: applied?.id, ok: true }])).status).toBe(200);
    expect((await ack(extraKey, [{ id: failed?.id, ok: false, error: 'The ERP refused the price' }])).status).toBe(200);
    const middle = await approve(workspace.keys.pwLive, { sku: 'LAMP', price: 15 });
    const [expired] = claimedTasks(await claim(workspace.keys.connector));
    await tableClient().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.writeback(workspace.workspaceId, String(expired?.id)),
        UpdateExpression: 'SET leaseUntilMs = :past',
        ExpressionAttributeValues: { ':past': Date.now() - 1000 },
      }),
    );
    const last = await approve(workspace.keys.pwLive, { sku: 'LAMP', price: 16 });
    const [leased] = claimedTasks(await claim(extraKey));
    return { workspace, extra, first, middle, last, applied, failed, expired, leased };
  }

  it('lists who approved what and when, newest first, with every connector task in its state', async () => {
    const { workspace, extra, first, middle, last, applied, failed, expired, leased } = await everyTaskState();
    const listed = await history(workspace.keys.pwLive, 'LAMP');
    expect(listed.status, listed.text).toBe(200);
    expect(listed.json.next).toBeNull();
    const entries = listed.json.data as Array<Record<string, unknown> & { tasks: Array<Record<string, unknown>> }>;
    expect(entries.map((entry) => entry.approval_id)).toEqual([last.json.approval_id, middle.json.approval_id, first.json.approval_id]);
    expect(entries[2]).toMatchObject({
      status: 'published',
      approved_by: { type: 'api_key', id: workspace.keyIds.pwLive },
      approved_at: first.json.approved_at,
      price: 14,
      currency: 'USD',
      livemode: true,
      recommendation: { recommended_price: 15, current_price: 15, pricing_decision_id: expect.stringMatching(/^pd_/) },
      change_pct: -6.67,
      confirmation: null,
      second_approval: null,
    });
    const stateOf = (entry: number, connectorId: string) => entries[entry]?.tasks.find((task) => task.connector_id === connectorId);
    expect(stateOf(2, workspace.connectorId)).toEqual({
      connector_id: workspace.connectorId,
      writeback_id: applied?.id,
      state: 'applied',
      error: null,
      finished_at: expect.any(String),
    });
    expect(stateOf(2, extra.connectorId)).toMatchObject({ writeback_id: failed?.id, state: 'failed', error: 'The ERP refused the price' });
    expect(stateOf(1, workspace.connectorId)).toMatchObject({ writeback_id: expired?.id, state: 'expired', error: null });
    expect(stateOf(1, extra.connectorId)).toMatchObject({ state: 'cancelled', finished_at: expect.any(String) });
    expect(stateOf(0, workspace.connectorId)).toMatchObject({ state: 'pending' });
    expect(stateOf(0, extra.connectorId)).toMatchObject({ writeback_id: leased?.id, state: 'leased' });
  });

  it('pages with limit and starting_after, ending with next null', async () => {
    const workspace = await seller();
    const ids: string[] = [];
    for (const price of [14, 15, 16]) ids.push((await approve(workspace.keys.pwLive, { sku: 'LAMP', price })).json.approval_id);
    const seen: string[] = [];
    let query = '?limit=2';
    for (let page = 0; page < 3; page++) {
      const listed = await history(workspace.keys.pwLive, 'LAMP', query);
      expect(listed.status, listed.text).toBe(200);
      seen.push(...listed.json.data.map((entry: { approval_id: string }) => entry.approval_id));
      if (listed.json.next === null) break;
      query = `?limit=2&starting_after=${listed.json.next}`;
    }
    expect(seen).toEqual([...ids].reverse());
  });

  it("shows a sandbox approval as livemode false, and never another workspace's approvals", async () => {
    const workspace = await seller();
    await approve(workspace.keys.pwTest, { sku: 'LAMP', price: 14 });
    const listed = await history(workspace.keys.pwTest, 'LAMP');
    expect(listed.json.data).toEqual([expect.objectContaining({ livemode: false, tasks: [] })]);
    const other = await seller();
    expect((await history(other.keys.pwLive, 'LAMP')).json.data).toEqual([]);
  });

  it.each([
    ['?limit=0', /limit/],
    ['?limit=101', /limit/],
    ['?limit=two', /limit/],
    ['?starting_after=bm90LWEtY3Vyc29y', /starting_after/],
    ['?starting_after=%25%25', /starting_after/],
    ['?status=published', /status/],
  ])('is 400 bad_request for %s', async (query, message) => {
    const workspace = await seller();
    expectOverviewError(await history(workspace.keys.pwLive, 'LAMP', query), 400, 'bad_request', message);
  });

  it('is 400 bad_request for a SKU past 255 characters, and 404 not_found for a SKU the workspace does not know', async () => {
    const workspace = await seller();
    expectOverviewError(await history(workspace.keys.pwLive, 'S'.repeat(300)), 400, 'bad_request', /sku/);
    expectOverviewError(await history(workspace.keys.pwLive, 'NO-SUCH'), 404, 'not_found', /NO-SUCH/);
  });

  it('is 401 without a key or with a key of another family, and 403 feature_not_enabled without the overview', async () => {
    const workspace = await seller();
    expectOverviewError(await history('', 'LAMP'), 401, 'unauthorized');
    expectOverviewError(await history(workspace.keys.erp, 'LAMP'), 401, 'unauthorized');
    const without = await newWorkspace('No Overview');
    await updateWorkspace(without.workspaceId, { features: ['writebacks'] });
    expectOverviewError(await history(without.keys.pwLive, 'LAMP'), 403, 'feature_not_enabled');
  });
});

describe("the admin CLI's approval history", { timeout: 180_000 }, () => {
  const run = promisify(execFile);
  const admin = (...args: string[]) =>
    run(process.execPath, ['bin/admin.ts', 'approval', 'history', ...args, '--stack', inject('stackFile')], { cwd: projectRoot });

  it('lists the same approvals as the API, as JSON and as text, with every task state', async () => {
    const workspace = await seller({ secondApprovalPct: 100 });
    await approve(workspace.keys.pwLive, { sku: 'PUMP', price: 6105.6, confirm: true });
    await approve(await secondKey(workspace), { sku: 'PUMP', price: 6105.6, confirm: true });
    const api = (await history(workspace.keys.pwLive, 'PUMP')).json;
    const { stdout: json } = await admin('--workspace', workspace.workspaceId, 'PUMP', '--json');
    expect(JSON.parse(json)).toEqual(api);
    const { stdout: text } = await admin('--workspace', workspace.workspaceId, 'PUMP');
    expect(text).toContain(`${api.data[0].approval_id}  published`);
    expect(text).toMatch(/6105\.6 USD \(\+900\.00%\) over the recommended 610\.56, by API key key_/);
    expect(text).toContain('confirmed: past 25%');
    expect(text).toMatch(/second approver: API key key_\w+ at /);
    expect(text).toMatch(new RegExp(`${workspace.connectorId} wb_\\w+: pending`));
  });
});

describe("the console's recommendations list", () => {
  /** The approval state each SKU's row shows, by SKU, in the order the list shows them. */
  async function listed(workspaceId: string, query = ''): Promise<Record<string, string>> {
    const view = await recommendationsPage.read({
      user: { userId: 'usr_list', email: 'list@example.com', workspaceId, roles: ['pricing'] },
      params: {},
      query: new URLSearchParams(query),
      csrfToken: 'token',
      nowMs: Date.now(),
    });
    const rows = view.body.text.matchAll(/href="\/console\/recommendations\/([^"]+)">[\s\S]*?class="status status-([a-z]+)"/g);
    return Object.fromEntries([...rows].map(([, sku, state]) => [decodeURIComponent(sku as string), state as string]));
  }

  it("shows each SKU's latest approval state, and filters by it, as approvals publish, wait, apply and fail", async () => {
    const workspace = await seller({ secondApprovalPct: 100 });
    expect(await listed(workspace.workspaceId)).toEqual({ LAMP: 'unreviewed', PUMP: 'unreviewed' });

    expect((await approve(workspace.keys.pwLive, { sku: 'LAMP', price: 15 })).json.status).toBe('published');
    expect((await approve(workspace.keys.pwLive, { sku: 'PUMP', price: 6105.6, confirm: true })).json.status).toBe('waiting');
    expect(await listed(workspace.workspaceId)).toEqual({ LAMP: 'pending', PUMP: 'waiting' });
    expect(await listed(workspace.workspaceId, 'state=pending')).toEqual({ LAMP: 'pending' });
    expect(await listed(workspace.workspaceId, 'state=waiting')).toEqual({ PUMP: 'waiting' });
    expect(await listed(workspace.workspaceId, 'state=unreviewed')).toEqual({});

    const [task] = claimedTasks(await claim(workspace.keys.connector));
    expect((await ack(workspace.keys.connector, [{ id: task?.id, ok: true }])).status).toBe(200);
    expect(await listed(workspace.workspaceId, 'state=applied')).toEqual({ LAMP: 'applied' });

    expect((await approve(workspace.keys.pwLive, { sku: 'LAMP', price: 16 })).json.status).toBe('published');
    const [again] = claimedTasks(await claim(workspace.keys.connector));
    expect((await ack(workspace.keys.connector, [{ id: again?.id, ok: false, error: 'The ERP refused the price' }])).status).toBe(200);
    expect(await listed(workspace.workspaceId)).toEqual({ LAMP: 'failed', PUMP: 'waiting' });
    expect(await listed(workspace.workspaceId, 'state=failed&sort=change-desc')).toEqual({ LAMP: 'failed' });
  });
});
