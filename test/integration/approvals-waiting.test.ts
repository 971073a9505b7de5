// The landing page's approvals waiting for a second approver: a workspace's own list, exact however many other workspaces wait.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { approvalPut, expiry } from '#shared/approvals/publish.ts';
import type { Approval } from '#shared/approvals/schema.ts';
import { readWaitingApprovals } from '#shared/approvals/waiting.ts';
import { transactWrite } from '#platform/table/commands.ts';
import { CapacityLedger, withCapacityLedger } from '#platform/meter.ts';

const HOUR = 3_600_000;

/** A live approval waiting for a second approver until `untilMs`, as an approval past the threshold records it. */
function waitingApproval(workspaceId: string, sku: string, untilMs: number, nowMs: number): Approval {
  return {
    approvalId: `apr_${randomUUID()}`,
    workspaceId,
    sku,
    priceCents: 61_056,
    currency: 'USD',
    approvedAt: new Date(nowMs).toISOString(),
    livemode: true,
    keyId: 'key_first',
    approver: { type: 'api_key', id: 'key_first' },
    status: 'waiting',
    recommendedPriceCents: 6_106,
    pricingDecisionId: 'pd_1',
    currentPriceCents: 6_106,
    secondApproval: { thresholdPct: 100, waitingUntil: new Date(untilMs).toISOString() },
    publishedTo: [],
  };
}

/** The read units of the landing page's read of a workspace's waits, as docs/cost.md counts them. */
async function readUnits(workspaceId: string, nowMs: number): Promise<number> {
  const ledger = new CapacityLedger();
  await withCapacityLedger(ledger, () => readWaitingApprovals(workspaceId, nowMs, 5));
  return ledger.readUnits;
}

/** Starts each wait with the record an approval writes, a few at a time. */
async function startWaits(approvals: readonly Approval[]): Promise<void> {
  for (let start = 0; start < approvals.length; start += 20) {
    await Promise.all(approvals.slice(start, start + 20).map((approval) => transactWrite([approvalPut(approval)])));
  }
}

describe("the landing page's approvals waiting for a second approver", { timeout: 120_000 }, () => {
  it('are exactly the workspace’s own, soonest end first, though more than 100 waits of other workspaces end sooner', async () => {
    const nowMs = Date.now();
    // Ending an hour from now or later: never due for a sweep in a test run, yet all before this workspace's.
    const others = Array.from({ length: 120 }, (_, i) =>
      waitingApproval(`ws_other_${randomUUID()}`, `SKU-${i}`, nowMs + HOUR + i * 1000, nowMs),
    );
    const workspaceId = `ws_${randomUUID()}`;
    const later = waitingApproval(workspaceId, 'LAMP', nowMs + 20 * HOUR, nowMs);
    const sooner = waitingApproval(workspaceId, 'PUMP', nowMs + 10 * HOUR, nowMs);
    await startWaits([...others, later, sooner]);

    const waiting = await readWaitingApprovals(workspaceId, nowMs, 5);
    expect(waiting).toMatchObject({ count: 2, complete: true });
    expect(waiting.approvals.map((approval) => approval.approvalId)).toEqual([sooner.approvalId, later.approvalId]);
    expect(waiting.approvals[0]).toMatchObject({ sku: 'PUMP', status: 'waiting', priceCents: 61_056 });
    // Half a unit, whatever the other workspaces hold.
    expect(await readUnits(workspaceId, nowMs)).toBe(0.5);
    // Each other workspace sees its own wait alone.
    const other = await readWaitingApprovals(others[0]?.workspaceId as string, nowMs, 5);
    expect(other.approvals.map((approval) => approval.approvalId)).toEqual([others[0]?.approvalId]);
  });

  it('say "or more" past the rows shown, and leave out a wait whose time has run out', async () => {
    const nowMs = Date.now();
    const workspaceId = `ws_${randomUUID()}`;
    const running = Array.from({ length: 6 }, (_, i) => waitingApproval(workspaceId, `SKU-${i}`, nowMs + (6 - i) * HOUR, nowMs));
    const runOut = waitingApproval(workspaceId, 'OLD', nowMs - 1000, nowMs - 24 * HOUR);
    await startWaits([...running, runOut]);

    const waiting = await readWaitingApprovals(workspaceId, nowMs, 5);
    expect(waiting).toMatchObject({ count: 5, complete: false });
    const soonestFirst = [...running].reverse().slice(0, 5);
    expect(waiting.approvals.map((approval) => approval.approvalId)).toEqual(soonestFirst.map((approval) => approval.approvalId));
    expect(await readWaitingApprovals(workspaceId, nowMs, 6)).toMatchObject({ count: 6, complete: true });
    // Six whole approvals read to show five.
    expect(await readUnits(workspaceId, nowMs)).toBeLessThanOrEqual(1);
  });

  it('lose a wait once it has expired', async () => {
    const nowMs = Date.now();
    const workspaceId = `ws_${randomUUID()}`;
    const [ending, staying] = [0, 1].map((i) => waitingApproval(workspaceId, `SKU-${i}`, nowMs + (i + 1) * HOUR, nowMs)) as [
      Approval,
      Approval,
    ];
    await startWaits([ending, staying]);
    // The sweeper's and the next approval's end of a wait that ran out, written as either writes it.
    await transactWrite(expiry(ending, new Date(nowMs)).entries);
    const waiting = await readWaitingApprovals(workspaceId, nowMs, 5);
    expect(waiting).toMatchObject({ count: 1, complete: true });
    expect(waiting.approvals.map((approval) => approval.approvalId)).toEqual([staying.approvalId]);
  });
});
