// The loader's memory on one large export, run as `node lib/bench/loader-memory.ts FILE KIND` in a process of its own: its figures as one JSON line.
import { statSync } from 'node:fs';
import { formatOf, readExportFile } from '../../client/src/connector/files.ts';
import { type LoadApi, loadExport } from '../../client/src/connector/load.ts';
import { type EntityKind, EntityKindSchema } from '#shared/records/schema.ts';
import * as v from 'valibot';

export interface LoaderMemoryFigures {
  readonly kind: EntityKind;
  readonly rows: number;
  readonly records: number;
  readonly fileMb: number;
  readonly seconds: number;
  /** The process once its modules are loaded, before the file is opened. */
  readonly baselineRssMb: number;
  /** The most the process held over the whole run (the kernel's high-water mark), and its V8 heap's most, sampled per call. */
  readonly peakRssMb: number;
  readonly peakHeapMb: number;
  /**
   * The heap still in use after a full collection, every 100 calls: at the first sample and the most of any. Flat,
   * what the loader holds does not grow with the file; the peaks above are V8's headroom over it.
   */
  readonly firstRetainedHeapMb: number;
  readonly peakRetainedHeapMb: number;
}

const mb = (bytes: number) => Math.round((bytes / 1024 / 1024) * 10) / 10;

/**
 * Every step of `connector load` but the network: the file streamed, parsed, grouped, checked with the service's
 * schemas, cut into calls of 1,000 and each call's body serialised as the client sends it, 4 in flight. The stand-in
 * service answers at once, so that what is measured is what the loader itself holds.
 */
export async function measureLoaderMemory(path: string, kind: EntityKind, rows: number): Promise<LoaderMemoryFigures> {
  const format = formatOf(path);
  if (!format) throw new Error(`${path} is neither .csv nor .jsonl`);
  globalThis.gc?.();
  const baseline = process.memoryUsage();
  let peakHeap = baseline.heapUsed;
  const retained: number[] = [];
  let calls = 0;
  const sample = () => {
    peakHeap = Math.max(peakHeap, process.memoryUsage().heapUsed);
    if (++calls % 100 !== 0 || !globalThis.gc) return;
    globalThis.gc();
    retained.push(process.memoryUsage().heapUsed);
  };
  const api: LoadApi = {
    openBatch: async () => ({ batchId: 'bench' }),
    cancelBatch: async () => undefined,
    async stageRecords(batchId, entity, records) {
      const body = JSON.stringify({ entity, records });
      sample();
      // A call takes a turn of the event loop, so that the other calls in flight are held at once, as over the network.
      await new Promise((resolve) => setImmediate(resolve));
      return { staged: body.length > 0 ? records.length : 0 };
    },
    commitBatch: async () => ({}),
    async waitForBatch(batchId, wait) {
      const status = { status: 'drained', recordCount: 0, skippedOverCap: 0, bandsRecomputedAt: new Date().toISOString() };
      wait.onStatus(status);
      return status;
    },
  };
  const started = performance.now();
  const summary = await loadExport({ api, sources: [{ entity: kind, records: readExportFile({ entity: kind, path, format }) }] });
  const seconds = (performance.now() - started) / 1000;
  sample();
  return {
    kind,
    rows,
    records: summary.counts[kind],
    fileMb: mb(statSync(path).size),
    seconds,
    baselineRssMb: mb(baseline.rss),
    // maxRSS is in kilobytes.
    peakRssMb: mb(process.resourceUsage().maxRSS * 1024),
    peakHeapMb: mb(peakHeap),
    firstRetainedHeapMb: mb(retained[0] ?? Number.NaN),
    peakRetainedHeapMb: mb(Math.max(...retained)),
  };
}

if (import.meta.main) {
  const [path, kind, rows] = process.argv.slice(2);
  if (!path || !kind || !rows) throw new Error('usage: node lib/bench/loader-memory.ts FILE KIND ROWS');
  const figures = await measureLoaderMemory(path, v.parse(EntityKindSchema, kind), Number(rows));
  console.log(JSON.stringify(figures));
}
