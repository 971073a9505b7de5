// `npm run admin -- …`: operator commands for workspaces, connectors and keys, on the local stack or, with --aws, the deployed table.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import * as v from 'valibot';
import { prepareWebhookCommand, webhookCommands, webhookOptions, webhookUsage } from '#lib/admin/webhooks.ts';
import { handlerEnvironment, type LocalStackDescription } from '#lib/local/stack.ts';
import { projectRoot } from '#lib/stack/project.ts';
import { keyFamilies, scopes } from '#shared/api-keys/schema.ts';
import { ApiError } from '#platform/errors.ts';
import { PricingOverridesSchema } from '#shared/pricing/settings.ts';
import { CurrencyCodeSchema, features, WorkspaceStatusSchema } from '#shared/workspaces/schema.ts';

const usage = `Usage: npm run --silent admin -- <command> [options] [--json] [--aws --table NAME] [--stack FILE]

Commands:
  workspace create --name N [--base-currency USD]
  workspace update W [--status active|inactive] [--features writebacks,storefront,overview]
                     [--rate-limit N] [--overview-rate-limit N] [--monthly-lines N] [--batch-record-cap N]
                     [--batch-line-cap N]   quote and order lines one batch takes
                     [--pricing JSON]   the pricing settings it overrides, e.g. '{"maxChangePct":20}'; '{}' for defaults
  bands rebuild --workspace W           recompute every band of the workspace from its history, and the
                                        recommendations of the products with history
  history migrate --workspace W         move documents stored a line item per line into one item per document
                                        and the history log; resumable, and safe to run again
  decision show --workspace W pd_…      the priced line a decision id names, with its call's time
  cost report --workspace W [--from D] [--to D] [--by day|route] [--csv]
                                        what the workspace cost in dollars, days as YYYY-MM-DD (UTC, today by default)
  adherence report --workspace W [--from D] [--to D] [--by segment|category|reason] [--csv]
                                        guidance followed or overridden, and what each earned, over whole UTC
                                        months (D: YYYY-MM-DD or YYYY-MM; the last 12 months by default)
  backtest --workspace W [--holdout-days 60]
                                        how the engine would have priced the quotes won or lost in the last 60
                                        days of history, fitted on the history before them; reads only.
                                        Exit 3 when the history has nothing to score (docs/backtest.md)
  connector create --workspace W --name N [--no-writebacks]
  key create --workspace W --family svc_live --scopes erp[,storefront][,connector] [--connector C]
  key create --workspace W --family pw_live|pw_test
  key revoke K
  key backfill-listings                 lists the keys issued before the console in its Settings → API keys: one
                                        Scan of the table; run once after upgrading, again it writes nothing
  listing backfill [--workspace W]      lists in the console's Recommendations, Batches and Write-backs what was
                                        written before them: one Scan of the table, every recommendation recomputed;
                                        run once after upgrading
  user create --workspace W --email E --roles admin[,pricing][,finance] [--password-stdin]
                                        a console user; prints a one-time password, or takes the password
                                        from the first line of stdin (at least 12 characters)
${webhookUsage}

Targets: the local stack that \`npm start\` runs (its .local/stack.json, or --stack FILE), or with --aws the
deployed table named by --table (the stack's TableName output) in the region of your AWS profile.`;

function parseCommandLine() {
  // No defaults: an option left out stays undefined, so that one given to a command that does not take it shows.
  return parseArgs({
    allowPositionals: true,
    strict: true,
    options: {
      json: { type: 'boolean' },
      aws: { type: 'boolean' },
      table: { type: 'string' },
      stack: { type: 'string' },
      help: { type: 'boolean' },
      name: { type: 'string' },
      'base-currency': { type: 'string' },
      status: { type: 'string' },
      features: { type: 'string' },
      'rate-limit': { type: 'string' },
      'overview-rate-limit': { type: 'string' },
      'monthly-lines': { type: 'string' },
      'batch-record-cap': { type: 'string' },
      'batch-line-cap': { type: 'string' },
      pricing: { type: 'string' },
      workspace: { type: 'string' },
      'no-writebacks': { type: 'boolean' },
      family: { type: 'string' },
      scopes: { type: 'string' },
      connector: { type: 'string' },
      from: { type: 'string' },
      to: { type: 'string' },
      by: { type: 'string' },
      csv: { type: 'boolean' },
      'holdout-days': { type: 'string' },
      email: { type: 'string' },
      roles: { type: 'string' },
      'password-stdin': { type: 'boolean' },
      ...webhookOptions,
    },
  });
}

let parsed: ReturnType<typeof parseCommandLine>;
try {
  parsed = parseCommandLine();
} catch (error) {
  console.error(`admin: ${(error as Error).message}\n\n${usage}`);
  process.exit(2);
}
const { values, positionals } = parsed;
type Option = keyof typeof values;

/** A bad argument or value: exit 2 with the usage. Anything else thrown is a failure of the command itself: exit 1. */
class UsageError extends Error {}

/** How long `bands rebuild` waits for a bands job of the workspace that is running to finish. */
const REBUILD_WAIT_MS = 60_000;

const globalOptions: readonly Option[] = ['json', 'aws', 'table', 'stack', 'help'];

/** Each command: the positional argument it takes after its name, if any, and its own options. */
const commands: Record<string, { readonly target?: string; readonly options: readonly Option[] }> = {
  'workspace create': { options: ['name', 'base-currency'] },
  'workspace update': {
    target: 'the workspace id',
    options: ['status', 'features', 'rate-limit', 'overview-rate-limit', 'monthly-lines', 'batch-record-cap', 'batch-line-cap', 'pricing'],
  },
  'bands rebuild': { options: ['workspace'] },
  'history migrate': { options: ['workspace'] },
  'decision show': { target: 'the decision id', options: ['workspace'] },
  backtest: { options: ['workspace', 'holdout-days'] },
  'connector create': { options: ['workspace', 'name', 'no-writebacks'] },
  'key create': { options: ['workspace', 'family', 'scopes', 'connector'] },
  'key revoke': { target: 'the key id', options: [] },
  'key backfill-listings': { options: [] },
  'listing backfill': { options: ['workspace'] },
  'user create': { options: ['workspace', 'email', 'roles', 'password-stdin'] },
  'cost report': { options: ['workspace', 'from', 'to', 'by', 'csv'] },
  'adherence report': { options: ['workspace', 'from', 'to', 'by', 'csv'] },
  ...webhookCommands,
};

/** The command named, with its target; refuses unknown commands, missing or extra arguments and options it does not take. */
function readCommand(): { name: string; target: string | undefined } {
  const [noun, verb, target, ...extra] = positionals;
  if (!noun) throw new UsageError('no command given');
  const name = `${noun} ${verb ?? ''}`.trim();
  const command = commands[name];
  if (!command) throw new UsageError(`unknown command: ${positionals.join(' ')}`);
  if (command.target && !target) throw new UsageError(`${name} needs ${command.target}`);
  const unexpected = command.target ? extra : [target, ...extra].filter((item) => item !== undefined);
  if (unexpected.length > 0) throw new UsageError(`${name} takes no argument ${unexpected.join(' ')}`);
  for (const [option, value] of Object.entries(values)) {
    if (value === undefined || globalOptions.includes(option as Option) || command.options.includes(option as Option)) continue;
    throw new UsageError(`${name} takes no --${option}`);
  }
  if (values.table !== undefined && !values.aws) throw new UsageError('--table names a deployed table: it goes with --aws');
  if (values.stack !== undefined && values.aws) throw new UsageError('--stack names a local stack: it does not go with --aws');
  return { name, target };
}

function required(name: Option): string {
  const value = values[name];
  if (typeof value !== 'string' || value === '') throw new UsageError(`--${name} is required`);
  return value;
}

function list(value: string | undefined): string[] | undefined {
  return value === undefined
    ? undefined
    : value
        .split(',')
        .map((item) => item.trim())
        .filter(Boolean);
}

function oneOf<const T extends string>(name: Option, allowed: readonly T[], value: string): T {
  if (!(allowed as readonly string[]).includes(value)) {
    throw new UsageError(`invalid --${name} ${JSON.stringify(value)}: expected ${allowed.join(', ')}`);
  }
  return value as T;
}

function eachOneOf<const T extends string>(name: Option, allowed: readonly T[]): T[] | undefined {
  return list(values[name] as string | undefined)?.map((item) => oneOf(name, allowed, item));
}

function count(name: Option): number | undefined {
  const value = values[name];
  if (value === undefined) return undefined;
  const number = Number(value);
  if (!/^\d+$/.test(String(value)) || !Number.isSafeInteger(number) || number < 1)
    throw new UsageError(`--${name} must be a whole number of at least 1`);
  return number;
}

/** The value checked against its schema; a mismatch is a bad argument, named by its option. */
function checked<const TSchema extends v.GenericSchema>(name: Option, schema: TSchema, value: unknown): v.InferOutput<TSchema> {
  const result = v.safeParse(schema, value);
  if (result.success) return result.output;
  const problems = result.issues.map((issue) => {
    const path = v.getDotPath(issue);
    return path ? `${path}: ${issue.message}` : issue.message;
  });
  throw new UsageError(`invalid --${name}: ${problems.join('; ')}`);
}

function jsonOption(name: Option): unknown {
  try {
    return JSON.parse(String(values[name]));
  } catch {
    throw new UsageError(`--${name} must be JSON`);
  }
}

/** Points the repositories at the chosen table: set before they load, as Lambda sets a function's environment. */
function connect(): void {
  if (values.aws) {
    const tableName = values.table ?? process.env.TABLE_NAME;
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

type Result = { json: unknown; text: string };

/**
 * Reads and checks every argument of the command, and returns what carries it out: a bad argument is refused before
 * anything is read or written, and before the target is even looked for.
 */
async function prepare(): Promise<() => Promise<Result>> {
  const { name, target = '' } = readCommand();
  if (name in webhookCommands) return prepareWebhookCommand(name, target, values, (message) => new UsageError(message));
  switch (name) {
    case 'workspace create': {
      const input = {
        name: required('name'),
        baseCurrency:
          values['base-currency'] === undefined ? undefined : checked('base-currency', CurrencyCodeSchema, values['base-currency']),
      };
      return async () => {
        const { createWorkspace } = await import('#shared/workspaces/repository.ts');
        const workspace = await createWorkspace(input);
        return { json: { workspaceId: workspace.workspaceId }, text: `Created workspace ${workspace.workspaceId}` };
      };
    }
    case 'workspace update': {
      const changes = {
        status: values.status === undefined ? undefined : oneOf('status', WorkspaceStatusSchema.options, values.status),
        features: eachOneOf('features', features),
        rateLimit: count('rate-limit'),
        overviewRateLimit: count('overview-rate-limit'),
        monthlyLines: count('monthly-lines'),
        batchRecordCap: count('batch-record-cap'),
        batchLineCap: count('batch-line-cap'),
        pricing: values.pricing === undefined ? undefined : checked('pricing', PricingOverridesSchema, jsonOption('pricing')),
      };
      return async () => {
        const { updateWorkspace } = await import('#shared/workspaces/repository.ts');
        const { createdAt: _created, updatedAt: _updated, ...settings } = await updateWorkspace(target, changes);
        return { json: settings, text: JSON.stringify(settings, null, 2) };
      };
    }
    case 'connector create': {
      const input = { workspaceId: required('workspace'), name: required('name'), receivesWritebacks: !values['no-writebacks'] };
      return async () => {
        const { createConnector } = await import('#shared/connectors/repository.ts');
        const connector = await createConnector(input);
        return { json: { connectorId: connector.connectorId }, text: `Created connector ${connector.connectorId}` };
      };
    }
    case 'key create': {
      const grant = {
        workspaceId: required('workspace'),
        family: oneOf('family', keyFamilies, required('family')),
        scopes: eachOneOf('scopes', scopes) ?? [],
        connectorId: values.connector,
      };
      // The grant's own rules (scopes by family, a connector exactly for connector keys) are arguments too.
      const { checkGrant } = await import('#shared/api-keys/repository.ts');
      try {
        checkGrant(grant);
      } catch (error) {
        if (error instanceof ApiError && error.code === 'invalid_request') throw new UsageError(error.message);
        throw error;
      }
      return async () => {
        const { issueApiKey } = await import('#shared/api-keys/repository.ts');
        const issued = await issueApiKey(grant);
        return {
          json: { keyId: issued.keyId, key: issued.key },
          text: `Created key ${issued.keyId}. It is shown this once; store it now:\n${issued.key}`,
        };
      };
    }
    case 'key revoke':
      return async () => {
        const { revokeApiKey } = await import('#shared/api-keys/repository.ts');
        const revoked = await revokeApiKey(target);
        return { json: revoked, text: `Revoked key ${revoked.keyId} at ${revoked.revokedAt}` };
      };
    case 'key backfill-listings':
      return async () => {
        const { backfillApiKeyListings } = await import('#shared/api-keys/repository.ts');
        const done = await backfillApiKeyListings();
        return { json: done, text: `Listed ${done.written} of ${done.keys} keys that the console did not list yet` };
      };
    case 'listing backfill':
      return async () => {
        const { backfillListings } = await import('#lib/admin/migrations/listing-backfill.ts');
        const done = await backfillListings(values.workspace ? { workspaceId: values.workspace } : {});
        return {
          json: done,
          text: `Listed ${done.products} products' recommendations, ${done.batches} batches and ${done.tasks} write-back tasks`,
        };
      };
    case 'user create': {
      const { consoleRoles, normalEmail } = await import('#edge/console/users.ts');
      const { passwordProblem } = await import('#edge/console/passwords.ts');
      const workspaceId = required('workspace');
      let email: string;
      try {
        email = normalEmail(required('email'));
      } catch {
        throw new UsageError(`invalid --email ${JSON.stringify(values.email)}: expected an email address`);
      }
      required('roles');
      const roles = eachOneOf('roles', consoleRoles) ?? [];
      if (roles.length === 0) throw new UsageError('--roles needs at least one of admin, pricing, finance');
      const password = values['password-stdin'] ? await firstLineOfStdin() : undefined;
      const problem = password === undefined ? undefined : passwordProblem(password);
      if (problem) throw new UsageError(`the password on stdin is refused: ${problem}`);
      return async () => {
        const { createConsoleUser } = await import('#edge/console/users.ts');
        const created = await createConsoleUser({ workspaceId, email, roles, password });
        const chosen = password !== undefined;
        return {
          json: { userId: created.userId, email: created.email, ...(chosen ? {} : { password: created.password }) },
          text: chosen
            ? `Created console user ${created.email} (${created.userId}) with the password from stdin`
            : `Created console user ${created.email} (${created.userId}). Their one-time password is shown this once:\n${created.password}`,
        };
      };
    }
    case 'bands rebuild': {
      const workspaceId = required('workspace');
      return () => rebuild(workspaceId);
    }
    case 'history migrate': {
      const workspaceId = required('workspace');
      return async () => {
        const { migrateHistory } = await import('#lib/admin/migrations/history.ts');
        const result = await migrateHistory(workspaceId, {
          onCategory: (category, documents) => console.error(`history migrate: ${category}: ${documents} documents moved`),
        });
        return {
          json: result,
          text: `Moved ${result.documents} documents (${result.lines} lines) into the history log; ${result.categories} categories done`,
        };
      };
    }
    case 'decision show': {
      const workspaceId = required('workspace');
      return async () => {
        const { findDecision } = await import('#shared/prices/calls.ts');
        const decision = await findDecision(workspaceId, target);
        if (!decision) throw new Error(`no decision ${target} in workspace ${workspaceId}`);
        return { json: decision, text: JSON.stringify(decision, null, 2) };
      };
    }
    case 'cost report': {
      const { prepareCostReport } = await import('#lib/admin/cost-report.ts');
      return prepareCostReport({ ...values, workspace: required('workspace') }, (message) => new UsageError(message));
    }
    case 'adherence report': {
      const { prepareAdherenceReport } = await import('#lib/admin/adherence.ts');
      return prepareAdherenceReport({ ...values, workspace: required('workspace') }, (message) => new UsageError(message));
    }
    case 'backtest': {
      const input = { workspaceId: required('workspace'), holdoutDays: count('holdout-days') };
      return async () => {
        const { backtest } = await import('#lib/admin/backtest.ts');
        return backtest({ ...input, progress: (message) => console.error(`backtest: ${message}`) });
      };
    }
    default:
      throw new UsageError(`unknown command: ${name}`);
  }
}

/** The first line of stdin, without its line end: a password piped in, never echoed nor put on the command line. */
async function firstLineOfStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return (Buffer.concat(chunks).toString('utf8').split(/\r?\n/)[0] ?? '').trimEnd();
}

async function rebuild(workspaceId: string): Promise<Result> {
  const workspaces = await import('#shared/workspaces/repository.ts');
  const workspace = await workspaces.getWorkspace(workspaceId);
  if (!workspace) throw new Error(`workspace ${workspaceId} does not exist`);
  const { rebuildBands } = await import('#shared/bands/recompute.ts');
  const { BandsLeaseHeld } = await import('#shared/bands/lease.ts');
  const { pricingSettings } = await import('#shared/pricing/settings.ts');
  // A bands job after a drain may be running: wait for it a while rather than refuse at once.
  const waitUntil = Date.now() + REBUILD_WAIT_MS;
  let result;
  for (;;) {
    try {
      result = await rebuildBands(workspaceId, pricingSettings(workspace.pricing), new Date());
      break;
    } catch (error) {
      if (!(error instanceof BandsLeaseHeld) || Date.now() > waitUntil) throw error;
      await new Promise((resolve) => setTimeout(resolve, 1_000));
    }
  }
  // A rebuild follows a change of pricing settings as often as not: the recommendations of every product with
  // history follow the bands.
  const { refreshRecommendations } = await import('#shared/recommendations/repository.ts');
  const { pricedSkus, ...counts } = result;
  const refreshed = await refreshRecommendations(workspace, [...new Set(pricedSkus)].sort(), Date.now());
  return {
    json: { ...counts, recommendations: refreshed.products },
    text: `Rebuilt the bands of ${result.categories} categories from ${result.lines} history lines (${result.products} products, ${result.customers} customer items), and ${refreshed.products} recommendations`,
  };
}

async function run(): Promise<Result> {
  const execute = await prepare();
  connect();
  return execute();
}

if (values.help) {
  console.log(usage);
} else {
  try {
    const { json, text } = await run();
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
