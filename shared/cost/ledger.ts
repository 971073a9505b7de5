// The cost ledger: what each request and each background job consumed, added up per Lambda instance and flushed to one item per workspace × UTC day × route.
import { logger } from '#platform/observability.ts';
import { CapacityLedger, withCapacityLedger } from '#platform/meter.ts';
import { updateItem } from '#platform/table/commands.ts';
import { keys } from '#platform/table/keys.ts';
import { type CostCounter, type CostCounts, costCounters, dayOf, emptyCounts } from './counts.ts';
import { HTTP_API_METERING_BYTES } from './list-prices.ts';
import { onShutdown } from './shutdown.ts';

/** A flush is one UpdateItem of an item of a dozen numbers, far under 1 KB: one write unit. */
export const FLUSH_WRITE_UNITS = 1;

/** Counts are kept at most this long in an instance before a request's end flushes them (COST_LEDGER_FLUSH_SECONDS). */
const DEFAULT_FLUSH_AFTER_SECONDS = 60;
/** An instance serving many workspaces flushes once it holds this many items, whatever their age. */
const MAX_PENDING_ITEMS = 200;

/** Work whose caller does not know its function's memory (a handler no row configures) is counted at the most any function has. */
const UNKNOWN_MEMORY_MB = 1024;

/** API Gateway meters one request per started 512 KB of request and response together. */
export function meteredApiRequests(requestBytes: number, responseBytes: number): number {
  return Math.max(1, Math.ceil((requestBytes + responseBytes) / HTTP_API_METERING_BYTES));
}

/** One request or one job, as the ledger counts it. */
export interface WorkDone {
  readonly workspaceId: string;
  /** A route id; a worker's or a scheduled job's id (`deliverWebhooks`, `sweepWebhookOutbox`); or the drain worker's job, `drain` or `bands`. */
  readonly route: string;
  readonly nowMs: number;
  readonly status: number;
  readonly capacity: CapacityLedger;
  readonly durationMs: number;
  /** The API Gateway requests it was metered as; 0 for a job off a queue. */
  readonly apiRequests: number;
  /**
   * The configured memory of the function that did it, from its row in the route table: the caller knows its own, so
   * that no function carries the other functions' rows to look it up.
   */
  readonly memoryMb?: number;
}

/** Turns one request or job into the counts it adds to its ledger item. */
export function countsOf(work: WorkDone): CostCounts {
  const counts = emptyCounts();
  const statusClass = Math.min(5, Math.max(2, Math.floor(work.status / 100)));
  counts.requests = 1;
  counts[`status${statusClass}xx` as CostCounter] = 1;
  counts.readUnits = work.capacity.readUnits;
  counts.writeUnits = work.capacity.writeUnits;
  counts.lambdaMbMs = Math.ceil(work.durationMs) * (work.memoryMb ?? UNKNOWN_MEMORY_MB);
  counts.invocations = 1;
  counts.apiRequests = work.apiRequests;
  counts.sqsRequests = work.capacity.queueRequests;
  counts.pricedLines = work.capacity.pricedLines;
  return counts;
}

interface PendingItem {
  readonly workspaceId: string;
  readonly day: string;
  readonly route: string;
  readonly counts: CostCounts;
  /** When its oldest count was added. */
  readonly sinceMs: number;
}

/** This instance's counts not yet flushed, by workspace, day and route. */
let pending = new Map<string, PendingItem>();
let flushing: Promise<void> | undefined;

function flushAfterMs(): number {
  const configured = Number(process.env.COST_LEDGER_FLUSH_SECONDS);
  return (Number.isFinite(configured) && configured >= 0 ? configured : DEFAULT_FLUSH_AFTER_SECONDS) * 1000;
}

function addTo(
  item: PendingItem | undefined,
  work: { workspaceId: string; day: string; route: string; sinceMs: number },
  counts: CostCounts,
) {
  const merged = item ?? { ...work, counts: emptyCounts() };
  for (const counter of costCounters) merged.counts[counter] += counts[counter];
  return merged;
}

/** Adds a request's or a job's counts to this instance's pending ledger. Nothing is written here. */
export function chargeWork(work: WorkDone): void {
  const day = dayOf(work.nowMs);
  const id = `${work.workspaceId}\u0000${day}\u0000${work.route}`;
  pending.set(id, addTo(pending.get(id), { workspaceId: work.workspaceId, day, route: work.route, sinceMs: Date.now() }, countsOf(work)));
}

/** What this instance holds and has not flushed: the bench and the tests read it. */
export function pendingCosts(): readonly PendingItem[] {
  return [...pending.values()];
}

/**
 * Called at the end of every request and job, before it answers: flushes when the oldest pending count is older than
 * the flush age, so that the ledger costs one write per item per minute of an instance, not one per request.
 */
export async function flushCostsIfDue(nowMs = Date.now()): Promise<void> {
  let oldest = Infinity;
  for (const item of pending.values()) oldest = Math.min(oldest, item.sinceMs);
  if (pending.size === 0 || (nowMs - oldest < flushAfterMs() && pending.size < MAX_PENDING_ITEMS)) return;
  await flushCosts();
}

/**
 * Writes every pending item: one UpdateItem ADD per workspace × day × route. A failed write keeps its counts for the
 * next flush. Returns the items written and the write units DynamoDB charged for them, which the bench reads.
 */
export async function flushCosts(): Promise<{ items: number; writeUnits: number }> {
  if (flushing) await flushing;
  if (pending.size === 0) return { items: 0, writeUnits: 0 };
  const items = [...pending.values()];
  pending = new Map();
  // The flush's own units are the ledger's, counted in `ledgerWriteUnits`, not the request's that happened to run it.
  const capacity = new CapacityLedger();
  flushing = withCapacityLedger(capacity, () =>
    Promise.all(
      items.map(async (item) => {
        try {
          await writeLedgerItem(item);
        } catch (error) {
          logger.warn('cost ledger flush failed; its counts wait for the next flush', { error: error as Error, route: item.route });
          const id = `${item.workspaceId}\u0000${item.day}\u0000${item.route}`;
          pending.set(id, addTo(pending.get(id), item, item.counts));
        }
      }),
    ).then(() => undefined),
  );
  try {
    await flushing;
  } finally {
    flushing = undefined;
  }
  return { items: items.length, writeUnits: capacity.writeUnits };
}

/** Ledger items outlive their day by 400 days, as usage items do, for finance to read back. */
const LEDGER_RETENTION_DAYS = 400;

async function writeLedgerItem(item: PendingItem): Promise<void> {
  const counts = { ...item.counts, ledgerWriteUnits: item.counts.ledgerWriteUnits + FLUSH_WRITE_UNITS };
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  const adds = costCounters.map((counter, index) => {
    names[`#c${index}`] = counter;
    values[`:c${index}`] = counts[counter];
    return `#c${index} :c${index}`;
  });
  values[':expires'] = Math.floor(Date.parse(`${item.day}T00:00:00Z`) / 1000) + (LEDGER_RETENTION_DAYS + 1) * 86_400;
  values[':workspaceId'] = item.workspaceId;
  values[':day'] = item.day;
  values[':route'] = item.route;
  await updateItem({
    Key: keys.costLedger(item.workspaceId, item.day, item.route),
    UpdateExpression: `ADD ${adds.join(', ')} SET expiresAt = :expires, workspaceId = :workspaceId, #day = :day, #route = :route`,
    ExpressionAttributeNames: { ...names, '#day': 'day', '#route': 'route' },
    ExpressionAttributeValues: values,
  });
}

// At init, before the first invocation: Lambda takes extensions only then.
await onShutdown(flushCosts);
