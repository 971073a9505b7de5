// The monthly quota's leases in one instance against DynamoDB Local: blocks taken, spent, refunded and given back, month by month.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { tableName } from '#platform/config.ts';
import { CapacityLedger, withCapacityLedger } from '#platform/meter.ts';
import { tableClient } from '#platform/table/client.ts';
import { keys } from '#platform/table/keys.ts';
import { chargeLines, heldLines, monthSpent, refundLines, settleQuotaLeases } from '#shared/workspaces/quota.ts';
import { newWorkspace } from './support.ts';

async function storedLines(workspaceId: string, month: string): Promise<number> {
  const { Item } = await tableClient().send(
    new GetCommand({ TableName: tableName(), Key: keys.usage(workspaceId, month), ConsistentRead: true }),
  );
  return Number(Item?.lines ?? 0);
}

const LAST_OF_JANUARY = Date.UTC(2031, 0, 31, 23, 59, 59);
const FIRST_OF_FEBRUARY = Date.UTC(2031, 1, 1, 0, 0, 1);

describe('the quota leases of an instance', () => {
  const previous = process.env.QUOTA_LEASE_LINES;
  beforeEach(async () => {
    await settleQuotaLeases();
    process.env.QUOTA_LEASE_LINES = '8';
  });
  afterEach(async () => {
    await settleQuotaLeases();
    if (previous === undefined) delete process.env.QUOTA_LEASE_LINES;
    else process.env.QUOTA_LEASE_LINES = previous;
  });

  it('takes a block for its first call and spends the next ones from it without a table call', async () => {
    const workspace = { workspaceId: (await newWorkspace()).workspaceId, monthlyLines: 1_000 };
    await chargeLines(workspace, 3, LAST_OF_JANUARY);
    expect(await storedLines(workspace.workspaceId, '2031-01')).toBe(8);
    const ledger = new CapacityLedger();
    await withCapacityLedger(ledger, () => chargeLines(workspace, 4, LAST_OF_JANUARY));
    expect(ledger.calls).toBe(0);
    expect(ledger.pricedLines).toBe(4);
    expect(await withCapacityLedger(ledger, () => monthSpent(workspace, LAST_OF_JANUARY))).toBe(false);
    expect(ledger.calls).toBe(0);
  });

  it('keeps the lines of a refunded call for the next one, and gives back all it holds when settled', async () => {
    const workspace = { workspaceId: (await newWorkspace()).workspaceId, monthlyLines: 1_000 };
    await chargeLines(workspace, 2, LAST_OF_JANUARY);
    await refundLines(workspace, 2, LAST_OF_JANUARY);
    expect(heldLines()).toBe(8);
    await chargeLines(workspace, 1, LAST_OF_JANUARY);
    await settleQuotaLeases();
    expect(await storedLines(workspace.workspaceId, '2031-01')).toBe(1);
  });

  it("gives back what it holds of a month at the new month's first charge", async () => {
    const workspace = { workspaceId: (await newWorkspace()).workspaceId, monthlyLines: 1_000 };
    await chargeLines(workspace, 1, LAST_OF_JANUARY);
    await chargeLines(workspace, 1, FIRST_OF_FEBRUARY);
    expect(await storedLines(workspace.workspaceId, '2031-01')).toBe(1);
    expect(await storedLines(workspace.workspaceId, '2031-02')).toBe(8);
  });

  it('takes what the month has left when a full block would cross the quota, and says the month is spent once none is left', async () => {
    const workspace = { workspaceId: (await newWorkspace()).workspaceId, monthlyLines: 10 };
    await chargeLines(workspace, 9, LAST_OF_JANUARY);
    await expect(chargeLines(workspace, 2, LAST_OF_JANUARY)).rejects.toMatchObject({ code: 'monthly_volume_exceeded' });
    await chargeLines(workspace, 1, LAST_OF_JANUARY);
    expect(await storedLines(workspace.workspaceId, '2031-01')).toBe(10);
    expect(await monthSpent(workspace, LAST_OF_JANUARY)).toBe(true);
  });
});
