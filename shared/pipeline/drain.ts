// The drain: a committed batch's chunks applied to canonical data in staging order, resumable from its checkpoint.
import { randomUUID } from 'node:crypto';
import { applyAdherence } from '#shared/adherence/repository.ts';
import { reportBandsLag } from '#shared/bands/lag.ts';
import { BandsLeaseHeld, releaseBandsLease, takeBandsLease } from '#shared/bands/lease.ts';
import { type BandScope, recomputeBands, touchedScope } from '#shared/bands/recompute.ts';
import { dependsOn, DrainMemory, type PreparedChunk, prepareChunk, recordChunkRates, writeChunk } from './prepare.ts';
import { logger } from '#platform/observability.ts';
import { pricingSettings } from '#shared/pricing/settings.ts';
import { touchedSkus } from '#shared/recommendations/recommend.ts';
import { refreshRecommendations } from '#shared/recommendations/repository.ts';
import { MAX_SKUS_PER_EVENT, newEvent } from '#shared/webhooks/events.ts';
import { getWorkspace } from '#shared/workspaces/repository.ts';
import { workspaceDefaults } from '#shared/workspaces/schema.ts';
import { decompressRecords } from '#shared/batches/chunks.ts';
import { type DrainMessage, sendDrainMessage, sendToDrainDeadLetter } from '#shared/batches/drain-queue.ts';
import { readChunksAfter, readTouched, recordTouched, type StagedChunk } from '#shared/batches/chunk-items.ts';
import {
  BatchLeaseHeld,
  failDrain,
  finishBands,
  finishDrain,
  leaseBatch,
  releaseBatchLease,
  saveBandsJobCursor,
  saveCheckpoint,
} from '#shared/batches/lease.ts';
import { getBatch } from '#shared/batches/repository.ts';
import { DRAIN_ATTEMPTS, givesUpAfterFault, judgeAttempt } from './attempts.ts';
import { chunkExpiresAt } from '#shared/batches/rules.ts';
import type { Batch } from '#shared/batches/schema.ts';

/**
 * A message for a batch that is still open may race its own commit, and a bands job the end of its drain; past this
 * age the state change it waits for never landed.
 */
const COMMIT_RACE_WINDOW_MS = 60_000;
const BOUNCE_DELAY_SECONDS = 2;
/** A bands job whose workspace's bands another job is recomputing looks again after this. */
const BANDS_BUSY_DELAY_SECONDS = 5;
/** The commit's state change is usually milliseconds behind its message: look again a few times before bouncing. */
const COMMIT_RACE_RETRIES = 5;
const COMMIT_RACE_PAUSE_MS = 100;
/** Chunks read per Query; at most a few hundred KB each, so memory stays flat whatever the batch's size. */
const CHUNKS_PER_READ = 3;
/** Never start a chunk with less time left than this, or than twice the slowest chunk so far. */
const MIN_TIME_LEFT_MS = 15_000;
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
  /** After a quote or order chunk's adherence is folded and its attributions written, before its checkpoint. */
  readonly afterAdherence?: (invocation: DrainInvocation) => void | Promise<void>;
}

export type DrainOutcome = 'drained' | 'recomputed' | 'continued' | 'failed' | 'bounced' | 'ignored';

export interface DrainResult {
  readonly outcome: DrainOutcome;
  readonly chunks: number;
  readonly records: number;
}

/** The text a connector reads in the batch status; internals stay in the logs. */
function failureText(cause: string): string {
  return `The drain failed after ${DRAIN_ATTEMPTS} attempts (${cause}). The staged records are kept for 7 days; stage them into a new batch to retry.`;
}

async function giveUp(batch: Batch, invocation: DrainInvocation, cause: string, now: Date): Promise<DrainResult> {
  const text = failureText(cause);
  // Parked first: if failing the batch then breaks, the redelivery gives up again rather than losing the message.
  await sendToDrainDeadLetter(invocation.body, text);
  await failDrain(batch, text, now);
  logger.error('drain gave up', { batchId: batch.batchId, jobId: batch.jobId, cause });
  return { outcome: 'failed', chunks: 0, records: 0 };
}

/**
 * What a bands job recomputes: the categories and bands its batch touched, then those products' recommendations. The
 * touched lists themselves (every node of every line) are let go here, before the recompute holds memory of its own.
 */
async function readJobScope(batch: Batch): Promise<{ scope: BandScope; skus: string[] }> {
  const touched = await readTouched(batch);
  return { scope: touchedScope(touched), skus: touchedSkus(touched) };
}

/**
 * The bands job: after a batch drained, the bands of the categories it touched are recomputed from history, one
 * category at a time with a checkpoint after each, under a lease like the drain's. The batch stays drained whatever
 * happens here; a job given up on is parked in the dead-letter queue, and `bands rebuild` recovers.
 */
async function runBandsJob(batch: Batch, invocation: DrainInvocation, hooks: DrainHooks): Promise<DrainResult> {
  const clock = invocation.now ?? (() => new Date());
  const { message } = invocation;
  const ignored: DrainResult = { outcome: 'ignored', chunks: 0, records: 0 };
  // The drain sends this job just before it marks the batch drained, and the job can be quicker: look again shortly.
  // A drain that faults there is redelivered, and sends a job of its own when it finishes.
  if (batch.status === 'draining' && clock().getTime() - Date.parse(message.sentAt) < COMMIT_RACE_WINDOW_MS) {
    await sendDrainMessage(message, BOUNCE_DELAY_SECONDS);
    return { outcome: 'bounced', chunks: 0, records: 0 };
  }
  if (batch.status !== 'drained' || batch.bandsRecomputedAt) return ignored;
  const parkBands = async (cause: string): Promise<DrainResult> => {
    await sendToDrainDeadLetter(invocation.body, `Recomputing bands failed after ${DRAIN_ATTEMPTS} attempts (${cause}).`);
    logger.error('bands job gave up', { batchId: batch.batchId, jobId: batch.jobId, cause });
    return { outcome: 'failed', chunks: 0, records: 0 };
  };
  if (invocation.receiveCount > DRAIN_ATTEMPTS) return parkBands('each attempt stopped without finishing');
  const owner = randomUUID();
  const leaseUntil = () => clock().getTime() + invocation.remainingMs() + LEASE_GRACE_MS;
  let current: Batch;
  try {
    current = await leaseBatch(batch, 'bands', owner, leaseUntil(), clock());
  } catch (error) {
    if (error instanceof BatchLeaseHeld && invocation.receiveCount >= DRAIN_ATTEMPTS) return ignored;
    throw error;
  }
  try {
    await takeBandsLease(current.workspaceId, owner, leaseUntil(), clock().getTime());
  } catch (error) {
    await releaseBatchLease(current, owner).catch(() => undefined);
    if (!(error instanceof BandsLeaseHeld)) throw error;
    // Another batch's bands job, or a rebuild, is recomputing the workspace's bands: this one waits its turn.
    await sendDrainMessage(message, BANDS_BUSY_DELAY_SECONDS);
    return { outcome: 'bounced', chunks: 0, records: 0 };
  }
  try {
    let categories = 0;
    const workspace = await getWorkspace(current.workspaceId);
    const { scope, skus } = await readJobScope(current);
    const recompute = await recomputeBands(current.workspaceId, pricingSettings(workspace?.pricing), scope, clock(), {
      after: current.bandCursor,
      shouldStop: () => invocation.remainingMs() < MIN_TIME_LEFT_MS,
      afterCategory: async (category) => {
        current = await saveBandsJobCursor(current, owner, 'bandCursor', category, leaseUntil());
        categories += 1;
        await hooks.afterBandCategory?.(categories, invocation);
      },
    });
    const continueLater = async (): Promise<DrainResult> => {
      await sendDrainMessage({ ...message, continuation: (message.continuation ?? 0) + 1 });
      await releaseBatchLease(current, owner);
      return { outcome: 'continued', chunks: 0, records: 0 };
    };
    if (!recompute.done) return await continueLater();
    // The recommendations follow the bands they are priced from: the overview then shows what a price call would.
    const cursor = current.recommendationCursor;
    const refreshed = await refreshRecommendations(
      {
        workspaceId: current.workspaceId,
        baseCurrency: workspace?.baseCurrency ?? workspaceDefaults.baseCurrency,
        pricing: workspace?.pricing,
      },
      skus.filter((sku) => cursor === undefined || sku > cursor),
      clock().getTime(),
      {
        shouldStop: () => invocation.remainingMs() < MIN_TIME_LEFT_MS,
        afterPage: async (lastSku) => {
          current = await saveBandsJobCursor(current, owner, 'recommendationCursor', lastSku, leaseUntil());
        },
      },
    );
    if (!refreshed.done) return await continueLater();
    const changed = [...new Set(skus)].sort();
    const updated = newEvent(
      'recommendations.updated',
      current.workspaceId,
      {
        batchId: current.batchId,
        connectorId: current.connectorId,
        skuCount: changed.length,
        skus: changed.slice(0, MAX_SKUS_PER_EVENT),
        truncated: changed.length > MAX_SKUS_PER_EVENT,
        updatedAt: clock().toISOString(),
      },
      clock(),
    );
    await finishBands(current, owner, clock(), [updated]);
    reportBandsLag(current, clock());
    return { outcome: 'recomputed', chunks: 0, records: 0 };
  } catch (error) {
    await releaseBatchLease(current, owner).catch(() => undefined);
    logger.error('bands attempt failed', { batchId: batch.batchId, attempt: invocation.receiveCount, error: error as Error });
    if (invocation.receiveCount >= DRAIN_ATTEMPTS) return parkBands('an internal fault; quote the batch id to support');
    throw error;
  } finally {
    await releaseBandsLease(current.workspaceId, owner).catch(() => undefined);
  }
}

export async function runDrainJob(invocation: DrainInvocation, hooks: DrainHooks = {}): Promise<DrainResult> {
  const clock = invocation.now ?? (() => new Date());
  const { message } = invocation;
  const ignored: DrainResult = { outcome: 'ignored', chunks: 0, records: 0 };
  let batch = await getBatch(message.workspaceId, message.batchId);
  const racingItsCommit = () =>
    batch?.jobId !== message.jobId && batch?.status === 'open' && clock().getTime() - Date.parse(message.sentAt) < COMMIT_RACE_WINDOW_MS;
  for (let retry = 0; retry < COMMIT_RACE_RETRIES && racingItsCommit(); retry++) {
    await new Promise((resolve) => setTimeout(resolve, COMMIT_RACE_PAUSE_MS));
    batch = await getBatch(message.workspaceId, message.batchId);
  }
  if (!batch) {
    logger.warn('drain message for an unknown batch', { batchId: message.batchId });
    return ignored;
  }
  if (batch.jobId !== message.jobId) {
    if (racingItsCommit()) {
      // The commit sends before it writes, and its state change is still not visible: look again later.
      await sendDrainMessage(message, BOUNCE_DELAY_SECONDS);
      return { outcome: 'bounced', chunks: 0, records: 0 };
    }
    logger.warn('drain message for a job the batch never took', { batchId: batch.batchId, jobId: message.jobId });
    return ignored;
  }
  if (message.phase === 'bands') return runBandsJob(batch, invocation, hooks);
  if (batch.status === 'drained' || batch.status === 'failed') return ignored;
  const { verdict, attempt } = judgeAttempt(batch.drainAttempts, {
    continuation: message.continuation ?? 0,
    receiveCount: invocation.receiveCount,
    drainedCount: batch.drainedCount ?? 0,
  });
  if (verdict === 'giveUp') {
    return giveUp(batch, invocation, 'each attempt stopped without finishing: it ran out of time or memory', clock());
  }
  if (verdict === 'handOff') {
    await sendDrainMessage(message, BOUNCE_DELAY_SECONDS);
    return { outcome: 'bounced', chunks: 0, records: 0 };
  }

  const owner = randomUUID();
  const leaseUntil = () => clock().getTime() + invocation.remainingMs() + LEASE_GRACE_MS;
  let current: Batch;
  try {
    current = await leaseBatch(batch, 'chunks', owner, leaseUntil(), clock(), attempt);
  } catch (error) {
    if (error instanceof BatchLeaseHeld && invocation.receiveCount >= DRAIN_ATTEMPTS) {
      // The live holder carries the job on; this duplicate delivery has nothing left to do.
      logger.warn('drain duplicate dropped', { batchId: batch.batchId });
      return ignored;
    }
    throw error;
  }

  const memory = new DrainMemory();
  const from = { workspaceId: current.workspaceId, batchId: current.batchId, syncedAt: current.committedAt ?? current.createdAt };
  let readCursor = current.drainCursor;
  let buffered: StagedChunk[] = [];
  const nextChunk = async (): Promise<StagedChunk | undefined> => {
    if (buffered.length === 0) buffered = await readChunksAfter(current, readCursor, CHUNKS_PER_READ);
    const chunk = buffered.shift();
    if (chunk) readCursor = chunk.sk;
    return chunk;
  };
  // The next chunk is read and prepared while this one is written; a promise is marked handled here and awaited later.
  const handled = <T>(promise: Promise<T>): Promise<T> => {
    promise.catch(() => undefined);
    return promise;
  };
  const prepare = (chunk: StagedChunk) =>
    handled(prepareChunk(chunk.entity, decompressRecords(chunk.data), from, memory, `${from.batchId}#${chunk.sk}`));
  let chunks = 0;
  let records = 0;
  let slowestChunkMs = 0;
  interface Writing {
    readonly chunk: StagedChunk;
    readonly prepared: PreparedChunk;
    readonly written: Promise<void>;
    readonly started: number;
  }
  /** The chunk being written while the next is prepared; it is checkpointed before the next one is. */
  let writing: Writing | undefined;
  const checkpoint = async (done: Writing | undefined) => {
    if (!done) return;
    const { chunk, prepared, written, started } = done;
    await written;
    await recordChunkRates(prepared, from);
    // In the checkpoint, chunk after chunk: an aggregate takes a batch's chunks only in order (adherence/repository.ts).
    if (prepared.adherence) {
      await applyAdherence(prepared.adherence, current.batchId, chunk.sk);
      await hooks.afterAdherence?.(invocation);
    }
    await recordTouched(current, chunk.sk, prepared.touched, chunkExpiresAt(current));
    current = await saveCheckpoint(current, owner, chunk.sk, (current.drainedCount ?? 0) + chunk.count, leaseUntil());
    slowestChunkMs = Math.max(slowestChunkMs, performance.now() - started);
    chunks += 1;
    records += chunk.count;
    await hooks.afterChunk?.(chunks, invocation);
  };
  try {
    let chunk = await nextChunk();
    let preparing = chunk && prepare(chunk);
    while (chunk && preparing) {
      if (invocation.remainingMs() < Math.max(MIN_TIME_LEFT_MS, 2 * slowestChunkMs)) {
        await checkpoint(writing);
        await sendDrainMessage({ ...message, continuation: (message.continuation ?? 0) + 1 });
        await releaseBatchLease(current, owner);
        return { outcome: 'continued', chunks, records };
      }
      const started = performance.now();
      let prepared = await preparing;
      if (writing && dependsOn(prepared, writing.prepared)) {
        await checkpoint(writing);
        writing = undefined;
        prepared = await prepare(chunk);
      }
      const previous = writing;
      // Known as in flight before the chunk before is checkpointed, so that a fault there still waits for its writes.
      writing = { chunk, prepared, written: handled(writeChunk(prepared)), started };
      // The chunk before is written in full before the one after is read, so that is checked against this one alone.
      await checkpoint(previous);
      chunk = await nextChunk();
      preparing = chunk && prepare(chunk);
    }
    await checkpoint(writing);
    writing = undefined;
    // Sent before the batch reads as drained, as a commit sends before it commits: a fault between the two repeats
    // the send, never loses it, and a second bands job finds the first's work done.
    await sendDrainMessage({ ...message, phase: 'bands', continuation: 0, sentAt: clock().toISOString() });
    await finishDrain(current, owner, clock());
    return { outcome: 'drained', chunks, records };
  } catch (error) {
    // Writes still in flight land before anyone else may drain, so they can never overwrite what a later chunk wrote.
    await writing?.written.catch(() => undefined);
    await releaseBatchLease(current, owner).catch(() => undefined);
    logger.error('drain attempt failed', { batchId: batch.batchId, attempt: invocation.receiveCount, error: error as Error });
    if (givesUpAfterFault(attempt)) {
      return giveUp(current, invocation, 'an internal fault; quote the batch id to support', clock());
    }
    throw error;
  }
}
