// A batch's staged chunks on partitions of their own: staged by turns over the shards, read back by the drain in staging order from any checkpoint, each once, with chunks staged before the shards (on the batch's own partition) read as well; and discarded from every partition by a cancel.
import { randomUUID } from 'node:crypto';
import { describe, expect, it, vi } from 'vitest';
import { chunkPartitions, readStagedChunks, type StagedChunk, stagedChunksAfter } from '#shared/batches/chunk-items.ts';
import { CHUNK_SHARDS, compressRecords } from '#shared/batches/chunks.ts';
import { getBatch } from '#shared/batches/repository.ts';
import type { DrainHooks } from '#shared/pipeline/job.ts';
import { deleteItem, putItem } from '#platform/table/commands.ts';
import { keys } from '#platform/table/keys.ts';
import { queryAll } from '#platform/table/query.ts';
import { call, newWorkspace } from './support.ts';
import { committedBatch, dieOnceAt, DRAIN_CHUNKS, DRAIN_RECORDS, drainCatalogue, drainedCleanly } from './drain-support.ts';
import { BATCHES_PATH, chunkKeys, connectorCaller, dumpCanonical, openBatchWith, stageCatalogue } from './ingest-support.ts';

// Each drain test stages and drains a batch or two: on a busy machine that takes longer than the project's default
// allows, and how long it takes is no part of what these tests check.
vi.setConfig({ testTimeout: 240_000 });

const catalogue = drainCatalogue(11);
const RECORDS = DRAIN_RECORDS;
const CHUNKS = DRAIN_CHUNKS;

/** The chunk items on one partition, as stored. */
function itemsOn(partition: { PK: string; SKPrefix: string }) {
  return queryAll({
    KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
    ExpressionAttributeValues: { ':pk': partition.PK, ':prefix': partition.SKPrefix },
    ConsistentRead: true,
  });
}

/**
 * Moves the chunks of the first `calls` staging calls to the batch's own partition, where chunks were staged before
 * the shards: the batch a deploy of the shards finds half staged.
 */
async function stagedBeforeTheShards(batch: { workspaceId: string; batchId: string }, calls: number): Promise<void> {
  const [own, ...shards] = chunkPartitions(batch);
  for (const shard of shards) {
    for (const item of await itemsOn(shard)) {
      if (Number(String(item.SK).split('#')[1]) > calls) continue;
      await putItem({ Item: { ...item, PK: own?.PK } });
      await deleteItem({ Key: { PK: item.PK, SK: item.SK } });
    }
  }
}

/** Every chunk `next` gives, to its end. */
async function readToTheEnd(next: () => Promise<StagedChunk | undefined>): Promise<string[]> {
  const read: string[] = [];
  for (let chunk = await next(); chunk; chunk = await next()) read.push(chunk.sk);
  return read;
}

/** The canonical data of a clean drain of the catalogue, all of its chunks on the shards: drained once, on first use. */
let cleanRun: Promise<Record<string, unknown>[]> | undefined;
function cleanDump(): Promise<Record<string, unknown>[]> {
  cleanRun ??= drainedCleanly(catalogue);
  return cleanRun;
}

describe("a batch's chunk partitions", () => {
  it("stages each call's chunk on the batch's chunk partitions by turns, a call's pieces together, none on the batch's own", async () => {
    const workspace = await newWorkspace();
    const caller = connectorCaller(workspace);
    const batchId = await openBatchWith(caller.key);
    await stageCatalogue(caller.key, batchId, catalogue, { perCall: 20 });
    const batch = { workspaceId: workspace.workspaceId, batchId };
    const [own, ...shards] = chunkPartitions(batch);
    expect(shards).toHaveLength(CHUNK_SHARDS);
    expect(await itemsOn(own as { PK: string; SKPrefix: string })).toEqual([]);
    for (const [shard, partition] of shards.entries()) {
      const sequences = (await itemsOn(partition)).map((item) => Number(String(item.SK).split('#')[1]));
      expect(sequences.length).toBeGreaterThan(0);
      for (const seq of sequences) expect(seq % CHUNK_SHARDS).toBe(shard);
    }
    expect(await chunkKeys(batch)).toHaveLength(CHUNKS);
  });

  it('reads the chunks back in staging order from any checkpoint, each once, the batch’s own partition with its shards', async () => {
    const batch = { workspaceId: `ws_${randomUUID()}`, batchId: randomUUID() };
    // Calls 1–4 staged before the shards, 5–12 on them; call 6 died before its chunk (a gap), calls 2 and 9 came in
    // pieces, and the shards take several reads each.
    const staged: Array<{ seq: number; part: number }> = [];
    for (const seq of [1, 2, 3, 4, 5, 7, 8, 9, 10, 11, 12]) {
      for (let part = 0; part < (seq === 2 || seq === 9 ? 3 : 1); part++) staged.push({ seq, part });
    }
    const data = compressRecords([{ sku: 'A' }]);
    for (const { seq, part } of staged) {
      const key = keys.batchChunk(batch.workspaceId, batch.batchId, seq % CHUNK_SHARDS, seq, part);
      const PK = seq <= 4 ? keys.batchChunkPrefix(batch.workspaceId, batch.batchId).PK : key.PK;
      await putItem({ Item: { ...key, PK, type: 'chunk', entity: 'product', count: 1, data } });
    }
    const inOrder = staged.map(({ seq, part }) => keys.batchChunk(batch.workspaceId, batch.batchId, 0, seq, part).SK);
    expect([...inOrder].sort()).toEqual(inOrder);
    expect(await readToTheEnd(stagedChunksAfter(batch, undefined))).toEqual(inOrder);
    for (const [at, cursor] of inOrder.entries()) {
      expect(await readToTheEnd(stagedChunksAfter(batch, cursor)), `after ${cursor}`).toEqual(inOrder.slice(at + 1));
    }
    expect((await readStagedChunks(batch)).map((item) => item.SK)).toEqual(inOrder);
  });

  it.each([3, 4, 7])(
    'drains a batch staged partly before the shards, dying after chunk %i, and runs again from its checkpoint: each record once',
    async (dieAfter) => {
      // Calls 1–4 (the products, the customers and a first quote chunk) on the batch's own partition.
      const batch = await committedBatch(catalogue, (staged) => stagedBeforeTheShards(staged, 4));
      const dies: DrainHooks = { checkpointEveryMs: 0, afterChunk: dieOnceAt(dieAfter) };
      await expect(batch.run(1, dies)).rejects.toThrow('the invocation died');
      const checkpoint = await getBatch(batch.workspace.workspaceId, batch.batchId);
      const drainedBefore = checkpoint?.drainedCount ?? 0;
      expect(drainedBefore).toBeGreaterThan(0);
      expect(drainedBefore).toBeLessThan(RECORDS);

      // The second attempt applies exactly the chunks after the checkpoint: none lost, none applied twice.
      const second = await batch.run(2, { checkpointEveryMs: 0 });
      expect(second).toMatchObject({ outcome: 'drained', chunks: CHUNKS - dieAfter, records: RECORDS - drainedBefore });
      expect(await getBatch(batch.workspace.workspaceId, batch.batchId)).toMatchObject({ status: 'drained', drainedCount: RECORDS });
      expect(await dumpCanonical(batch.workspace.workspaceId)).toEqual(await cleanDump());
    },
  );

  it("discards on cancel the chunks of every partition, the batch's own included", async () => {
    const workspace = await newWorkspace();
    const caller = connectorCaller(workspace);
    const batchId = await openBatchWith(caller.key);
    await stageCatalogue(caller.key, batchId, catalogue, { perCall: 20 });
    const batch = { workspaceId: workspace.workspaceId, batchId };
    await stagedBeforeTheShards(batch, 3);
    const [own, ...shards] = chunkPartitions(batch);
    expect((await itemsOn(own as { PK: string; SKPrefix: string })).length).toBe(3);
    for (const shard of shards) expect((await itemsOn(shard)).length).toBeGreaterThan(0);

    const response = await call(`${BATCHES_PATH}/${batchId}/cancel`, { method: 'POST', key: caller.key });
    expect(response.status, response.text).toBe(200);
    expect(await chunkKeys(batch)).toEqual([]);
  });
});
