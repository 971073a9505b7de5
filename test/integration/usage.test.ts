// The per-second request rate against DynamoDB Local: windows, late arrivals across a second, and what a refusal costs.
import { describe, expect, it } from 'vitest';
import { CapacityLedger, withCapacityLedger } from '#platform/meter.ts';
import { stampBandsChange } from '#shared/workspaces/bands-stamp.ts';
import { admitRequest } from '#shared/workspaces/rate.ts';
import { newWorkspace } from './support.ts';

/** The start of the current second: a test's requests then fall in the seconds it means. */
function secondStart(): number {
  return Math.floor(Date.now() / 1000) * 1000;
}

describe('the per-second request rate', () => {
  it('admits up to the limit in a second, refuses the rest, and opens a new window the next second', async () => {
    const workspace = { workspaceId: (await newWorkspace()).workspaceId, rateLimit: 3, overviewRateLimit: 20 };
    const at = secondStart();
    for (let i = 0; i < 3; i++) await admitRequest(workspace, at + i);
    await expect(admitRequest(workspace, at + 10)).rejects.toMatchObject({ code: 'rate_limited' });
    await expect(admitRequest(workspace, at + 1000)).resolves.toEqual({ bandsAt: undefined });
  });

  it('counts a request stamped just before another opened the next second in that window, rather than refusing it', async () => {
    const workspace = { workspaceId: (await newWorkspace()).workspaceId, rateLimit: 1000, overviewRateLimit: 20 };
    const at = secondStart();
    await admitRequest(workspace, at + 1000);
    // Five requests stamped in the second before, arriving after the next window opened: all counted.
    await Promise.all([1, 2, 3, 4, 5].map((ms) => admitRequest(workspace, at + 1000 - ms)));
  });

  it("brings back the workspace's bands stamp from the shard that counted the request, which only moves forward", async () => {
    const workspace = { workspaceId: (await newWorkspace()).workspaceId, rateLimit: 1000, overviewRateLimit: 20 };
    const at = secondStart();
    await stampBandsChange(workspace, 1_800_000_000_000);
    await stampBandsChange(workspace, 1_700_000_000_000);
    // A limit of 1,000 spreads over three shards: whichever a request draws carries the stamp.
    for (let i = 0; i < 6; i++) await expect(admitRequest(workspace, at + i)).resolves.toEqual({ bandsAt: 1_800_000_000_000 });
    await expect(admitRequest(workspace, at + 10, 'overview')).resolves.toEqual({ bandsAt: undefined });
  });

  it('spends one refused write on a request past the limit', async () => {
    const workspace = { workspaceId: (await newWorkspace()).workspaceId, rateLimit: 1, overviewRateLimit: 20 };
    const at = secondStart();
    await admitRequest(workspace, at);
    const ledger = new CapacityLedger();
    await expect(withCapacityLedger(ledger, () => admitRequest(workspace, at + 1))).rejects.toMatchObject({ code: 'rate_limited' });
    expect(ledger.writeUnits).toBe(1);
  });

  it('refuses the rest of a second without a table call once the instance has found every shard of it full', async () => {
    const workspace = { workspaceId: (await newWorkspace()).workspaceId, rateLimit: 1, overviewRateLimit: 20 };
    const at = secondStart();
    await admitRequest(workspace, at);
    await expect(admitRequest(workspace, at + 1)).rejects.toMatchObject({ code: 'rate_limited' });
    const ledger = new CapacityLedger();
    await expect(withCapacityLedger(ledger, () => admitRequest(workspace, at + 2))).rejects.toMatchObject({ code: 'rate_limited' });
    expect(ledger.calls).toBe(0);
    await expect(admitRequest(workspace, at + 1000)).resolves.toEqual({ bandsAt: undefined });
  });

  it('meters the overview in a window of its own, against its own limit', async () => {
    const workspace = { workspaceId: (await newWorkspace()).workspaceId, rateLimit: 1, overviewRateLimit: 2 };
    const at = secondStart();
    await admitRequest(workspace, at);
    await admitRequest(workspace, at + 1, 'overview');
    await admitRequest(workspace, at + 2, 'overview');
    await expect(admitRequest(workspace, at + 3, 'overview')).rejects.toMatchObject({ code: 'rate_limited' });
    await expect(admitRequest(workspace, at + 4)).rejects.toMatchObject({ code: 'rate_limited' });
  });
});
