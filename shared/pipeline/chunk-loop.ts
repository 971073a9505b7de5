// The drain's chunk loop: read ahead, prepare the next chunk while this one is written, then checkpoint it, in order.
import { decompressRecords } from '#shared/batches/chunks.ts';
import { readChunksAfter, recordTouched, type StagedChunk } from '#shared/batches/chunk-items.ts';
import { sendDrainMessage } from '#shared/batches/drain-queue.ts';
import { finishDrain, releaseBatchLease, saveCheckpoint } from '#shared/batches/lease.ts';
import { chunkExpiresAt } from '#shared/batches/rules.ts';
import type { Batch } from '#shared/batches/schema.ts';
import type { Provenance } from '#shared/canonical/items.ts';
import { applyAdherence } from './adherence-fold.ts';
import { applyMargins } from './margin-fold.ts';
import { clockOf, type DrainHooks, type DrainInvocation, type DrainResult, leaseDeadline, MIN_TIME_LEFT_MS } from './job.ts';
import { DrainMemory } from './memory.ts';
import { prepareChunk } from './prepare.ts';
import { dependsOn, type PreparedChunk, recordChunkRates, writeChunk } from './prepared-chunk.ts';

/** Chunks read per Query; at most a few hundred KB each, so memory stays flat whatever the batch's size. */
const CHUNKS_PER_READ = 3;

/** A chunk being written while the next is prepared; it is checkpointed before the next one is. */
interface Writing {
  readonly chunk: StagedChunk;
  readonly prepared: PreparedChunk;
  readonly written: Promise<void>;
  readonly started: number;
}

/** A promise marked handled now and awaited later: the next chunk is read and prepared while this one is written. */
function handled<T>(promise: Promise<T>): Promise<T> {
  promise.catch(() => undefined);
  return promise;
}

/** One leased attempt at a batch's chunks, from its checkpoint on. */
export class ChunkLoop {
  private readonly memory = new DrainMemory();
  private readonly from: Provenance;
  private readonly clock: () => Date;
  private readonly leaseUntil: () => number;
  private readCursor: string | undefined;
  private buffered: StagedChunk[] = [];
  private chunks = 0;
  private records = 0;
  private slowestChunkMs = 0;
  private writing: Writing | undefined;
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
    this.readCursor = leased.drainCursor;
    this.clock = clockOf(invocation);
    this.leaseUntil = leaseDeadline(invocation);
  }

  /** The batch as this attempt last wrote it. */
  get current(): Batch {
    return this.leased;
  }

  async run(): Promise<DrainResult> {
    let chunk = await this.nextChunk();
    let preparing = chunk && this.prepare(chunk);
    while (chunk && preparing) {
      if (this.invocation.remainingMs() < Math.max(MIN_TIME_LEFT_MS, 2 * this.slowestChunkMs)) return this.continueLater();
      const started = performance.now();
      let prepared = await preparing;
      if (this.writing && dependsOn(prepared, this.writing.prepared)) {
        await this.checkpoint(this.writing);
        this.writing = undefined;
        prepared = await this.prepare(chunk);
      }
      const previous = this.writing;
      // Known as in flight before the chunk before is checkpointed, so that a fault there still waits for its writes.
      this.writing = { chunk, prepared, written: handled(writeChunk(prepared)), started };
      // The chunk before is written in full before the one after is read, so that is checked against this one alone.
      await this.checkpoint(previous);
      chunk = await this.nextChunk();
      preparing = chunk && this.prepare(chunk);
    }
    return this.finish();
  }

  /** After a fault: writes still in flight land before anyone else may drain, so they never overwrite a later chunk's. */
  async settle(): Promise<void> {
    await this.writing?.written.catch(() => undefined);
  }

  private async nextChunk(): Promise<StagedChunk | undefined> {
    if (this.buffered.length === 0) this.buffered = await readChunksAfter(this.leased, this.readCursor, CHUNKS_PER_READ);
    const chunk = this.buffered.shift();
    if (chunk) this.readCursor = chunk.sk;
    return chunk;
  }

  private prepare(chunk: StagedChunk): Promise<PreparedChunk> {
    const { from, memory } = this;
    return handled(prepareChunk(chunk.entity, decompressRecords(chunk.data), from, memory, `${from.batchId}#${chunk.sk}`));
  }

  private async checkpoint(done: Writing | undefined): Promise<void> {
    if (!done) return;
    const { chunk, prepared, written, started } = done;
    await written;
    await recordChunkRates(prepared, this.from);
    // In the checkpoint, chunk after chunk: an aggregate takes a batch's chunks only in order (adherence-fold.ts).
    if (prepared.adherence) {
      await applyAdherence(prepared.adherence, this.leased.batchId, chunk.sk);
      await this.hooks.afterAdherence?.(this.invocation);
    }
    if (prepared.margins) await applyMargins(prepared.margins, this.leased.batchId, chunk.sk);
    await recordTouched(this.leased, chunk.sk, prepared.touched, chunkExpiresAt(this.leased));
    const drainedCount = (this.leased.drainedCount ?? 0) + chunk.count;
    this.leased = await saveCheckpoint(this.leased, this.owner, chunk.sk, drainedCount, this.leaseUntil());
    this.slowestChunkMs = Math.max(this.slowestChunkMs, performance.now() - started);
    this.chunks += 1;
    this.records += chunk.count;
    await this.hooks.afterChunk?.(this.chunks, this.invocation);
  }

  private async continueLater(): Promise<DrainResult> {
    const { message } = this.invocation;
    await this.checkpoint(this.writing);
    await sendDrainMessage({ ...message, continuation: (message.continuation ?? 0) + 1 });
    await releaseBatchLease(this.leased, this.owner);
    return { outcome: 'continued', chunks: this.chunks, records: this.records };
  }

  private async finish(): Promise<DrainResult> {
    await this.checkpoint(this.writing);
    this.writing = undefined;
    // Sent before the batch reads as drained, as a commit sends before it commits: a fault between the two repeats
    // the send, never loses it, and a second bands job finds the first's work done.
    const { message } = this.invocation;
    await sendDrainMessage({ ...message, phase: 'bands', continuation: 0, sentAt: this.clock().toISOString() });
    await finishDrain(this.leased, this.owner, this.clock());
    return { outcome: 'drained', chunks: this.chunks, records: this.records };
  }
}
