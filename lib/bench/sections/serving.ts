// The bench sections of serving on the local stack: price calls and their cost, the cost ledger, write-back claims, guidance adherence.
import { adherenceLines, measureAdherence } from '#lib/bench/adherence.ts';
import { ledgerLines, measureLedger } from '#lib/bench/ledger.ts';
import { measurePriceServing } from '#lib/bench/prices.ts';
import { section, verdict } from '#lib/bench/section.ts';
import { measureWritebacks } from '#lib/bench/writebacks.ts';
import { type CostBreakdown, LIST_PRICES_AS_OF, LIST_PRICES_REGION, listPrices } from '#shared/cost/list-prices.ts';

const PRICING_RECORDS = Number(process.env.BENCH_PRICING_RECORDS ?? 20_000);
const PRICING_CALLS = Number(process.env.BENCH_PRICING_CALLS ?? 200);
const LEDGER_CALLS = Number(process.env.BENCH_LEDGER_CALLS ?? 200);
const WRITEBACK_TASKS = Number(process.env.BENCH_WRITEBACK_TASKS ?? 2_000);
const WRITEBACK_CLAIMERS = [1, 10, 50] as const;
const ADHERENCE_LINES = Number(process.env.BENCH_ADHERENCE_LINES ?? 100_000);

export const pricesSection = section({
  id: 'prices',
  where: 'in-process',
  heading: `\nPrice serving on the local stack (100-line calls, one customer each, on a ${PRICING_RECORDS.toLocaleString('en-US')}-record catalogue)`,
  targets: { latencyRatio: 2, costPerMillionLines: 0.2 },
  measure: async ({ stack }) => measurePriceServing(await stack(), { records: PRICING_RECORDS, calls: PRICING_CALLS }),
  lines: (pricing, targets) => [
    `  catalogue               ${pricing.catalogue.products.toLocaleString('en-US')} products, ${pricing.catalogue.customers.toLocaleString('en-US')} customers, ${pricing.catalogue.quotes.toLocaleString('en-US')} quotes, ${pricing.catalogue.orders.toLocaleString('en-US')} orders`,
    `  latency, warm           p50 ${pricing.p50Ms.toFixed(1)} ms, p99 ${pricing.p99Ms.toFixed(1)} ms over ${pricing.calls} calls`,
    `  floor (same keys: one BatchGetItem round + one PutItem of the stored size)   p50 ${pricing.floorP50Ms.toFixed(1)} ms, p99 ${pricing.floorP99Ms.toFixed(1)} ms`,
    `  p50 against the floor   ${pricing.ratioToFloor.toFixed(2)}x   ${verdict(pricing.ratioToFloor <= targets.latencyRatio)} (<= ${targets.latencyRatio}x)`,
    `  per call                ${pricing.readUnits.toFixed(1)} RRU (${pricing.readKeys.toFixed(0)} keys), ${pricing.writeUnits.toFixed(1)} WRU, ${pricing.lambdaMs.toFixed(1)} ms at ${pricing.memoryMb} MB; response ${(pricing.responseBytes / 1024).toFixed(1)} KB, stored ${(pricing.storedBytes / 1024).toFixed(1)} KB`,
    `  cost per 1M priced lines at ${LIST_PRICES_REGION} list prices as of ${LIST_PRICES_AS_OF} (${JSON.stringify(listPrices)})`,
    ...breakdownLines(pricing.costPerMillionLines, pricing.naivePerMillionLines),
    `    naive per call: ${pricing.naiveReadUnits.toFixed(0)} RRU (a GetItem per line for the product, the customer and 5 bands), ${pricing.naiveWriteUnits.toFixed(0)} WRU (the response uncompressed, a decision item per line)`,
    `  cost per 1M lines       $${pricing.costPerMillionLines.total.toFixed(3)}   ${verdict(pricing.costPerMillionLines.total <= targets.costPerMillionLines)} (<= $${targets.costPerMillionLines})`,
  ],
  record: (pricing) => ({ pricing }),
});

/** This design's cost beside the naive one's, a row per line item. */
function breakdownLines(ours: CostBreakdown, naive: CostBreakdown): string[] {
  const row = (name: string, mine: number, theirs: number) =>
    `    ${name.padEnd(22)} $${mine.toFixed(4).padStart(8)}   $${theirs.toFixed(4).padStart(8)}`;
  return [
    `    ${''.padEnd(22)} ${'this design'.padStart(9)}   ${'naive'.padStart(9)}`,
    row('DynamoDB reads', ours.dynamoDbReads, naive.dynamoDbReads),
    row('DynamoDB writes', ours.dynamoDbWrites, naive.dynamoDbWrites),
    row('Lambda compute', ours.lambdaCompute, naive.lambdaCompute),
    row('Lambda requests', ours.lambdaRequests, naive.lambdaRequests),
    row('API Gateway', ours.apiGateway, naive.apiGateway),
    row('total', ours.total, naive.total),
  ];
}

/** What accounting may add to a 100-line price call, and how far the report's cost per 1M lines may be from the bench's. */
export const ledgerSection = section({
  id: 'ledger',
  where: 'in-process',
  heading: `\nThe cost ledger on 100-line price calls (flushed as deployed, after 60 s; ${LEDGER_CALLS} calls)`,
  targets: { overheadPct: 2, agreement: 0.05 },
  measure: async ({ stack }, targets) =>
    measureLedger(await stack(), { records: PRICING_RECORDS / 10, calls: LEDGER_CALLS, limitPct: targets.overheadPct }),
  lines: (ledger, targets) => ledgerLines(ledger, targets, verdict),
  record: (ledger) => ({ ledger }),
});

export const writebacksSection = section({
  id: 'writebacks',
  where: 'in-process',
  heading: `\nWrite-back tasks on the local stack (${WRITEBACK_TASKS.toLocaleString('en-US')} pending tasks of one connector, claims of 10)`,
  targets: { refusedPerLease: 1.5 },
  measure: async ({ stack }) => measureWritebacks(await stack(), { tasks: WRITEBACK_TASKS, claimers: WRITEBACK_CLAIMERS }),
  lines: (writebacks, targets) => {
    const wb = writebacks.costPerMillionTasks;
    return [
      ...writebacks.runs.map((run) => {
        const refused =
          run.claimers === 10 ? `   ${verdict(run.refusedPerLease <= targets.refusedPerLease)} (<= ${targets.refusedPerLease})` : '';
        return `  ${String(run.claimers).padStart(2)} claimer${run.claimers === 1 ? ' ' : 's'}            ${Math.round(run.tasksPerSecond).toLocaleString('en-US').padStart(6)} tasks leased/s (${run.seconds.toFixed(2)} s, ${run.claimCalls} claim calls); ${run.refusedPerLease.toFixed(2)} refused writes per lease${refused}; a claim p50 ${run.claimP50Ms.toFixed(0)} ms, p99 ${run.claimP99Ms.toFixed(0)} ms, max ${run.claimMaxMs.toFixed(0)} ms`;
      }),
      `  claim + ack per task    ${wb.readUnits.toFixed(2)} RRU, ${wb.writeUnits.toFixed(2)} WRU (10 workers, each task applied: the task, the product's price and its recommendation)`,
      `  cost per 1M tasks       $${wb.total.toFixed(2)}: DynamoDB reads $${wb.dynamoDbReads.toFixed(3)}, writes $${wb.dynamoDbWrites.toFixed(3)}, Lambda $${(wb.lambdaCompute + wb.lambdaRequests).toFixed(3)}, API Gateway $${wb.apiGateway.toFixed(3)}`,
    ];
  },
  record: (writebacks) => ({ writebacks }),
});

export const adherenceSection = section({
  id: 'adherence',
  where: 'in-process',
  heading: `\nGuidance adherence (${ADHERENCE_LINES.toLocaleString('en-US')} quote lines over a year; \`node lib/bench/adherence.ts\` runs this alone)`,
  targets: {},
  measure: () => measureAdherence({ quoteLines: ADHERENCE_LINES }),
  lines: (adherence) => adherenceLines(adherence),
  record: (adherence) => ({ adherence }),
});
