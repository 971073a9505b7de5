#!/usr/bin/env node
// The connector command (`npm run connector -- …`): tools for connector authors; `writebacks` runs a command for each write-back task, `load` loads an export.
import { existsSync, statSync } from 'node:fs';
import { parseArgs } from 'node:util';
import type { EntityKind } from '../../../shared/records/schema.ts';
import { createPricingClient } from '../index.ts';
import { encodingOf, type ExportFile, formatOf, kindOfFileName } from './files.ts';
import type { LoadUntil } from './load.ts';
import { runLoad } from './load-command.ts';
import { failureText, localGatewayUrl } from './service-connection.ts';
import { taskCommand } from './task-command.ts';
import { openJournal } from './writeback-journal.ts';
import { printable, printableJson } from './terminal-text.ts';
import { startWritebackWorker, type WorkerEvent } from './writeback-worker.ts';
import { eventText, summaryText } from './writeback-text.ts';

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
Exit codes: 0 loaded (or, with --dry-run, valid), 1 failed (bad file or record, refused, failed to drain, or stood
still for 5 minutes while waited for), 2 bad arguments.`;

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
  return runWritebacks(options);
}

/** Runs the write-back worker until it drains (`--once`) or is stopped, printing its events; answers the exit code. */
async function runWritebacks(options: Extract<ReturnType<typeof readOptions>, { command: 'writebacks' }>): Promise<number> {
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

// Run as the package's command; bin/connector.ts calls `connectorCommand` as npm's.
if (import.meta.main) process.exitCode = await connectorCommand(process.argv.slice(2));
