// The drain worker's table calls and CPU time, per workspace and per job (the drain, the bands job after it), for the ingest benchmark and its cost test.
import type { SQSEvent } from 'aws-lambda';
import { type OperationCount, TableCallCounts, countTableCalls, installCallCounting } from '#platform/table/call-count.ts';
import { tableClient } from '#platform/table/client.ts';
import type { AnyHandler } from '#lib/local/handlers.ts';

export type JobKind = 'drain' | 'bands';
export const jobKinds: readonly JobKind[] = ['drain', 'bands'];

/** What the drain worker did for one workspace while it was watched. */
export class JobCounts {
  readonly calls: Record<JobKind, TableCallCounts>;
  /** Process CPU time while a job of the kind ran: in local mode the handlers share this process with the gateway. */
  readonly cpuSeconds: Record<JobKind, number> = { drain: 0, bands: 0 };
  readonly invocations: Record<JobKind, number> = { drain: 0, bands: 0 };
  #active = 0;
  readonly #running: Record<JobKind, { active: number; since: NodeJS.CpuUsage }> = {
    drain: { active: 0, since: process.cpuUsage() },
    bands: { active: 0, since: process.cpuUsage() },
  };

  readonly options: { readonly indexes: boolean };

  constructor(options: { readonly indexes: boolean }) {
    this.options = options;
    this.calls = { drain: new TableCallCounts(options), bands: new TableCallCounts(options) };
  }

  /** Runs one invocation of a job, counting its calls; CPU is taken over the time any job of the kind runs, once. */
  async during<T>(kind: JobKind, run: () => Promise<T>): Promise<T> {
    const running = this.#running[kind];
    this.#active += 1;
    if (running.active++ === 0) running.since = process.cpuUsage();
    this.invocations[kind] += 1;
    try {
      return await countTableCalls(this.calls[kind], run);
    } finally {
      if (--running.active === 0) {
        const used = process.cpuUsage(running.since);
        this.cpuSeconds[kind] += (used.user + used.system) / 1e6;
      }
      this.#active -= 1;
    }
  }

  /**
   * Waits for the invocations under way to end: a job makes the change a connector sees (drained, bands recomputed)
   * before it ends, and its last calls and its CPU time are counted only then.
   */
  async settled(): Promise<void> {
    while (this.#active > 0) await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const watched = new Map<string, JobCounts>();

/** Counts the drain worker's jobs for a workspace from now until `stop`. */
export function watchWorkspace(workspaceId: string, options: { indexes: boolean }): { counts: JobCounts; stop(): void } {
  const counts = new JobCounts(options);
  watched.set(workspaceId, counts);
  return { counts, stop: () => watched.delete(workspaceId) };
}

/** The drain worker's handler, counting the jobs of watched workspaces; others run as they would. */
export function countingDrainHandler(inner: AnyHandler): AnyHandler {
  return async (event: SQSEvent, context: unknown) => {
    // The stack has set the handlers' environment by the first invocation, so the shared client points at it.
    installCallCounting(tableClient());
    let message: { workspaceId?: string; phase?: string } = {};
    try {
      message = JSON.parse(event.Records[0]?.body ?? '{}') as typeof message;
    } catch {
      // A body no commit could have sent: the worker fails it, uncounted.
    }
    const counts = message.workspaceId === undefined ? undefined : watched.get(message.workspaceId);
    if (!counts) return inner(event, context);
    return counts.during(message.phase === 'bands' ? 'bands' : 'drain', () => inner(event, context));
  };
}

function perThousand(value: number, records: number): number {
  return (value / records) * 1000;
}

const COLUMNS = `${'calls'.padStart(8)} ${'items written'.padStart(14)} ${'index entries'.padStart(14)} ${'RRU'.padStart(9)} ${'WRU'.padStart(9)}`;

function row(name: string, count: OperationCount, records: number, indexes: boolean): string {
  // A tenth is the smallest step that shows: a call a batch makes once is a fraction of one per 1,000 records.
  const figure = (value: number, width: number) => perThousand(value, records).toFixed(1).padStart(width);
  return `    ${name.padEnd(24)}${figure(count.calls, 8)} ${figure(count.itemsWritten, 14)} ${indexes ? figure(count.indexEntriesWritten, 14) : 'n/a'.padStart(14)} ${figure(count.readUnits, 9)} ${figure(count.writeUnits, 9)}`;
}

/** The per-1,000-record table of one watched batch: each job by operation, its total, CPU time and index write units. */
export function jobCountLines(counts: JobCounts, records: number): string[] {
  const lines = [`  per 1,000 records         ${COLUMNS}`];
  for (const kind of jobKinds) {
    const calls = counts.calls[kind];
    lines.push(
      `  ${kind === 'drain' ? 'drain' : 'bands job'} (${counts.invocations[kind]} invocation${counts.invocations[kind] === 1 ? '' : 's'})`,
    );
    const operations = [...calls.operations].sort(([a], [b]) => a.localeCompare(b));
    for (const [operation, count] of operations) lines.push(row(operation, count, records, counts.options.indexes));
    lines.push(row('all', calls.total(), records, counts.options.indexes));
    const indexUnits = [...calls.indexWriteUnits].map(([index, units]) => `${index} ${perThousand(units, records).toFixed(1)}`);
    lines.push(
      `    Node CPU ${perThousand(counts.cpuSeconds[kind], records).toFixed(3)} s${indexUnits.length > 0 ? `; index write units as DynamoDB reported them: ${indexUnits.join(', ')}` : ''}`,
    );
  }
  const both = new TableCallCounts(counts.options);
  for (const kind of jobKinds) both.add(counts.calls[kind]);
  const total = both.total();
  lines.push(
    `  drain + bands job          ${perThousand(total.calls, records).toFixed(0)} calls, ${perThousand(total.itemsWritten + total.indexEntriesWritten, records).toFixed(0)} items and index entries written, ${perThousand(total.readUnits, records).toFixed(1)} RRU, ${perThousand(total.writeUnits, records).toFixed(1)} WRU, ${perThousand(counts.cpuSeconds.drain + counts.cpuSeconds.bands, records).toFixed(3)} CPU-seconds`,
  );
  return lines;
}

/** Both jobs' figures per 1,000 records, for the bench's JSON line and the cost test. */
export function perThousandRecords(counts: JobCounts, records: number) {
  const figures = (count: OperationCount) => ({
    calls: perThousand(count.calls, records),
    itemsWritten: perThousand(count.itemsWritten, records),
    indexEntriesWritten: counts.options.indexes ? perThousand(count.indexEntriesWritten, records) : undefined,
    readUnits: perThousand(count.readUnits, records),
    writeUnits: perThousand(count.writeUnits, records),
  });
  return Object.fromEntries(
    jobKinds.map((kind) => [
      kind,
      {
        ...figures(counts.calls[kind].total()),
        cpuSeconds: perThousand(counts.cpuSeconds[kind], records),
        byOperation: Object.fromEntries([...counts.calls[kind].operations].map(([operation, count]) => [operation, figures(count)])),
      },
    ]),
  ) as Record<JobKind, ReturnType<typeof figures> & { cpuSeconds: number; byOperation: Record<string, ReturnType<typeof figures>> }>;
}
