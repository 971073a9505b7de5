// What the write-back worker exchanges with its caller and the service: tasks, acks, events, the summary and the options.

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

export type Report = (event: WorkerEvent) => void;

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

/** A clock and the waits the worker needs, so tests can move time by hand. */
export interface Timers {
  /** A clock that only moves forward, in milliseconds. */
  now(): number;
  /** Calls `fn` every `ms` until the returned function is called. */
  every(ms: number, fn: () => void): () => void;
  /** Resolves after `ms`, or at once when `wake` is called. */
  sleep(ms: number): { done: Promise<void>; wake(): void };
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
  readonly report: Report;
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
