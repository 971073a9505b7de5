// Benchmark: commit until prices reflect a nightly batch, on a fresh workspace and on top of history, and whether that lag and the batch's units stay flat as history grows.
import type { OrderRecord, QuoteRecord } from '#shared/records/schema.ts';
import { createWorkspaceWithKeys } from '#lib/local/seed.ts';
import type { LocalStack } from '#lib/local/stack.ts';
import { mixFor, type SampleCatalogue, sampleCatalogue } from '#lib/local/sample-catalogue.ts';
import { ingestBatch } from './ingest-batch.ts';
import { jobFigures, type JobFigures } from './ingest.ts';

/** Within this of each other, the lag, RRU and WRU of the batch on the smallest and on the largest history. */
export const HISTORY_INVARIANCE_TOLERANCE = 0.1;
/** A workspace takes at most 100,000 records per batch; history goes in batches well under it. */
const HISTORY_RECORDS_PER_BATCH = 50_000;
const PREFIX = 'L-';

/** The records history is made of, each kind from a generator of its own, so that record i is the same whatever the size. */
function historyBase(lines: number): { size: ReturnType<typeof mixFor>; catalogue: SampleCatalogue } {
  // Documents have 1 to 3 lines, 2 on average; products, customers and documents in the nightly mix's proportions.
  const documents = Math.max(1, Math.ceil(lines / 2));
  const size = {
    products: Math.max(1, Math.round((documents * 0.2) / 0.75)),
    customers: Math.max(1, Math.round((documents * 0.05) / 0.75)),
    quotes: Math.round(documents / 3),
    orders: documents - Math.round(documents / 3),
  };
  const product = sampleCatalogue({ products: size.products, customers: 0, quotes: 0, orders: 0 }, { seed: 221, prefix: PREFIX }).product;
  const customer = sampleCatalogue(
    { products: 0, customers: size.customers, quotes: 0, orders: 0 },
    { seed: 222, prefix: PREFIX },
  ).customer;
  return { size, catalogue: { product, customer, quote: [], order: [] } };
}

function historyCatalogue(lines: number): SampleCatalogue {
  const { size, catalogue } = historyBase(lines);
  const documents = sampleCatalogue(size, { seed: 223, prefix: PREFIX });
  return { ...catalogue, quote: documents.quote, order: documents.order };
}

/**
 * The nightly batch, the same on every workspace: the first products and customers of the history re-sent as they
 * are, and quotes and orders new to it that name them, at the nightly mix.
 */
export function nightlyBatch(records: number): SampleCatalogue {
  const size = mixFor(records);
  const product = sampleCatalogue({ ...size, customers: 0, quotes: 0, orders: 0 }, { seed: 221, prefix: PREFIX }).product;
  const customer = sampleCatalogue({ ...size, products: 0, quotes: 0, orders: 0 }, { seed: 222, prefix: PREFIX }).customer;
  const documents = sampleCatalogue(size, { seed: 224, prefix: PREFIX });
  const renamed = (id: string) => id.replace(PREFIX, `${PREFIX}new-`);
  return {
    product,
    customer,
    quote: documents.quote.map((quote): QuoteRecord => ({ ...quote, externalId: renamed(quote.externalId) })),
    order: documents.order.map((order): OrderRecord => ({
      ...order,
      externalId: renamed(order.externalId),
      ...(order.sourceQuoteExternalId ? { sourceQuoteExternalId: renamed(order.sourceQuoteExternalId) } : {}),
    })),
  };
}

/** History in batches under the cap: products and customers with the first documents, then the rest. */
function historyBatches(catalogue: SampleCatalogue): SampleCatalogue[] {
  const documents = [...catalogue.quote.map((quote) => ({ quote })), ...catalogue.order.map((order) => ({ order }))];
  const batches: SampleCatalogue[] = [];
  let first = true;
  for (let start = 0; start < documents.length || first;) {
    const room = HISTORY_RECORDS_PER_BATCH - (first ? catalogue.product.length + catalogue.customer.length : 0);
    const slice = documents.slice(start, start + Math.max(room, 1));
    batches.push({
      product: first ? catalogue.product : [],
      customer: first ? catalogue.customer : [],
      quote: slice.flatMap((document) => ('quote' in document ? [document.quote] : [])),
      order: slice.flatMap((document) => ('order' in document ? [document.order] : [])),
    });
    start += slice.length;
    first = false;
  }
  return batches;
}

export interface LagRow {
  /** Quote and order lines already in the workspace when the batch lands. */
  readonly historyLines: number;
  readonly historySeconds: number;
  readonly commitToDrainedSeconds: number;
  readonly commitToFreshSeconds: number;
  /** Commit until the bands job ended: the recommendations the overview and the console show follow the bands. */
  readonly commitToRecomputedSeconds: number;
  readonly lagRatio: number;
  /** The batch's units, per 1,000 records. */
  readonly drain: JobFigures;
  readonly bands: JobFigures;
}

export interface LagFigures {
  readonly batchRecords: number;
  readonly rows: readonly LagRow[];
}

const linesOf = (catalogue: SampleCatalogue) =>
  [...catalogue.quote, ...catalogue.order].reduce((sum, record) => sum + record.lines.length, 0);

/** The batch on a fresh workspace, then on a workspace of each history size (lines), each a workspace of its own. */
export async function measureLag(
  stack: LocalStack,
  options: { batchRecords: number; historyLines: readonly number[] },
): Promise<LagFigures> {
  const batch = nightlyBatch(options.batchRecords);
  // The same batch once, unmeasured, on a workspace of its own: measured first on a cold JVM, the fresh workspace's
  // drain took 8–10 s where it takes ~5 s warm (and ~3 s on history, whose margin months and aggregates exist already,
  // where a fresh workspace's are new items).
  const warm = await createWorkspaceWithKeys('Bench lag warm-up');
  await ingestBatch(stack, warm.keys.connector, warm.workspaceId, batch);
  const rows: LagRow[] = [];
  for (const lines of [0, ...options.historyLines]) {
    const seller = await createWorkspaceWithKeys(`Bench lag ${lines}`);
    const history = lines > 0 ? historyCatalogue(lines) : undefined;
    const started = performance.now();
    for (const part of history ? historyBatches(history) : []) {
      await ingestBatch(stack, seller.keys.connector, seller.workspaceId, part);
    }
    const historySeconds = (performance.now() - started) / 1000;
    const run = await ingestBatch(stack, seller.keys.connector, seller.workspaceId, batch);
    rows.push({
      historyLines: history ? linesOf(history) : 0,
      historySeconds,
      commitToDrainedSeconds: run.commitToDrainedSeconds,
      commitToFreshSeconds: run.commitToFreshSeconds,
      commitToRecomputedSeconds: run.commitToRecomputedSeconds,
      lagRatio: run.commitToFreshSeconds / run.commitToDrainedSeconds,
      drain: jobFigures(run.counts, 'drain', options.batchRecords),
      bands: jobFigures(run.counts, 'bands', options.batchRecords),
    });
  }
  return { batchRecords: options.batchRecords, rows };
}

const change = (from: number, to: number) => (to - from) / from;
const percent = (value: number) => `${value >= 0 ? '+' : ''}${(value * 100).toFixed(0)}%`;

/** The lag table, and the history-invariance verdict between the smallest and the largest history. */
export function lagLines(figures: LagFigures, verdict: (ok: boolean) => string): string[] {
  const lines = [
    `  ${'history lines'.padEnd(14)} ${'drain'.padStart(7)} ${'fresh'.padStart(7)} ${'fresh/drain'.padStart(11)} ${'console'.padStart(7)}   ${'drain RRU'.padStart(9)} ${'WRU'.padStart(6)}   ${'bands RRU'.padStart(9)} ${'WRU'.padStart(6)}   (per 1,000 records; commit to drained, to prices fresh, to the recommendations recomputed)`,
  ];
  for (const row of figures.rows) {
    lines.push(
      `  ${(row.historyLines === 0 ? 'none' : row.historyLines.toLocaleString('en-US')).padEnd(14)} ${row.commitToDrainedSeconds.toFixed(2).padStart(6)}s ${row.commitToFreshSeconds.toFixed(2).padStart(6)}s ${`${row.lagRatio.toFixed(2)}x`.padStart(11)} ${row.commitToRecomputedSeconds.toFixed(2).padStart(6)}s   ${row.drain.readUnits.toFixed(0).padStart(9)} ${row.drain.writeUnits.toFixed(0).padStart(6)}   ${row.bands.readUnits.toFixed(0).padStart(9)} ${row.bands.writeUnits.toFixed(0).padStart(6)}${row.historyLines === 0 ? '' : `   (history ingested in ${row.historySeconds.toFixed(0)} s)`}`,
    );
  }
  const histories = figures.rows.filter((row) => row.historyLines > 0);
  const smallest = histories[0];
  const largest = histories.at(-1);
  if (smallest && largest && smallest !== largest) {
    const units = (row: LagRow) => ({
      read: row.drain.readUnits + row.bands.readUnits,
      write: row.drain.writeUnits + row.bands.writeUnits,
    });
    const lag = change(smallest.commitToFreshSeconds, largest.commitToFreshSeconds);
    const read = change(units(smallest).read, units(largest).read);
    const write = change(units(smallest).write, units(largest).write);
    const flat = [lag, read, write].every((value) => Math.abs(value) <= HISTORY_INVARIANCE_TOLERANCE);
    lines.push(
      `  ${largest.historyLines.toLocaleString('en-US')} against ${smallest.historyLines.toLocaleString('en-US')} history lines (${(largest.historyLines / smallest.historyLines).toFixed(0)}x): lag ${percent(lag)}, RRU ${percent(read)}, WRU ${percent(write)}   ${verdict(flat)} (each within ${HISTORY_INVARIANCE_TOLERANCE * 100}%)`,
    );
  } else {
    lines.push(
      `  history invariance      not measured: BENCH_LAG_HISTORY_LINES=10000,200000 compares the batch on 10,000 and on 200,000 history lines (it loads that history through the drain first)`,
    );
  }
  return lines;
}
