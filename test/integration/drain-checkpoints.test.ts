// The drain's checkpoint every few seconds: chunks written are taken in together, and a drain that dies between a chunk's writes and the checkpoint that takes it in ends as a clean run does.
import { describe, expect, it, vi } from 'vitest';
import { commitBatch as commitBatchItem, getBatch } from '#shared/batches/repository.ts';
import { runDrainJob } from '#shared/pipeline/drain.ts';
import type { DrainHooks } from '#shared/pipeline/job.ts';
import { sampleCatalogue } from '#lib/local/sample-catalogue.ts';
import { connectorCaller, dumpCanonical, loggedLines, openBatchWith, stageCatalogue } from './ingest-support.ts';
import { newWorkspace } from './support.ts';

const catalogue = sampleCatalogue({ products: 40, customers: 10, quotes: 60, orders: 80 }, { seed: 5 });
const RECORDS = 190;
/** 2 product chunks, 1 customer chunk, 3 quote chunks and 4 order chunks, at 20 records a call. */
const CHUNKS = 10;
/** Longer than any of these drains: every chunk waits for the checkpoint at the end, or for one a dependency forces. */
const NEVER = 600_000;

// Each test stages and drains one or two batches: on a busy machine that takes longer than the project's default
// allows, and how long it takes is no part of what these tests check.
vi.setConfig({ testTimeout: 240_000 });

/** A workspace with the catalogue staged and committed without the queue, and a way to run its drain job by hand. */
async function committedBatch() {
  const workspace = await newWorkspace();
  const caller = connectorCaller(workspace);
  const batchId = await openBatchWith(caller.key);
  await stageCatalogue(caller.key, batchId, catalogue, { perCall: 20 });
  const sent: Array<{ workspaceId: string; batchId: string; jobId: string; sentAt: string }> = [];
  await commitBatchItem(caller, batchId, async (job) => {
    sent.push(job);
  });
  const message = sent[0];
  if (!message) throw new Error('no drain job');
  const run = (receiveCount: number, hooks: DrainHooks) =>
    runDrainJob({ message, body: JSON.stringify(message), receiveCount, remainingMs: () => 600_000 }, hooks);
  return { workspace, batchId, run };
}

async function drainedCleanly() {
  const batch = await committedBatch();
  expect(await batch.run(1, { checkpointEveryMs: 0 })).toMatchObject({ outcome: 'drained', chunks: CHUNKS, records: RECORDS });
  return dumpCanonical(batch.workspace.workspaceId);
}

describe('a drain that checkpoints every few seconds', () => {
  it('takes in the chunks written since the last checkpoint together, folding their adherence once per checkpoint', async () => {
    const batch = await committedBatch();
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
      const clean = await drainedCleanly();
      const batch = await committedBatch();
      let died = false;
      const dies: DrainHooks = {
        checkpointEveryMs: NEVER,
        afterChunkWritten: (written) => {
          if (!died && written === dieAfter) {
            died = true;
            throw new Error('the invocation died');
          }
        },
      };
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

  it("dies after a checkpoint's folds, before the checkpoint is saved, and counts each chunk's adherence and margins once", async () => {
    const clean = await drainedCleanly();
    const batch = await committedBatch();
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
