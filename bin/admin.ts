// `npm run admin -- …`: operator commands for workspaces, connectors and keys, on the local stack or, with --aws, the deployed table.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import * as v from 'valibot';
import { handlerEnvironment, type LocalStackDescription } from '../lib/local/stack.ts';
import { projectRoot } from '../lib/project.ts';

const usage = `Usage: npm run --silent admin -- <command> [options] [--json] [--aws --table NAME] [--stack FILE]

Commands:
  workspace create --name N [--base-currency USD]
  workspace update W [--status active|inactive] [--features writebacks,storefront,overview]
                     [--rate-limit N] [--overview-rate-limit N] [--monthly-lines N] [--batch-record-cap N]
                     [--pricing JSON]   the pricing settings it overrides, e.g. '{"maxChangePct":20}'; '{}' for defaults
  bands rebuild --workspace W           recompute every band of the workspace from its history, and the
                                        recommendations of the products with history
  decision show --workspace W pd_…      the priced line a decision id names, with its call's time
  connector create --workspace W --name N [--no-writebacks]
  key create --workspace W --family svc_live --scopes erp[,storefront][,connector] [--connector C]
  key create --workspace W --family pw_live|pw_test
  key revoke K

Targets: the local stack that \`npm start\` runs (its .local/stack.json, or --stack FILE), or with --aws the
deployed table named by --table (the stack's TableName output) in the region of your AWS profile.`;

function parseCommandLine() {
  return parseArgs({
    allowPositionals: true,
    strict: true,
    options: {
      json: { type: 'boolean', default: false },
      aws: { type: 'boolean', default: false },
      table: { type: 'string' },
      stack: { type: 'string' },
      help: { type: 'boolean', default: false },
      name: { type: 'string' },
      'base-currency': { type: 'string' },
      status: { type: 'string' },
      features: { type: 'string' },
      'rate-limit': { type: 'string' },
      'overview-rate-limit': { type: 'string' },
      'monthly-lines': { type: 'string' },
      'batch-record-cap': { type: 'string' },
      pricing: { type: 'string' },
      workspace: { type: 'string' },
      'no-writebacks': { type: 'boolean', default: false },
      family: { type: 'string' },
      scopes: { type: 'string' },
      connector: { type: 'string' },
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

class UsageError extends Error {}

/** How long `bands rebuild` waits for a bands job of the workspace that is running to finish. */
const REBUILD_WAIT_MS = 60_000;

function required(name: keyof typeof values): string {
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

function count(name: keyof typeof values): number | undefined {
  const value = values[name];
  if (value === undefined) return undefined;
  const number = Number(value);
  if (!/^\d+$/.test(String(value)) || !Number.isSafeInteger(number) || number < 1)
    throw new UsageError(`--${name} must be a whole number of at least 1`);
  return number;
}

function jsonOption(name: keyof typeof values): unknown {
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

async function run(): Promise<{ json: unknown; text: string }> {
  const [noun, verb, target] = positionals;
  connect();
  const workspaces = await import('../shared/workspaces/repository.ts');
  switch (`${noun} ${verb}`) {
    case 'workspace create': {
      const workspace = await workspaces.createWorkspace({
        name: required('name'),
        baseCurrency: values['base-currency'],
      });
      return {
        json: { workspaceId: workspace.workspaceId },
        text: `Created workspace ${workspace.workspaceId}`,
      };
    }
    case 'workspace update': {
      if (!target) throw new UsageError('workspace update needs the workspace id');
      const changes = v.parse(workspaces.WorkspaceChangesSchema, {
        status: values.status,
        features: list(values.features),
        rateLimit: count('rate-limit'),
        overviewRateLimit: count('overview-rate-limit'),
        monthlyLines: count('monthly-lines'),
        batchRecordCap: count('batch-record-cap'),
        pricing: values.pricing === undefined ? undefined : jsonOption('pricing'),
      });
      const workspace = await workspaces.updateWorkspace(target, changes);
      const { createdAt: _created, updatedAt: _updated, ...settings } = workspace;
      return { json: settings, text: JSON.stringify(settings, null, 2) };
    }
    case 'connector create': {
      const { createConnector } = await import('../shared/connectors/repository.ts');
      const connector = await createConnector({
        workspaceId: required('workspace'),
        name: required('name'),
        receivesWritebacks: !values['no-writebacks'],
      });
      return {
        json: { connectorId: connector.connectorId },
        text: `Created connector ${connector.connectorId}`,
      };
    }
    case 'key create': {
      const { issueApiKey } = await import('../shared/api-keys/repository.ts');
      const { KeyFamilySchema, ScopeSchema } = await import('../shared/api-keys/schema.ts');
      const family = v.parse(KeyFamilySchema, required('family'));
      const scopes = v.parse(v.array(ScopeSchema), list(values.scopes) ?? []);
      const issued = await issueApiKey({
        workspaceId: required('workspace'),
        family,
        scopes,
        connectorId: values.connector,
      });
      return {
        json: { keyId: issued.keyId, key: issued.key },
        text: `Created key ${issued.keyId}. It is shown this once; store it now:\n${issued.key}`,
      };
    }
    case 'key revoke': {
      if (!verb || !target) throw new UsageError('key revoke needs the key id');
      const { revokeApiKey } = await import('../shared/api-keys/repository.ts');
      const revoked = await revokeApiKey(target);
      return {
        json: revoked,
        text: `Revoked key ${revoked.keyId} at ${revoked.revokedAt}`,
      };
    }
    case 'bands rebuild': {
      const workspaceId = required('workspace');
      const workspace = await workspaces.getWorkspace(workspaceId);
      if (!workspace) throw new Error(`workspace ${workspaceId} does not exist`);
      const { rebuildBands } = await import('../shared/bands/recompute.ts');
      const { BandsLeaseHeld } = await import('../shared/bands/lease.ts');
      const { pricingSettings } = await import('../shared/pricing/settings.ts');
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
      const { refreshRecommendations } = await import('../shared/recommendations/repository.ts');
      const { pricedSkus, ...counts } = result;
      const refreshed = await refreshRecommendations(workspace, [...new Set(pricedSkus)].sort(), Date.now());
      return {
        json: { ...counts, recommendations: refreshed.products },
        text: `Rebuilt the bands of ${result.categories} categories from ${result.lines} history lines (${result.products} products, ${result.customers} customer items), and ${refreshed.products} recommendations`,
      };
    }
    case 'decision show': {
      if (!target) throw new UsageError('decision show needs the decision id');
      const { findDecision } = await import('../shared/prices/calls.ts');
      const decision = await findDecision(required('workspace'), target);
      if (!decision) throw new Error(`no decision ${target} in workspace ${required('workspace')}`);
      return { json: decision, text: JSON.stringify(decision, null, 2) };
    }
    default:
      throw new UsageError(noun ? `unknown command: ${positionals.join(' ')}` : 'no command given');
  }
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
    process.exitCode = error instanceof UsageError ? 2 : 1;
  }
}
