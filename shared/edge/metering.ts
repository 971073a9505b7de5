// The meter every entry point runs under: each unit of its work with its own capacity ledger, clock and cost line, then the invocation's work charged to the workspaces it served, and the cost ledger flushed when due.
import { chargeWork, flushCostsIfDue, type WorkDone } from '#shared/cost/ledger.ts';
import { CapacityLedger, withCapacityLedger } from '#platform/meter.ts';
import { reportRequestCost } from '#platform/observability.ts';
import type { QueueWorker } from './routes/rows.ts';
import type { ScheduledJob } from './routes/workers.ts';

/** The function an entry point runs in, as the meter knows it: the id its cost lines name, and its configured memory. */
export interface MeteredFunction {
  readonly id: string;
  /** Unknown only for a handler no row of the route table configures. */
  readonly memoryMb: number | undefined;
  /** An HTTP route's budget (latency-budgets.ts): each request then counts whether it answered within it. */
  readonly latencyBudgetMs?: number;
}

/** One unit of work, as its cost line reports it: a request, a job off a queue, a sweep. */
export interface MeteredUnit {
  /**
   * The workspace the cost line names. The work sets it as soon as it knows it: a unit that fails afterwards still
   * names it, and is still charged to it.
   */
  workspaceId: string | undefined;
  /** 500 until the work answers. */
  status: number;
  readonly ledger: CapacityLedger;
  durationMs: number;
}

/** A share of an invocation's work that the cost ledger counts for one workspace; the memory is the function's. */
export type WorkShare = Omit<WorkDone, 'memoryMb'>;

/**
 * Runs one unit of work under its own ledger and clock, and reports its cost line as it ends, answered or failed.
 * Its status is `statusOf` its result once it answers, 200 if it says none.
 */
export type Measure = <R>(work: (unit: MeteredUnit) => Promise<R>, statusOf?: (result: R) => number) => Promise<R>;

/**
 * Every entry point's invocation: `run` does its work in units it measures (a request or a job is one; a worker that
 * serves several messages at once measures each). When it ends, answered or failed, `charge` says what each workspace
 * it served is charged: from the units' cost lines, and the invocation's own time where its units ran side by side.
 * The counts are then flushed, if they are due, before the invocation answers.
 */
export async function metered<T>(
  fn: MeteredFunction,
  run: (measure: Measure) => Promise<T>,
  charge: (units: readonly MeteredUnit[], invocationMs: number) => readonly WorkShare[],
): Promise<T> {
  const started = performance.now();
  const units: MeteredUnit[] = [];
  const measure: Measure = async (work, statusOf) => {
    const unit: MeteredUnit = { workspaceId: undefined, status: 500, ledger: new CapacityLedger(), durationMs: 0 };
    const unitStarted = performance.now();
    try {
      const result = await withCapacityLedger(unit.ledger, () => work(unit));
      unit.status = statusOf ? statusOf(result) : 200;
      return result;
    } finally {
      unit.durationMs = performance.now() - unitStarted;
      reportRequestCost({
        route: fn.id,
        workspaceId: unit.workspaceId,
        status: unit.status,
        ledger: unit.ledger,
        durationMs: unit.durationMs,
        latencyBudgetMs: fn.latencyBudgetMs,
      });
      units.push(unit);
    }
  };
  try {
    return await run(measure);
  } finally {
    for (const share of charge(units, performance.now() - started)) chargeWork({ ...share, memoryMb: fn.memoryMb });
    await flushCostsIfDue();
  }
}

/** What a unit's share says beside its cost line: the route it is counted under, its moment and its API requests. */
export interface ShareTerms {
  readonly route: string;
  readonly nowMs: number;
  readonly apiRequests: number;
}

/** A unit charged whole to the workspace its cost line names; a unit that names none is nobody's to pay. */
export function workspaceShare(unit: MeteredUnit | undefined, terms: ShareTerms): WorkShare[] {
  if (!unit?.workspaceId) return [];
  const { workspaceId, status, ledger, durationMs } = unit;
  return [{ workspaceId, status, capacity: ledger, durationMs, ...terms }];
}

/**
 * Units that ran side by side in one invocation off a queue, each charged to its workspace. Two things are shared by
 * the batch and split over its messages: the one receive and the one delete of the batch (two SQS requests), and the
 * invocation's time: the units' own durations, which overlap, are scaled down to add up to the invocation's at most.
 */
export function sideBySideShares(route: string, units: readonly MeteredUnit[], messages: number, invocationMs: number): WorkShare[] {
  const done = units.filter((unit) => unit.workspaceId);
  const busyMs = done.reduce((sum, unit) => sum + unit.durationMs, 0);
  const overlap = busyMs > invocationMs && busyMs > 0 ? invocationMs / busyMs : 1;
  return done.flatMap((unit) => {
    unit.ledger.queueRequests += 2 / Math.max(1, messages);
    const [share] = workspaceShare(unit, { route, nowMs: Date.now(), apiRequests: 0 });
    return share ? [{ ...share, durationMs: unit.durationMs * overlap }] : [];
  });
}

/**
 * One unit that served several workspaces, charged to each its share by the number of items it did for it: the
 * reads, the writes, the sends and the time.
 */
export function sharesByItems(
  route: string,
  unit: MeteredUnit,
  itemsPerWorkspace: ReadonlyMap<string, number>,
  items: number,
): WorkShare[] {
  return [...itemsPerWorkspace].map(([workspaceId, count]) => {
    const share = count / items;
    const capacity = new CapacityLedger();
    capacity.readUnits = unit.ledger.readUnits * share;
    capacity.writeUnits = unit.ledger.writeUnits * share;
    capacity.queueRequests = unit.ledger.queueRequests * share;
    return { workspaceId, route, nowMs: Date.now(), status: unit.status, capacity, durationMs: unit.durationMs * share, apiRequests: 0 };
  });
}

/** A queue worker or a scheduled job, by its row in the route table: the caller names its rows, and bundles no others. */
export function backgroundFunction(rows: ReadonlyArray<QueueWorker | ScheduledJob>, id: string): MeteredFunction {
  const row = rows.find((candidate) => candidate.id === id);
  if (!row) throw new Error(`no worker or scheduled job ${id}`);
  return { id: row.id, memoryMb: row.memoryMb };
}
