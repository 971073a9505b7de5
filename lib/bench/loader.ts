// Benchmark: a seller's export loaded from JSON Lines files by the connector loader, through the typed client, until drained.
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

export interface LoaderFigures {
  readonly records: number;
  /** From the first byte read to `drained`: staging, commit and the drain, as `connector load` runs them. */
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
        waitForBatch: (batchId) => client.waitForBatch(batchId, { pollMs: 50, timeoutMs: 30 * 60_000 }),
      },
      sources: files.map((file) => ({ entity: file.entity, records: readExportFile(file) })),
    });
    if (summary.status?.status !== 'drained') throw new Error(`the loaded batch ended ${JSON.stringify(summary.status)}`);
    return { records, endToEndSeconds: (performance.now() - started) / 1000, drainSeconds: summary.drainMs / 1000 };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
