// When a drain's job is given up: after attempts that moved nothing, or that each failed; never for being slow.
import type { DrainAttempts } from '#shared/batches/schema.ts';

/** Attempts at one message before its job is given up: attempts that stalled at one checkpoint, or that failed. */
export const DRAIN_ATTEMPTS = 3;

/** One receipt of a drain message, and the checkpoint its batch is at. */
export interface DrainReceipt {
  readonly continuation: number;
  /** SQS ApproximateReceiveCount: how often the queue has handed out this copy of the message. */
  readonly receiveCount: number;
  readonly drainedCount: number;
}

/**
 * `run` takes the lease and drains; `giveUp` fails the batch; `handOff` puts a fresh copy of the message on the queue,
 * so that the queue's own receive cap never parks a job that is still moving on, or that a live attempt holds.
 */
export type AttemptVerdict = 'run' | 'giveUp' | 'handOff';

/**
 * Judges a receipt from what the attempts at its message recorded, and says what this one records if it runs. An
 * attempt that moved the checkpoint resets the count of stalled ones, however long it took; receipts of a message that
 * no attempt ever took the lease for all count as stalled, since none of them moved anything.
 */
export function judgeAttempt(
  previous: DrainAttempts | undefined,
  receipt: DrainReceipt,
): { readonly verdict: AttemptVerdict; readonly attempt: DrainAttempts } {
  const { continuation, receiveCount, drainedCount } = receipt;
  if (!previous || previous.continuation !== continuation) {
    const attempt = { continuation, started: 1, from: drainedCount, stalled: receiveCount - 1 };
    return { verdict: attempt.stalled >= DRAIN_ATTEMPTS ? 'giveUp' : 'run', attempt };
  }
  const stalled = previous.from === drainedCount ? previous.stalled + 1 : 0;
  const attempt = { continuation, started: previous.started + 1, from: drainedCount, stalled };
  if (stalled >= DRAIN_ATTEMPTS) return { verdict: 'giveUp', attempt };
  return { verdict: receiveCount >= DRAIN_ATTEMPTS ? 'handOff' : 'run', attempt };
}

/** After an attempt failed: its job is given up once as many attempts at its message as allowed took the lease. */
export function givesUpAfterFault(attempt: DrainAttempts): boolean {
  return attempt.started >= DRAIN_ATTEMPTS;
}
