// `npm run bench`: the service's speed, size and cost figures, measured on this machine and printed with their targets.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { measureGatewayOverhead } from '#lib/bench/gateway-overhead.ts';
import { benchEngine } from '#lib/bench/engine.ts';
import { measureHeavyStaging } from '#lib/bench/heavy-staging.ts';
import { countingDrainHandler, jobCountLines, perThousandRecords } from '#lib/bench/drain-counts.ts';
import { ingestLines, measureIngest, measureIngestCounts } from '#lib/bench/ingest.ts';
import { lagLines, measureLag } from '#lib/bench/ingest-lag.ts';
import { loadHandler } from '#lib/local/handlers.ts';
import { ledgerLines, measureLedger } from '#lib/bench/ledger.ts';
import { measureLoader } from '#lib/bench/loader.ts';
import { type CostBreakdown, LIST_PRICES_AS_OF, LIST_PRICES_REGION, listPrices } from '#shared/cost/list-prices.ts';
import { measurePriceServing } from '#lib/bench/prices.ts';
import { adherenceLines, measureAdherence } from '#lib/bench/adherence.ts';
import { measureWritebacks } from '#lib/bench/writebacks.ts';
import { synthesizeBundles } from '#lib/stack/bundles.ts';
import { projectRoot } from '#lib/stack/project.ts';
import { startLocalStack } from '#lib/local/stack.ts';
import { logger } from '#platform/observability.ts';
import { queues } from '#platform/queues.ts';
import { workers as queueWorkers } from '#edge/routes.ts';

const BUNDLE_TARGET_KB = 400;
const GATEWAY_OVERHEAD_TARGET_MS = 2;
const INGEST_RECORDS = Number(process.env.BENCH_INGEST_RECORDS ?? 100_000);
/** The batch whose calls are counted per 1,000 records, with capacity reported per index. */
const COUNT_RECORDS = Number(process.env.BENCH_COUNT_RECORDS ?? 8_000);
/**
 * The nightly batch of the lag figures, and the history (quote and order lines) it lands on besides a fresh workspace.
 * The history-invariance check, 10,000 against 200,000 lines, is opt-in (BENCH_LAG_HISTORY_LINES=10000,200000): the
 * history is loaded through the drain first, and 200,000 lines take most of an hour on today's layout.
 */
const LAG_RECORDS = Number(process.env.BENCH_LAG_RECORDS ?? 1_000);
const LAG_HISTORY_LINES = (process.env.BENCH_LAG_HISTORY_LINES ?? '10000')
  .split(',')
  .map(Number)
  .filter((lines) => lines > 0);
/** `npm run bench -- ingest` runs the ingest section alone (with the BENCH_* sizes above); no argument runs them all. */
const ONLY = process.argv[2];
if (ONLY !== undefined && ONLY !== 'ingest') throw new Error(`no bench section "${ONLY}": the one that runs alone is "ingest"`);
/** The connector loader may take at most this much longer than the direct staging path on the same records. */
const LOADER_OVERHEAD_TARGET = 1.1;
const PRICING_RECORDS = Number(process.env.BENCH_PRICING_RECORDS ?? 20_000);
const PRICING_CALLS = Number(process.env.BENCH_PRICING_CALLS ?? 200);
const COST_PER_MILLION_LINES_TARGET = 0.2;
const LATENCY_RATIO_TARGET = 2;
const ENGINE_MICROS_TARGET = 20;
const LEDGER_CALLS = Number(process.env.BENCH_LEDGER_CALLS ?? 200);
/** What accounting may add to a 100-line price call, and how far the report's cost per 1M lines may be from the bench's. */
const LEDGER_OVERHEAD_TARGET_PCT = 2;
const REPORT_AGREEMENT_TARGET = 0.05;
const WRITEBACK_TASKS = Number(process.env.BENCH_WRITEBACK_TASKS ?? 2_000);
const WRITEBACK_CLAIMERS = [1, 10, 50] as const;
const REFUSED_PER_LEASE_TARGET = 1.5;
const ADHERENCE_LINES = Number(process.env.BENCH_ADHERENCE_LINES ?? 100_000);
const WEBHOOK_EVENTS = Number(process.env.BENCH_WEBHOOK_EVENTS ?? 1_000);

function verdict(ok: boolean): string {
  return ok ? 'meets target' : 'MISSES TARGET';
}

const results: Record<string, unknown> = {};

// The sections before the local stack starts run only in a whole run.
if (ONLY === undefined) {
  console.log('Function bundles (esbuild, minified ESM, as deployed)');
  const outdir = mkdtempSync(join(tmpdir(), 'pricing-bundles-'));
  const bundles = synthesizeBundles(outdir);
  rmSync(outdir, { recursive: true, force: true });
  for (const bundle of bundles) {
    const kb = bundle.bytes / 1024;
    console.log(
      `  ${bundle.id.padEnd(24)} ${kb.toFixed(1).padStart(7)} KB   ${verdict(kb <= BUNDLE_TARGET_KB)} (<= ${BUNDLE_TARGET_KB} KB)   ${bundle.entry}`,
    );
  }
  results.bundlesKb = Object.fromEntries(bundles.map((bundle) => [bundle.id, Math.round(bundle.bytes / 102.4) / 10]));

  console.log('\nLocal gateway overhead (no-op route, one keep-alive connection)');
  const overhead = await measureGatewayOverhead(1_000);
  console.log(`  through the gateway   median ${overhead.gatewayMedianMs.toFixed(3)} ms, p99 ${overhead.gatewayP99Ms.toFixed(3)} ms`);
  console.log(`  bare HTTP server      median ${overhead.bareMedianMs.toFixed(3)} ms`);
  console.log(
    `  gateway's own cost    median ${overhead.overheadMedianMs.toFixed(3)} ms per request over ${overhead.requests} requests   ${verdict(overhead.overheadMedianMs <= GATEWAY_OVERHEAD_TARGET_MS)} (<= ${GATEWAY_OVERHEAD_TARGET_MS} ms)`,
  );
  results.gatewayOverhead = overhead;

  // Before the local stack starts: DynamoDB Local's JVM would otherwise share the cores with it, even while stopping.
  console.log('\nPricing engine, in-process');
  const engine = await benchEngine();
  console.log(
    `  priceLine               ${engine.microsPerLine.toFixed(2)} µs per line over ${engine.lines.toLocaleString('en-US')} lines   ${verdict(engine.microsPerLine <= ENGINE_MICROS_TARGET)} (<= ${ENGINE_MICROS_TARGET} µs)`,
  );
  results.engine = engine;
}

console.log(
  `\nIngest on the local stack (${INGEST_RECORDS.toLocaleString('en-US')} mixed records, against two raw BatchWriteItem floors of the same records, each measured warm)`,
);
// Handlers share this process: keep their per-request log lines out of the figures. The logger exists once their
// modules are imported, so its level is set on it rather than through the environment.
logger.setLogLevel('WARN');
// As deployed, the cost ledger flushes once a minute, not after every request as local mode does for `cost report`.
process.env.COST_LEDGER_FLUSH_SECONDS ??= '60';
// The drain worker's calls are counted per job for the workspaces the ingest figures watch; the rest run uncounted.
const drainWorker = queueWorkers.find((worker) => worker.id === 'drain');
const stack = await startLocalStack({
  port: 0,
  workerHandlers: drainWorker ? { drain: countingDrainHandler(await loadHandler(drainWorker.entry)) } : {},
});
try {
  const small = await measureIngest(stack, INGEST_RECORDS / 10, { baseline: false });
  const ingest = await measureIngest(stack, INGEST_RECORDS);
  for (const line of ingestLines(ingest, small, verdict)) console.log(line);
  results.ingest = ingest;
  results.ingestSmall = small;

  console.log(
    `\nIngest counts per 1,000 records (${COUNT_RECORDS.toLocaleString('en-US')} mixed records on a fresh workspace, capacity reported per index; deterministic, unlike the seconds)`,
  );
  const counted = await measureIngestCounts(stack, COUNT_RECORDS);
  for (const line of jobCountLines(counted.counts, counted.records)) console.log(line);
  results.ingestCounts = { records: counted.records, ...perThousandRecords(counted.counts, counted.records) };

  console.log(
    `\nCommit -> prices fresh (${LAG_RECORDS.toLocaleString('en-US')} mixed records: products and customers re-sent, new quotes and orders; on a fresh workspace and on top of history)`,
  );
  const lag = await measureLag(stack, { batchRecords: LAG_RECORDS, historyLines: LAG_HISTORY_LINES });
  for (const line of lagLines(lag, verdict)) console.log(line);
  results.ingestLag = lag;

  if (ONLY === 'ingest') {
    await stack.stop();
    console.log(`\n${JSON.stringify(results)}`);
    process.exit(0);
  }

  console.log(
    `\nThe connector loader (the same ${INGEST_RECORDS.toLocaleString('en-US')} records from JSON Lines files, through the typed client)`,
  );
  const loader = await measureLoader(stack, INGEST_RECORDS);
  const loaderRatio = loader.endToEndSeconds / ingest.endToEndSeconds;
  console.log(
    `  load + commit + drain   ${loader.endToEndSeconds.toFixed(1).padStart(6)} s (drain ${loader.drainSeconds.toFixed(1)} s), against ${ingest.endToEndSeconds.toFixed(1)} s staged directly: ${loaderRatio.toFixed(2)}x   ${verdict(loaderRatio <= LOADER_OVERHEAD_TARGET)} (<= ${LOADER_OVERHEAD_TARGET}x)`,
  );
  results.loader = { ...loader, ratioToDirect: loaderRatio };

  console.log('\nThe heaviest legal staging call (about 10 MB of order lines in one call), staged and drained');
  const heavy = await measureHeavyStaging(stack);
  console.log(
    `  call                    ${(heavy.bodyBytes / 1024 / 1024).toFixed(2)} MB: ${heavy.orders} orders of 1,000 lines = ${heavy.lines.toLocaleString('en-US')} lines, staged as ${heavy.pieces} pieces`,
  );
  console.log(
    `  write units             staging ${Math.round(heavy.stagingWriteUnits).toLocaleString('en-US')} WRU, drain ${Math.round(heavy.drainWriteUnits).toLocaleString('en-US')} WRU (${(heavy.drainWriteUnits / heavy.lines).toFixed(2)} per line); drain reads ${Math.round(heavy.drainReadUnits).toLocaleString('en-US')} RRU`,
  );
  console.log(
    `  drain                   ${heavy.drainSeconds.toFixed(1)} s in ${heavy.drainInvocations} invocation${heavy.drainInvocations === 1 ? '' : 's'} (longest ${heavy.longestDrainSeconds.toFixed(1)} s, timeout ${queues.drain.consumerTimeoutSeconds} s); bands job ${heavy.bandsSeconds.toFixed(1)} s in ${heavy.bandsInvocations} (longest ${heavy.longestBandsSeconds.toFixed(1)} s)`,
  );
  console.log(
    `  cost at list prices     $${heavy.cost.total.toFixed(4)}: DynamoDB writes $${heavy.cost.dynamoDbWrites.toFixed(4)}, reads $${heavy.cost.dynamoDbReads.toFixed(4)}, Lambda $${(heavy.cost.lambdaCompute + heavy.cost.lambdaRequests).toFixed(4)}, API Gateway $${heavy.cost.apiGateway.toFixed(6)}`,
  );
  results.heavyStaging = heavy;

  console.log(
    `\nPrice serving on the local stack (100-line calls, one customer each, on a ${PRICING_RECORDS.toLocaleString('en-US')}-record catalogue)`,
  );
  const pricing = await measurePriceServing(stack, { records: PRICING_RECORDS, calls: PRICING_CALLS });
  console.log(
    `  catalogue               ${pricing.catalogue.products.toLocaleString('en-US')} products, ${pricing.catalogue.customers.toLocaleString('en-US')} customers, ${pricing.catalogue.quotes.toLocaleString('en-US')} quotes, ${pricing.catalogue.orders.toLocaleString('en-US')} orders`,
  );
  console.log(
    `  latency, warm           p50 ${pricing.p50Ms.toFixed(1)} ms, p99 ${pricing.p99Ms.toFixed(1)} ms over ${pricing.calls} calls`,
  );
  console.log(
    `  floor (same keys: one BatchGetItem round + one PutItem of the stored size)   p50 ${pricing.floorP50Ms.toFixed(1)} ms, p99 ${pricing.floorP99Ms.toFixed(1)} ms`,
  );
  console.log(
    `  p50 against the floor   ${pricing.ratioToFloor.toFixed(2)}x   ${verdict(pricing.ratioToFloor <= LATENCY_RATIO_TARGET)} (<= ${LATENCY_RATIO_TARGET}x)`,
  );
  console.log(
    `  per call                ${pricing.readUnits.toFixed(1)} RRU (${pricing.readKeys.toFixed(0)} keys), ${pricing.writeUnits.toFixed(1)} WRU, ${pricing.lambdaMs.toFixed(1)} ms at ${pricing.memoryMb} MB; response ${(pricing.responseBytes / 1024).toFixed(1)} KB, stored ${(pricing.storedBytes / 1024).toFixed(1)} KB`,
  );
  const row = (name: string, ours: number, naive: number) =>
    console.log(`    ${name.padEnd(22)} $${ours.toFixed(4).padStart(8)}   $${naive.toFixed(4).padStart(8)}`);
  const breakdown = (ours: CostBreakdown, naive: CostBreakdown) => {
    console.log(`    ${''.padEnd(22)} ${'this design'.padStart(9)}   ${'naive'.padStart(9)}`);
    row('DynamoDB reads', ours.dynamoDbReads, naive.dynamoDbReads);
    row('DynamoDB writes', ours.dynamoDbWrites, naive.dynamoDbWrites);
    row('Lambda compute', ours.lambdaCompute, naive.lambdaCompute);
    row('Lambda requests', ours.lambdaRequests, naive.lambdaRequests);
    row('API Gateway', ours.apiGateway, naive.apiGateway);
    row('total', ours.total, naive.total);
  };
  console.log(`  cost per 1M priced lines at ${LIST_PRICES_REGION} list prices as of ${LIST_PRICES_AS_OF} (${JSON.stringify(listPrices)})`);
  breakdown(pricing.costPerMillionLines, pricing.naivePerMillionLines);
  console.log(
    `    naive per call: ${pricing.naiveReadUnits.toFixed(0)} RRU (a GetItem per line for the product, the customer and 5 bands), ${pricing.naiveWriteUnits.toFixed(0)} WRU (the response uncompressed, a decision item per line)`,
  );
  console.log(
    `  cost per 1M lines       $${pricing.costPerMillionLines.total.toFixed(3)}   ${verdict(pricing.costPerMillionLines.total <= COST_PER_MILLION_LINES_TARGET)} (<= $${COST_PER_MILLION_LINES_TARGET})`,
  );
  results.pricing = pricing;

  console.log(`\nThe cost ledger on 100-line price calls (flushed as deployed, after 60 s; ${LEDGER_CALLS} calls)`);
  const ledger = await measureLedger(stack, { records: PRICING_RECORDS / 10, calls: LEDGER_CALLS, limitPct: LEDGER_OVERHEAD_TARGET_PCT });
  for (const line of ledgerLines(ledger, { overheadPct: LEDGER_OVERHEAD_TARGET_PCT, agreement: REPORT_AGREEMENT_TARGET }, verdict))
    console.log(line);
  results.ledger = ledger;

  console.log(
    `\nWrite-back tasks on the local stack (${WRITEBACK_TASKS.toLocaleString('en-US')} pending tasks of one connector, claims of 10)`,
  );
  const writebacks = await measureWritebacks(stack, { tasks: WRITEBACK_TASKS, claimers: WRITEBACK_CLAIMERS });
  for (const run of writebacks.runs) {
    const refused =
      run.claimers === 10 ? `   ${verdict(run.refusedPerLease <= REFUSED_PER_LEASE_TARGET)} (<= ${REFUSED_PER_LEASE_TARGET})` : '';
    console.log(
      `  ${String(run.claimers).padStart(2)} claimer${run.claimers === 1 ? ' ' : 's'}            ${Math.round(run.tasksPerSecond).toLocaleString('en-US').padStart(6)} tasks leased/s (${run.seconds.toFixed(2)} s, ${run.claimCalls} claim calls); ${run.refusedPerLease.toFixed(2)} refused writes per lease${refused}; a claim p50 ${run.claimP50Ms.toFixed(0)} ms, p99 ${run.claimP99Ms.toFixed(0)} ms, max ${run.claimMaxMs.toFixed(0)} ms`,
    );
  }
  const wb = writebacks.costPerMillionTasks;
  console.log(
    `  claim + ack per task    ${wb.readUnits.toFixed(2)} RRU, ${wb.writeUnits.toFixed(2)} WRU (10 workers, each task applied: the task, the product's price and its recommendation)`,
  );
  console.log(
    `  cost per 1M tasks       $${wb.total.toFixed(2)}: DynamoDB reads $${wb.dynamoDbReads.toFixed(3)}, writes $${wb.dynamoDbWrites.toFixed(3)}, Lambda $${(wb.lambdaCompute + wb.lambdaRequests).toFixed(3)}, API Gateway $${wb.apiGateway.toFixed(3)}`,
  );
  results.writebacks = writebacks;

  console.log(
    `\nGuidance adherence (${ADHERENCE_LINES.toLocaleString('en-US')} quote lines over a year; \`node lib/bench/adherence.ts\` runs this alone)`,
  );
  const adherence = await measureAdherence({ quoteLines: ADHERENCE_LINES });
  for (const line of adherenceLines(adherence)) console.log(line);
  results.adherence = adherence;
} finally {
  await stack.stop();
}

// On a stack of its own, whose loopback receivers are allowed, in a process of its own: the handlers' shared clients
// still point at the stack that has just stopped. `node lib/bench/webhooks.ts` runs this section alone.
console.log('');
const webhookRun = spawnSync(process.execPath, [join(projectRoot, 'lib/bench/webhooks.ts')], {
  cwd: projectRoot,
  env: { ...process.env, BENCH_WEBHOOK_EVENTS: String(WEBHOOK_EVENTS) },
  encoding: 'utf8',
  stdio: ['ignore', 'pipe', 'inherit'],
});
const webhookLines = webhookRun.stdout.trimEnd().split('\n');
const webhookFigures = webhookLines.pop() ?? '';
console.log(webhookLines.join('\n'));
if (webhookRun.status !== 0) throw new Error(`the webhook bench failed (exit ${webhookRun.status})`);
results.webhooks = JSON.parse(webhookFigures);

console.log(`\n${JSON.stringify(results)}`);
