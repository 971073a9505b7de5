// The connector's `load` command: an export's files read, staged, committed and waited for, with progress on stderr.
import { statSync } from 'node:fs';
import { createPricingClient } from '../index.ts';
import { type ExportFile, readExportFile } from './files.ts';
import { type LoadApi, loadExport, type LoadUntil } from './load.ts';
import { progressDisplay, summaryText as loadSummaryText } from './progress.ts';
import { failureText, localGatewayUrl } from './service-connection.ts';
import { printable, printableJson } from './terminal-text.ts';

/** The `load` command's options, as read from its command line. */
export interface LoadCommandOptions {
  readonly files: readonly ExportFile[];
  readonly dryRun: boolean;
  readonly key: string;
  readonly url: string | undefined;
  readonly concurrency: number;
  readonly until: LoadUntil;
  readonly json: boolean;
}

export async function runLoad(options: LoadCommandOptions): Promise<number> {
  const totalBytes = options.files.reduce((sum, file) => sum + statSync(file.path).size, 0);
  let bytesRead = 0;
  const sources = options.files.map((file) => ({
    entity: file.entity,
    records: readExportFile(file, (bytes) => (bytesRead += bytes)),
  }));
  const progress = progressDisplay(process.stderr, { verb: options.dryRun ? 'validated' : 'sent' });
  try {
    let api: LoadApi;
    if (options.dryRun) {
      const refuse = () => Promise.reject(new Error('a dry run sends nothing'));
      api = { openBatch: refuse, stageRecords: refuse, commitBatch: refuse, cancelBatch: refuse, waitForBatch: refuse };
    } else {
      const client = createPricingClient({ baseUrl: options.url ?? localGatewayUrl(), key: options.key });
      api = {
        openBatch: () => client.openBatch(),
        // The loader checks each record against its kind's schema before the call; the client's generic cannot see that.
        stageRecords: (batchId, entity, records) => client.stageRecords(batchId, entity, records as never),
        commitBatch: (batchId) => client.commitBatch(batchId),
        cancelBatch: (batchId) => client.cancelBatch(batchId),
        // As long as the batch moves on, however large the export: only the client's stall timeout ends the wait.
        waitForBatch: (batchId, wait) => client.waitForBatch(batchId, wait),
      };
    }
    const summary = await loadExport({
      api,
      sources,
      dryRun: options.dryRun,
      concurrency: options.concurrency,
      until: options.until,
      report(event) {
        if (event.type === 'progress') progress.update({ records: event.records, elapsedMs: event.elapsedMs, bytesRead, totalBytes });
        else if (event.type === 'waiting') progress.waiting(event.status, event.elapsedMs);
        else if (event.type === 'opened') {
          progress.end();
          console.error(printable(`opened batch ${event.batchId}`));
        } else if (event.type === 'committed') {
          progress.end();
          const until = options.until === 'prices' ? 'drain and prices to reflect it' : 'drain';
          console.error(printable(`committed batch ${event.batchId}; waiting for it to ${until}`));
        }
      },
    });
    progress.end();
    console.log(options.json ? printableJson({ type: 'summary', ...summary }) : printable(loadSummaryText(summary)));
    return 0;
  } catch (error) {
    progress.end();
    console.error(`connector: ${printable(failureText(error))}`);
    return 1;
  }
}
