// The drain: a committed batch's chunks applied to canonical data in staging order, resumable from its checkpoint.
import { randomUUID } from 'node:crypto';
import { appendLogKeys, logger } from '#platform/observability.ts';
import { sendDrainMessage, sendToDrainDeadLetter, type DrainMessage } from '#shared/batches/drain-queue.ts';
import { BatchLeaseHeld, failDrain, leaseBatch, releaseBatchLease } from '#shared/batches/lease.ts';
import { endDrainTurn, takeDrainTurn } from '#shared/batches/drain-turn.ts';
import { noteDrainMessage } from '#shared/batches/drain-watch.ts';
import { getBatch } from '#shared/batches/repository.ts';
import type { Batch } from '#shared/batches/schema.ts';
import { DRAIN_ATTEMPTS, givesUpAfterFault, judgeAttempt } from './attempts.ts';
import { runBandsJob } from './bands-job.ts';
import { ChunkLoop } from './chunk-loop.ts';
import {
  BOUNCE_DELAY_SECONDS,
  clockOf,
  COMMIT_RACE_WINDOW_MS,
  type DrainHooks,
  type DrainInvocation,
  type DrainResult,
  leaseDeadline,
  nothingApplied,
} from './job.ts';

/** A batch whose workspace is draining another looks again this long after; a drain of 1,000 records takes seconds. */
const DRAIN_TURN_WAIT_SECONDS = 5;

/** The commit's state change is usually milliseconds behind its message: look again a few times before bouncing. */
const COMMIT_RACE_RETRIES = 5;
const COMMIT_RACE_PAUSE_MS = 100;

/** The text a connector reads in the batch status; internals stay in the logs. */
function failureText(cause: string): string {
  return `The drain failed after ${DRAIN_ATTEMPTS} attempts (${cause}). The staged records are kept for 7 days; stage them into a new batch to retry.`;
}

async function giveUp(batch: Batch, invocation: DrainInvocation, cause: string, now: Date, error?: Error): Promise<DrainResult> {
  const text = failureText(cause);
  // Parked first: if failing the batch then breaks, the redelivery gives up again rather than losing the message.
  await sendToDrainDeadLetter(invocation.body, text);
  await failDrain(batch, text, now);
  await endDrainTurn(batch);
  logger.error('drain gave up', { batchId: batch.batchId, jobId: batch.jobId, cause, error });
  return nothingApplied('failed');
}

/** The message's batch, or what the message answers when the batch never took its job. */
async function batchOfMessage(invocation: DrainInvocation): Promise<Batch | DrainResult> {
  const clock = clockOf(invocation);
  const { message } = invocation;
  let batch = await getBatch(message.workspaceId, message.batchId);
  const racingItsCommit = () =>
    batch?.jobId !== message.jobId && batch?.status === 'open' && clock().getTime() - Date.parse(message.sentAt) < COMMIT_RACE_WINDOW_MS;
  for (let retry = 0; retry < COMMIT_RACE_RETRIES && racingItsCommit(); retry++) {
    await new Promise((resolve) => setTimeout(resolve, COMMIT_RACE_PAUSE_MS));
    batch = await getBatch(message.workspaceId, message.batchId);
  }
  if (!batch) {
    logger.warn('drain message for an unknown batch', { batchId: message.batchId });
    return nothingApplied('ignored');
  }
  if (batch.jobId === message.jobId) return batch;
  if (racingItsCommit()) {
    // The commit sends before it writes, and its state change is still not visible: look again later.
    await sendDrainMessage(message, BOUNCE_DELAY_SECONDS);
    return nothingApplied('bounced');
  }
  logger.warn('drain message for a job the batch never took', { batchId: batch.batchId, jobId: message.jobId });
  return nothingApplied('ignored');
}

function continuationOf(message: DrainMessage): number {
  return message.continuation ?? 0;
}

/** Drains a batch's chunks under its lease, from its checkpoint; gives up or hands on as the attempts so far say. */
async function drainChunks(batch: Batch, invocation: DrainInvocation, hooks: DrainHooks): Promise<DrainResult> {
  const clock = clockOf(invocation);
  // Before anything is counted or written: a batch waiting for its turn has made no attempt.
  const turn = await takeDrainTurn(batch, clock());
  if (!turn.taken) {
    logger.info('drain waits its turn', { batchId: batch.batchId, waitingFor: turn.waitingFor });
    // Seen, so that the sweeper leaves it alone while it waits (drain-watch.ts); a draining batch is seen at its lease.
    await noteDrainMessage(batch, clock());
    await sendDrainMessage(invocation.message, DRAIN_TURN_WAIT_SECONDS);
    return nothingApplied('bounced');
  }
  const { verdict, attempt } = judgeAttempt(batch.drainAttempts, {
    continuation: continuationOf(invocation.message),
    receiveCount: invocation.receiveCount,
    drainedCount: batch.drainedCount ?? 0,
  });
  if (verdict === 'giveUp')
    return giveUp(batch, invocation, 'each attempt stopped without finishing: it ran out of time or memory', clock());
  if (verdict === 'handOff') {
    await sendDrainMessage(invocation.message, BOUNCE_DELAY_SECONDS);
    return nothingApplied('bounced');
  }
  const owner = randomUUID();
  let leased: Batch;
  try {
    leased = await leaseBatch(batch, 'chunks', owner, leaseDeadline(invocation)(), clock(), attempt);
  } catch (error) {
    if (error instanceof BatchLeaseHeld && invocation.receiveCount >= DRAIN_ATTEMPTS) {
      // The live holder carries the job on; this duplicate delivery has nothing left to do.
      logger.warn('drain duplicate dropped', { batchId: batch.batchId });
      return nothingApplied('ignored');
    }
    throw error;
  }
  const loop = new ChunkLoop(leased, owner, invocation, hooks);
  try {
    return await loop.run();
  } catch (error) {
    await loop.settle();
    await releaseBatchLease(loop.current, owner).catch(() => undefined);
    // The worker logs a fault it answers as a failed message; a fault this attempt gives up on is logged with the end.
    appendLogKeys({ attempt: invocation.receiveCount });
    if (givesUpAfterFault(attempt))
      return giveUp(loop.current, invocation, 'an internal fault; quote the batch id to support', clock(), error as Error);
    throw error;
  }
}

export async function runDrainJob(invocation: DrainInvocation, hooks: DrainHooks = {}): Promise<DrainResult> {
  const batch = await batchOfMessage(invocation);
  if ('outcome' in batch) return batch;
  if (invocation.message.phase === 'bands') return runBandsJob(batch, invocation, hooks);
  if (batch.status === 'drained' || batch.status === 'failed') return nothingApplied('ignored');
  return drainChunks(batch, invocation, hooks);
}
