// Benchmark: one batch ingested as a connector would (stage in waves, commit, drained, bands), timed and counted.
import type { LocalStack } from '#lib/local/stack.ts';
import type { SampleCatalogue } from '#lib/local/sample-catalogue.ts';
import { entityKinds, type EntityKind } from '#shared/records/schema.ts';
import { type JobCounts, watchWorkspace } from './drain-counts.ts';
import { keepAliveClient } from './measure.ts';

export const RECORDS_PER_CALL = 1000;
/** Staging calls a connector keeps in flight; the drain is what takes the time, not staging. */
const STAGING_CONCURRENCY = 4;

interface StagingCall {
  readonly entity: EntityKind;
  readonly body: string;
  readonly recordsJsonBytes: number;
}

function stagingCalls(catalogue: SampleCatalogue): StagingCall[][] {
  // One wave per kind: kinds are staged in rank order, calls of one kind in parallel.
  return entityKinds.map((entity) => {
    const records = catalogue[entity];
    const calls: StagingCall[] = [];
    for (let start = 0; start < records.length; start += RECORDS_PER_CALL) {
      const slice = records.slice(start, start + RECORDS_PER_CALL);
      calls.push({ entity, body: JSON.stringify({ entity, records: slice }), recordsJsonBytes: Buffer.byteLength(JSON.stringify(slice)) });
    }
    return calls;
  });
}

/**
 * What the work holds on to while it runs: once a second the heap is collected and what survives is sampled, so the
 * figure is retained memory, not garbage waiting for a collection. The peak above the starting point is reported.
 */
async function retainedHeapPeakDuring<T>(run: () => Promise<T>): Promise<{ result: T; peakMb: number }> {
  const collect = globalThis.gc ?? (() => undefined);
  collect();
  const start = process.memoryUsage().heapUsed;
  let peak = start;
  const timer = setInterval(() => {
    collect();
    peak = Math.max(peak, process.memoryUsage().heapUsed);
  }, 1000);
  try {
    const result = await run();
    return { result, peakMb: (peak - start) / 1024 / 1024 };
  } finally {
    clearInterval(timer);
  }
}

/** One batch staged, committed, drained and its bands recomputed, as a connector would see it, with the drain worker's counts. */
export interface BatchRun {
  readonly batchId: string;
  readonly calls: number;
  readonly stagedJsonKb: number;
  readonly stagingSeconds: number;
  /** Staged until the status reads `drained`, and from then until it shows the bands recomputed, as polled. */
  readonly drainSeconds: number;
  readonly bandsSeconds: number;
  /**
   * From the service's own moments: commit until drained, until price calls answer from the new bands
   * (`pricesFreshAt`), and until the bands job is done, the recommendations too (`bandsRecomputedAt`).
   */
  readonly commitToDrainedSeconds: number;
  readonly commitToFreshSeconds: number;
  readonly commitToRecomputedSeconds: number;
  readonly counts: JobCounts;
  readonly drainHeapPeakMb: number;
  readonly bandsHeapPeakMb: number;
}

interface BatchStatus {
  status: string;
  committedAt?: string;
  drainedAt?: string;
  pricesFreshAt?: string;
  bandsRecomputedAt?: string;
}

type KeepAliveClient = ReturnType<typeof keepAliveClient>;

/** Stages the waves in order, each wave's calls spread over the clients, one call per client at a time. */
async function stageWaves(
  clients: readonly KeepAliveClient[],
  waves: readonly StagingCall[][],
  path: string,
  headers: Record<string, string>,
) {
  for (const wave of waves) {
    let next = 0;
    await Promise.all(
      clients.map(async (staging) => {
        while (next < wave.length) {
          const call = wave[next++] as StagingCall;
          const response = await staging.send('POST', path, headers, call.body);
          if (response.status !== 202) throw new Error(`staging answered ${response.status}: ${response.body}`);
        }
      }),
    );
  }
}

/** Reads the batch's status every 50 ms until `done` says so; answers the status that did. */
async function pollUntil(status: () => Promise<BatchStatus>, done: (current: BatchStatus) => boolean): Promise<BatchStatus> {
  for (;;) {
    const current = await status();
    if (done(current)) return current;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The batch's times from the service's own moments, counted from its commit. */
function serviceMoments(
  status: BatchStatus,
): Pick<BatchRun, 'commitToDrainedSeconds' | 'commitToFreshSeconds' | 'commitToRecomputedSeconds'> {
  const moment = (at: string | undefined) => Date.parse(at ?? '') / 1000;
  return {
    commitToDrainedSeconds: moment(status.drainedAt) - moment(status.committedAt),
    // The job stamps the rate shards before `pricesFreshAt`, and a price call's rate write brings the stamp back: its
    // instance reads the bands again then, whatever its cache's time to live. The recommendations come after.
    commitToFreshSeconds: moment(status.pricesFreshAt) - moment(status.committedAt),
    commitToRecomputedSeconds: moment(status.bandsRecomputedAt) - moment(status.committedAt),
  };
}

/**
 * Stages a catalogue in calls of 1,000 records, kinds in rank order and calls of one kind four at a time, commits it,
 * and waits for the drain and the bands job, counting the drain worker's calls for the workspace meanwhile. With
 * `indexes`, DynamoDB reports capacity per index (slower); with `heap`, the retained heap is sampled (a collection a
 * second).
 */
export async function ingestBatch(
  stack: LocalStack,
  connectorKey: string,
  workspaceId: string,
  catalogue: SampleCatalogue,
  options: { indexes?: boolean; heap?: boolean } = {},
): Promise<BatchRun> {
  const headers = { authorization: `Bearer ${connectorKey}`, 'content-type': 'application/json' };
  const clients = Array.from({ length: STAGING_CONCURRENCY }, () => keepAliveClient(stack.gatewayUrl));
  const client = clients[0] as (typeof clients)[number];
  const watch = watchWorkspace(workspaceId, { indexes: options.indexes === true });
  const during = options.heap ? retainedHeapPeakDuring : async <T>(run: () => Promise<T>) => ({ result: await run(), peakMb: Number.NaN });
  try {
    const waves = stagingCalls(catalogue);
    const opened = await client.send('POST', '/api/v1/ingest/batches', headers);
    const batchId = (JSON.parse(opened.body) as { batchId: string }).batchId;
    // A status read the busy machine answers late (503) is read again.
    const status = async (): Promise<BatchStatus> => {
      const response = await client.send('GET', `/api/v1/ingest/batches/${batchId}`, headers);
      return response.status === 200 ? (JSON.parse(response.body) as BatchStatus) : { status: 'unknown' };
    };

    const started = performance.now();
    await stageWaves(clients, waves, `/api/v1/ingest/batches/${batchId}/records`, headers);
    const staged = performance.now();
    const drain = await during(async () => {
      const committed = await client.send('POST', `/api/v1/ingest/batches/${batchId}/commit`, headers);
      if (committed.status !== 202) throw new Error(`commit answered ${committed.status}`);
      await pollUntil(status, (current) => {
        if (current.status === 'failed') throw new Error(`the batch failed: ${JSON.stringify(current)}`);
        return current.status === 'drained';
      });
    });
    const drained = performance.now();
    // The bands job follows the drain: how long after `drained` the bands of what the batch touched are current.
    const bands = await during(() => pollUntil(status, (current) => Boolean(current.bandsRecomputedAt)));
    const bandsReady = performance.now();
    await watch.counts.settled();
    const calls = waves.flat();
    return {
      batchId,
      calls: calls.length,
      stagedJsonKb: calls.reduce((sum, call) => sum + call.recordsJsonBytes, 0) / 1024,
      stagingSeconds: (staged - started) / 1000,
      drainSeconds: (drained - staged) / 1000,
      bandsSeconds: (bandsReady - drained) / 1000,
      ...serviceMoments(bands.result),
      counts: watch.counts,
      drainHeapPeakMb: drain.peakMb,
      bandsHeapPeakMb: bands.peakMb,
    };
  } finally {
    watch.stop();
    for (const each of clients) each.close();
  }
}
