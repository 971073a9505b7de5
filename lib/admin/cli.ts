// The admin CLI's runner: reads the command line, finds the command's row, points at the target, runs it and prints its result.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as v from 'valibot';
import { handlerEnvironment, type LocalStackDescription } from '#lib/local/stack.ts';
import { projectRoot } from '#lib/stack/project.ts';
import { AdminArguments, type AdminCommand, type Execute, type Result, UsageError } from './command.ts';
import { adherenceCommands } from '#lib/admin/commands/adherence.ts';
import { backtestCommands } from '#lib/admin/commands/backtest.ts';
import { batchCommands } from '#lib/admin/commands/batch.ts';
import { dlqCommands } from '#lib/admin/commands/dlq.ts';
import { bandsCommands } from '#lib/admin/commands/bands.ts';
import { connectorCommands } from '#lib/admin/commands/connector.ts';
import { costCommands } from '#lib/admin/commands/cost.ts';
import { approvalCommands } from '#lib/admin/commands/approval.ts';
import { decisionCommands } from '#lib/admin/commands/decision.ts';
import { historyCommands } from '#lib/admin/commands/history.ts';
import { keyCommands } from '#lib/admin/commands/key.ts';
import { listingCommands } from '#lib/admin/commands/listing.ts';
import { userCommands } from '#lib/admin/commands/user.ts';
import { webhookCommands } from '#lib/admin/commands/webhooks.ts';
import { workspaceCommands } from '#lib/admin/commands/workspace.ts';
import { type AdminOption, type AdminValues, globalOptions, parseCommandLine } from './options.ts';

/** Every command, in the order the usage lists them. */
const adminCommands: readonly AdminCommand[] = [
  ...workspaceCommands,
  ...bandsCommands,
  ...historyCommands,
  ...decisionCommands,
  ...approvalCommands,
  ...costCommands,
  ...adherenceCommands,
  ...backtestCommands,
  ...connectorCommands,
  ...batchCommands,
  ...dlqCommands,
  ...keyCommands,
  ...listingCommands,
  ...userCommands,
  ...webhookCommands,
];

const usage = `Usage: npm run --silent admin -- <command> [options] [--json] [--aws --table NAME] [--stack FILE]

Commands:
${adminCommands.map((command) => command.usage).join('\n')}

Targets: the local stack that \`npm start\` runs (its .local/stack.json, or --stack FILE), or with --aws the
deployed table named by --table (the stack's TableName output) in the region of your AWS profile; the dlq commands
take the queue's URL instead (--queue-url, the stack's DrainQueueUrl or WebhooksQueueUrl output).`;

/** Runs the command `args` name; sets the exit code: 2 for a bad argument, 1 or the command's own for a failure. */
export async function runAdmin(args: string[]): Promise<void> {
  let parsed: ReturnType<typeof parseCommandLine>;
  try {
    parsed = parseCommandLine(args);
  } catch (error) {
    console.error(`admin: ${(error as Error).message}\n\n${usage}`);
    process.exit(2);
  }
  const { values, positionals } = parsed;
  if (values.help) {
    console.log(usage);
    return;
  }
  try {
    const { json, text } = await run(values, positionals);
    console.log(values.json ? JSON.stringify(json) : text);
  } catch (error) {
    const message =
      error instanceof v.ValiError
        ? `invalid ${error.issues.map((issue) => `${v.getDotPath(issue) ?? 'value'}: ${issue.message}`).join('; ')}`
        : (error as Error).message;
    console.error(`admin: ${message}`);
    if (error instanceof UsageError) console.error(`\n${usage}`);
    // A command may name its own code for a failure a script should tell apart (the backtest's nothing to score: 3).
    process.exitCode = error instanceof UsageError ? 2 : ((error as { exitCode?: number }).exitCode ?? 1);
  }
}

async function run(values: AdminValues, positionals: string[]): Promise<Result> {
  const { command, execute } = await prepareCommand(values, positionals);
  connect(values, command.usesTable !== false);
  return execute();
}

async function prepareCommand(values: AdminValues, positionals: string[]): Promise<{ command: AdminCommand; execute: Execute }> {
  const { command, target = '' } = readCommand(values, positionals);
  return { command, execute: await command.prepare(new AdminArguments(values, target)) };
}

/**
 * Reads a command line and checks every argument as running it would, without connecting to a target or carrying it
 * out: what the documented command lines are held to (test/layout/documented-commands.test.ts). Throws as a run would.
 */
export async function prepareCommandLine(args: string[]): Promise<void> {
  const { values, positionals } = parseCommandLine(args);
  await prepareCommand(values, positionals);
}

/** The command named, with its target; refuses unknown commands, missing or extra arguments and options it does not take. */
function readCommand(values: AdminValues, positionals: string[]): { command: AdminCommand; target: string | undefined } {
  const [noun, verb, target, ...extra] = positionals;
  if (!noun) throw new UsageError('no command given');
  const name = `${noun} ${verb ?? ''}`.trim();
  const command = adminCommands.find((row) => row.name === name);
  if (!command) throw new UsageError(`unknown command: ${positionals.join(' ')}`);
  if (command.target && !target) throw new UsageError(`${name} needs ${command.target}`);
  const unexpected = command.target ? extra : [target, ...extra].filter((item) => item !== undefined);
  if (unexpected.length > 0) throw new UsageError(`${name} takes no argument ${unexpected.join(' ')}`);
  for (const [option, value] of Object.entries(values)) {
    if (value === undefined || globalOptions.includes(option as AdminOption) || command.options.includes(option as AdminOption)) continue;
    throw new UsageError(`${name} takes no --${option}`);
  }
  if (values.table !== undefined && !values.aws) throw new UsageError('--table names a deployed table: it goes with --aws');
  if (values.stack !== undefined && values.aws) throw new UsageError('--stack names a local stack: it does not go with --aws');
  return { command, target };
}

/** Points the repositories at the chosen table: set before they load, as Lambda sets a function's environment. */
function connect(values: AdminValues, usesTable: boolean): void {
  if (values.aws) {
    const tableName = values.table ?? process.env.TABLE_NAME;
    if (!tableName && !usesTable) return;
    if (!tableName) throw new UsageError('--aws needs --table NAME (the stack output TableName)');
    process.env.TABLE_NAME = tableName;
    return;
  }
  const stackFile = values.stack ?? join(process.env.PRICING_LOCAL_DIR || join(projectRoot, '.local'), 'stack.json');
  if (!existsSync(stackFile))
    throw new UsageError(`no local stack is running (${stackFile} is missing): start it with \`npm start\`, or pass --aws`);
  const description = JSON.parse(readFileSync(stackFile, 'utf8')) as LocalStackDescription;
  Object.assign(process.env, handlerEnvironment(description));
}
