// The drain's checkpoint every few seconds: chunks written are taken in together, and a drain that dies between a chunk's writes and the checkpoint that takes it in ends as a clean run does.
import { describe, expect, it, vi } from 'vitest';
import { getBatch } from '#shared/batches/repository.ts';
import { type DrainHooks, MIN_TIME_LEFT_MS } from '#shared/pipeline/job.ts';
import { committedBatch, dieOnceAt, DRAIN_CHUNKS, DRAIN_RECORDS, drainCatalogue, drainedCleanly } from './drain-support.ts';
import { dumpCanonical, loggedLines, waitForBands, waitForBatch } from './ingest-support.ts';
import { call } from './support.ts';

const catalogue = drainCatalogue(5);
const RECORDS = DRAIN_RECORDS;
const CHUNKS = DRAIN_CHUNKS;
/** Longer than any of these drains: every chunk waits for the checkpoint at the end, or for one a dependency forces. */
const NEVER = 600_000;

// Each test stages and drains one or two batches: on a busy machine that takes longer than the project's default
// allows, and how long it takes is no part of what these tests check.
vi.setConfig({ testTimeout: 240_000 });

describe('a drain that checkpoints every few seconds', () => {
  it("moves the status's progressAt at every checkpoint and phase, so a waiting client tells a slow batch from a stalled one", async () => {
    const batch = await committedBatch(catalogue);
    const key = batch.workspace.keys.connector;
    const statusOf = async () => (await call(`/api/v1/ingest/batches/${batch.batchId}`, { key })).json;
    const committed = await statusOf();
    expect(committed.progressAt).toBe(committed.committedAt);
    // Each checkpoint is saved after the hook of the one before it returned: its progressAt is no earlier than that.
    let lookedAt = committed.progressAt as string;
    const moved: boolean[] = [];
    await batch.run(1, {
      checkpointEveryMs: 0,
      afterChunk: async () => {
        const status = await statusOf();
        moved.push(status.progressAt >= lookedAt && status.progressAt > committed.committedAt);
        lookedAt = new Date().toISOString();
      },
    });
    expect(moved).toEqual(Array.from({ length: CHUNKS }, () => true));
    await waitForBands(key, batch.batchId, { timeoutMs: 120_000 });
    const banded = await statusOf();
    expect(banded.progressAt).toBe(banded.bandsRecomputedAt);
  });

  it('takes in the chunks written since the last checkpoint together, folding their adherence once per checkpoint', async () => {
    const batch = await committedBatch(catalogue);
    let folds = 0;
    let checkpointed = 0;
    const result = await batch.run(1, {
      checkpointEveryMs: NEVER,
      afterAdherence: () => {
        folds += 1;
      },
      afterChunk: (chunks) => {
        checkpointed = chunks;
      },
    });
    expect(result).toMatchObject({ outcome: 'drained', chunks: CHUNKS, records: RECORDS });
    expect(checkpointed).toBe(CHUNKS);
    // Seven quote and order chunks; a chunk that names a quote or order of one not yet checkpointed forces a checkpoint
    // first, and the rest share theirs.
    expect(folds).toBeGreaterThan(0);
    expect(folds).toBeLessThan(7);
    expect(await getBatch(batch.workspace.workspaceId, batch.batchId)).toMatchObject({ status: 'drained', drainedCount: RECORDS });
  });

  it.each([3, 6, 9])(
    'dies after chunk %i is written, before the checkpoint that takes it in, and runs again to the data of a clean run',
    async (dieAfter) => {
      const clean = await drainedCleanly(catalogue);
      const batch = await committedBatch(catalogue);
      const dies: DrainHooks = { checkpointEveryMs: NEVER, afterChunkWritten: dieOnceAt(dieAfter) };
      await expect(batch.run(1, dies)).rejects.toThrow('the invocation died');
      const checkpoint = await getBatch(batch.workspace.workspaceId, batch.batchId);
      // The chunks written since the last checkpoint are not counted as drained: the next attempt runs them again.
      expect(checkpoint?.drainedCount ?? 0).toBeLessThan(RECORDS);

      expect(await batch.run(2, { checkpointEveryMs: NEVER })).toMatchObject({ outcome: 'drained' });
      expect(await getBatch(batch.workspace.workspaceId, batch.batchId)).toMatchObject({ status: 'drained', drainedCount: RECORDS });
      const dump = await dumpCanonical(batch.workspace.workspaceId);
      expect(dump).toEqual(clean);
      const lines = [...catalogue.quote, ...catalogue.order].reduce((sum, record) => sum + record.lines.length, 0);
      expect(loggedLines(dump)).toHaveLength(lines);
    },
  );

  it('goes on in a new invocation once a checkpoint was slow enough that the next might outlive this one', async () => {
    const batch = await committedBatch(catalogue);
    let slowed = false;
    // Always just above the floor: only the slow checkpoint's own length can make the drain stop.
    const result = await batch.run(
      1,
      {
        checkpointEveryMs: 0,
        afterAdherence: async () => {
          if (slowed) return;
          slowed = true;
          await new Promise((resolve) => setTimeout(resolve, 4_100));
        },
      },
      () => MIN_TIME_LEFT_MS + 1_000,
    );
    expect(result.outcome).toBe('continued');
    expect(result.chunks).toBeGreaterThan(0);
    expect(result.chunks).toBeLessThan(CHUNKS);
    // The continuation it sent finishes the batch on the stack's worker, from the checkpoint it left.
    const status = await waitForBatch(batch.workspace.keys.connector, batch.batchId, ['drained', 'failed']);
    expect(status).toMatchObject({ status: 'drained', drainedCount: RECORDS });
  });

  it("dies after a checkpoint's folds, before the checkpoint is saved, and counts each chunk's adherence and margins once", async () => {
    const clean = await drainedCleanly(catalogue);
    const batch = await committedBatch(catalogue);
    let folds = 0;
    const dies: DrainHooks = {
      checkpointEveryMs: NEVER,
      afterAdherence: () => {
        folds += 1;
        if (folds === 2) throw new Error('the invocation died between the folds and the checkpoint');
      },
    };
    await expect(batch.run(1, dies)).rejects.toThrow('the invocation died');
    expect(await batch.run(2, { checkpointEveryMs: NEVER })).toMatchObject({ outcome: 'drained' });
    const folded = (dump: readonly Record<string, unknown>[]) =>
      dump.filter((item) => ['adherenceAggregate', 'quoteAdherence', 'productMargin', 'orderMargin'].includes(String(item.type)));
    const dump = await dumpCanonical(batch.workspace.workspaceId);
    expect(folded(dump).length).toBeGreaterThan(0);
    expect(folded(dump)).toEqual(folded(clean));
    expect(dump).toEqual(clean);
  });
});
