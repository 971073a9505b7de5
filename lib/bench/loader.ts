// Benchmark: a seller's export loaded from JSON Lines files by the connector loader, through the typed client, until prices reflect it; and the loader's memory on a 1,000,000-row CSV.
import { spawnSync } from 'node:child_process';
import { createWriteStream, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import { createPricingClient } from '../../client/src/index.ts';
import { entityKinds } from '#shared/records/schema.ts';
import { readExportFile } from '../../client/src/connector/files.ts';
import { loadExport } from '../../client/src/connector/load.ts';
import { createWorkspaceWithKeys } from '#lib/local/seed.ts';
import type { LocalStack } from '#lib/local/stack.ts';
import { mixFor, sampleCatalogue } from '#lib/local/sample-catalogue.ts';
import type { LoaderMemoryFigures } from '#lib/bench/loader-memory.ts';
import { projectRoot } from '#lib/stack/project.ts';

export interface LoaderFigures {
  readonly records: number;
  /** From the first byte read to prices reflecting the batch: staging, commit, the drain and the bands job, as `connector load` runs them. */
  readonly endToEndSeconds: number;
  readonly drainSeconds: number;
}

/** The same records the ingest bench stages directly (same size, same seed), written as files and loaded from them. */
export async function measureLoader(stack: LocalStack, records: number): Promise<LoaderFigures> {
  const catalogue = sampleCatalogue(mixFor(records), { seed: records, prefix: `B${records}-` });
  const dir = mkdtempSync(join(tmpdir(), 'pricing-export-'));
  try {
    const files = [];
    for (const entity of entityKinds) {
      const path = join(dir, `${entity}s.jsonl`);
      const out = createWriteStream(path);
      for (const record of catalogue[entity]) {
        if (!out.write(`${JSON.stringify(record)}\n`)) await once(out, 'drain');
      }
      out.end();
      await once(out, 'finish');
      files.push({ entity, path, format: 'jsonl' as const });
    }
    const seller = await createWorkspaceWithKeys(`Bench loader ${records}`);
    const client = createPricingClient({ baseUrl: stack.gatewayUrl, key: seller.keys.connector });
    const started = performance.now();
    const summary = await loadExport({
      api: {
        openBatch: () => client.openBatch(),
        stageRecords: (batchId, entity, batch) => client.stageRecords(batchId, entity, batch as never),
        commitBatch: (batchId) => client.commitBatch(batchId),
        cancelBatch: (batchId) => client.cancelBatch(batchId),
        waitForBatch: (batchId, wait) => client.waitForBatch(batchId, { ...wait, pollMs: 50, timeoutMs: 30 * 60_000 }),
      },
      sources: files.map((file) => ({ entity: file.entity, records: readExportFile(file) })),
    });
    if (summary.status?.status !== 'drained') throw new Error(`the loaded batch ended ${JSON.stringify(summary.status)}`);
    return { records, endToEndSeconds: (performance.now() - started) / 1000, drainSeconds: summary.drainMs / 1000 };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function writeLines(path: string, count: number, line: (index: number) => string): Promise<void> {
  const out = createWriteStream(path);
  for (let index = 0; index < count; index++) {
    if (!out.write(line(index))) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
}

/** CSV rows as a seller's export has them: quoted cells with commas, non-ASCII names, attribute columns. */
const exportRows: Record<'product' | 'order', { header: string; row: (index: number) => string }> = {
  product: {
    header: 'sku,externalId,name,category,costCents,currentPriceCents,mapCents,currency,isActive,attributes.finish\n',
    row: (index) =>
      `SKU-${index},ERP-${index},"Dübel ${index % 100} mm, pack of 50",Befestigung ${index % 40},${100 + (index % 900)},${250 + (index % 900)},,EUR,true,zinc\n`,
  },
  // Four line rows a document: a million rows are 250,000 orders.
  order: {
    header: 'externalId,customerExternalId,currency,soldAt,productSku,quantity,costCents,soldPriceCents\n',
    row: (index) =>
      `O-${Math.floor(index / 4)},C-${Math.floor(index / 4) % 500},EUR,2026-10-04T08:00:00Z,SKU-${index % 5000},${1 + (index % 20)},120,185\n`,
  },
};

/**
 * The loader's peak memory on an export of `rows` CSV rows of one kind, measured in a fresh process (its own
 * high-water mark), with everything but the network: see loader-memory.ts.
 */
export async function measureLoaderMemoryOf(kind: 'product' | 'order', rows: number): Promise<LoaderMemoryFigures> {
  const dir = mkdtempSync(join(tmpdir(), 'pricing-export-'));
  try {
    const path = join(dir, `${kind}s.csv`);
    const { header, row } = exportRows[kind];
    await writeLines(path, rows + 1, (index) => (index === 0 ? header : row(index - 1)));
    const run = spawnSync(process.execPath, ['--expose-gc', join(projectRoot, 'lib/bench/loader-memory.ts'), path, kind, String(rows)], {
      cwd: projectRoot,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    if (run.status !== 0) throw new Error(`the loader memory run failed (exit ${run.status})`);
    return JSON.parse(run.stdout.trim().split('\n').at(-1) ?? '') as LoaderMemoryFigures;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
