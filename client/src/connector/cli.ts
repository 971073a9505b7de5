#!/usr/bin/env node
// The connector command (`npm run connector -- …`): tools for connector authors; `writebacks` runs a command for each write-back task, `load` loads an export.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import type { EntityKind } from '../../../shared/records/schema.ts';
import { createPricingClient } from '../index.ts';
import { type ExportFile, formatOf, kindOfFileName, readExportFile } from './files.ts';
import { type LoadApi, loadExport } from './load.ts';
import { progressDisplay, summaryText as loadSummaryText } from './progress.ts';
import { taskCommand } from './task-command.ts';
import { printable, printableJson } from './terminal-text.ts';
import { startWritebackWorker, type Summary, type WorkerEvent } from './writeback-worker.ts';

/** The project this kit sits in: its local stack (`npm start`) is the default API. */
const projectRoot = fileURLToPath(new URL('../../../', import.meta.url));

const usage = `Usage: npm run --silent connector -- writebacks --exec COMMAND [options]

Claims the connector's write-back tasks and runs COMMAND (through the shell) once per task, with the task as JSON
on stdin and its id in PRICING_TASK_ID. Exit code 0 acks the task applied; any other fails it with the command's
stderr (its first 1,000 characters) or "exit code N". Leases are extended while a command runs. The command's
environment is the worker's without PRICING_KEY. Control characters in what is printed (task data, the service's
answers, the command's output) are shown as \u001b and so on.

Options:
  --exec COMMAND        the command to run for each task (required)
  --url URL             the API's URL (default: PRICING_URL, or the local stack that \`npm start\` runs)
  --key KEY             the connector's svc_live_ key, connector scope (default: PRICING_KEY)
  --limit N             tasks per claim, 1-100 (default 10)
  --lease-seconds N     lease per task, 1-3600 (default 300); extended at half of it
  --concurrency N       commands run at once (default 1)
  --once                drain what is claimable and exit, rather than wait for more
  --pass-key            give the command the worker's key in PRICING_KEY (it gets none otherwise)
  --json                one JSON line per event on stdout

SIGINT/SIGTERM stops claiming, lets running commands finish and acks them; a second one exits at once (130).
Exit codes: 0 done or stopped, 1 failed (no stack, key refused, claim failed), 2 bad arguments.

Usage: npm run --silent connector -- load [--products F] [--customers F] [--quotes F] [--orders F] [FILE…] [options]

Loads a seller's export as one batch: validates each record with the service's schemas, stages products, customers,
quotes and orders in that order (1,000 records a call), commits, and waits for the drain. Files are .csv or .jsonl;
a FILE's kind is the plural its name starts with (products…, customers…, quotes…, orders…). The CSV columns are in
docs/connectors.md. A bad record stops the load before the commit, naming its file, line and field; so does a CSV
cell over 256 KB, a CSV row or JSON line over 1 MB, or a CSV quote or order over 1,000 rows or 1 MB of cells.

Options:
  --products F, --customers F, --quotes F, --orders F   a file of that kind (each may be given more than once)
  --dry-run             validate every record and send nothing
  --url URL, --key KEY  as for writebacks (no key is needed for --dry-run)
  --concurrency N       staging calls in flight, 1-16 (default 4)
  --json                the summary as one JSON line on stdout

Progress goes to stderr, the summary to stdout.
Exit codes: 0 drained (or, with --dry-run, valid), 1 failed (bad record, refused, failed to drain), 2 bad arguments.`;

function parseCommandLine(args: string[]) {
  return parseArgs({
    args,
    allowPositionals: true,
    strict: true,
    options: {
      exec: { type: 'string' },
      url: { type: 'string' },
      key: { type: 'string' },
      limit: { type: 'string' },
      'lease-seconds': { type: 'string' },
      concurrency: { type: 'string' },
      once: { type: 'boolean' },
      'pass-key': { type: 'boolean' },
      json: { type: 'boolean' },
      help: { type: 'boolean' },
      products: { type: 'string', multiple: true },
      customers: { type: 'string', multiple: true },
      quotes: { type: 'string', multiple: true },
      orders: { type: 'string', multiple: true },
      'dry-run': { type: 'boolean' },
    },
  });
}

/** A bad argument: exit 2 with the usage. Anything else thrown is a failure of the worker itself: exit 1. */
class UsageError extends Error {}

function whole(name: string, value: string | undefined, fallback: number, max: number): number {
  if (value === undefined) return fallback;
  const number = Number(value);
  if (!/^\d+$/.test(value) || number < 1 || number > max) throw new UsageError(`--${name} must be a whole number from 1 to ${max}`);
  return number;
}

function readOptions(values: ReturnType<typeof parseCommandLine>['values'], positionals: string[]) {
  const [command, ...extra] = positionals;
  if (!command) throw new UsageError('no command given');
  if (command === 'load') return readLoadOptions(values, extra);
  if (command !== 'writebacks') throw new UsageError(`unknown command: ${command}`);
  if (extra.length > 0) throw new UsageError(`writebacks takes no argument ${extra.join(' ')}`);
  if (!values.exec?.trim()) throw new UsageError('--exec is required');
  const key = values.key || process.env.PRICING_KEY;
  if (!key) throw new UsageError('--key (or PRICING_KEY) is required');
  return {
    command: 'writebacks' as const,
    exec: values.exec,
    key,
    // An empty variable is one left unset, as a shell's `PRICING_URL= npm run …` means.
    url: values.url || process.env.PRICING_URL || undefined,
    limit: whole('limit', values.limit, 10, 100),
    leaseSeconds: whole('lease-seconds', values['lease-seconds'], 300, 3600),
    concurrency: whole('concurrency', values.concurrency, 1, 100),
    once: values.once ?? false,
    passKey: values['pass-key'] ?? false,
    json: values.json ?? false,
  };
}

const kindOptions = [
  ['products', 'product'],
  ['customers', 'customer'],
  ['quotes', 'quote'],
  ['orders', 'order'],
] as const satisfies ReadonlyArray<readonly [string, EntityKind]>;

function readLoadOptions(values: ReturnType<typeof parseCommandLine>['values'], positionals: string[]) {
  const named: Array<[EntityKind, string]> = kindOptions.flatMap(([option, kind]) =>
    (values[option] ?? []).map((path): [EntityKind, string] => [kind, path]),
  );
  for (const path of positionals) {
    const kind = kindOfFileName(path);
    if (!kind)
      throw new UsageError(`cannot tell the kind of ${path}: name it products…, customers…, quotes… or orders…, or use --products etc.`);
    named.push([kind, path]);
  }
  if (named.length === 0) throw new UsageError('load needs at least one file');
  const files: ExportFile[] = named.map(([entity, path]) => {
    const format = formatOf(path);
    if (!format) throw new UsageError(`${path} is neither .csv nor .jsonl`);
    if (!existsSync(path) || !statSync(path).isFile()) throw new UsageError(`no such file: ${path}`);
    return { entity, path, format };
  });
  const dryRun = values['dry-run'] ?? false;
  const key = values.key || process.env.PRICING_KEY;
  if (!key && !dryRun) throw new UsageError('--key (or PRICING_KEY) is required');
  return {
    command: 'load' as const,
    files,
    dryRun,
    key: key ?? '',
    url: values.url || process.env.PRICING_URL || undefined,
    concurrency: whole('concurrency', values.concurrency, 4, 16),
    json: values.json ?? false,
  };
}

/** A drain of a large export can outlast the client's default five minutes of waiting. */
const DRAIN_WAIT_MS = 60 * 60 * 1000;

async function runLoad(options: ReturnType<typeof readLoadOptions>): Promise<number> {
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
      api = { openBatch: refuse, stageRecords: refuse, commitBatch: refuse, waitForBatch: refuse };
    } else {
      const client = createPricingClient({ baseUrl: options.url ?? localGatewayUrl(), key: options.key });
      api = {
        openBatch: () => client.openBatch(),
        // The loader checks each record against its kind's schema before the call; the client's generic cannot see that.
        stageRecords: (batchId, entity, records) => client.stageRecords(batchId, entity, records as never),
        commitBatch: (batchId) => client.commitBatch(batchId),
        waitForBatch: (batchId) => client.waitForBatch(batchId, { timeoutMs: DRAIN_WAIT_MS }),
      };
    }
    const summary = await loadExport({
      api,
      sources,
      dryRun: options.dryRun,
      concurrency: options.concurrency,
      report(event) {
        if (event.type === 'progress') progress.update({ records: event.records, elapsedMs: event.elapsedMs, bytesRead, totalBytes });
        else if (event.type === 'opened') {
          progress.end();
          console.error(printable(`opened batch ${event.batchId}`));
        } else if (event.type === 'committed') {
          progress.end();
          console.error(printable(`committed batch ${event.batchId}; waiting for it to drain`));
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

/** The local stack's gateway, found as the admin CLI finds the stack. */
function localGatewayUrl(): string {
  const stackFile = join(process.env.PRICING_LOCAL_DIR || join(projectRoot, '.local'), 'stack.json');
  if (!existsSync(stackFile)) {
    throw new Error(`no local stack is running (${stackFile} is missing): start it with \`npm start\`, or pass --url`);
  }
  return (JSON.parse(readFileSync(stackFile, 'utf8')) as { gatewayUrl: string }).gatewayUrl;
}

function eventText(event: WorkerEvent): string | undefined {
  switch (event.type) {
    case 'task':
      if (event.result === 'applied') return `${event.id} ${event.sku} ok`;
      if (event.result === 'failed') return `${event.id} ${event.sku} failed: ${event.error}`;
      return `${event.id} ${event.sku} lease lost: not acked (an ack would count as expired; the task is offered again)`;
    case 'skipped':
      return `${event.id} ${event.sku} not started: stopping (offered again when its lease runs out)`;
    case 'lease_lost':
      return `${event.id} lease lost while its command runs; it will not be acked`;
    case 'extend_failed':
      return `${event.id} could not extend its lease: ${event.error}`;
    case 'acked':
      return `acked: ${event.counts.applied} applied, ${event.counts.failed} failed, ${event.counts.expired} expired, ${event.counts.ignored} ignored`;
    case 'ack_failed':
      return `ack of ${event.count} tasks failed: ${event.error} (offered again when their leases run out)`;
    case 'stopping':
      return 'stopping: running commands finish and are acked; signal again to exit at once';
    default:
      // Claims, idle waits and extensions are noise in text; --json has them.
      return undefined;
  }
}

function summaryText(summary: Summary): string {
  const { acks } = summary;
  return (
    `${summary.claimed} claimed: ${summary.succeeded} ok, ${summary.failed} failed, ${summary.leaseLost} lease lost, ` +
    `${summary.skipped} not started; acked ${acks.applied} applied, ${acks.failed} failed, ${acks.expired} expired, ` +
    `${acks.ignored} ignored` +
    (summary.ackFailed ? `; ${summary.ackFailed} not acked (ack failed)` : '')
  );
}

/** Runs the command `args` name; answers its exit code: 0 done, 1 failed, 2 bad arguments. */
export async function connectorCommand(args: string[]): Promise<number> {
  let options: ReturnType<typeof readOptions>;
  try {
    const { values, positionals } = parseCommandLine(args);
    if (values.help) {
      console.log(usage);
      return 0;
    }
    options = readOptions(values, positionals);
  } catch (error) {
    console.error(`connector: ${printable((error as Error).message)}\n\n${usage}`);
    return 2;
  }
  if (options.command === 'load') return runLoad(options);
  // Task ids, SKUs and error texts come from the service and the command: a line shows their control characters.
  const print = (line: string) => console.log(printable(line));
  const report = (event: WorkerEvent) => {
    if (options.json) return console.log(printableJson(event));
    const text = eventText(event);
    if (text !== undefined) print(text);
  };
  try {
    const baseUrl = options.url ?? localGatewayUrl();
    const client = createPricingClient({ baseUrl, key: options.key });
    const commands = taskCommand({
      command: options.exec,
      echo: process.stderr,
      ...(options.passKey ? { passKey: options.key } : {}),
    });
    const worker = startWritebackWorker({
      api: client,
      run: commands.run,
      limit: options.limit,
      leaseSeconds: options.leaseSeconds,
      concurrency: options.concurrency,
      once: options.once,
      report,
    });
    let signals = 0;
    const onSignal = () => {
      // A second signal is an operator who will not wait.
      if (++signals > 1) {
        // The commands run in groups of their own, out of reach of the terminal's signal: pass it on, then leave.
        commands.terminate();
        process.exit(130);
      }
      worker.stop();
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
    const summary = await worker.done;
    console.log(options.json ? printableJson({ type: 'summary', ...summary }) : printable(summaryText(summary)));
    return 0;
  } catch (error) {
    console.error(`connector: ${printable(failureText(error))}`);
    return 1;
  }
}

/** The key is never in a message: errors name the status and code the API answered. */
function failureText(error: unknown): string {
  const { status, code, message } = (error ?? {}) as { status?: number; code?: string; message?: string };
  if (status === 401) return `the API refused the key (401 ${code ?? 'unauthorized'}): check --key or PRICING_KEY`;
  if (status === 403) return `the key may not claim write-backs (403 ${code ?? 'forbidden'}): ${message ?? ''}`.trim();
  return message ?? String(error);
}

// Run as the package's command; bin/connector.ts calls `connectorCommand` as npm's.
if (import.meta.main) process.exitCode = await connectorCommand(process.argv.slice(2));
