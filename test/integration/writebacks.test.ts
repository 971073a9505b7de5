// Write-back tasks through the local gateway: claims and their leases, acks, extensions, and many workers at once.
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { seedPendingTasks } from '#lib/local/seed.ts';
import { tableName } from '#platform/config.ts';
import { createConnector } from '#shared/connectors/repository.ts';
import { tableClient } from '#platform/table/client.ts';
import { keys } from '#platform/table/keys.ts';
import { ANSWER_BEFORE_DEADLINE_MS, claimTasks } from '#shared/writebacks/claim.ts';
import { updateWorkspace } from '#shared/workspaces/repository.ts';
import { expectError, secondConnector } from './ingest-support.ts';
import { call, newWorkspace } from './support.ts';
import { drain, LAMP } from './prices-support.ts';
import { ack, approve, claim, claimedTasks, extend, storedTask } from './writebacks-support.ts';
import { storedRecommendation } from './legacy-layout.ts';

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function connectorWorkspace() {
  const workspace = await newWorkspace('Write-back Seller');
  return { workspace, key: workspace.keys.connector };
}

describe('claiming write-back tasks', () => {
  it('answers an empty list when the connector has nothing to claim', async () => {
    const { key } = await connectorWorkspace();
    const response = await claim(key, { limit: 5 });
    expect(response.status, response.text).toBe(200);
    expect(response.json).toEqual({ tasks: [] });
  });

  it('leases the oldest tasks first, each with its target and a leaseUntil in RFC 3339 with milliseconds', async () => {
    const { workspace, key } = await connectorWorkspace();
    const ids = await seedPendingTasks(workspace.workspaceId, workspace.connectorId, 3);
    const before = Date.now();
    const first = claimedTasks(await claim(key, { limit: 2, leaseSeconds: 120 }));
    expect(first.map((task) => task.id)).toEqual(ids.slice(0, 2));
    const [task] = first;
    expect(task).toEqual({
      id: ids[0],
      productSku: 'SEED-0',
      priceCents: 1000,
      currency: 'USD',
      leaseUntil: expect.stringMatching(ISO_MS),
      target: { connectorId: workspace.connectorId, channel: 'Seeded ERP' },
      exchangeRateToBase: 1,
      reasonSummary: 'seeded',
      pricingDecisionId: 'pd_seed0',
      approvalId: 'apv_seed0',
      sequence: 1,
    });
    const leaseUntil = Date.parse(String(task?.leaseUntil));
    expect(leaseUntil).toBeGreaterThanOrEqual(before + 119_000);
    expect(leaseUntil).toBeLessThanOrEqual(Date.now() + 121_000);
    expect(claimedTasks(await claim(key, { limit: 2 })).map((next) => next.id)).toEqual([ids[2]]);
    expect(claimedTasks(await claim(key))).toEqual([]);
  });

  it('takes ten tasks for five minutes when the body is left out', async () => {
    const { workspace, key } = await connectorWorkspace();
    await seedPendingTasks(workspace.workspaceId, workspace.connectorId, 12);
    const tasks = claimedTasks(await claim(key));
    expect(tasks).toHaveLength(10);
    expect(Date.parse(String(tasks[0]?.leaseUntil)) - Date.now()).toBeGreaterThan(290_000);
  });

  it.each([
    [{ limit: 0 }, 'limit'],
    [{ limit: 101 }, 'limit'],
    [{ limit: 2.5 }, 'limit'],
    [{ limit: '3' }, 'limit'],
    [{ leaseSeconds: 0 }, 'leaseSeconds'],
    [{ leaseSeconds: 3601 }, 'leaseSeconds'],
    [{ lease: 30 }, 'lease'],
  ])('refuses the claim %j naming %s, and leases nothing', async (body, param) => {
    const { workspace, key } = await connectorWorkspace();
    await seedPendingTasks(workspace.workspaceId, workspace.connectorId, 2);
    expectError(await claim(key, body), { status: 422, code: 'invalid_request', param });
    expect(claimedTasks(await claim(key))).toHaveLength(2);
  });

  it('refuses a body that is not JSON', async () => {
    const { key } = await connectorWorkspace();
    expectError(await claim(key, '{"limit":'), { status: 422, code: 'invalid_json' });
  });

  it('never hands a leased task to another claim before its lease runs out, and hands it out again after', async () => {
    const { workspace, key } = await connectorWorkspace();
    const [id] = await seedPendingTasks(workspace.workspaceId, workspace.connectorId, 1);
    expect(claimedTasks(await claim(key, { leaseSeconds: 1 })).map((task) => task.id)).toEqual([id]);
    expect(claimedTasks(await claim(key))).toEqual([]);
    await pause(1_100);
    expect(claimedTasks(await claim(key)).map((task) => task.id)).toEqual([id]);
  });

  it("gives a connector only its own connector's tasks", async () => {
    const { workspace } = await connectorWorkspace();
    await seedPendingTasks(workspace.workspaceId, workspace.connectorId, 2);
    const otherKey = await secondConnector(workspace.workspaceId);
    expect(claimedTasks(await claim(otherKey.key))).toEqual([]);
  });

  it('needs a connector key, and the workspace its writebacks feature', async () => {
    const { workspace } = await connectorWorkspace();
    expectError(await claim(workspace.keys.erp), { status: 403, code: 'forbidden' });
    expectError(await claim(workspace.keys.pwLive), { status: 401, code: 'unauthorized' });
    const without = await newWorkspace('No Write-backs');
    await updateWorkspace(without.workspaceId, { features: ['overview', 'storefront'] });
    for (const path of ['claim', 'ack', 'wb_0000000000000000000000/extend']) {
      const response = await fetchWith(without.keys.connector, path);
      expectError(response, { status: 403, code: 'feature_not_enabled' });
    }
  });
});

function fetchWith(key: string, path: string) {
  return call(`/api/v1/writebacks/${path}`, { method: 'POST', key, body: path === 'ack' ? { results: [{ id: 'x', ok: true }] } : {} });
}

describe('a claim near its deadline', () => {
  it('stops taking leases before its invocation ends, and leaves what it did not lease claimable', async () => {
    const { workspace, key } = await connectorWorkspace();
    const ids = await seedPendingTasks(workspace.workspaceId, workspace.connectorId, 5);
    let checks = 0;
    // Time enough to read the claimable tasks, and then, as a busy machine might leave it, too little to lease them.
    const remainingMs = () => (checks++ === 0 ? 10_000 : ANSWER_BEFORE_DEADLINE_MS - 1);
    const late = await claimTasks(workspace.workspaceId, workspace.connectorId, { limit: 10, leaseSeconds: 60 }, Date.now(), remainingMs);
    expect(late).toEqual([]);
    expect(new Set(claimedTasks(await claim(key)).map((task) => task.id))).toEqual(new Set(ids));
  });
});

describe('acknowledging write-back tasks', () => {
  it('applies and fails live leases, keeps the error, and finishes the tasks', async () => {
    const { workspace, key } = await connectorWorkspace();
    const [applied, failed] = await seedPendingTasks(workspace.workspaceId, workspace.connectorId, 2);
    claimedTasks(await claim(key));
    const response = await ack(key, [
      { id: applied, ok: true },
      { id: failed, ok: false, error: 'Price list locked in the ERP' },
    ]);
    expect(response.status, response.text).toBe(200);
    expect(response.json).toEqual({ applied: 1, failed: 1, expired: 0, ignored: 0 });
    expect(await storedTask(workspace.workspaceId, String(applied))).toMatchObject({ status: 'applied' });
    expect(await storedTask(workspace.workspaceId, String(failed))).toMatchObject({
      status: 'failed',
      error: 'Price list locked in the ERP',
    });
    // A failed task is final: it is not offered again.
    await pause(10);
    expect(claimedTasks(await claim(key))).toEqual([]);
  });

  it('counts an ack after the lease ran out as expired, changes nothing, and lets the task be claimed again', async () => {
    const { workspace, key } = await connectorWorkspace();
    const [id] = await seedPendingTasks(workspace.workspaceId, workspace.connectorId, 1);
    claimedTasks(await claim(key, { leaseSeconds: 1 }));
    await pause(1_100);
    expect((await ack(key, [{ id, ok: true }])).json).toEqual({ applied: 0, failed: 0, expired: 1, ignored: 0 });
    expect(await storedTask(workspace.workspaceId, String(id))).toMatchObject({ status: 'leased' });
    expect(claimedTasks(await claim(key)).map((task) => task.id)).toEqual([id]);
    expect((await ack(key, [{ id, ok: true }])).json).toEqual({ applied: 1, failed: 0, expired: 0, ignored: 0 });
  });

  it("counts unknown ids, another connector's tasks, unleased tasks and repeats within the call as ignored", async () => {
    const { workspace, key } = await connectorWorkspace();
    const [leased, unleased] = await seedPendingTasks(workspace.workspaceId, workspace.connectorId, 2);
    claimedTasks(await claim(key, { limit: 1 }));
    const other = await createConnector({ workspaceId: workspace.workspaceId, name: 'Other ERP', receivesWritebacks: true });
    const [foreign] = await seedPendingTasks(workspace.workspaceId, other.connectorId, 1);
    const stranger = await newWorkspace('Stranger');
    const response = await ack(key, [
      { id: leased, ok: true },
      { id: leased, ok: false },
      { id: unleased, ok: true },
      { id: foreign, ok: true },
      { id: 'wb_AAAAAAAAAAAAAAAAAAAAAA', ok: true },
      { id: 'not-a-task', ok: false },
    ]);
    expect(response.json).toEqual({ applied: 1, failed: 0, expired: 0, ignored: 5 });
    expect(await storedTask(workspace.workspaceId, String(unleased))).toMatchObject({ status: 'pending' });
    expect(await storedTask(workspace.workspaceId, String(foreign))).toMatchObject({ status: 'pending' });
    // A key of another workspace cannot even see the ids.
    expect((await ack(stranger.keys.connector, [{ id: leased, ok: false }])).json).toEqual({
      applied: 0,
      failed: 0,
      expired: 0,
      ignored: 1,
    });
  });

  it('counts the same ack again for a task it already finished, and changes nothing', async () => {
    const { workspace, key } = await connectorWorkspace();
    const [applied, failed] = await seedPendingTasks(workspace.workspaceId, workspace.connectorId, 2);
    claimedTasks(await claim(key));
    const results = [
      { id: applied, ok: true },
      { id: failed, ok: false, error: 'locked' },
    ];
    expect((await ack(key, results)).json).toEqual({ applied: 1, failed: 1, expired: 0, ignored: 0 });
    expect((await ack(key, results)).json).toEqual({ applied: 1, failed: 1, expired: 0, ignored: 0 });
    // A different ack for a finished task is not the same ack.
    expect((await ack(key, [{ id: applied, ok: false }])).json).toEqual({ applied: 0, failed: 0, expired: 0, ignored: 1 });
    expect(await storedTask(workspace.workspaceId, String(applied))).toMatchObject({ status: 'applied' });
  });

  it.each([
    [[], 'results'],
    [Array.from({ length: 501 }, () => ({ id: 'wb_x', ok: true })), 'results'],
    [[{ id: 'wb_x' }], 'results[0].ok'],
    [[{ ok: true }], 'results[0].id'],
    [[{ id: 'wb_x', ok: 'yes' }], 'results[0].ok'],
    [[{ id: 'wb_x', ok: false, error: 'e'.repeat(1001) }], 'results[0].error'],
    [[{ id: 'wb_x', ok: true, note: 1 }], 'results[0].note'],
  ])('refuses results %# naming %s, and finishes nothing', async (results, param) => {
    const { workspace, key } = await connectorWorkspace();
    const [id] = await seedPendingTasks(workspace.workspaceId, workspace.connectorId, 1);
    claimedTasks(await claim(key));
    expectError(await ack(key, results), { status: 422, code: 'invalid_request', param });
    expect(await storedTask(workspace.workspaceId, String(id))).toMatchObject({ status: 'leased' });
  });
});

describe('extending a lease', () => {
  it("moves a live lease's end to leaseSeconds from now and answers the task", async () => {
    const { workspace, key } = await connectorWorkspace();
    const [id] = await seedPendingTasks(workspace.workspaceId, workspace.connectorId, 1);
    claimedTasks(await claim(key, { leaseSeconds: 1 }));
    const response = await extend(key, String(id), { leaseSeconds: 60 });
    expect(response.status, response.text).toBe(200);
    expect(response.json.task).toMatchObject({ id, leaseUntil: expect.stringMatching(ISO_MS) });
    expect(Date.parse(response.json.task.leaseUntil) - Date.now()).toBeGreaterThan(55_000);
    await pause(1_100);
    expect(claimedTasks(await claim(key))).toEqual([]);
    expect((await ack(key, [{ id, ok: true }])).json).toEqual({ applied: 1, failed: 0, expired: 0, ignored: 0 });
  });

  it("is 409 writeback_lease_expired for a lease run out, a task not leased, another connector's task or an unknown id", async () => {
    const { workspace, key } = await connectorWorkspace();
    const [expiring, unleased] = await seedPendingTasks(workspace.workspaceId, workspace.connectorId, 2);
    claimedTasks(await claim(key, { limit: 1, leaseSeconds: 1 }));
    const otherKey = await secondConnector(workspace.workspaceId);
    expectError(await extend(otherKey.key, String(expiring), { leaseSeconds: 30 }), { status: 409, code: 'writeback_lease_expired' });
    expectError(await extend(key, String(unleased), { leaseSeconds: 30 }), { status: 409, code: 'writeback_lease_expired' });
    expectError(await extend(key, 'wb_AAAAAAAAAAAAAAAAAAAAAA'), { status: 409, code: 'writeback_lease_expired' });
    await pause(1_100);
    expectError(await extend(key, String(expiring), { leaseSeconds: 30 }), { status: 409, code: 'writeback_lease_expired' });
  });

  it('cancels and answers 409 for a leased task a newer approval of its SKU superseded, so that no worker applies its older price', async () => {
    const workspace = await newWorkspace('Superseding Seller');
    await drain(workspace, { product: [LAMP] });
    const older = await approve(workspace.keys.pwLive, { sku: 'LAMP', price: 15.5 });
    expect(older.status, older.text).toBe(200);
    const [leased] = claimedTasks(await claim(workspace.keys.connector, { leaseSeconds: 60 }));
    expect(leased).toMatchObject({ productSku: 'LAMP', priceCents: 1550, approvalId: (older.json as { approval_id: string }).approval_id });
    // The newer approval leaves the leased task alone, as the contract has it; the renewal a worker asks before starting it is refused.
    const newer = await approve(workspace.keys.pwLive, { sku: 'LAMP', price: 16 });
    expect(newer.status, newer.text).toBe(200);
    expectError(await extend(workspace.keys.connector, String(leased?.id), { leaseSeconds: 60 }), {
      status: 409,
      code: 'writeback_lease_expired',
    });
    expect(await storedTask(workspace.workspaceId, String(leased?.id))).toMatchObject({ status: 'cancelled' });
    const [current] = claimedTasks(await claim(workspace.keys.connector, { leaseSeconds: 60 }));
    expect(current).toMatchObject({ productSku: 'LAMP', priceCents: 1600 });
    const renewed = await extend(workspace.keys.connector, String(current?.id), { leaseSeconds: 60 });
    expect(renewed.status, renewed.text).toBe(200);
  });

  it('renews a leased task while a newer approval waits for a second approver, which publishes nothing yet', async () => {
    const workspace = await newWorkspace('Waiting Superseder');
    await updateWorkspace(workspace.workspaceId, { pricing: { secondApprovalPct: 20 } });
    await drain(workspace, { product: [LAMP] });
    expect((await approve(workspace.keys.pwLive, { sku: 'LAMP', price: 15.5 })).json.status).toBe('published');
    const [leased] = claimedTasks(await claim(workspace.keys.connector, { leaseSeconds: 60 }));
    const waiting = await approve(workspace.keys.pwLive, { sku: 'LAMP', price: 19, confirm: true });
    expect(waiting.json.status, waiting.text).toBe('waiting');
    const renewed = await extend(workspace.keys.connector, String(leased?.id), { leaseSeconds: 60 });
    expect(renewed.status, renewed.text).toBe(200);
    expect(await storedTask(workspace.workspaceId, String(leased?.id))).toMatchObject({ status: 'leased' });
  });

  it('refuses a body that is not JSON, or has a field it does not know, naming it', async () => {
    const { workspace, key } = await connectorWorkspace();
    const [id] = await seedPendingTasks(workspace.workspaceId, workspace.connectorId, 1);
    claimedTasks(await claim(key));
    expectError(await extend(key, String(id), '{"leaseSeconds":'), { status: 422, code: 'invalid_json' });
    expectError(await extend(key, String(id), { leaseSeconds: 30, lease: 1 }), { status: 422, code: 'invalid_request', param: 'lease' });
    expectError(await call('/api/v1/writebacks/ack', { method: 'POST', key, body: '{"results":' }), { status: 422, code: 'invalid_json' });
    expect(await storedTask(workspace.workspaceId, String(id))).toMatchObject({ status: 'leased' });
  });

  it('refuses a leaseSeconds outside 1 to 3600', async () => {
    const { workspace, key } = await connectorWorkspace();
    const [id] = await seedPendingTasks(workspace.workspaceId, workspace.connectorId, 1);
    claimedTasks(await claim(key));
    expectError(await extend(key, String(id), { leaseSeconds: 0 }), { status: 422, code: 'invalid_request', param: 'leaseSeconds' });
    expectError(await extend(key, String(id), { leaseSeconds: 3601 }), { status: 422, code: 'invalid_request', param: 'leaseSeconds' });
  });
});

describe('many workers of one connector at once', () => {
  // Fifty claimers at once keep a busy machine's one local process busy: how long that takes is no part of the check.
  it('leases each of 1,000 tasks exactly once among 50 concurrent claimers, losing none', { timeout: 180_000 }, async () => {
    const { workspace, key } = await connectorWorkspace();
    const ids = await seedPendingTasks(workspace.workspaceId, workspace.connectorId, 1_000);
    const leased: string[] = [];
    await Promise.all(
      Array.from({ length: 50 }, async () => {
        for (;;) {
          const tasks = claimedTasks(await claim(key, { limit: 10, leaseSeconds: 600 }));
          if (tasks.length === 0) return;
          leased.push(...tasks.map((task) => task.id));
        }
      }),
    );
    // An empty answer under contention means this claim found nothing it could take in time, not that none are left:
    // a worker claims again later, as this last claimer does once the others have stopped.
    for (;;) {
      const tasks = claimedTasks(await claim(key, { limit: 10, leaseSeconds: 600 }));
      if (tasks.length === 0) break;
      leased.push(...tasks.map((task) => task.id));
    }
    expect(leased).toHaveLength(1_000);
    expect(new Set(leased)).toEqual(new Set(ids));
  });

  it('ends 20 concurrent identical acks of one task in one state, each counting it, with the price applied once', async () => {
    const { workspace, key } = await connectorWorkspace();
    const [id] = await seedPendingTasks(workspace.workspaceId, workspace.connectorId, 1, { products: true });
    claimedTasks(await claim(key));
    const responses = await Promise.all(Array.from({ length: 20 }, () => ack(key, [{ id, ok: true }])));
    for (const response of responses) expect(response.json, response.text).toEqual({ applied: 1, failed: 0, expired: 0, ignored: 0 });
    expect(await storedTask(workspace.workspaceId, String(id))).toMatchObject({ status: 'applied' });
    const product = await tableClient().send(
      new GetCommand({ TableName: tableName(), Key: keys.product(workspace.workspaceId, 'SEED-0'), ConsistentRead: true }),
    );
    expect(product.Item).toMatchObject({ currentPriceCents: 1000 });
    expect(await storedRecommendation(workspace.workspaceId, 'SEED-0')).toMatchObject({ currentPriceCents: 1000 });
  });

  it('ends 20 concurrent acks that disagree in one state, counting it for the agreeing ones alone', async () => {
    const { workspace, key } = await connectorWorkspace();
    const [id] = await seedPendingTasks(workspace.workspaceId, workspace.connectorId, 1);
    claimedTasks(await claim(key));
    const responses = await Promise.all(Array.from({ length: 20 }, (_, index) => ack(key, [{ id, ok: index % 2 === 0, error: 'no' }])));
    const status = (await storedTask(workspace.workspaceId, String(id)))?.status;
    expect(['applied', 'failed']).toContain(status);
    for (const response of responses) {
      const counts = response.json as Record<string, number>;
      expect((counts.applied ?? 0) + (counts.ignored ?? 0) + (counts.failed ?? 0)).toBe(1);
      if (status === 'applied') expect(counts.failed).toBe(0);
      else expect(counts.applied).toBe(0);
    }
  });
});
