// The bench sections of ingest on the local stack: throughput against raw floors, calls per record, commit-to-fresh lag, the connector loader, the heaviest call.
import { jobCountLines, perThousandRecords } from '#lib/bench/drain-counts.ts';
import { measureHeavyStaging } from '#lib/bench/heavy-staging.ts';
import { type IngestFigures, ingestLines, measureIngest, measureIngestCounts } from '#lib/bench/ingest.ts';
import { lagLines, measureLag } from '#lib/bench/ingest-lag.ts';
import { measureLoader, measureLoaderMemoryOf } from '#lib/bench/loader.ts';
import { section, verdict } from '#lib/bench/section.ts';
import { queues } from '#platform/queues.ts';

const INGEST_RECORDS = Number(process.env.BENCH_INGEST_RECORDS ?? 100_000);
/** The batch whose calls are counted per 1,000 records, with capacity reported per index. */
const COUNT_RECORDS = Number(process.env.BENCH_COUNT_RECORDS ?? 8_000);
/**
 * The nightly batch of the lag figures, and the history (quote and order lines) it lands on besides a fresh workspace.
 * The history-invariance check, 10,000 against 200,000 lines, is opt-in (BENCH_LAG_HISTORY_LINES=10000,200000): the
 * history is loaded through the drain first, and 200,000 lines take most of an hour on today's layout.
 */
/** Rows of the CSV exports whose loading the loader-memory section measures, one of products and one of order lines. */
const LOADER_MEMORY_ROWS = Number(process.env.BENCH_LOADER_MEMORY_ROWS ?? 1_000_000);
const LAG_RECORDS = Number(process.env.BENCH_LAG_RECORDS ?? 1_000);
const LAG_HISTORY_LINES = (process.env.BENCH_LAG_HISTORY_LINES ?? '10000')
  .split(',')
  .map(Number)
  .filter((lines) => lines > 0);

export const ingestSection = section({
  id: 'ingest',
  where: 'in-process',
  heading: `\nIngest on the local stack (${INGEST_RECORDS.toLocaleString('en-US')} mixed records, against two raw BatchWriteItem floors of the same records, each measured warm)`,
  targets: {},
  async measure({ stack }) {
    const local = await stack();
    const small = await measureIngest(local, INGEST_RECORDS / 10, { baseline: false });
    const ingest = await measureIngest(local, INGEST_RECORDS);
    return { ingest, small };
  },
  lines: ({ ingest, small }) => ingestLines(ingest, small, verdict),
  record: ({ ingest, small }) => ({ ingest, ingestSmall: small }),
});

export const ingestCountsSection = section({
  id: 'ingest-counts',
  where: 'in-process',
  heading: `\nIngest counts per 1,000 records (${COUNT_RECORDS.toLocaleString('en-US')} mixed records on a fresh workspace, capacity reported per index; deterministic, unlike the seconds)`,
  targets: {},
  measure: async ({ stack }) => measureIngestCounts(await stack(), COUNT_RECORDS),
  lines: (counted) => jobCountLines(counted.counts, counted.records),
  record: (counted) => ({ ingestCounts: { records: counted.records, ...perThousandRecords(counted.counts, counted.records) } }),
});

export const ingestLagSection = section({
  id: 'ingest-lag',
  where: 'in-process',
  heading: `\nCommit -> prices fresh (${LAG_RECORDS.toLocaleString('en-US')} mixed records: products and customers re-sent, new quotes and orders; on a fresh workspace and on top of history)`,
  targets: {},
  measure: async ({ stack }) => measureLag(await stack(), { batchRecords: LAG_RECORDS, historyLines: LAG_HISTORY_LINES }),
  lines: (lag) => lagLines(lag, verdict),
  record: (lag) => ({ ingestLag: lag }),
});

/** The connector loader may take at most this much longer than the direct staging path on the same records. */
export const loaderSection = section({
  id: 'loader',
  where: 'in-process',
  heading: `\nThe connector loader (the same ${INGEST_RECORDS.toLocaleString('en-US')} records from JSON Lines files, through the typed client)`,
  targets: { overhead: 1.1 },
  async measure({ stack, results }) {
    const loader = await measureLoader(await stack(), INGEST_RECORDS);
    // Run alone (`npm run bench -- loader`), there is no direct figure to hold it to.
    const direct = (results.ingest as IngestFigures | undefined)?.endToEndSeconds;
    return { loader, direct, ratio: direct === undefined ? undefined : loader.endToEndSeconds / direct };
  },
  lines: ({ loader, direct, ratio }, targets) => [
    `  load + commit + drain + bands ${loader.endToEndSeconds.toFixed(1).padStart(6)} s (drain ${loader.drainSeconds.toFixed(1)} s)` +
      (direct === undefined || ratio === undefined
        ? ' (run with the ingest section for the ratio to staging directly)'
        : `, against ${direct.toFixed(1)} s staged directly: ${ratio.toFixed(2)}x   ${verdict(ratio <= targets.overhead)} (<= ${targets.overhead}x)`),
  ],
  record: ({ loader, ratio }) => ({ loader: { ...loader, ratioToDirect: ratio } }),
});

/**
 * The loader's memory, each export in a fresh process: the figure is the process's high-water mark. The network is
 * left out (a stand-in answers each call at once), so that a million rows take seconds rather than the hour that
 * staging and draining them on the local stack would.
 */
export const loaderMemorySection = section({
  id: 'loader-memory',
  where: 'own-process',
  heading: `\nThe connector loader's memory (${LOADER_MEMORY_ROWS.toLocaleString('en-US')}-row CSV exports, streamed, parsed, checked and cut into calls serialised as the client sends them; no network)`,
  targets: {},
  measure: async () => ({
    product: await measureLoaderMemoryOf('product', LOADER_MEMORY_ROWS),
    order: await measureLoaderMemoryOf('order', LOADER_MEMORY_ROWS),
  }),
  lines: (figures) =>
    (['product', 'order'] as const).flatMap((kind) => {
      const run = figures[kind];
      return [
        `  ${`${kind}s`.padEnd(9)} ${run.rows.toLocaleString('en-US')} rows (${run.fileMb} MB, ${run.records.toLocaleString('en-US')} records) in ${run.seconds.toFixed(1)} s: ` +
          `peak RSS ${run.peakRssMb} MB (${run.baselineRssMb} MB before the file), peak heap ${run.peakHeapMb} MB`,
        `            heap retained after a full collection: ${run.firstRetainedHeapMb} MB at the 100th call, at most ${run.peakRetainedHeapMb} MB`,
      ];
    }),
  record: (figures) => ({ loaderMemory: figures }),
});

export const heavyStagingSection = section({
  id: 'heavy-staging',
  where: 'in-process',
  heading: '\nThe heaviest legal staging call (about 10 MB of order lines in one call), staged and drained',
  targets: {},
  measure: async ({ stack }) => measureHeavyStaging(await stack()),
  lines: (heavy) => [
    `  call                    ${(heavy.bodyBytes / 1024 / 1024).toFixed(2)} MB: ${heavy.orders} orders of 1,000 lines = ${heavy.lines.toLocaleString('en-US')} lines, staged as ${heavy.pieces} pieces`,
    `  write units             staging ${Math.round(heavy.stagingWriteUnits).toLocaleString('en-US')} WRU, drain ${Math.round(heavy.drainWriteUnits).toLocaleString('en-US')} WRU (${(heavy.drainWriteUnits / heavy.lines).toFixed(2)} per line); drain reads ${Math.round(heavy.drainReadUnits).toLocaleString('en-US')} RRU`,
    `  drain                   ${heavy.drainSeconds.toFixed(1)} s in ${heavy.drainInvocations} invocation${heavy.drainInvocations === 1 ? '' : 's'} (longest ${heavy.longestDrainSeconds.toFixed(1)} s, timeout ${queues.drain.consumerTimeoutSeconds} s); bands job ${heavy.bandsSeconds.toFixed(1)} s in ${heavy.bandsInvocations} (longest ${heavy.longestBandsSeconds.toFixed(1)} s)`,
    `  cost at list prices     $${heavy.cost.total.toFixed(4)}: DynamoDB writes $${heavy.cost.dynamoDbWrites.toFixed(4)}, reads $${heavy.cost.dynamoDbReads.toFixed(4)}, Lambda $${(heavy.cost.lambdaCompute + heavy.cost.lambdaRequests).toFixed(4)}, API Gateway $${heavy.cost.apiGateway.toFixed(6)}`,
  ],
  record: (heavy) => ({ heavyStaging: heavy }),
});
