// The connector's write-back worker loop: claim, check each lease before starting, run a command per task while extending its lease, ack as each ends.

/** A claimed task as the API hands it out; the worker reads only these fields and passes the whole task on. */
export interface WritebackTask {
  readonly id: string;
  readonly productSku: string;
  readonly priceCents: number;
  readonly currency: string;
  readonly leaseUntil: string;
  /** The approval that published the task; absent from a service older than the field. */
  readonly approvalId?: string;
  /** Grows with each approval of the SKU: the higher of two is the newer price. Absent from a service older than the field. */
  readonly sequence?: number;
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
  /** `running` while the task's command runs: the service then renews even a superseded task, which it otherwise cancels. */
  extendWriteback(id: string, input: { leaseSeconds: number; running?: boolean }): Promise<{ task: { leaseUntil: string } }>;
}

/** How a task's command ended: its exit code (null when a signal ended it) and what it wrote to stderr. */
export interface CommandOutcome {
  readonly code: number | null;
  readonly signal?: string | null;
  readonly stderr: string;
}

export type RunCommand = (task: WritebackTask) => Promise<CommandOutcome>;

export interface Timers {
  /** A clock that only moves forward, in milliseconds. */
  now(): number;
  /** Calls `fn` every `ms` until the returned function is called. */
  every(ms: number, fn: () => void): () => void;
  /** Resolves after `ms`, or at once when `wake` is called. */
  sleep(ms: number): { done: Promise<void>; wake(): void };
}

export const realTimers: Timers = {
  now: () => performance.now(),
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

/** How a started task ended: `lease_lost` when its lease ran out or was refused while it ran; `interrupted` when a stop's grace ran out. */
export type TaskResult = 'applied' | 'failed' | 'lease_lost' | 'interrupted';

/**
 * Why a claimed task was not started: its lease ran out, the service refused to renew it (lost, or superseded by a
 * newer approval), the service did not answer the renewal (so it could not say the task is still current), too little
 * of the lease was left, or the worker is stopping.
 */
export type NotStartedReason = 'lease_ran_out' | 'refused' | 'unconfirmed' | 'no_margin' | 'stopping';

export type WorkerEvent =
  | { type: 'claimed'; count: number }
  | { type: 'idle'; waitMs: number }
  | { type: 'extended'; id: string }
  | { type: 'extend_failed'; id: string; error: string }
  | { type: 'lease_lost'; id: string }
  | { type: 'started'; id: string; sku: string }
  | { type: 'task'; id: string; sku: string; result: TaskResult; error?: string }
  | { type: 'not_started'; id: string; sku: string; reason: NotStartedReason }
  | { type: 'recovered'; id: string; sku?: string }
  | { type: 'acked'; counts: AckCounts }
  | { type: 'ack_failed'; count: number; error: string }
  | { type: 'stopping' };

export interface Summary {
  claimed: number;
  succeeded: number;
  failed: number;
  leaseLost: number;
  notStarted: number;
  /** Finished by an earlier run (the journal) or earlier in this one, and acked without running again. */
  recovered: number;
  interrupted: number;
  ackFailed: number;
  acks: { applied: number; failed: number; expired: number; ignored: number };
}

/** Where finished-but-unacked results are kept: the journal across runs, or memory within one. */
export interface FinishedTasks {
  readonly finished: ReadonlyMap<string, AckResult>;
  recordFinished(result: AckResult): void;
  recordAcked(ids: readonly string[]): void;
}

export interface WorkerOptions {
  readonly api: WritebackApi;
  readonly run: RunCommand;
  readonly limit: number;
  readonly leaseSeconds: number;
  /** A task starts only when more than this much of its lease is left, once renewed; it should exceed the command's time. */
  readonly minMarginMs: number;
  readonly concurrency: number;
  /** Drain what is claimable and stop, rather than wait for more. */
  readonly once: boolean;
  readonly report: (event: WorkerEvent) => void;
  readonly timers?: Timers;
  /** The longest wait between empty claims. */
  readonly maxIdleMs?: number;
  /** How long finished results wait to be acked together. */
  readonly ackDelayMs?: number;
  /** The local journal (`--journal`); without one, finished results are kept in memory only. */
  readonly journal?: FinishedTasks;
  /** After a stop, how long running commands have before `terminate` is called. */
  readonly graceMs?: number;
  readonly terminate?: () => void;
}

export interface Worker {
  /** Resolves with the summary once stopped; rejects when a claim fails, which ends the loop. */
  readonly done: Promise<Summary>;
  /** Stops claiming; running commands finish (within the grace) and are acked before `done` resolves. */
  stop(): void;
}

export const MAX_ERROR_LENGTH = 1_000;
const FIRST_IDLE_MS = 250;
const ACK_BATCH_MAX = 500;

/** What a failed ack reports: the command's own words, or how it ended when it said nothing. */
export function failureMessage(outcome: CommandOutcome): string {
  const stderr = outcome.stderr.trim();
  if (stderr) return stderr.slice(0, MAX_ERROR_LENGTH);
  return outcome.code === null ? `killed by signal ${outcome.signal ?? 'unknown'}` : `exit code ${outcome.code}`;
}

/** The service's answer to an extend whose lease is gone (or whose task a newer approval superseded); matched by shape so any client's error fits. */
export function isLeaseGone(error: unknown): boolean {
  const { status, code } = (error ?? {}) as { status?: unknown; code?: unknown };
  return status === 409 && code === 'writeback_lease_expired';
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * A lease as the worker knows it. `deadline` is on the worker's own clock, counted from when the claim or extend
 * was sent: the service starts the lease after that, so the true end is never earlier, whatever the clocks say.
 */
interface Lease {
  deadline: number;
  leaseUntil: string;
  gone: boolean;
}

/** Finished results kept in memory, for a worker without a journal: they last as long as the process. */
export function memoryOfFinished(): FinishedTasks {
  const finished = new Map<string, AckResult>();
  return {
    finished,
    recordFinished: (result) => void finished.set(result.id, result),
    recordAcked: (ids) => ids.forEach((id) => finished.delete(id)),
  };
}

function emptySummary(): Summary {
  return {
    claimed: 0,
    succeeded: 0,
    failed: 0,
    leaseLost: 0,
    notStarted: 0,
    recovered: 0,
    interrupted: 0,
    ackFailed: 0,
    acks: { applied: 0, failed: 0, expired: 0, ignored: 0 },
  };
}

export function startWritebackWorker(options: WorkerOptions): Worker {
  const { api, run, limit, leaseSeconds, report, minMarginMs } = options;
  const timers = options.timers ?? realTimers;
  const maxIdleMs = options.maxIdleMs ?? 5_000;
  const ackDelayMs = options.ackDelayMs ?? 1_000;
  const concurrency = Math.max(1, options.concurrency);
  const leaseMs = leaseSeconds * 1000;
  const store = options.journal ?? memoryOfFinished();
  const summary = emptySummary();
  let stopping = false;
  let abandoning = false;
  let idle: { wake(): void } | undefined;
  let grace: { wake(): void } | undefined;
  let loopEnded = false;

  // Acks: results wait up to ackDelayMs to go together, one call at a time.
  const queue: Array<{ result: AckResult; lease: Lease }> = [];
  let ackTimer: { wake(): void } | undefined;
  let ackChain: Promise<void> = Promise.resolve();

  function countAcks(counts: AckCounts): void {
    for (const name of ['applied', 'failed', 'expired', 'ignored'] as const) summary.acks[name] += counts[name];
  }

  async function sendAcks(): Promise<void> {
    while (queue.length > 0) {
      const group = queue.splice(0, ACK_BATCH_MAX);
      // A lease that ran out while its ack waited would count as expired: the result is kept for the task's next claim.
      const live = group.filter(({ lease }) => !lease.gone && timers.now() < lease.deadline).map(({ result }) => result);
      if (live.length === 0) continue;
      try {
        const counts = await api.ackWritebacks(live);
        countAcks(counts);
        store.recordAcked(live.map((result) => result.id));
        report({ type: 'acked', counts });
      } catch (error) {
        // Kept as finished: the next claim of these tasks acks them rather than running them again.
        summary.ackFailed += live.length;
        report({ type: 'ack_failed', count: live.length, error: messageOf(error) });
      }
    }
  }

  function queueAck(result: AckResult, lease: Lease): void {
    queue.push({ result, lease });
    if (ackTimer) return;
    const wait = timers.sleep(ackDelayMs);
    ackTimer = wait;
    void wait.done.then(() => {
      ackTimer = undefined;
      ackChain = ackChain.then(sendAcks);
    });
  }

  async function flushAcks(): Promise<void> {
    if (ackTimer) {
      ackTimer.wake();
      // The timer's callback queues the send on the chain: let it run first.
      await Promise.resolve();
      await Promise.resolve();
    }
    ackChain = ackChain.then(sendAcks);
    await ackChain;
  }

  /**
   * Renews the lease for a full term; 'gone' when the service refuses (lost, or superseded). While the command runs
   * (`running`), the service renews even a task a newer approval superseded, and holds the newer task back until this
   * one is acked: cancelling it then would not stop the command.
   */
  async function renew(task: WritebackTask, lease: Lease, running: boolean): Promise<'renewed' | 'gone' | 'failed'> {
    const sentAt = timers.now();
    try {
      const answer = await api.extendWriteback(task.id, running ? { leaseSeconds, running } : { leaseSeconds });
      lease.deadline = Math.max(lease.deadline, sentAt + leaseMs);
      lease.leaseUntil = answer.task.leaseUntil;
      report({ type: 'extended', id: task.id });
      return 'renewed';
    } catch (error) {
      if (isLeaseGone(error)) {
        lease.gone = true;
        return 'gone';
      }
      report({ type: 'extend_failed', id: task.id, error: messageOf(error) });
      return 'failed';
    }
  }

  function notStarted(task: WritebackTask, reason: NotStartedReason): void {
    summary.notStarted += 1;
    report({ type: 'not_started', id: task.id, sku: task.productSku, reason });
  }

  /**
   * Whether the task may start. A lease that ran out on the worker's clock may since be another worker's (a lease
   * belongs to the connector), so it is not even renewed. The renewal is the service's word that the lease is still
   * held and that no newer approval superseded the task: without that word (tried twice), the task is not started,
   * for it may be one the service has cancelled; it is claimed again once its lease runs out.
   */
  async function mayStart(task: WritebackTask, lease: Lease): Promise<boolean> {
    if (stopping) return (notStarted(task, 'stopping'), false);
    if (timers.now() >= lease.deadline) return (notStarted(task, 'lease_ran_out'), false);
    let renewal = await renew(task, lease, false);
    if (renewal === 'failed' && !stopping && timers.now() < lease.deadline) renewal = await renew(task, lease, false);
    if (renewal === 'gone') return (notStarted(task, 'refused'), false);
    if (renewal === 'failed') return (notStarted(task, 'unconfirmed'), false);
    if (lease.deadline - timers.now() <= minMarginMs) return (notStarted(task, 'no_margin'), false);
    if (stopping) return (notStarted(task, 'stopping'), false);
    return true;
  }

  /** Runs the command while renewing the lease in the background (every third of it, leaving two for a slow or retried renewal). */
  async function runCommand(task: WritebackTask, lease: Lease): Promise<CommandOutcome> {
    let inFlight: Promise<unknown> = Promise.resolve();
    const cancel = timers.every(leaseMs / 3, () => {
      inFlight = inFlight.then(async () => {
        if (lease.gone) return;
        if ((await renew(task, lease, true)) === 'gone') {
          cancel();
          report({ type: 'lease_lost', id: task.id });
        }
      });
    });
    report({ type: 'started', id: task.id, sku: task.productSku });
    try {
      return await run({ ...task, leaseUntil: lease.leaseUntil });
    } catch (error) {
      return { code: null, signal: null, stderr: `could not run the command: ${messageOf(error)}` };
    } finally {
      cancel();
      // A renewal under way may still learn that the lease is gone.
      await inFlight;
    }
  }

  async function runTask(task: WritebackTask, lease: Lease): Promise<void> {
    const earlier = store.finished.get(task.id);
    if (earlier) {
      // Finished before (a crash or a lost lease came between the command and its ack): ack, do not run again.
      summary.recovered += 1;
      report({ type: 'recovered', id: task.id, sku: task.productSku });
      queueAck(earlier, lease);
      return;
    }
    if (!(await mayStart(task, lease))) return;
    const outcome = await runCommand(task, lease);
    const sku = task.productSku;
    if (abandoning && outcome.code !== 0) {
      // Ended by the worker when its grace ran out: not the command's failure, and perhaps half done. Offered again.
      summary.interrupted += 1;
      report({ type: 'task', id: task.id, sku, result: 'interrupted', error: failureMessage(outcome) });
      return;
    }
    const result: AckResult = outcome.code === 0 ? { id: task.id, ok: true } : { id: task.id, ok: false, error: failureMessage(outcome) };
    // Recorded before any ack is sent: a crash from here on acks it on the next claim instead of running it again.
    store.recordFinished(result);
    if (lease.gone || timers.now() >= lease.deadline) {
      summary.leaseLost += 1;
      report({ type: 'task', id: task.id, sku, result: 'lease_lost', ...(result.ok ? {} : { error: result.error }) });
      return;
    }
    if (result.ok) {
      summary.succeeded += 1;
      report({ type: 'task', id: task.id, sku, result: 'applied' });
    } else {
      summary.failed += 1;
      report({ type: 'task', id: task.id, sku, result: 'failed', error: result.error });
    }
    queueAck(result, lease);
  }

  /** Runs the claimed tasks, `concurrency` at a time, in the claim's order (oldest first). */
  async function runClaim(tasks: readonly WritebackTask[], claimedAt: number): Promise<void> {
    const leases = new Map(tasks.map((task) => [task.id, { deadline: claimedAt + leaseMs, leaseUntil: task.leaseUntil, gone: false }]));
    let next = 0;
    const lane = async () => {
      while (next < tasks.length) {
        const task = tasks[next++] as WritebackTask;
        await runTask(task, leases.get(task.id) as Lease);
      }
    };
    await Promise.all(Array.from({ length: Math.min(concurrency, tasks.length) }, lane));
  }

  /** Acks what a journal kept from an earlier run, one call each so that each answer is known. */
  async function ackJournal(): Promise<void> {
    for (const result of [...store.finished.values()]) {
      if (stopping) return;
      try {
        const counts = await api.ackWritebacks([result]);
        countAcks(counts);
        // An expired lease keeps the result for the task's next claim; anything else is settled.
        if (counts.expired === 0) store.recordAcked([result.id]);
        if (counts.applied + counts.failed > 0) {
          summary.recovered += 1;
          report({ type: 'recovered', id: result.id });
        }
      } catch (error) {
        report({ type: 'ack_failed', count: 1, error: messageOf(error) });
      }
    }
  }

  async function loop(): Promise<Summary> {
    let idleMs = FIRST_IDLE_MS;
    try {
      if (options.journal) await ackJournal();
      while (!stopping) {
        const claimedAt = timers.now();
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
        await runClaim(tasks, claimedAt);
      }
    } finally {
      loopEnded = true;
      grace?.wake();
      await flushAcks();
    }
    return summary;
  }

  const done = loop();
  return {
    done,
    stop() {
      if (stopping) return;
      stopping = true;
      report({ type: 'stopping' });
      idle?.wake();
      if (options.graceMs === undefined) return;
      const wait = timers.sleep(options.graceMs);
      grace = wait;
      void wait.done.then(() => {
        if (loopEnded) return;
        abandoning = true;
        options.terminate?.();
      });
    },
  };
}
