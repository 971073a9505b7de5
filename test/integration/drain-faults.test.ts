// Drain faults on a local stack of this file's own, whose drain worker can be made to throw or run short of time.
import { AsyncLocalStorage } from 'node:async_hooks';
import { type Message, ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import type { Context, SQSEvent } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createDrainHandler } from '../../functions/workers/drain.ts';
import { localSqsClient } from '#lib/local/queues.ts';
import { type LocalStack, startLocalStack } from '#lib/local/stack.ts';
import { sampleCatalogue } from '#lib/local/sample-catalogue.ts';
import { workers } from '#edge/routes.ts';
import { commitBatch, dumpCanonical, loggedLines, openBatchWith, stageCatalogue, waitForBands, waitForBatch } from './ingest-support.ts';
import { newWorkspace } from './support.ts';
import { type PartitionRegistry, registerPartitionsOf } from './partition-registry.ts';

/** Per batch: what to do after each chunk an attempt applies. */
const faults = new Map<string, (appliedChunks: number, receiveCount: number) => void>();
/**
 * Per batch: how many chunks each invocation applied. On a busy machine an attempt can outlast the short visibility
 * timeout, and the copy of its message that comes back runs beside it: each invocation counts in its own slot.
 */
const applied = new Map<string, Array<{ chunks: number; categories: number }>>();
/** Invocations that applied chunks; a message that arrived before its commit's state change and was looked at again applies none. */
const chunksPerInvocation = (batchId: string) => (applied.get(batchId) ?? []).map((slot) => slot.chunks).filter((count) => count > 0);
/** Batches whose invocations run short of time once they have applied two chunks. */
const shortOfTime = new Set<string>();
/** The invocation a hook runs in: invocations run concurrently in one process. */
const thisInvocation = new AsyncLocalStorage<{ chunks: number; categories: number }>();

/** Per batch: what to do after each quote or order chunk's adherence an attempt folds, before its checkpoint. */
const adherenceFaults = new Map<string, (folds: number, receiveCount: number) => void>();
const folds = new Map<string, number>();

/** Per batch: what to do after each category's bands an attempt writes; and how many each invocation wrote. */
const bandFaults = new Map<string, (categories: number, receiveCount: number) => void>();
/** Per batch: what to do once an attempt has set `pricesFreshAt`, before the recommendations. */
const freshFaults = new Map<string, (receiveCount: number) => void>();
const bandCategories = (batchId: string) => (applied.get(batchId) ?? []).map((slot) => slot.categories).filter((count) => count > 0);

// These tests inject faults chunk by chunk: every chunk is checkpointed as it is written. Faults between a chunk's
// writes and a later checkpoint have tests of their own (drain-checkpoints.test.ts).
const drain = createDrainHandler({
  checkpointEveryMs: 0,
  afterAdherence: (invocation) => {
    const { batchId } = invocation.message;
    folds.set(batchId, (folds.get(batchId) ?? 0) + 1);
    adherenceFaults.get(batchId)?.(folds.get(batchId) ?? 0, invocation.receiveCount);
  },
  afterBandCategory: (categories, invocation) => {
    const slot = thisInvocation.getStore();
    if (slot) slot.categories = categories;
    bandFaults.get(invocation.message.batchId)?.(categories, invocation.receiveCount);
  },
  afterPricesFresh: (invocation) => freshFaults.get(invocation.message.batchId)?.(invocation.receiveCount),
  afterChunk: (appliedChunks, invocation) => {
    const slot = thisInvocation.getStore();
    if (slot) slot.chunks = appliedChunks;
    faults.get(invocation.message.batchId)?.(appliedChunks, invocation.receiveCount);
  },
});

/** The deployed handler, with the clock of the invocation bent for the batches under test. */
async function drainUnderTest(event: SQSEvent, context: Context) {
  const batchId = (JSON.parse(event.Records[0]?.body ?? '{}') as { batchId?: string }).batchId ?? '';
  const slot = { chunks: 0, categories: 0 };
  applied.set(batchId, [...(applied.get(batchId) ?? []), slot]);
  return thisInvocation.run(slot, () =>
    drain(event, {
      ...context,
      getRemainingTimeInMillis: () => (shortOfTime.has(batchId) && slot.chunks >= 2 ? 1_000 : context.getRemainingTimeInMillis()),
    }),
  );
}

// Each test ingests and drains two batches, through redeliveries a second apart: on a busy machine that takes longer
// than the project's default allows, and how long it takes is no part of what these tests check.
vi.setConfig({ testTimeout: 240_000 });

let stack: LocalStack;
let registry: PartitionRegistry | undefined;
const base = () => stack.gatewayUrl;

beforeAll(async () => {
  // A one-second visibility timeout brings a failed message back at once instead of after twelve minutes. The drain
  // worker alone runs: webhook fan-out would share the process and DynamoDB Local with the invocations timed here.
  stack = await startLocalStack({
    port: 0,
    visibilityTimeoutSeconds: 1,
    workers: workers.filter((worker) => worker.id === 'drain'),
    workerHandlers: { drain: drainUnderTest },
    tableKeysStream: true,
  });
  registry = await registerPartitionsOf(stack);
}, 240_000);

afterAll(async () => {
  await registry?.stop();
  await stack?.stop();
});

const catalogue = sampleCatalogue({ products: 60, customers: 15, quotes: 60, orders: 100 }, { seed: 3 });

async function ingest(setUp?: (batchId: string) => void, options: { bands?: boolean } = {}) {
  const workspace = await newWorkspace();
  const key = workspace.keys.connector;
  const batchId = await openBatchWith(key, base());
  await stageCatalogue(key, batchId, catalogue, { perCall: 20, baseUrl: base() });
  setUp?.(batchId);
  await commitBatch(key, batchId, base());
  const status = await waitForBatch(key, batchId, ['drained', 'failed'], { baseUrl: base(), timeoutMs: 90_000 });
  if (options.bands) await waitForBands(key, batchId, { baseUrl: base(), timeoutMs: 90_000 });
  return { workspace, batchId, status };
}

describe('a drain that fails part way', () => {
  it('resumes from its checkpoint on redelivery and ends with the same canonical data as a clean run', async () => {
    const clean = await ingest();
    expect(clean.status).toMatchObject({ status: 'drained', drainedCount: 235 });

    let thrown = 0;
    const faulty = await ingest((batchId) =>
      faults.set(batchId, (appliedChunks) => {
        if (thrown === 0 && appliedChunks === 4) {
          thrown += 1;
          throw new Error('injected fault after 4 chunks');
        }
      }),
    );
    expect(faulty.status).toMatchObject({ status: 'drained', recordCount: 235, drainedCount: 235 });
    expect(thrown).toBe(1);
    // 12 chunks in all (60/20 + 15/20 + 60/20 + 100/20); the attempts after the first started after the four it
    // finished. On a busy machine an attempt can outlast the short visibility timeout and its message come back while
    // it runs: then two attempts share the remaining eight, and neither starts over.
    const [first, ...later] = chunksPerInvocation(faulty.batchId);
    expect(first).toBe(4);
    expect(later.length).toBeGreaterThan(0);
    for (const chunks of later) expect(chunks).toBeLessThanOrEqual(8);
    expect(later.reduce((sum, chunks) => sum + chunks, 0)).toBeGreaterThanOrEqual(8);

    const [cleanDump, faultyDump] = await Promise.all([
      dumpCanonical(clean.workspace.workspaceId),
      dumpCanonical(faulty.workspace.workspaceId),
    ]);
    expect(faultyDump).toEqual(cleanDump);
    const documents = faultyDump.filter((item) => item.type === 'quoteDocument' || item.type === 'orderDocument');
    expect(documents).toHaveLength(catalogue.quote.length + catalogue.order.length);
    const logged = loggedLines(faultyDump);
    const expectedLines = [...catalogue.quote, ...catalogue.order].reduce((sum, record) => sum + record.lines.length, 0);
    expect(logged).toHaveLength(expectedLines);
  });

  it('counts a chunk whose adherence was folded before a fault once, when the redelivered drain applies it again', async () => {
    const clean = await ingest();
    let thrown = 0;
    const faulty = await ingest((batchId) =>
      adherenceFaults.set(batchId, (foldsSoFar) => {
        // The second quote chunk: its aggregates and attributions are written, its checkpoint is not.
        if (thrown === 0 && foldsSoFar === 2) {
          thrown += 1;
          throw new Error('injected fault between the fold and the checkpoint');
        }
      }),
    );
    expect(faulty.status).toMatchObject({ status: 'drained', drainedCount: 235 });
    expect(thrown).toBe(1);
    // Eight quote and order chunks, and the one that faulted applied again on redelivery.
    expect(folds.get(faulty.batchId)).toBeGreaterThanOrEqual(9);
    const aggregates = async (workspaceId: string) =>
      (await dumpCanonical(workspaceId)).filter((item) => item.type === 'adherenceAggregate' || item.type === 'quoteAdherence');
    const [cleanAggregates, faultyAggregates] = await Promise.all([
      aggregates(clean.workspace.workspaceId),
      aggregates(faulty.workspace.workspaceId),
    ]);
    expect(faultyAggregates.length).toBeGreaterThan(0);
    expect(faultyAggregates).toEqual(cleanAggregates);
    const lines = catalogue.quote.reduce((sum, record) => sum + record.lines.length, 0);
    const overall = faultyAggregates.filter((item) => String(item.SK).startsWith('overall#'));
    expect(overall.reduce((sum, item) => sum + Number(item.unguided_n ?? 0) + Number(item.unattributed_n ?? 0), 0)).toBe(lines);
  });

  it('fails the batch with a readable error after three attempts and leaves the message in the dead-letter queue', async () => {
    const failing = await ingest((batchId) =>
      faults.set(batchId, () => {
        throw new Error('injected fault on every attempt');
      }),
    );
    expect(failing.status).toMatchObject({ status: 'failed', recordCount: 235 });
    expect(failing.status.error).toMatch(/^The drain failed after 3 attempts/);
    expect(failing.status.error).not.toMatch(/injected/);
    expect(chunksPerInvocation(failing.batchId)).toEqual([1, 1, 1]);

    // Read to the end: the other tests' jobs may have parked messages of their own, more than one receive returns.
    const sqs = localSqsClient(stack.sqsEndpoint);
    const Messages: Message[] = [];
    for (;;) {
      const received = await sqs.send(
        new ReceiveMessageCommand({ QueueUrl: stack.queues.drain.deadLetterUrl, MaxNumberOfMessages: 10, MessageAttributeNames: ['All'] }),
      );
      if (!received.Messages?.length) break;
      Messages.push(...received.Messages);
    }
    sqs.destroy();
    const parked = Messages.filter((message) => message.Body?.includes(failing.batchId));
    expect(parked).toHaveLength(1);
    expect(parked[0]?.MessageAttributes?.reason?.StringValue).toMatch(/failed after 3 attempts/);
  });
});

/** The bands a workspace holds, by category, with what does not depend on when they were computed. */
async function bandsOf(workspaceId: string) {
  const { readAllCategoryBands } = await import('#shared/bands/repository.ts');
  const stored = await readAllCategoryBands(workspaceId);
  return Object.fromEntries(
    stored.map((entry) => [
      entry.category,
      {
        target: entry.band?.target,
        nEff: Number(entry.band?.nEff.toFixed(3)),
        segments: [...entry.segments.keys()].sort(),
      },
    ]),
  );
}

/** Every product's recommendation, less what differs between two runs: when it was computed, and its decision id. */
async function recommendationsOf(workspaceId: string) {
  const items = (await dumpCanonical(workspaceId, { derived: true })).filter((item) => item.type === 'recommendation');
  return items.map((item) => {
    const { updatedAt: _at, pricingDecisionId: _id, ...rest } = (item.packed ?? item) as Record<string, unknown>;
    return rest;
  });
}

describe('a bands job that fails part way', () => {
  it('resumes after the last category it finished and ends with the bands of a clean run, the batch drained all along', async () => {
    const clean = await ingest(undefined, { bands: true });
    let thrown = 0;
    const faulty = await ingest(
      (batchId) =>
        bandFaults.set(batchId, (categories) => {
          if (thrown === 0 && categories === 3) {
            thrown += 1;
            throw new Error('injected fault after 3 categories');
          }
        }),
      { bands: true },
    );
    expect(faulty.status).toMatchObject({ status: 'drained', drainedCount: 235 });
    expect(thrown).toBe(1);
    // Eight categories: three before the fault, the other five on redelivery, none of the three again.
    expect(bandCategories(faulty.batchId)).toEqual([3, 5]);
    const bands = await bandsOf(faulty.workspace.workspaceId);
    expect(Object.keys(bands)).toHaveLength(8);
    expect(bands).toEqual(await bandsOf(clean.workspace.workspaceId));
    // The recommendations follow the bands: every product has one, as in the clean run.
    const recommendations = await recommendationsOf(faulty.workspace.workspaceId);
    expect(recommendations).toHaveLength(60);
    expect(recommendations).toEqual(await recommendationsOf(clean.workspace.workspaceId));
  });
});

describe('a bands job that fails after its bands, before the recommendations', () => {
  it('keeps prices fresh from its first attempt and, redelivered, refreshes the recommendations without recomputing the bands', async () => {
    const clean = await ingest(undefined, { bands: true });
    let thrown = 0;
    const faulty = await ingest(
      (batchId) =>
        freshFaults.set(batchId, () => {
          if (thrown === 0) {
            thrown += 1;
            throw new Error('injected fault after the bands');
          }
        }),
      { bands: true },
    );
    expect(thrown).toBe(1);
    // All eight categories in the first attempt, none again on redelivery.
    expect(bandCategories(faulty.batchId)).toEqual([8]);
    const status = (await waitForBatch(faulty.workspace.keys.connector, faulty.batchId, ['drained'], { baseUrl: base() })) as {
      pricesFreshAt?: string;
      bandsRecomputedAt?: string;
    };
    expect(Date.parse(status.pricesFreshAt ?? '')).toBeLessThanOrEqual(Date.parse(status.bandsRecomputedAt ?? ''));
    expect(await bandsOf(faulty.workspace.workspaceId)).toEqual(await bandsOf(clean.workspace.workspaceId));
    const recommendations = await recommendationsOf(faulty.workspace.workspaceId);
    expect(recommendations).toHaveLength(60);
    expect(recommendations).toEqual(await recommendationsOf(clean.workspace.workspaceId));
  });
});

describe('a drain that runs short of time', () => {
  it('hands the rest of the batch to a fresh invocation from its checkpoint', async () => {
    const { batchId, status, workspace } = await ingest((id) => shortOfTime.add(id));
    expect(status).toMatchObject({ status: 'drained', drainedCount: 235 });
    // Twelve chunks: each invocation stops within a chunk of running short, and the next takes over from its checkpoint.
    const perInvocation = chunksPerInvocation(batchId);
    expect(perInvocation.reduce((sum, count) => sum + count, 0)).toBe(12);
    expect(perInvocation.length).toBeGreaterThanOrEqual(4);
    for (const count of perInvocation) expect(count).toBeLessThanOrEqual(3);
    const products = (await dumpCanonical(workspace.workspaceId)).filter((item) => item.type === 'product');
    expect(products).toHaveLength(60);
  });
});
