// A worker run's shared state (stopping, abandoning, the summary) and each claimed task's lease as the worker knows it.
import type { AckCounts, Summary } from './contract.ts';

/** What every part of one run reads and moves: kept in one object so each part is handed it rather than closing over it. */
export interface RunState {
  /** Set by `stop()`: no new claim, and no task starts. */
  stopping: boolean;
  /** Set when a stop's grace ran out and the running commands were terminated. */
  abandoning: boolean;
  readonly summary: Summary;
}

/**
 * A lease as the worker knows it. `deadline` is on the worker's own clock, counted from when the claim or extend
 * was sent: the service starts the lease after that, so the true end is never earlier, whatever the clocks say.
 */
export interface Lease {
  deadline: number;
  leaseUntil: string;
  gone: boolean;
}

export function emptySummary(): Summary {
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

export function freshRunState(): RunState {
  return { stopping: false, abandoning: false, summary: emptySummary() };
}

export function countAcks(summary: Summary, counts: AckCounts): void {
  for (const name of ['applied', 'failed', 'expired', 'ignored'] as const) summary.acks[name] += counts[name];
}
