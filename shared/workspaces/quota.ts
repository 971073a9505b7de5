// A workspace's monthly quota of priced lines: each instance takes lines from the month's usage item in leased blocks and spends them locally.
import { getItem, updateItem } from '#platform/table/commands.ts';
import { keys } from '#platform/table/keys.ts';
import { currentLedger } from '#platform/meter.ts';
import { positiveNumber } from '#platform/config.ts';
import { onShutdown } from '#shared/cost/shutdown.ts';
import type { Workspace } from './schema.ts';
import { monthlyVolumeExceeded, monthOf, usageExpiry } from './usage.ts';

type QuotaTerms = Pick<Workspace, 'workspaceId' | 'monthlyLines'>;

/** The most lines one lease takes (QUOTA_LEASE_LINES); 0 takes exactly what each call needs, as local mode does. */
export const DEFAULT_LEASE_LINES = 5_000;
/**
 * A lease takes at most this fraction of what the month has left, so that blocks shrink as the quota nears its end
 * and the lines other instances hold unspent stay a small share of what a caller can be refused for.
 */
export const LEASE_SHARE_OF_ROOM = 1 / 16;
/** Contending instances refuse a lease's condition; past this many tries the call is refused as over the quota. */
const LEASE_ATTEMPTS = 5;

export function leaseLines(): number {
  const configured = process.env.QUOTA_LEASE_LINES;
  if (configured === '0') return 0;
  return Math.floor(positiveNumber(configured) ?? DEFAULT_LEASE_LINES);
}

/** Lines this instance took from a workspace's month and has not spent yet. */
interface Lease {
  readonly workspaceId: string;
  readonly month: string;
  held: number;
  /** What the month had left when this instance last took a block: the next block's size follows it. */
  roomSeen: number;
}

/** By workspace and month. One entry per workspace an instance served this month: a handful, never traffic-sized. */
const leases = new Map<string, Lease>();

function leaseOf(workspace: QuotaTerms, month: string): Lease {
  const id = `${workspace.workspaceId}|${month}`;
  let lease = leases.get(id);
  if (!lease) {
    lease = { workspaceId: workspace.workspaceId, month, held: 0, roomSeen: workspace.monthlyLines };
    leases.set(id, lease);
  }
  return lease;
}

/** The block a lease asks for: what the call is short of, or more, up to the lease size and a share of what is left. */
export function blockSize(short: number, roomSeen: number, maxLines = leaseLines()): number {
  return Math.max(short, Math.min(maxLines, Math.floor(roomSeen * LEASE_SHARE_OF_ROOM)));
}

/**
 * Takes `short` lines or more from the month's usage item, in one conditional UpdateItem that keeps its lines under
 * the quota. Refused, it asks for what the month has left if that still covers the call; it refuses the call only
 * once the month cannot.
 */
async function takeBlock(workspace: QuotaTerms, lease: Lease, short: number, nowMs: number): Promise<number> {
  let want = blockSize(short, lease.roomSeen);
  for (let attempt = 0; attempt < LEASE_ATTEMPTS; attempt++) {
    const taken = await updateItem({
      Key: keys.usage(workspace.workspaceId, lease.month),
      UpdateExpression: 'ADD #lines :want SET expiresAt = if_not_exists(expiresAt, :expires)',
      ConditionExpression: 'attribute_not_exists(#lines) OR #lines <= :room',
      ExpressionAttributeNames: { '#lines': 'lines' },
      ExpressionAttributeValues: { ':want': want, ':room': workspace.monthlyLines - want, ':expires': usageExpiry(nowMs) },
      ReturnValues: 'UPDATED_NEW',
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
    });
    if (!taken.refused) {
      lease.roomSeen = workspace.monthlyLines - Number(taken.attributes?.lines ?? want);
      return want;
    }
    const room = workspace.monthlyLines - Number(taken.stored?.lines ?? 0);
    lease.roomSeen = Math.max(0, room);
    if (room < short) break;
    want = Math.min(want, room);
  }
  throw monthlyVolumeExceeded(workspace, nowMs);
}

/**
 * Whether the month has no line left for this workspace, before the call's input is read. An instance holding lines
 * knows it has some; one holding none reads the usage item (eventually consistent), which a leasing instance does
 * once per block.
 */
export async function monthSpent(workspace: QuotaTerms, nowMs: number): Promise<boolean> {
  const month = monthOf(nowMs);
  if ((leases.get(`${workspace.workspaceId}|${month}`)?.held ?? 0) > 0) return false;
  const usage = await getItem({
    Key: keys.usage(workspace.workspaceId, month),
    ProjectionExpression: '#lines',
    ExpressionAttributeNames: { '#lines': 'lines' },
  });
  return Number(usage?.lines ?? 0) >= workspace.monthlyLines;
}

/**
 * Takes a call's lines from the month's quota, all or none: from what this instance holds, and a new block for what
 * it lacks. A call that the month cannot cover prices nothing. The usage item's lines never pass the quota: they
 * count every line spent or held, and an instance gives back what it holds when it shuts down.
 */
export async function chargeLines(workspace: QuotaTerms, lines: number, nowMs: number): Promise<void> {
  if (lines > workspace.monthlyLines) throw monthlyVolumeExceeded(workspace, nowMs);
  const month = monthOf(nowMs);
  await settleOtherMonths(month);
  const lease = leaseOf(workspace, month);
  // Taken at once, before any wait, so that calls running side by side in one process never spend a line twice.
  const fromHeld = Math.min(lease.held, lines);
  lease.held -= fromHeld;
  const short = lines - fromHeld;
  if (short > 0) {
    try {
      // Read after the wait, not before: `held += await …` would add to what it was before other calls changed it.
      const taken = await takeBlock(workspace, lease, short, nowMs);
      lease.held += taken - short;
    } catch (error) {
      lease.held += fromHeld;
      throw error;
    }
  }
  const ledger = currentLedger();
  if (ledger) ledger.pricedLines += lines;
}

/**
 * Gives back the lines of a call that failed after it was charged: the caller will retry it. A leasing instance keeps
 * them for its next call; one that leases nothing gives them back to the usage item at once.
 */
export async function refundLines(workspace: Pick<Workspace, 'workspaceId'>, lines: number, nowMs: number): Promise<void> {
  const ledger = currentLedger();
  if (ledger) ledger.pricedLines -= lines;
  const month = monthOf(nowMs);
  const lease = leases.get(`${workspace.workspaceId}|${month}`);
  if (lease && leaseLines() > 0) {
    lease.held += lines;
    return;
  }
  await giveBack(workspace.workspaceId, month, lines);
}

async function giveBack(workspaceId: string, month: string, lines: number): Promise<void> {
  await updateItem({
    Key: keys.usage(workspaceId, month),
    UpdateExpression: 'ADD #lines :refund',
    ExpressionAttributeNames: { '#lines': 'lines' },
    ExpressionAttributeValues: { ':refund': -lines },
  });
}

async function settle(selected: (lease: Lease) => boolean): Promise<number> {
  const due = [...leases.entries()].filter(([, lease]) => selected(lease));
  for (const [id] of due) leases.delete(id);
  const returned = await Promise.allSettled(
    due.map(async ([, lease]) => {
      if (lease.held > 0) await giveBack(lease.workspaceId, lease.month, lease.held);
      return lease.held;
    }),
  );
  return returned.reduce((sum, outcome) => sum + (outcome.status === 'fulfilled' ? outcome.value : 0), 0);
}

/** A new month's first charge gives back what the instance still holds of the months before. */
function settleOtherMonths(month: string): Promise<number> {
  for (const lease of leases.values()) if (lease.month !== month) return settle((held) => held.month !== month);
  return Promise.resolve(0);
}

/**
 * Gives back every line this instance holds: at shutdown, and in tests that read the usage item as settled. After
 * it, each usage item's lines are exactly the lines charged.
 */
export function settleQuotaLeases(): Promise<number> {
  return settle(() => true);
}

/** Lines this instance holds unspent, for tests and the bench. */
export function heldLines(): number {
  return [...leases.values()].reduce((sum, lease) => sum + lease.held, 0);
}

// At init, as the cost ledger does: Lambda takes extensions only then.
await onShutdown(settleQuotaLeases);
