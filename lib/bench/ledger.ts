// The cost ledger's own cost on 100-line price calls, at the deployed flush age, and the report's cost per 1M priced lines against the bench's own figure.
import { randomUUID } from 'node:crypto';
import { type CostCounts, costCounters, emptyCounts } from '#shared/cost/counts.ts';
import { chargeWork, flushCosts, FLUSH_WRITE_UNITS } from '#shared/cost/ledger.ts';
import { readCostLedger } from '#shared/cost/repository.ts';
import { buildCostReport } from '#shared/cost/report.ts';
import { listenToRequestCosts, type RequestCost } from '#platform/observability.ts';
import { routeById } from '#edge/routes.ts';
import { CapacityLedger } from '#platform/meter.ts';
import { createWorkspaceWithKeys } from '#lib/local/seed.ts';
import type { LocalStack } from '#lib/local/stack.ts';
import { mixFor, sampleCatalogue } from '#lib/local/sample-catalogue.ts';
import { costAtListPrices, gbSecondsOf, HTTP_API_METERING_BYTES, listPrices } from '#shared/cost/list-prices.ts';
import { keepAliveClient } from './measure.ts';
import { ingest, planCalls } from './prices.ts';

const WARMUP_CALLS = 10;
/** As deployed: an instance flushes an item once its oldest count is this old. */
const DEPLOYED_FLUSH_SECONDS = 60;

export interface LedgerFigures {
  readonly calls: number;
  /** Calls a second this run made on its one instance. */
  readonly callsPerSecond: number;
  /** What one 100-line call costs at list prices, from its own cost lines. */
  readonly dollarsPerCall: number;
  /** The flush DynamoDB charged, for the one item the calls left pending. */
  readonly flushWriteUnits: number;
  readonly flushMs: number;
  /** Write units the ledger adds per call at the deployed flush age and this run's call rate. */
  readonly addedWriteUnitsPerCall: number;
  readonly addedReadUnitsPerCall: number;
  /** Counting a call in memory, per call: Lambda time the ledger adds. */
  readonly countingMicrosPerCall: number;
  readonly addedDollarsPerCall: number;
  readonly overheadPct: number;
  /** The fewest calls a minute per instance and (workspace, route) for which the overhead stays within `limitPct`. */
  readonly callsPerMinuteAtLimit: number;
  readonly limitPct: number;
  /** Per 1M priced lines: the report's, from the ledger items the calls left, and the bench's own, from their cost lines. */
  readonly reportPerMillionLines: number;
  readonly benchPerMillionLines: number;
  readonly reportToBench: number;
}

function diff(after: CostCounts, before: CostCounts): CostCounts {
  const counts = emptyCounts();
  for (const counter of costCounters) counts[counter] = after[counter] - before[counter];
  return counts;
}

async function priceLinesCounts(workspaceId: string, day: string): Promise<CostCounts> {
  const rows = await readCostLedger(workspaceId, day, day);
  return rows.find((row) => row.route === 'priceLines')?.counts ?? emptyCounts();
}

/** How long counting one call in the instance's pending ledger takes, on this machine. */
function countingMicros(): number {
  const work = {
    workspaceId: 'ws_bench_counting',
    route: 'priceLines',
    status: 200,
    capacity: new CapacityLedger(),
    durationMs: 30,
    apiRequests: 1,
  };
  const rounds = 100_000;
  const started = performance.now();
  for (let index = 0; index < rounds; index++) chargeWork({ ...work, nowMs: Date.now() });
  return ((performance.now() - started) * 1000) / rounds;
}

/** What one measured run of price calls gives: the calls' costs as they were counted, the flush, and the ledger's own counts. */
interface LedgerRun {
  readonly workspaceId: string;
  readonly day: string;
  readonly costs: readonly RequestCost[];
  readonly meteredRequests: readonly number[];
  readonly seconds: number;
  readonly flushed: Awaited<ReturnType<typeof flushCosts>>;
  readonly flushMs: number;
  readonly measured: ReturnType<typeof diff>;
  readonly limitPct: number;
}

/** The figures of a run: the bench's own cost against the ledger's report, and what the counting adds to a call. */
function ledgerFigures({
  workspaceId,
  day,
  costs,
  meteredRequests,
  seconds,
  flushed,
  flushMs,
  measured,
  limitPct,
}: LedgerRun): LedgerFigures {
  const calls = costs.length;
  const memoryMb = routeById('priceLines').memoryMb;
  const bench = costAtListPrices({
    readUnits: costs.reduce((sum, cost) => sum + cost.ledger.readUnits, 0),
    writeUnits: costs.reduce((sum, cost) => sum + cost.ledger.writeUnits, 0),
    gbSeconds: costs.reduce((sum, cost) => sum + gbSecondsOf(cost.durationMs, memoryMb), 0),
    invocations: calls,
    meteredRequests: meteredRequests.reduce((sum, count) => sum + count, 0),
  });
  const lines = costs.reduce((sum, cost) => sum + cost.ledger.pricedLines, 0);
  const report = buildCostReport(workspaceId, { from: day, to: day, by: 'route' }, [{ day, route: 'priceLines', counts: measured }]);
  const reportPerMillionLines = report.routes[0]?.cost_per_million_priced_lines ?? NaN;
  const benchPerMillionLines = (bench.total / lines) * 1e6;

  // At the deployed age an instance writes an item at most once a minute: its write spreads over that minute's calls.
  const callsPerSecond = calls / seconds;
  const flushWriteUnits = flushed.items > 0 ? flushed.writeUnits / flushed.items : FLUSH_WRITE_UNITS;
  const callsPerFlush = Math.max(1, callsPerSecond * DEPLOYED_FLUSH_SECONDS);
  const addedWriteUnitsPerCall = flushWriteUnits / callsPerFlush;
  const counting = countingMicros();
  const dollarsPerCall = bench.total / calls;
  const addedDollarsPerCall =
    (addedWriteUnitsPerCall * listPrices.dynamoDbWriteRequestUnitPerMillion) / 1e6 +
    (counting / 1e6) * (memoryMb / 1024) * listPrices.lambdaArmGbSecond;
  const flushDollars = (flushWriteUnits * listPrices.dynamoDbWriteRequestUnitPerMillion) / 1e6;
  return {
    calls,
    callsPerSecond,
    dollarsPerCall,
    flushWriteUnits,
    flushMs,
    addedWriteUnitsPerCall,
    // The ledger reads nothing on the request path: reports read it.
    addedReadUnitsPerCall: 0,
    countingMicrosPerCall: counting,
    addedDollarsPerCall,
    overheadPct: (addedDollarsPerCall / dollarsPerCall) * 100,
    callsPerMinuteAtLimit: flushDollars / (dollarsPerCall * (limitPct / 100)),
    limitPct: limitPct,
    reportPerMillionLines,
    benchPerMillionLines,
    reportToBench: reportPerMillionLines / benchPerMillionLines,
  };
}

/** The price calls measured: each call's cost as the service counted it, the HTTP API requests it is metered as, and the time taken. */
async function measuredCalls(
  workspaceId: string,
  calls: ReadonlyArray<{ body: string }>,
  send: (body: string) => Promise<{ status: number; body: string }>,
): Promise<{ costs: RequestCost[]; meteredRequests: number[]; seconds: number }> {
  const costs: RequestCost[] = [];
  const meteredRequests: number[] = [];
  const stop = listenToRequestCosts((cost) => {
    if (cost.route === 'priceLines' && cost.workspaceId === workspaceId) costs.push(cost);
  });
  const started = performance.now();
  try {
    for (const call of calls) {
      const response = await send(call.body);
      if (response.status !== 200) throw new Error(`prices answered ${response.status}: ${response.body}`);
      meteredRequests.push(
        Math.max(1, Math.ceil((Buffer.byteLength(call.body) + Buffer.byteLength(response.body)) / HTTP_API_METERING_BYTES)),
      );
    }
  } finally {
    stop();
  }
  return { costs, meteredRequests, seconds: (performance.now() - started) / 1000 };
}

export async function measureLedger(
  stack: LocalStack,
  options: { records: number; calls: number; limitPct: number },
): Promise<LedgerFigures> {
  const previousFlush = process.env.COST_LEDGER_FLUSH_SECONDS;
  process.env.COST_LEDGER_FLUSH_SECONDS = String(DEPLOYED_FLUSH_SECONDS);
  try {
    const catalogue = sampleCatalogue(mixFor(options.records), { seed: 13, prefix: 'LG-', now: new Date() });
    const seller = await createWorkspaceWithKeys('Bench ledger');
    await ingest(stack, catalogue, seller.keys.connector);
    const planned = planCalls(seller.workspaceId, catalogue, WARMUP_CALLS + options.calls);
    const client = keepAliveClient(stack.gatewayUrl);
    const send = (body: string) =>
      client.send(
        'POST',
        '/api/v1/prices',
        { authorization: `Bearer ${seller.keys.erp}`, 'content-type': 'application/json', 'idempotency-key': randomUUID() },
        body,
      );
    const day = new Date().toISOString().slice(0, 10);
    try {
      for (const call of planned.slice(0, WARMUP_CALLS)) await send(call.body);
      // What the warm-up and the ingest left is written now, so that the measured calls' counts are the difference.
      await flushCosts();
      const before = await priceLinesCounts(seller.workspaceId, day);
      const { costs, meteredRequests, seconds } = await measuredCalls(seller.workspaceId, planned.slice(WARMUP_CALLS), send);
      const flushStarted = performance.now();
      const flushed = await flushCosts();
      const flushMs = performance.now() - flushStarted;
      const measured = diff(await priceLinesCounts(seller.workspaceId, day), before);

      return ledgerFigures({
        workspaceId: seller.workspaceId,
        day,
        costs,
        meteredRequests,
        seconds,
        flushed,
        flushMs,
        measured,
        limitPct: options.limitPct,
      });
    } finally {
      client.close();
    }
  } finally {
    if (previousFlush === undefined) delete process.env.COST_LEDGER_FLUSH_SECONDS;
    else process.env.COST_LEDGER_FLUSH_SECONDS = previousFlush;
  }
}

/** The figures as the bench prints them, each with its target. */
export function ledgerLines(
  figures: LedgerFigures,
  targets: { overheadPct: number; agreement: number },
  verdict: (ok: boolean) => string,
): string[] {
  const agreement = Math.abs(figures.reportToBench - 1);
  return [
    `  a 100-line call         $${figures.dollarsPerCall.toFixed(8)} at list prices; ${figures.calls} calls at ${figures.callsPerSecond.toFixed(1)} calls/s on one instance`,
    `  one flush               ${figures.flushWriteUnits.toFixed(1)} WRU per item, ${figures.flushMs.toFixed(1)} ms, at most once a minute per instance and item; counting ${figures.countingMicrosPerCall.toFixed(2)} µs per call`,
    `  added per call          ${figures.addedWriteUnitsPerCall.toFixed(5)} WRU, ${figures.addedReadUnitsPerCall} RRU = $${figures.addedDollarsPerCall.toExponential(2)} = ${figures.overheadPct.toFixed(4)}%   ${verdict(figures.overheadPct <= targets.overheadPct)} (<= ${targets.overheadPct}%)`,
    `  within ${targets.overheadPct}% from          ${figures.callsPerMinuteAtLimit.toFixed(2)} calls a minute per instance and (workspace, route); below that the flush's 1 WRU weighs more`,
    `  report per 1M lines     $${figures.reportPerMillionLines.toFixed(4)} from the ledger, $${figures.benchPerMillionLines.toFixed(4)} from the cost lines: ${((figures.reportToBench - 1) * 100).toFixed(2)}%   ${verdict(agreement <= targets.agreement)} (within ${targets.agreement * 100}%)`,
  ];
}

// `node lib/bench/ledger.ts`: this section alone, on a small catalogue (BENCH_LEDGER_RECORDS, BENCH_LEDGER_CALLS).
if (import.meta.main) {
  const { startLocalStack } = await import('#lib/local/stack.ts');
  const { logger } = await import('#platform/observability.ts');
  logger.setLogLevel('WARN');
  const stack = await startLocalStack({ port: 0 });
  try {
    const figures = await measureLedger(stack, {
      records: Number(process.env.BENCH_LEDGER_RECORDS ?? 2_000),
      calls: Number(process.env.BENCH_LEDGER_CALLS ?? 50),
      limitPct: 2,
    });
    for (const line of ledgerLines(figures, { overheadPct: 2, agreement: 0.05 }, (ok) => (ok ? 'meets target' : 'MISSES TARGET')))
      console.log(line);
    console.log(JSON.stringify(figures));
  } finally {
    await stack.stop();
  }
}
