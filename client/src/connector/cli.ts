#!/usr/bin/env node
// The connector command (`npm run connector -- …`): tools for connector authors; `writebacks` runs a command for each write-back task, `load` loads an export.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import type { EntityKind } from '../../../shared/records/schema.ts';
import { createPricingClient } from '../index.ts';
import { encodingOf, type ExportFile, formatOf, kindOfFileName, readExportFile } from './files.ts';
import { type LoadApi, loadExport, type LoadUntil } from './load.ts';
import { progressDisplay, summaryText as loadSummaryText } from './progress.ts';
import { taskCommand } from './task-command.ts';
import { openJournal } from './writeback-journal.ts';
import { printable, printableJson } from './terminal-text.ts';
import { startWritebackWorker, type Summary, type WorkerEvent } from './writeback-worker.ts';

/** The project this kit sits in: its local stack (`npm start`) is the default API. */
const projectRoot = fileURLToPath(new URL('../../../', import.meta.url));

const usage = `Usage: npm run --silent connector -- writebacks --exec COMMAND [options]

Claims the connector's write-back tasks and runs COMMAND (through the shell) once per task, with the task as JSON
on stdin, its id in PRICING_TASK_ID, its approval's id in PRICING_APPROVAL_ID, its sequence in PRICING_SEQUENCE
(it grows with each approval of the SKU: refuse a price whose sequence is below the highest applied for the SKU)
and its lease's end in PRICING_LEASE_UNTIL. Delivery is at least once: a task may reach COMMAND again after a crash
or a lost lease, so COMMAND must be idempotent (key what it does on PRICING_TASK_ID). Before a task starts its lease
is renewed and must have more than the margin left; a task whose lease was lost, that a newer approval superseded,
or whose renewal got no answer, is not started. While COMMAND runs the lease is renewed every third of it, a
superseded task's too; a task whose lease is lost meanwhile is not acked. Exit
code 0 acks the task applied; any other fails it with the command's stderr (its first 1,000 characters) or "exit
code N". Acks go within about a second of each command's end. COMMAND runs in a process group of its own, ended
when the worker ends, however it ends. Its environment is the worker's without PRICING_KEY. Control characters in
what is printed (task data, the service's answers, the command's output) are shown as \u001b and so on.

Options:
  --exec COMMAND        the command to run for each task (required)
  --url URL             the API's URL (default: PRICING_URL, or the local stack that \`npm start\` runs)
  --key KEY             the connector's svc_live_ key, connector scope (default: PRICING_KEY)
  --limit N             tasks per claim, 1-100 (default 10)
  --lease-seconds N     lease per task, 1-3600 (default 300)
  --min-lease-margin N  seconds of lease a task must have left to start; set it above COMMAND's longest run
                        (default 30, or half the lease when that is shorter; less than --lease-seconds)
  --journal FILE        keep finished-but-unacked tasks in FILE (appended, flushed per line), so that a restarted
                        worker acks them instead of running them again
  --grace-seconds N     after SIGINT/SIGTERM, how long running commands have before they are ended (default 30)
  --concurrency N       commands run at once (default 1)
  --once                exit when nothing is left to claim, rather than wait for more
  --pass-key            give the command the worker's key in PRICING_KEY (it gets none otherwise)
  --json                one JSON line per event on stdout

SIGINT/SIGTERM stops claiming, lets running commands finish within the grace, acks them and exits; a second one
ends the commands and exits at once (130).
Exit codes: 0 done or stopped, 1 failed (no stack, key refused, claim failed, bad journal), 2 bad arguments.

Usage: npm run --silent connector -- load [--products F] [--customers F] [--quotes F] [--orders F] [FILE…] [options]

Loads a seller's export as one batch: validates each record with the service's schemas, stages products, customers,
quotes and orders in that order (1,000 records a call), commits, and waits until prices reflect the batch (its drain,
then the bands job: bandsRecomputedAt). Files are .csv or .jsonl, read as a stream; a FILE's kind is the plural its
name starts with (products…, customers…, quotes…, orders…). The CSV columns are in docs/connectors.md; a CSV's
delimiter (comma, semicolon or tab) is found from its header row. Files are UTF-8 (a byte order mark is skipped): a
byte that is not stops the load with its line and byte offset. A bad record stops the load before the commit, naming
its file, line and field; so does a header row with no known column, a CSV cell over 256 KB, a CSV row or JSON line
over 1 MB, or a CSV quote or order over 1,000 rows or 1 MB of cells.

Options:
  --products F, --customers F, --quotes F, --orders F   a file of that kind (each may be given more than once)
  --encoding E          utf-8 (default), windows-1252 (what Excel's plain "CSV" writes), or latin1/iso-8859-1 (read
                        as windows-1252, its superset)
  --delimiter D         the CSV delimiter, one character, or tab (default: found from the header row)
  --until W             prices (default): wait until prices reflect the batch; drained: stop once it has drained
  --dry-run             validate every record and send nothing
  --url URL, --key KEY  as for writebacks (no key is needed for --dry-run)
  --concurrency N       staging calls in flight, 1-16 (default 4)
  --json                the summary as one JSON line on stdout

Progress goes to stderr (a line rewritten on a terminal, a line every 5 s elsewhere), the summary to stdout.
Exit codes: 0 loaded (or, with --dry-run, valid), 1 failed (bad file or record, refused, failed to drain, or not
drained and priced within an hour), 2 bad arguments.`;

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
      'min-lease-margin': { type: 'string' },
      journal: { type: 'string' },
      'grace-seconds': { type: 'string' },
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
      encoding: { type: 'string' },
      delimiter: { type: 'string' },
      until: { type: 'string' },
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
  const leaseSeconds = whole('lease-seconds', values['lease-seconds'], 300, 3600);
  const minLeaseMargin = margin(values['min-lease-margin'], leaseSeconds);
  if (values.journal !== undefined && !values.journal.trim()) throw new UsageError('--journal needs a file');
  return {
    command: 'writebacks' as const,
    exec: values.exec,
    leaseSeconds,
    minLeaseMargin,
    journal: values.journal,
    graceSeconds: values['grace-seconds'] === '0' ? 0 : whole('grace-seconds', values['grace-seconds'], 30, 3600),
    key,
    // An empty variable is one left unset, as a shell's `PRICING_URL= npm run …` means.
    url: values.url || process.env.PRICING_URL || undefined,
    limit: whole('limit', values.limit, 10, 100),
    concurrency: whole('concurrency', values.concurrency, 1, 100),
    once: values.once ?? false,
    passKey: values['pass-key'] ?? false,
    json: values.json ?? false,
  };
}

/** The lease a task needs left to start: given (below the lease), or 30 s, or half a lease shorter than a minute. */
function margin(value: string | undefined, leaseSeconds: number): number {
  if (value === undefined) return Math.min(30, leaseSeconds / 2);
  const number = Number(value);
  if (!/^\d+$/.test(value) || number >= leaseSeconds) {
    throw new UsageError(`--min-lease-margin must be a whole number of seconds less than --lease-seconds (${leaseSeconds})`);
  }
  return number;
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
  const encoding = encodingOf(values.encoding ?? 'utf-8');
  if (!encoding) throw new UsageError(`--encoding must be utf-8, windows-1252, latin1 or iso-8859-1, not ${values.encoding}`);
  const delimiter = delimiterOf(values.delimiter);
  const until = values.until ?? 'prices';
  if (until !== 'prices' && until !== 'drained') throw new UsageError(`--until must be prices or drained, not ${until}`);
  const files: ExportFile[] = named.map(([entity, path]) => {
    const format = formatOf(path);
    if (!format) throw new UsageError(`${path} is neither .csv nor .jsonl`);
    if (!existsSync(path) || !statSync(path).isFile()) throw new UsageError(`no such file: ${path}`);
    return { entity, path, format, encoding, ...(delimiter === undefined ? {} : { delimiter }) };
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
    until: until as LoadUntil,
    json: values.json ?? false,
  };
}

/** `--delimiter`: one character that is not a quote or a line end, or `tab` (a literal tab is awkward in a shell). */
function delimiterOf(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  if (value === 'tab' || value === '\\t') return '\t';
  if (value.length !== 1 || value === '"' || value === '\n' || value === '\r') {
    throw new UsageError(`--delimiter must be one character (not a quote or a line end) or tab, not ${JSON.stringify(value)}`);
  }
  return value;
}

/** A drain and bands job of a large export can outlast the client's default five minutes of waiting. */
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
      api = { openBatch: refuse, stageRecords: refuse, commitBatch: refuse, cancelBatch: refuse, waitForBatch: refuse };
    } else {
      const client = createPricingClient({ baseUrl: options.url ?? localGatewayUrl(), key: options.key });
      api = {
        openBatch: () => client.openBatch(),
        // The loader checks each record against its kind's schema before the call; the client's generic cannot see that.
        stageRecords: (batchId, entity, records) => client.stageRecords(batchId, entity, records as never),
        commitBatch: (batchId) => client.commitBatch(batchId),
        cancelBatch: (batchId) => client.cancelBatch(batchId),
        waitForBatch: (batchId, wait) => client.waitForBatch(batchId, { ...wait, timeoutMs: DRAIN_WAIT_MS }),
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

/** The local stack's gateway, found as the admin CLI finds the stack. */
function localGatewayUrl(): string {
  const stackFile = join(process.env.PRICING_LOCAL_DIR || join(projectRoot, '.local'), 'stack.json');
  if (!existsSync(stackFile)) {
    throw new Error(`no local stack is running (${stackFile} is missing): start it with \`npm start\`, or pass --url`);
  }
  return (JSON.parse(readFileSync(stackFile, 'utf8')) as { gatewayUrl: string }).gatewayUrl;
}

const notStartedText = {
  lease_ran_out: 'its lease ran out before it could start',
  refused: 'the service would not renew its lease (lost, or superseded by a newer approval)',
  unconfirmed: 'the service did not answer the renewal of its lease (offered again when its lease runs out)',
  no_margin: 'too little of its lease was left (--min-lease-margin)',
  stopping: 'stopping (offered again when its lease runs out)',
} as const;

function eventText(event: WorkerEvent): string | undefined {
  switch (event.type) {
    case 'task':
      if (event.result === 'applied') return `${event.id} ${event.sku} ok`;
      if (event.result === 'failed') return `${event.id} ${event.sku} failed: ${event.error}`;
      if (event.result === 'interrupted') return `${event.id} ${event.sku} ended after the grace: not acked (offered again)`;
      return `${event.id} ${event.sku} lease lost: not acked; its result is kept so that its next claim acks it`;
    case 'not_started':
      return `${event.id} ${event.sku} not started: ${notStartedText[event.reason]}`;
    case 'recovered':
      return `${event.id} ${event.sku ?? ''} finished earlier: acked without running again`.replace('  ', ' ');
    case 'lease_lost':
      return `${event.id} lease lost while its command runs; it will not be acked`;
    case 'extend_failed':
      return `${event.id} could not extend its lease: ${event.error}`;
    case 'acked':
      return `acked: ${event.counts.applied} applied, ${event.counts.failed} failed, ${event.counts.expired} expired, ${event.counts.ignored} ignored`;
    case 'ack_failed':
      return `ack of ${event.count} tasks failed: ${event.error} (kept: their next claim acks them)`;
    case 'stopping':
      return 'stopping: running commands finish within the grace and are acked; signal again to exit at once';
    default:
      // Claims, starts, idle waits and extensions are noise in text; --json has them.
      return undefined;
  }
}

function summaryText(summary: Summary): string {
  const { acks } = summary;
  return (
    `${summary.claimed} claimed: ${summary.succeeded} ok, ${summary.failed} failed, ${summary.leaseLost} lease lost, ` +
    `${summary.notStarted} not started, ${summary.recovered} finished earlier, ${summary.interrupted} interrupted; ` +
    `acked ${acks.applied} applied, ${acks.failed} failed, ${acks.expired} expired, ${acks.ignored} ignored` +
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
    const journal = options.journal === undefined ? undefined : openJournal(options.journal);
    // However the worker ends, its commands end with it (the group leader's watchdog covers a kill it cannot see).
    process.on('exit', () => commands.terminate('SIGKILL'));
    const worker = startWritebackWorker({
      api: client,
      run: commands.run,
      limit: options.limit,
      leaseSeconds: options.leaseSeconds,
      minMarginMs: options.minLeaseMargin * 1000,
      concurrency: options.concurrency,
      once: options.once,
      report,
      graceMs: options.graceSeconds * 1000,
      terminate: () => commands.terminate(),
      ...(journal ? { journal } : {}),
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
