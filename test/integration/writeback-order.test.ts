// One price of a SKU at a time per connector, through the local gateway: a newer approval's task waits for the older one's lease, a running task is kept, and an older price acked late never becomes the product's.
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { issueApiKey } from '#shared/api-keys/repository.ts';
import { tableName } from '#platform/config.ts';
import { createConnector } from '#shared/connectors/repository.ts';
import { tableClient } from '#platform/table/client.ts';
import { keys } from '#platform/table/keys.ts';
import { drain, LAMP } from './prices-support.ts';
import { newWorkspace, type TestWorkspace } from './support.ts';
import { ack, approve, claim, claimedTasks, extend, storedTask } from './writebacks-support.ts';

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function lampWorkspace(name: string): Promise<TestWorkspace> {
  const workspace = await newWorkspace(name);
  await drain(workspace, { product: [LAMP] });
  return workspace;
}

async function approveLamp(workspace: TestWorkspace, price: number): Promise<void> {
  const answer = await approve(workspace.keys.pwLive, { sku: 'LAMP', price });
  expect(answer.status, answer.text).toBe(200);
}

async function lampPrice(workspaceId: string): Promise<unknown> {
  const { Item } = await tableClient().send(
    new GetCommand({ TableName: tableName(), Key: keys.product(workspaceId, 'LAMP'), ConsistentRead: true }),
  );
  return Item?.currentPriceCents;
}

describe("a SKU's tasks for one connector", () => {
  it("carry a sequence that grows with each approval, and a newer one waits while the older one's lease is held, until its ack", async () => {
    const workspace = await lampWorkspace('Order Seller');
    const key = workspace.keys.connector;
    await approveLamp(workspace, 15.5);
    const [older] = claimedTasks(await claim(key, { leaseSeconds: 60 }));
    expect(older).toMatchObject({ priceCents: 1550, sequence: 1 });
    await approveLamp(workspace, 16);
    // The newer price is not handed out while the older one may still be being applied.
    expect(claimedTasks(await claim(key, { leaseSeconds: 60 }))).toEqual([]);
    expect((await ack(key, [{ id: older?.id, ok: true }])).json).toEqual({ applied: 1, failed: 0, expired: 0, ignored: 0 });
    const [newer] = claimedTasks(await claim(key, { leaseSeconds: 60 }));
    expect(newer).toMatchObject({ priceCents: 1600, sequence: 2 });
    expect((await ack(key, [{ id: newer?.id, ok: true }])).json).toMatchObject({ applied: 1 });
    await approveLamp(workspace, 16.5);
    expect(claimedTasks(await claim(key))).toMatchObject([{ priceCents: 1650, sequence: 3 }]);
  });

  it("hand the newer one out once the older one's lease runs out, and cancel the older one rather than lease it again", async () => {
    const workspace = await lampWorkspace('Lapsed Order Seller');
    const key = workspace.keys.connector;
    await approveLamp(workspace, 15.5);
    const [older] = claimedTasks(await claim(key, { leaseSeconds: 60 }));
    await approveLamp(workspace, 16);
    expect(claimedTasks(await claim(key, { leaseSeconds: 60 }))).toEqual([]);
    // The worker's last renewal, a second long; then it is gone.
    expect((await extend(key, String(older?.id), { leaseSeconds: 1, running: true })).status).toBe(200);
    await pause(1_100);
    expect(claimedTasks(await claim(key, { leaseSeconds: 60 }))).toMatchObject([{ priceCents: 1600, sequence: 2 }]);
    expect(await storedTask(workspace.workspaceId, String(older?.id))).toMatchObject({ status: 'cancelled' });
  });

  it('keep a superseded task whose price is being applied (running), and apply it before the newer one', async () => {
    const workspace = await lampWorkspace('Running Order Seller');
    const key = workspace.keys.connector;
    await approveLamp(workspace, 15.5);
    const [older] = claimedTasks(await claim(key, { leaseSeconds: 60 }));
    await approveLamp(workspace, 16);
    const renewed = await extend(key, String(older?.id), { leaseSeconds: 60, running: true });
    expect(renewed.status, renewed.text).toBe(200);
    expect(await storedTask(workspace.workspaceId, String(older?.id))).toMatchObject({ status: 'leased' });
    expect(claimedTasks(await claim(key))).toEqual([]);
    expect((await ack(key, [{ id: older?.id, ok: true }])).json).toMatchObject({ applied: 1 });
    expect(await lampPrice(workspace.workspaceId)).toBe(1550);
    const [newer] = claimedTasks(await claim(key));
    expect((await ack(key, [{ id: newer?.id, ok: true }])).json).toMatchObject({ applied: 1 });
    expect(await lampPrice(workspace.workspaceId)).toBe(1600);
  });
});

describe('an older price acknowledged after a newer one was applied', () => {
  it("is recorded as applied and overtaken, and leaves the product's price the newer one", async () => {
    const workspace = await lampWorkspace('Two ERPs Seller');
    const storefront = await createConnector({ workspaceId: workspace.workspaceId, name: 'Storefront', receivesWritebacks: true });
    const { key: storefrontKey } = await issueApiKey({
      workspaceId: workspace.workspaceId,
      family: 'svc_live',
      scopes: ['connector'],
      connectorId: storefront.connectorId,
    });
    await approveLamp(workspace, 15.5);
    const [slow] = claimedTasks(await claim(storefrontKey, { leaseSeconds: 60 }));
    expect(slow).toMatchObject({ priceCents: 1550, sequence: 1 });
    await approveLamp(workspace, 16);
    const [fast] = claimedTasks(await claim(workspace.keys.connector, { leaseSeconds: 60 }));
    expect(fast).toMatchObject({ priceCents: 1600, sequence: 2 });
    expect((await ack(workspace.keys.connector, [{ id: fast?.id, ok: true }])).json).toMatchObject({ applied: 1 });
    expect(await lampPrice(workspace.workspaceId)).toBe(1600);
    // The storefront's older command reports now: it did apply, and says so, but the SKU's price is the newer one.
    expect((await ack(storefrontKey, [{ id: slow?.id, ok: true }])).json).toEqual({ applied: 1, failed: 0, expired: 0, ignored: 0 });
    expect(await storedTask(workspace.workspaceId, String(slow?.id))).toMatchObject({ status: 'applied', overtaken: true });
    expect(await lampPrice(workspace.workspaceId)).toBe(1600);
  });
});
