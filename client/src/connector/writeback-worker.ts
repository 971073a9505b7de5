// The connector's write-back worker loop: claim, run a command per task while keeping its lease, ack per claim.

/** A claimed task as the API hands it out; the worker reads only these fields and passes the whole task on. */
export interface WritebackTask {
  readonly id: string;
  readonly productSku: string;
  readonly priceCents: number;
  readonly currency: string;
  readonly [field: string]: unknown;
}

export type AckResult = { id: string; ok: true } | { id: string; ok: false; error: string };

export interface AckCounts {
  readonly applied: number;
  readonly failed: number;
  readonly expired: number;
  readonly ignored: number;
}

/** The part of `@pricing-service/client` the worker uses, so tests can hand it a fake. */
export interface WritebackApi {
  claimWritebacks(input: { limit: number; leaseSeconds: number }): Promise<{ tasks: readonly WritebackTask[] }>;
  ackWritebacks(results: AckResult[]): Promise<AckCounts>;
  extendWriteback(id: string, input: { leaseSeconds: number }): Promise<unknown>;
}

/** How a task's command ended: its exit code (null when a signal ended it) and what it wrote to stderr. */
export interface CommandOutcome {
  readonly code: number | null;
  readonly signal?: string | null;
  readonly stderr: string;
}

export type RunCommand = (task: WritebackTask) => Promise<CommandOutcome>;

export interface Timers {
  /** Calls `fn` every `ms` until the returned function is called. */
  every(ms: number, fn: () => void): () => void;
  /** Resolves after `ms`, or at once when `wake` is called. */
  sleep(ms: number): { done: Promise<void>; wake(): void };
}

export const realTimers: Timers = {
  every(ms, fn) {
    const handle = setInterval(fn, ms);
    return () => clearInterval(handle);
  },
  sleep(ms) {
    let wake = () => {};
    const done = new Promise<void>((resolve) => {
      const handle = setTimeout(resolve, ms);
      wake = () => {
        clearTimeout(handle);
        resolve();
      };
    });
    return { done, wake };
  },
};

export type TaskResult = 'applied' | 'failed' | 'lease_lost';

export type WorkerEvent =
  | { type: 'claimed'; count: number }
  | { type: 'idle'; waitMs: number }
  | { type: 'extended'; id: string }
  | { type: 'extend_failed'; id: string; error: string }
  | { type: 'lease_lost'; id: string }
  | { type: 'task'; id: string; sku: string; result: TaskResult; error?: string }
  | { type: 'skipped'; id: string; sku: string }
  | { type: 'acked'; counts: AckCounts }
  | { type: 'ack_failed'; count: number; error: string }
  | { type: 'stopping' };

export interface Summary {
  claimed: number;
  succeeded: number;
  failed: number;
  leaseLost: number;
  skipped: number;
  ackFailed: number;
  acks: { applied: number; failed: number; expired: number; ignored: number };
}

export interface WorkerOptions {
  readonly api: WritebackApi;
  readonly run: RunCommand;
  readonly limit: number;
  readonly leaseSeconds: number;
  readonly concurrency: number;
  /** Drain what is claimable and stop, rather than wait for more. */
  readonly once: boolean;
  readonly report: (event: WorkerEvent) => void;
  readonly timers?: Timers;
  /** The longest wait between empty claims. */
  readonly maxIdleMs?: number;
}

export interface Worker {
  /** Resolves with the summary once stopped; rejects when a claim fails, which ends the loop. */
  readonly done: Promise<Summary>;
  /** Stops claiming; running commands finish and are acked before `done` resolves. */
  stop(): void;
}

export const MAX_ERROR_LENGTH = 1_000;
const FIRST_IDLE_MS = 250;

/** What a failed ack reports: the command's own words, or how it ended when it said nothing. */
export function failureMessage(outcome: CommandOutcome): string {
  const stderr = outcome.stderr.trim();
  if (stderr) return stderr.slice(0, MAX_ERROR_LENGTH);
  return outcome.code === null ? `killed by signal ${outcome.signal ?? 'unknown'}` : `exit code ${outcome.code}`;
}

/** The service's answer to an extend whose lease is gone; matched by shape so any client's error fits. */
export function isLeaseGone(error: unknown): boolean {
  const { status, code } = (error ?? {}) as { status?: unknown; code?: unknown };
  return status === 409 && code === 'writeback_lease_expired';
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

export function startWritebackWorker(options: WorkerOptions): Worker {
  const { api, run, limit, leaseSeconds, report } = options;
  const timers = options.timers ?? realTimers;
  const maxIdleMs = options.maxIdleMs ?? 5_000;
  const concurrency = Math.max(1, options.concurrency);
  const summary: Summary = {
    claimed: 0,
    succeeded: 0,
    failed: 0,
    leaseLost: 0,
    skipped: 0,
    ackFailed: 0,
    acks: { applied: 0, failed: 0, expired: 0, ignored: 0 },
  };
  let stopping = false;
  let idle: { wake(): void } | undefined;

  /** Runs one task's command, extending its lease meanwhile; undefined when the lease was lost and nothing is to be acked. */
  async function runTask(task: WritebackTask): Promise<AckResult | undefined> {
    let leaseGone = false;
    let inFlight: Promise<void> = Promise.resolve();
    // Half the lease leaves the other half for an extend that is retried or slow.
    const cancel = timers.every((leaseSeconds * 1000) / 2, () => {
      if (leaseGone) return;
      inFlight = inFlight.then(async () => {
        if (leaseGone) return;
        try {
          await api.extendWriteback(task.id, { leaseSeconds });
          report({ type: 'extended', id: task.id });
        } catch (error) {
          if (isLeaseGone(error)) {
            leaseGone = true;
            cancel();
            report({ type: 'lease_lost', id: task.id });
          } else {
            // The next tick tries again; the lease may still hold.
            report({ type: 'extend_failed', id: task.id, error: messageOf(error) });
          }
        }
      });
    });
    let outcome: CommandOutcome;
    try {
      outcome = await run(task);
    } catch (error) {
      outcome = { code: null, signal: null, stderr: `could not run the command: ${messageOf(error)}` };
    } finally {
      cancel();
    }
    // An extend under way may still learn that the lease is gone.
    await inFlight;
    const ok = outcome.code === 0;
    const error = ok ? undefined : failureMessage(outcome);
    if (leaseGone) {
      summary.leaseLost += 1;
      report({ type: 'task', id: task.id, sku: task.productSku, result: 'lease_lost', ...(error === undefined ? {} : { error }) });
      return undefined;
    }
    if (ok) {
      summary.succeeded += 1;
      report({ type: 'task', id: task.id, sku: task.productSku, result: 'applied' });
      return { id: task.id, ok: true };
    }
    summary.failed += 1;
    report({ type: 'task', id: task.id, sku: task.productSku, result: 'failed', error: error as string });
    return { id: task.id, ok: false, error: error as string };
  }

  /** Runs the claimed tasks, `concurrency` at a time; tasks not started when a stop comes are left to their lease. */
  async function runBatch(tasks: readonly WritebackTask[]): Promise<AckResult[]> {
    const results: AckResult[] = [];
    let next = 0;
    const lane = async () => {
      while (next < tasks.length) {
        const task = tasks[next++] as WritebackTask;
        if (stopping) {
          summary.skipped += 1;
          report({ type: 'skipped', id: task.id, sku: task.productSku });
          continue;
        }
        const result = await runTask(task);
        if (result) results.push(result);
      }
    };
    await Promise.all(Array.from({ length: Math.min(concurrency, tasks.length) }, lane));
    return results;
  }

  async function ackAll(results: AckResult[]): Promise<void> {
    if (results.length === 0) return;
    try {
      const counts = await api.ackWritebacks(results);
      for (const name of ['applied', 'failed', 'expired', 'ignored'] as const) summary.acks[name] += counts[name];
      report({ type: 'acked', counts });
    } catch (error) {
      // Unacked tasks are offered again once their leases run out; a claim that fails the same way ends the loop.
      summary.ackFailed += results.length;
      report({ type: 'ack_failed', count: results.length, error: messageOf(error) });
    }
  }

  async function loop(): Promise<Summary> {
    let idleMs = FIRST_IDLE_MS;
    while (!stopping) {
      const { tasks } = await api.claimWritebacks({ limit, leaseSeconds });
      if (tasks.length === 0) {
        if (options.once) break;
        report({ type: 'idle', waitMs: idleMs });
        const sleep = timers.sleep(idleMs);
        idle = sleep;
        await sleep.done;
        idle = undefined;
        idleMs = Math.min(idleMs * 2, maxIdleMs);
        continue;
      }
      idleMs = FIRST_IDLE_MS;
      summary.claimed += tasks.length;
      report({ type: 'claimed', count: tasks.length });
      await ackAll(await runBatch(tasks));
    }
    return summary;
  }

  return {
    done: loop(),
    stop() {
      if (stopping) return;
      stopping = true;
      report({ type: 'stopping' });
      idle?.wake();
    },
  };
}
