// The pricing-quality bench's program: simulated markets with a known chance of winning, priced through the local stack and scored against the oracle.
import { parseArgs } from 'node:util';
import { writeFileSync } from 'node:fs';
import { startLocalStack } from '#lib/local/stack.ts';
import { type Family, families, fullSize, type MarketSize, quickSize } from './market.ts';
import { printQualityReports, qualityReports } from './report.ts';
import { parseSeedSets, seedsOf } from './seeds.ts';
import { runMarketInProcess } from './in-process.ts';
import { type MarketResult, runMarket } from './run.ts';

/** Markets ingested at once on the one stack: the drains and bands jobs of two keep both cores busy. */
const MARKETS_AT_ONCE = 3;

interface Job {
  readonly family: Family;
  readonly seed: number;
}

/** Runs the markets `args` choose (--seeds, --set, --family, --quick, --json FILE, --in-process) and prints the report. */
export async function runQualityBench(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: {
      seeds: { type: 'string' },
      set: { type: 'string' },
      family: { type: 'string' },
      quick: { type: 'boolean', default: false },
      json: { type: 'string' },
      'in-process': { type: 'boolean', default: false },
    },
  });

  const quick = values.quick ?? false;
  const seedCount = Number(values.seeds ?? (quick ? 3 : 10));
  const seeds = parseSeedSets(values.set).flatMap((set) => seedsOf(set, seedCount));
  const chosen = values.family === undefined ? [...families] : values.family.split(',');
  for (const family of chosen) {
    if (!(families as readonly string[]).includes(family)) throw new Error(`--family takes ${families.join(', ')}; not ${family}`);
  }
  const size = quick ? quickSize : fullSize;

  const started = performance.now();
  process.env.LOG_LEVEL ??= 'ERROR';
  process.env.POWERTOOLS_LOG_LEVEL ??= 'ERROR';
  const jobs = chosen.flatMap((family) => seeds.map((seed) => ({ family: family as Family, seed })));
  const results: MarketResult[] = [];
  if (values['in-process']) {
    // The method alone, in seconds: no stack, no API (see docs/pricing-method.md).
    for (const job of jobs) results.push(runMarketInProcess(job.family, job.seed, size));
  } else {
    await runOnStack(jobs, size, results);
  }

  const reports = qualityReports(results, (performance.now() - started) / 1000);
  console.log(printQualityReports(reports));
  if (values.json) writeFileSync(values.json, `${JSON.stringify(reports, null, 2)}\n`);
}

async function runOnStack(jobs: readonly Job[], size: MarketSize, results: MarketResult[]): Promise<void> {
  const stack = await startLocalStack({ port: 0 });
  try {
    let next = 0;
    const worker = async () => {
      while (next < jobs.length) {
        const job = jobs[next++];
        if (!job) break;
        const result = await runMarket(stack, job.family, job.seed, size);
        results.push(result);
        process.stderr.write(`  ${job.family} seed ${job.seed}: ${result.seconds.toFixed(1)} s\n`);
      }
    };
    await Promise.all(Array.from({ length: MARKETS_AT_ONCE }, worker));
  } finally {
    await stack.stop();
  }
}
