// The bench's runner: runs the table's sections in order (all of them, or the ones a selection names), printing each's heading, lines and, at the end, every figure as one JSON line.
import { countingDrainHandler } from '#lib/bench/drain-counts.ts';
import type { BenchContext, BenchSection } from '#lib/bench/section.ts';
import {
  heavyStagingSection,
  ingestCountsSection,
  ingestLagSection,
  ingestSection,
  loaderMemorySection,
  loaderSection,
} from '#lib/bench/sections/ingest.ts';
import { bundlesSection, engineSection, gatewayOverheadSection } from '#lib/bench/sections/machine.ts';
import { adherenceSection, ledgerSection, pricesSection, writebacksSection } from '#lib/bench/sections/serving.ts';
import { repricingSection } from '#lib/bench/sections/repricing.ts';
import { scaleSection } from '#lib/bench/sections/scale.ts';
import { webhooksSection } from '#lib/bench/sections/webhooks.ts';
import { loadHandler } from '#lib/local/handlers.ts';
import { type LocalStack, startLocalStack } from '#lib/local/stack.ts';
import { workers as queueWorkers } from '#edge/routes.ts';
import { logger } from '#platform/observability.ts';

/** Every section, in the order a whole run measures them. */
const benchSections: readonly BenchSection[] = [
  bundlesSection,
  gatewayOverheadSection,
  engineSection,
  ingestSection,
  ingestCountsSection,
  repricingSection,
  ingestLagSection,
  loaderSection,
  heavyStagingSection,
  pricesSection,
  ledgerSection,
  writebacksSection,
  adherenceSection,
  webhooksSection,
  loaderMemorySection,
  scaleSection,
];

/**
 * What `npm run bench -- <name>` runs alone (with the BENCH_* sizes): a section's id, `ingest` for its three
 * sections, or `loader` for the loader's time and memory; no argument runs every section.
 */
const selections: Readonly<Record<string, readonly string[]>> = {
  ...Object.fromEntries(benchSections.map((row) => [row.id, [row.id]])),
  ingest: [ingestSection.id, ingestCountsSection.id, ingestLagSection.id],
  loader: [loaderSection.id, loaderMemorySection.id],
};

export async function runBench(args: string[]): Promise<void> {
  const only = args[0];
  const selected = only === undefined ? undefined : selections[only];
  if (only !== undefined && !selected) throw new Error(`no bench section "${only}": one of ${Object.keys(selections).join(', ')}`);
  const sections = selected ? benchSections.filter((row) => selected.includes(row.id)) : benchSections;
  const results: Record<string, unknown> = {};
  const stack = sharedStack();
  const context: BenchContext = { stack: stack.get, results, args: args.slice(1) };
  const runSection = async (row: BenchSection) => {
    console.log(row.heading);
    const figures = await row.measure(context, row.targets);
    for (const line of row.lines(figures, row.targets)) console.log(line);
    Object.assign(results, row.record(figures));
  };
  try {
    for (const row of sections.filter((row) => row.where === 'in-process')) await runSection(row);
  } finally {
    await stack.stop();
  }
  for (const row of sections.filter((row) => row.where === 'own-process')) await runSection(row);
  console.log(`\n${JSON.stringify(results)}`);
  if (selected) process.exit(0);
}

/** The local stack the in-process sections share: started when the first asks for it, stopped once they are done. */
function sharedStack() {
  let started: Promise<LocalStack> | undefined;
  return {
    get: () => (started ??= startStack()),
    async stop() {
      const stack = await started?.catch(() => undefined);
      await stack?.stop();
    },
  };
}

async function startStack(): Promise<LocalStack> {
  // Handlers share this process: keep their per-request log lines out of the figures. The logger exists once their
  // modules are imported, so its level is set on it rather than through the environment.
  logger.setLogLevel('WARN');
  // As deployed, the cost ledger flushes once a minute, not after every request as local mode does for `cost report`.
  process.env.COST_LEDGER_FLUSH_SECONDS ??= '60';
  // As deployed too: instances lease blocks of the monthly quota and keep the bands a price call reads for 5 s (local
  // mode turns both off so that tests see usage and bands at once); the freshness figures add the cache's time.
  process.env.QUOTA_LEASE_LINES ??= '5000';
  process.env.PRICE_BANDS_CACHE_SECONDS ??= '5';
  // The drain worker's calls are counted per job for the workspaces the ingest figures watch; the rest run uncounted.
  const drainWorker = queueWorkers.find((worker) => worker.id === 'drain');
  return startLocalStack({
    port: 0,
    workerHandlers: drainWorker ? { drain: countingDrainHandler(await loadHandler(drainWorker.entry)) } : {},
  });
}
