// The write-back worker: claim, run the claim's tasks a few at a time, wait when there is nothing, and stop on request.
import { ackBatcher, type AckBatcher } from './ack-batcher.ts';
import type { Summary, Worker, WorkerOptions, WritebackApi, WritebackTask } from './contract.ts';
import { ackJournal, memoryOfFinished } from './finished.ts';
import { freshRunState, type Lease } from './run-state.ts';
import { runTask, type TaskRunning } from './task-runner.ts';
import { realTimers } from './timers.ts';

const FIRST_IDLE_MS = 250;

/** The waits `stop()` cuts short, and whether the loop has ended (after which the grace no longer matters). */
interface LoopWaits {
  idle: { wake(): void } | undefined;
  grace: { wake(): void } | undefined;
  ended: boolean;
}

/** Everything one started worker holds: its parts and the state they share, passed to each rather than closed over. */
interface WorkerRun extends TaskRunning {
  readonly api: WritebackApi;
  readonly options: WorkerOptions;
  readonly acks: AckBatcher;
  readonly concurrency: number;
  readonly maxIdleMs: number;
  readonly waits: LoopWaits;
}

function workerRun(options: WorkerOptions): WorkerRun {
  const { api, report } = options;
  const timers = options.timers ?? realTimers;
  const store = options.journal ?? memoryOfFinished();
  const state = freshRunState();
  const acks = ackBatcher({ api, timers, store, summary: state.summary, report, delayMs: options.ackDelayMs ?? 1_000 });
  return {
    options,
    api,
    run: options.run,
    report,
    timers,
    leaseSeconds: options.leaseSeconds,
    minMarginMs: options.minMarginMs,
    state,
    store,
    acks,
    concurrency: Math.max(1, options.concurrency),
    maxIdleMs: options.maxIdleMs ?? 5_000,
    waits: { idle: undefined, grace: undefined, ended: false },
  };
}

/** Runs the claimed tasks, `concurrency` at a time, in the claim's order (oldest first). */
async function runClaim(worker: WorkerRun, tasks: readonly WritebackTask[], claimedAt: number): Promise<void> {
  const leaseMs = worker.leaseSeconds * 1000;
  const leases = new Map(tasks.map((task) => [task.id, { deadline: claimedAt + leaseMs, leaseUntil: task.leaseUntil, gone: false }]));
  let next = 0;
  const lane = async () => {
    while (next < tasks.length) {
      const task = tasks[next++] as WritebackTask;
      await runTask(worker, task, leases.get(task.id) as Lease);
    }
  };
  await Promise.all(Array.from({ length: Math.min(worker.concurrency, tasks.length) }, lane));
}

async function claimLoop(worker: WorkerRun): Promise<Summary> {
  const { api, options, state, timers, report, waits } = worker;
  let idleMs = FIRST_IDLE_MS;
  try {
    if (options.journal) await ackJournal(worker);
    while (!state.stopping) {
      const claimedAt = timers.now();
      const { tasks } = await api.claimWritebacks({ limit: options.limit, leaseSeconds: worker.leaseSeconds });
      if (tasks.length === 0) {
        if (options.once) break;
        report({ type: 'idle', waitMs: idleMs });
        const sleep = timers.sleep(idleMs);
        waits.idle = sleep;
        await sleep.done;
        waits.idle = undefined;
        idleMs = Math.min(idleMs * 2, worker.maxIdleMs);
        continue;
      }
      idleMs = FIRST_IDLE_MS;
      state.summary.claimed += tasks.length;
      report({ type: 'claimed', count: tasks.length });
      await runClaim(worker, tasks, claimedAt);
    }
  } finally {
    waits.ended = true;
    waits.grace?.wake();
    await worker.acks.flush();
  }
  return state.summary;
}

/** Stops claiming; once the grace (if any) runs out before the loop ends, the running commands are terminated. */
function stopWorker(worker: WorkerRun): void {
  const { state, options, waits } = worker;
  if (state.stopping) return;
  state.stopping = true;
  worker.report({ type: 'stopping' });
  waits.idle?.wake();
  if (options.graceMs === undefined) return;
  const wait = worker.timers.sleep(options.graceMs);
  waits.grace = wait;
  void wait.done.then(() => {
    if (waits.ended) return;
    state.abandoning = true;
    options.terminate?.();
  });
}

export function startWritebackWorker(options: WorkerOptions): Worker {
  const worker = workerRun(options);
  const done = claimLoop(worker);
  return { done, stop: () => stopWorker(worker) };
}
