// A batch's work is bounded: the lines it may hold, and pieces a drain applies and checkpoints one by one, however a call is shaped.
import { describe, expect, it } from 'vitest';
import { readStagedChunks } from '#shared/batches/chunk-items.ts';
import { MAX_PIECE_ITEMS } from '#shared/batches/chunks.ts';
import { runDrainJob } from '#shared/pipeline/drain.ts';
import { commitBatch as commitBatchItem, getBatch } from '#shared/batches/repository.ts';
import { updateWorkspace } from '#shared/workspaces/repository.ts';
import {
  connectorCaller,
  dumpCanonical,
  loggedLines,
  openTestBatch,
  orderLine,
  orderRecord,
  productRecord,
  readStatus,
  stage,
} from './ingest-support.ts';
import { newWorkspace } from './support.ts';

/** An order of `lines` lines of one product. */
function order(externalId: string, lines: number) {
  return orderRecord({ externalId, lines: Array.from({ length: lines }, (_, index) => orderLine({ quantity: index + 1 })) });
}

describe('the batch line cap', () => {
  it('skips whole the order that would take the batch past its lines, with every record after it, and counts them', async () => {
    const workspace = await newWorkspace();
    await updateWorkspace(workspace.workspaceId, { batchLineCap: 2_500 });
    const batch = await openTestBatch(connectorCaller(workspace));

    const first = await stage(batch, {
      entity: 'order',
      records: [order('O-1', 1_000), order('O-2', 1_000), order('O-3', 1_000), order('O-4', 1)],
    });
    expect(first.status, first.text).toBe(202);
    expect(first.json).toEqual({ staged: 2 });

    // What still fits is taken by a later call; what does not is skipped there too.
    expect((await stage(batch, { entity: 'order', records: [order('O-5', 400)] })).json).toEqual({ staged: 1 });
    expect((await stage(batch, { entity: 'order', records: [order('O-6', 200)] })).json).toEqual({ staged: 0 });

    const status = await readStatus(batch);
    expect(status.json).toMatchObject({ recordCount: 3, skippedOverCap: 3 });
    const staged = (await getBatch(batch.workspaceId, batch.batchId))?.lineCount;
    expect(staged).toBe(2_400);
  });

  it('counts products and customers against the record cap only', async () => {
    const workspace = await newWorkspace();
    await updateWorkspace(workspace.workspaceId, { batchLineCap: 1 });
    const batch = await openTestBatch(connectorCaller(workspace));
    const response = await stage(batch, { entity: 'product', records: [productRecord({ sku: 'A' }), productRecord({ sku: 'B' })] });
    expect(response.json).toEqual({ staged: 2 });
  });
});

describe('a staging call heavy with lines', () => {
  it(`is staged in pieces of at most ${MAX_PIECE_ITEMS} items, and a drain that dies after a piece resumes after it`, async () => {
    const workspace = await newWorkspace();
    const caller = connectorCaller(workspace);
    const batch = await openTestBatch(caller);
    expect((await stage(batch, { entity: 'product', records: [productRecord()] })).status).toBe(202);
    const orders = [order('O-1', 1_000), order('O-2', 1_000), order('O-3', 1_000), order('O-4', 1_000)];
    expect((await stage(batch, { entity: 'order', records: orders })).json).toEqual({ staged: 4 });

    const pieces = (await readStagedChunks(batch)).filter((item) => item.entity === 'order');
    expect(pieces.map((piece) => piece.count)).toEqual([3, 1]);

    // Committed without the queue, so that this test drives the drain itself.
    const sent: Array<{ workspaceId: string; batchId: string; jobId: string; sentAt: string }> = [];
    await commitBatchItem(caller, batch.batchId, async (job) => {
      sent.push(job);
    });
    const message = sent[0];
    if (!message) throw new Error('no drain job');
    const invocation = (receiveCount: number) => ({ message, body: JSON.stringify(message), receiveCount, remainingMs: () => 60_000 });

    const dies = {
      // Checkpointed chunk by chunk, so that the fault lands between two pieces' checkpoints.
      checkpointEveryMs: 0,
      afterChunk: (applied: number) => {
        if (applied === 2) throw new Error('the invocation died');
      },
    };
    await expect(runDrainJob(invocation(1), dies)).rejects.toThrow('the invocation died');
    const checkpoint = await getBatch(batch.workspaceId, batch.batchId);
    expect(checkpoint).toMatchObject({ status: 'draining', drainedCount: 4 });

    const resumed = await runDrainJob(invocation(2));
    expect(resumed).toMatchObject({ outcome: 'drained', chunks: 1, records: 1 });
    expect(await getBatch(batch.workspaceId, batch.batchId)).toMatchObject({ status: 'drained', drainedCount: 5 });
    const dump = await dumpCanonical(batch.workspaceId);
    expect(dump.filter((item) => item.type === 'orderDocument').map((item) => item.lineCount)).toEqual([1_000, 1_000, 1_000, 1_000]);
    const logged = loggedLines(dump);
    expect(logged).toHaveLength(4_000);
  });
});
