// What a drain or bands job is handed and answers: one receipt of its message, the hooks tests use, and the outcome.
import type { DrainMessage } from '#shared/batches/drain-queue.ts';

/**
 * A message for a batch that is still open may race its own commit, and a bands job the end of its drain; past this
 * age the state change it waits for never landed.
 */
export const COMMIT_RACE_WINDOW_MS = 60_000;
export const BOUNCE_DELAY_SECONDS = 2;
/** Never start a chunk (or a category) with less time left than this, or than `timeToStop` says. */
export const MIN_TIME_LEFT_MS = 15_000;

/**
 * Whether a drain should checkpoint and continue in a new invocation rather than start another chunk. A chunk started
 * now may be followed by a checkpoint in the loop and then the last one before stopping, so it keeps room for a chunk
 * and two checkpoints, each as slow as the slowest so far, twice over: a checkpoint's folds grow with the orders of the
 * chunks it takes in, and one that outlives the invocation costs a redelivery after the visibility timeout.
 */
export function timeToStop(remainingMs: number, slowest: { readonly chunkMs: number; readonly checkpointMs: number }): boolean {
  return remainingMs < Math.max(MIN_TIME_LEFT_MS, 2 * (slowest.chunkMs + 2 * slowest.checkpointMs));
}
/** The lease outlives the invocation's deadline by this much, for writes still in flight when it stops. */
const LEASE_GRACE_MS = 5_000;

export interface DrainInvocation {
  readonly message: DrainMessage;
  /** The message as received, parked unchanged if the job is given up. */
  readonly body: string;
  /** SQS ApproximateReceiveCount: which attempt at this message this is. */
  readonly receiveCount: number;
  readonly remainingMs: () => number;
  readonly now?: () => Date;
}

/** Test seams: called after each chunk is applied, and after each category's bands are written, and checkpointed. */
export interface DrainHooks {
  readonly afterChunk?: (appliedChunks: number, invocation: DrainInvocation) => void | Promise<void>;
  readonly afterBandCategory?: (categories: number, invocation: DrainInvocation) => void | Promise<void>;
  /** After the bands job has stamped its bands and set `pricesFreshAt`, before it refreshes the recommendations. */
  readonly afterPricesFresh?: (invocation: DrainInvocation) => void | Promise<void>;
  /** After a checkpoint's adherence is folded and its attributions written, before the checkpoint is saved. */
  readonly afterAdherence?: (invocation: DrainInvocation) => void | Promise<void>;
  /** After a chunk's items are written, before the checkpoint that takes it in. */
  readonly afterChunkWritten?: (writtenChunks: number, invocation: DrainInvocation) => void | Promise<void>;
  /** How long written chunks wait for their checkpoint (CHECKPOINT_EVERY_MS); 0 checkpoints after every chunk. */
  readonly checkpointEveryMs?: number;
}

/**
 * Chunks written are checkpointed together once this long has passed since the last checkpoint: the folds, the
 * touched lists and the checkpoint are per checkpoint rather than per chunk. A fault redoes at most this much.
 */
export const CHECKPOINT_EVERY_MS = 3_000;

export type DrainOutcome = 'drained' | 'recomputed' | 'continued' | 'failed' | 'bounced' | 'ignored';

export interface DrainResult {
  readonly outcome: DrainOutcome;
  readonly chunks: number;
  readonly records: number;
}

/** An outcome that applied nothing. */
export function nothingApplied(outcome: DrainOutcome): DrainResult {
  return { outcome, chunks: 0, records: 0 };
}

export function clockOf(invocation: DrainInvocation): () => Date {
  return invocation.now ?? (() => new Date());
}

/** Until when a lease taken or renewed now holds: the invocation's deadline and a grace for writes in flight. */
export function leaseDeadline(invocation: DrainInvocation): () => number {
  const clock = clockOf(invocation);
  return () => clock().getTime() + invocation.remainingMs() + LEASE_GRACE_MS;
}
