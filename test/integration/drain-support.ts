// A drain run by hand, for the tests of where it goes on from: a sample catalogue staged in ten chunks and committed without the queue, and its drain job run as the worker runs it.
import { expect } from 'vitest';
import { commitBatch as commitBatchItem } from '#shared/batches/repository.ts';
import { runDrainJob } from '#shared/pipeline/drain.ts';
import type { DrainHooks } from '#shared/pipeline/job.ts';
import { sampleCatalogue } from '#lib/local/sample-catalogue.ts';
import { connectorCaller, dumpCanonical, openBatchWith, stageCatalogue } from './ingest-support.ts';
import { newWorkspace } from './support.ts';

/** Records of a drain catalogue. */
export const DRAIN_RECORDS = 190;
/** 2 product chunks, 1 customer chunk, 3 quote chunks and 4 order chunks, at 20 records a call. */
export const DRAIN_CHUNKS = 10;

export type DrainCatalogue = ReturnType<typeof sampleCatalogue>;

/** 40 products, 10 customers, 60 quotes and 80 orders, the same for a seed. */
export function drainCatalogue(seed: number): DrainCatalogue {
  return sampleCatalogue({ products: 40, customers: 10, quotes: 60, orders: 80 }, { seed });
}

/**
 * A workspace (a new one unless given) with the catalogue staged 20 records a call and committed, and its drain job
 * to run by hand; `staged` runs between the staging and the commit.
 */
export async function committedBatch(
  catalogue: DrainCatalogue,
  staged?: (batch: { workspaceId: string; batchId: string }) => Promise<void>,
  into?: Awaited<ReturnType<typeof newWorkspace>>,
) {
  const workspace = into ?? (await newWorkspace());
  const caller = connectorCaller(workspace);
  const batchId = await openBatchWith(caller.key);
  await stageCatalogue(caller.key, batchId, catalogue, { perCall: 20 });
  if (staged) await staged({ workspaceId: workspace.workspaceId, batchId });
  const sent: Array<{ workspaceId: string; batchId: string; jobId: string; sentAt: string }> = [];
  await commitBatchItem(caller, batchId, async (job) => {
    sent.push(job);
  });
  const message = sent[0];
  if (!message) throw new Error('no drain job');
  const run = (receiveCount: number, hooks: DrainHooks, remainingMs: () => number = () => 600_000) =>
    runDrainJob({ message, body: JSON.stringify(message), receiveCount, remainingMs }, hooks);
  return { workspace, batchId, message, run };
}

/** The canonical data of a clean drain of the catalogue, checkpointing after every chunk. */
export async function drainedCleanly(catalogue: DrainCatalogue): Promise<Record<string, unknown>[]> {
  const batch = await committedBatch(catalogue);
  expect(await batch.run(1, { checkpointEveryMs: 0 })).toMatchObject({ outcome: 'drained', chunks: DRAIN_CHUNKS, records: DRAIN_RECORDS });
  return dumpCanonical(batch.workspace.workspaceId);
}

/** A hook of the drain's that kills the invocation the first time its count reaches `at`, and never again. */
export function dieOnceAt(at: number): (count: number) => void {
  let died = false;
  return (count) => {
    if (died || count !== at) return;
    died = true;
    throw new Error('the invocation died');
  };
}
