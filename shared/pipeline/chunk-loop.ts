// The drain's chunk loop: read ahead, prepare the next chunk while this one is written, and checkpoint the chunks written every few seconds, in order.
import { chunkMarker } from '#platform/table/batch-keys.ts';
import { decompressRecords } from '#shared/batches/chunks.ts';
import { foldMarginSteps } from '#shared/recommendations/margins.ts';
import { recordTouched, type StagedChunk, stagedChunksAfter } from '#shared/batches/chunk-items.ts';
import { sendDrainMessage } from '#shared/batches/drain-queue.ts';
import { endDrainTurn } from '#shared/batches/drain-turn.ts';
import { finishDrain, releaseBatchLease, saveCheckpoint } from '#shared/batches/lease.ts';
import { chunkExpiresAt } from '#shared/batches/rules.ts';
import type { Batch } from '#shared/batches/schema.ts';
import type { Provenance } from '#shared/canonical/items.ts';
import { applyAdherence, mergeAdherence } from './adherence-fold.ts';
import { CHECKPOINT_EVERY_MS, clockOf, type DrainHooks, type DrainInvocation, type DrainResult, leaseDeadline, timeToStop } from './job.ts';
import { DrainMemory } from './memory.ts';
import { prepareChunk } from './prepare.ts';
import { dependsOn, type PreparedChunk, recordChunkRates, writeChunk } from './prepared-chunk.ts';

/** A chunk being written while the next is prepared. */
interface Writing {
  readonly chunk: StagedChunk;
  readonly prepared: PreparedChunk;
  readonly written: Promise<void>;
  readonly started: number;
}

/** A chunk whose items are written, waiting for the checkpoint that folds it and moves the cursor past it. */
type Written = Omit<Writing, 'written'>;

/** A promise marked handled now and awaited later: the next chunk is read and prepared while this one is written. */
function handled<T>(promise: Promise<T>): Promise<T> {
  promise.catch(() => undefined);
  return promise;
}

/** One leased attempt at a batch's chunks, from its checkpoint on. */
export class ChunkLoop {
  private readonly memory: DrainMemory;
  private readonly from: Provenance;
  private readonly clock: () => Date;
  private readonly leaseUntil: () => number;
  /** The batch's chunks after its checkpoint, in staging order, read a few at a time. */
  private readonly nextChunk: () => Promise<StagedChunk | undefined>;
  private chunks = 0;
  private records = 0;
  private slowestChunkMs = 0;
  private slowestCheckpointMs = 0;
  private writing: Writing | undefined;
  private pending: Written[] = [];
  private lastCheckpoint = performance.now();
  private readonly checkpointEveryMs: number;
  private leased: Batch;
  private readonly owner: string;
  private readonly invocation: DrainInvocation;
  private readonly hooks: DrainHooks;

  constructor(leased: Batch, owner: string, invocation: DrainInvocation, hooks: DrainHooks) {
    this.leased = leased;
    this.owner = owner;
    this.invocation = invocation;
    this.hooks = hooks;
    this.from = { workspaceId: leased.workspaceId, batchId: leased.batchId, syncedAt: leased.committedAt ?? leased.createdAt };
    this.memory = new DrainMemory(leased.drainCursor);
    this.nextChunk = stagedChunksAfter(leased, leased.drainCursor);
    this.clock = clockOf(invocation);
    this.leaseUntil = leaseDeadline(invocation);
    this.checkpointEveryMs = hooks.checkpointEveryMs ?? CHECKPOINT_EVERY_MS;
  }

  /** The batch as this attempt last wrote it. */
  get current(): Batch {
    return this.leased;
  }

  async run(): Promise<DrainResult> {
    let chunk = await this.nextChunk();
    let preparing = chunk && this.prepare(chunk);
    while (chunk && preparing) {
      const slowest = { chunkMs: this.slowestChunkMs, checkpointMs: this.slowestCheckpointMs };
      if (timeToStop(this.invocation.remainingMs(), slowest)) return this.continueLater();
      const started = performance.now();
      let prepared = await preparing;
      if (this.waitsFor(prepared)) {
        // It read what a chunk not yet checkpointed changes (a document, an attribution): that lands first.
        await this.checkpoint();
        prepared = await this.prepare(chunk);
      }
      const previous = this.writing;
      // Known as in flight before the chunk before is taken in, so that a fault there still waits for its writes.
      this.writing = { chunk, prepared, written: handled(writeChunk(prepared)), started };
      // The chunk before is written in full before the one after is read, so that is checked against this one alone.
      await this.written(previous);
      if (this.pending.length > 0 && performance.now() - this.lastCheckpoint >= this.checkpointEveryMs) await this.checkpoint(false);
      chunk = await this.nextChunk();
      preparing = chunk && this.prepare(chunk);
    }
    return this.finish();
  }

  /** After a fault: writes still in flight land before anyone else may drain, so they never overwrite a later chunk's. */
  async settle(): Promise<void> {
    await this.writing?.written.catch(() => undefined);
  }

  /** Whether a chunk prepared now depends on one written but not yet checkpointed (or still being written). */
  private waitsFor(prepared: PreparedChunk): boolean {
    const earlier = [...this.pending, ...(this.writing ? [this.writing] : [])];
    return earlier.some((done) => dependsOn(prepared, done.prepared));
  }

  private async written(done: Writing | undefined): Promise<void> {
    if (!done) return;
    const { written, ...rest } = done;
    await written;
    this.pending.push(rest);
    this.slowestChunkMs = Math.max(this.slowestChunkMs, performance.now() - done.started);
    await this.hooks.afterChunkWritten?.(this.chunks + this.pending.length, this.invocation);
  }

  private prepare(chunk: StagedChunk): Promise<PreparedChunk> {
    const { from, memory } = this;
    return handled(prepareChunk(chunk.entity, decompressRecords(chunk.data), from, memory, chunkMarker(from.batchId, chunk.sk)));
  }

  /**
   * Takes in every chunk written (and, unless told not to, the one being written): their rates in order, then their
   * adherence folded as one under the last chunk's marker, their margins folded once per month with each chunk's
   * change kept apart, what each touched, and one checkpoint. A fault anywhere before the checkpoint runs these chunks
   * again, and each fold refuses what its marker says it has.
   */
  private async checkpoint(withWriting = true): Promise<void> {
    if (withWriting) {
      await this.written(this.writing);
      this.writing = undefined;
    }
    const group = this.pending;
    const last = group.at(-1);
    if (!last) return;
    const started = performance.now();
    this.pending = [];
    for (const done of group) await recordChunkRates(done.prepared, this.from);
    const { batchId } = this.leased;
    const markerOf = (has: (done: Written) => boolean) => group.filter(has).at(-1)?.chunk.sk ?? last.chunk.sk;
    const adherence = mergeAdherence(group.flatMap((done) => (done.prepared.adherence ? [done.prepared.adherence] : [])));
    if (adherence) {
      await applyAdherence(
        adherence,
        batchId,
        markerOf((done) => done.prepared.adherence !== undefined),
      );
      await this.hooks.afterAdherence?.(this.invocation);
    }
    // Each chunk's change on its own, for each month to take only the chunks after its marker: the months a checkpoint
    // touches are read, summed and written once each (docs/decisions.md, margins folded per checkpoint).
    const margins = group.flatMap((done) => (done.prepared.margins ? [{ step: done.chunk.sk, delta: done.prepared.margins.delta }] : []));
    if (margins.length > 0) await foldMarginSteps(this.from.workspaceId, batchId, margins);
    await Promise.all(group.map((done) => recordTouched(this.leased, done.chunk.sk, done.prepared.touched, chunkExpiresAt(this.leased))));
    const records = group.reduce((sum, done) => sum + done.chunk.count, 0);
    const warned = group.reduce((sum, done) => sum + (done.prepared.warned ?? 0), 0);
    this.leased = await saveCheckpoint(
      this.leased,
      this.owner,
      last.chunk.sk,
      { drainedCount: (this.leased.drainedCount ?? 0) + records, warnedProducts: (this.leased.warnedProducts ?? 0) + warned },
      this.leaseUntil(),
      this.clock(),
    );
    this.memory.checkpoint = last.chunk.sk;
    this.lastCheckpoint = performance.now();
    this.slowestCheckpointMs = Math.max(this.slowestCheckpointMs, this.lastCheckpoint - started);
    for (const done of group) {
      this.chunks += 1;
      this.records += done.chunk.count;
      await this.hooks.afterChunk?.(this.chunks, this.invocation);
    }
  }

  private async continueLater(): Promise<DrainResult> {
    const { message } = this.invocation;
    await this.checkpoint();
    // Let go before the continuation is sent, so that it never meets this lease and fails as a duplicate would: a
    // fault between the two leaves this invocation's own message to come back and resume from the checkpoint.
    await releaseBatchLease(this.leased, this.owner);
    await sendDrainMessage({ ...message, continuation: (message.continuation ?? 0) + 1 });
    return { outcome: 'continued', chunks: this.chunks, records: this.records };
  }

  private async finish(): Promise<DrainResult> {
    await this.checkpoint();
    // Sent before the batch reads as drained, as a commit sends before it commits: a fault between the two repeats
    // the send, never loses it, and a second bands job finds the first's work done.
    const { message } = this.invocation;
    await sendDrainMessage({ ...message, phase: 'bands', continuation: 0, sentAt: this.clock().toISOString() });
    await finishDrain(this.leased, this.owner, this.clock());
    await endDrainTurn(this.leased);
    return { outcome: 'drained', chunks: this.chunks, records: this.records };
  }
}
