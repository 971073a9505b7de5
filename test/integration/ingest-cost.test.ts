// What ingest costs in DynamoDB, counted call by call on a local stack of this file's own: a fixed mixed batch must stay under its bounds per 1,000 records.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createDrainHandler } from '../../functions/workers/drain.ts';
import { countingDrainHandler, jobCountLines, perThousandRecords, watchWorkspace } from '#lib/bench/drain-counts.ts';
import { type LocalStack, startLocalStack } from '#lib/local/stack.ts';
import { sampleCatalogue } from '#lib/local/sample-catalogue.ts';
import { workers } from '#edge/routes.ts';
import { commitBatch, openBatchWith, stageCatalogue, waitForBands, waitForBatch } from './ingest-support.ts';
import { newWorkspace } from './support.ts';

/**
 * Per 1,000 records of the batch below (staged 100 records a call), about 5% above what the drain and the bands job
 * cost when these bounds were set (drain 3,823 WRU and 3,507 items and index entries; bands job 3,357 WRU and 3,303
 * items). The drain's fell from 4,333 WRU and 4,020 when it stopped keeping what each order added to margins in an
 * item of its own (the document it replaces says it). They rose from 2,893 and 1,110 WRU when orders began to fold
 * each product's monthly margins as they drain, and the bands job began to reprice every product of a category whose
 * bands moved, each with its rows in the console's lists (docs/cost.md); the bands job from 2,510 WRU when those rows
 * went from four to six (the ordering by expected impact, and the basis and impact stored on the recommendation; the
 * sort by size of change reads the rows by change and writes none). A line item per line cost the drain 7,173 WRU and
 * 6,287: counts, not seconds, so that a busy machine cannot fail them. A layout that costs less lowers them.
 * The bands job's write units rose from 3,543 to 3,653 (items and index entries unchanged, 3,443) when a product no
 * win model covers began to keep its current price: its recommendation carries the keep step among its drivers and
 * crosses 1 KB, a second write unit for each such product (a third of this batch's; fewer in a catalogue with history).
 */
const bounds = {
  drain: { writeUnits: 4_020, itemsAndIndexEntries: 3_690 },
  bands: { writeUnits: 3_800, itemsAndIndexEntries: 3_470 },
} as const;

/**
 * The day the bounds were counted on. The catalogue is dated back from it and the service's clock starts at it, so
 * that how many months a product's orders fall in (and so how many margin months the drain and the bands job write)
 * never moves with the day the suite runs.
 */
const COUNTED_ON = new Date('2026-11-01T00:00:00Z');
const catalogue = sampleCatalogue({ products: 60, customers: 15, quotes: 75, orders: 150 }, { seed: 22, now: COUNTED_ON });
const records = catalogue.product.length + catalogue.customer.length + catalogue.quote.length + catalogue.order.length;

// Counts, not seconds: on a busy machine staging and draining this batch take longer than the project's default allows.
vi.setConfig({ testTimeout: 400_000 });

let stack: LocalStack;
const base = () => stack.gatewayUrl;

beforeAll(async () => {
  // Only Date is moved, and it runs on from there: timers, leases and the emulators keep real time between them.
  vi.useFakeTimers({ toFake: ['Date'], now: COUNTED_ON, shouldAdvanceTime: true });
  // The drain worker alone, counted: webhook fan-out would add calls of its own to the same process.
  stack = await startLocalStack({
    port: 0,
    workers: workers.filter((worker) => worker.id === 'drain'),
    workerHandlers: { drain: countingDrainHandler(createDrainHandler()) },
  });
}, 240_000);

afterAll(async () => {
  await stack?.stop();
  vi.useRealTimers();
});

describe('what ingest costs in DynamoDB', () => {
  it('keeps the drain and the bands job of a mixed batch under their write units and items written per 1,000 records', async () => {
    const workspace = await newWorkspace();
    const key = workspace.keys.connector;
    const watch = watchWorkspace(workspace.workspaceId, { indexes: true });
    try {
      const batchId = await openBatchWith(key, base());
      await stageCatalogue(key, batchId, catalogue, { perCall: 100, baseUrl: base() });
      await commitBatch(key, batchId, base());
      const status = await waitForBatch(key, batchId, ['drained', 'failed'], { baseUrl: base(), timeoutMs: 180_000 });
      expect(status).toMatchObject({ status: 'drained', drainedCount: records });
      await waitForBands(key, batchId, { baseUrl: base(), timeoutMs: 180_000 });
      await watch.counts.settled();
    } finally {
      watch.stop();
    }

    const figures = perThousandRecords(watch.counts, records);
    const measured = {
      drain: {
        writeUnits: figures.drain.writeUnits,
        itemsAndIndexEntries: figures.drain.itemsWritten + (figures.drain.indexEntriesWritten ?? 0),
      },
      bands: {
        writeUnits: figures.bands.writeUnits,
        itemsAndIndexEntries: figures.bands.itemsWritten + (figures.bands.indexEntriesWritten ?? 0),
      },
    };
    const report = [`measured ${JSON.stringify(measured)} against ${JSON.stringify(bounds)}`, ...jobCountLines(watch.counts, records)].join(
      '\n',
    );
    expect(watch.counts.invocations.drain, report).toBeGreaterThan(0);
    expect(watch.counts.invocations.bands, report).toBeGreaterThan(0);
    expect(measured.drain.writeUnits, report).toBeLessThanOrEqual(bounds.drain.writeUnits);
    expect(measured.drain.itemsAndIndexEntries, report).toBeLessThanOrEqual(bounds.drain.itemsAndIndexEntries);
    expect(measured.bands.writeUnits, report).toBeLessThanOrEqual(bounds.bands.writeUnits);
    expect(measured.bands.itemsAndIndexEntries, report).toBeLessThanOrEqual(bounds.bands.itemsAndIndexEntries);
  });
});
