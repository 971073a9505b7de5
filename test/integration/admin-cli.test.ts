// The admin CLI run as an operator runs it, against the local stack and, with --aws, a named table.
import { keys } from '#platform/table/keys.ts';
import { execFile, spawn } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, inject, it } from 'vitest';
import { projectRoot } from '#lib/stack/project.ts';
import { DeleteCommand } from '@aws-sdk/lib-dynamodb';
import { hashApiKey, listApiKeys } from '#shared/api-keys/repository.ts';
import { getItem } from '#platform/table/commands.ts';
import { listConsoleUsers } from '#edge/console/users.ts';
import { tableName } from '#platform/config.ts';
import { tableClient } from '#platform/table/client.ts';
import { ConsoleBrowser } from './console-session.ts';
import { call } from './support.ts';
import { stackFileOf, withTableHolding } from './table-of-its-own.ts';

const run = promisify(execFile);

/** Runs the admin CLI as an operator would, against the test run's local stack unless told otherwise. */
async function admin(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return runAdmin([...args, '--stack', inject('stackFile')]);
}

async function runAdmin(args: string[], env: NodeJS.ProcessEnv = process.env): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, ['bin/admin.ts', ...args], { cwd: projectRoot, env });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

/** Exactly one JSON document on stdout, or the test fails. */
async function adminJson(...args: string[]) {
  const result = await admin(...args, '--json');
  expect(result.code, result.stderr).toBe(0);
  return JSON.parse(result.stdout);
}

describe('the admin CLI', () => {
  it('creates a workspace, a connector and keys that work on the API, each printing one JSON document', async () => {
    const { workspaceId } = await adminJson('workspace', 'create', '--name', 'Acme', '--base-currency', 'EUR');
    expect(workspaceId).toMatch(/^ws_/);
    const { connectorId } = await adminJson('connector', 'create', '--workspace', workspaceId, '--name', 'SAP');
    expect(connectorId).toMatch(/^con_/);
    const created = await adminJson(
      'key',
      'create',
      '--workspace',
      workspaceId,
      '--name',
      'ERP sync',
      '--family',
      'svc_live',
      '--scopes',
      'erp,connector',
      '--connector',
      connectorId,
    );
    expect(created).toEqual({ keyId: expect.stringMatching(/^key_/), key: expect.stringMatching(/^svc_live_[0-9A-Za-z]{32,}$/) });

    const opened = await call('/api/v1/ingest/batches', { method: 'POST', key: created.key });
    expect(opened.status).toBe(201);
    expect(opened.json.connectorId).toBe(connectorId);
  });

  it('creates overview keys of both families', async () => {
    const { workspaceId } = await adminJson('workspace', 'create', '--name', 'Overview');
    expect((await adminJson('key', 'create', '--workspace', workspaceId, '--name', 'Overview', '--family', 'pw_live')).key).toMatch(
      /^pw_live_/,
    );
    expect((await adminJson('key', 'create', '--workspace', workspaceId, '--name', 'Sandbox', '--family', 'pw_test')).key).toMatch(
      /^pw_test_/,
    );
  });

  it("updates a workspace's settings and prints them all", async () => {
    const { workspaceId } = await adminJson('workspace', 'create', '--name', 'Limits');
    const settings = await adminJson(
      'workspace',
      'update',
      workspaceId,
      '--status',
      'inactive',
      '--features',
      'writebacks,overview',
      '--rate-limit',
      '50',
      '--overview-rate-limit',
      '5',
      '--monthly-lines',
      '2000',
      '--batch-record-cap',
      '500',
      '--batch-line-cap',
      '20000',
      '--connector-limit',
      '80',
    );
    expect(settings).toEqual({
      workspaceId,
      name: 'Limits',
      status: 'inactive',
      baseCurrency: 'USD',
      features: ['writebacks', 'overview'],
      rateLimit: 50,
      overviewRateLimit: 5,
      monthlyLines: 2000,
      batchRecordCap: 500,
      batchLineCap: 20_000,
      connectorLimit: 80,
    });
  });

  it('revokes a key, which then stops working', async () => {
    const { workspaceId } = await adminJson('workspace', 'create', '--name', 'Revoke');
    const { connectorId } = await adminJson('connector', 'create', '--workspace', workspaceId, '--name', 'ERP', '--no-writebacks');
    const { keyId, key } = await adminJson(
      'key',
      'create',
      '--workspace',
      workspaceId,
      '--name',
      'ERP sync',
      '--family',
      'svc_live',
      '--scopes',
      'connector',
      '--connector',
      connectorId,
    );
    const revoked = await adminJson('key', 'revoke', keyId);
    expect(revoked).toEqual({ keyId, revokedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) });
    expect((await call('/api/v1/ingest/batches', { method: 'POST', key })).status).toBe(401);
  });

  it('works on a deployed table with --aws --table, through the SDK endpoint and credentials of the environment', async () => {
    const stack = inject('stack');
    const env = {
      PATH: process.env.PATH,
      AWS_REGION: stack.region,
      AWS_ACCESS_KEY_ID: 'local',
      AWS_SECRET_ACCESS_KEY: 'local',
      AWS_ENDPOINT_URL_DYNAMODB: stack.dynamoDbEndpoint,
    };
    const created = await runAdmin(['workspace', 'create', '--name', 'Deployed', '--aws', '--table', stack.tableName, '--json'], env);
    expect(created.code, created.stderr).toBe(0);
    const { workspaceId } = JSON.parse(created.stdout);
    const settings = await adminJson('workspace', 'update', workspaceId, '--monthly-lines', '5');
    expect(settings).toMatchObject({ workspaceId, name: 'Deployed', monthlyLines: 5 });

    const withoutTable = await runAdmin(['workspace', 'create', '--name', 'X', '--aws', '--json'], env);
    expect(withoutTable.code).not.toBe(0);
    expect(withoutTable.stderr).toMatch(/--table/);
  });

  it.each([
    [['workspace', 'update', 'ws_doesnotexist', '--status', 'active'], /does not exist/, 1],
    [['key', 'revoke', 'key_doesnotexist'], /does not exist/, 1],
    [['connector', 'create', '--workspace', 'ws_doesnotexist', '--name', 'X'], /does not exist/, 1],
    [['workspace', 'update', 'ws_doesnotexist', '--features', 'writebacks'], /ws_doesnotexist does not exist/, 1],
    [['workspace', 'create'], /--name is required/, 2],
    [['workspace', 'create', '--name', 'X', '--base-currency', 'euro'], /ISO 4217/, 2],
    [['key', 'create', '--workspace', 'ws_x', '--family', 'svc_live', '--scopes', 'connector'], /connector/, 2],
    [['key', 'create', '--workspace', 'ws_x', '--family', 'pw_live', '--scopes', 'erp'], /no scopes/, 2],
    [['key', 'create', '--workspace', 'ws_x', '--family', 'svc_test', '--scopes', 'erp'], /invalid/, 2],
    [['workspace', 'update', 'ws_x', '--rate-limit', '0'], /whole number/, 2],
    [['workspace', 'update', 'ws_x', '--monthly-lines', 'many'], /whole number/, 2],
    [['workspace', 'update', 'ws_x', '--pricing', 'cheap'], /--pricing must be JSON/, 2],
    [['workspace', 'update', '--status', 'active'], /needs the workspace id/, 2],
    [['key', 'revoke'], /needs the key id/, 2],
    [['workspace', 'launch'], /unknown command/, 2],
    [[], /no command given/, 2],
    [['workspace', 'create', '--colour', 'blue'], /colour/, 2],
  ])(
    'fails %j with a message on stderr and nothing on stdout: exit 2 and the usage for a bad argument, exit 1 for a failed command',
    async (args, message, code) => {
      const result = await admin(...args, '--json');
      expect(result.code, result.stderr).toBe(code);
      expect(result.stdout).toBe('');
      expect(result.stderr).toMatch(message);
      // The usage is for bad arguments only: a command that failed was asked for correctly.
      if (code === 2) expect(result.stderr).toContain('Usage: npm run --silent admin');
      else expect(result.stderr).not.toContain('Usage:');
    },
  );

  it.each([
    [
      ['workspace', 'update', 'ws_x', '--features', 'writebacks,admin'],
      /invalid --features "admin": expected writebacks, storefront, overview/,
    ],
    [['workspace', 'update', 'ws_x', '--status', 'paused'], /invalid --status "paused"/],
    [['workspace', 'update', 'ws_x', '--pricing', '{"halfLifeDays":0}'], /invalid --pricing: halfLifeDays/],
    [['workspace', 'update', 'ws_x', '--pricing', '{"colour":"blue"}'], /invalid --pricing: colour/],
    [['workspace', 'create', '--name', 'X', '--base-currency', 'euro'], /invalid --base-currency: a three-letter ISO 4217 code/],
    [['workspace', 'create', '--name', 'X', '--status', 'active'], /workspace create takes no --status/],
    [['workspace', 'create', 'extra', '--name', 'X'], /takes no argument extra/],
    [['key', 'create', '--workspace', 'ws_x', '--family', 'svc_live', '--scopes', 'erp,admin'], /invalid --scopes "admin"/],
  ])('exits 2 with a message and the usage for the bad argument in %j', async (args, message) => {
    const result = await admin(...args, '--json');
    expect(result.code, result.stderr).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(message);
    expect(result.stderr).toContain('Usage: npm run --silent admin');
  });
});

describe('the admin CLI’s webhook commands', () => {
  async function workspaceWithOverviewKey(): Promise<{ workspaceId: string; key: string }> {
    const { workspaceId } = await adminJson('workspace', 'create', '--name', 'Webhooks');
    const { key } = await adminJson('key', 'create', '--workspace', workspaceId, '--name', 'Overview', '--family', 'pw_live');
    return { workspaceId, key };
  }

  it('creates an endpoint and shows its secret once, lists it without the secret, and rotates the secret', async () => {
    const { workspaceId, key } = await workspaceWithOverviewKey();
    const url = 'http://127.0.0.1:9/cli-hooks';
    const createdText = await admin(
      'webhook',
      'create',
      '--workspace',
      workspaceId,
      '--url',
      url,
      '--events',
      'batch.drained,price.approved',
    );
    expect(createdText.code, createdText.stderr).toBe(0);
    const secret = /whsec_\S+/.exec(createdText.stdout)?.[0] ?? '';
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(createdText.stdout).toContain('shown this once');

    const created = await adminJson('webhook', 'create', '--workspace', workspaceId, '--url', url, '--events', 'writeback.pending');
    expect(created).toMatchObject({ url, event_types: ['writeback.pending'], status: 'healthy', secret: expect.stringMatching(/^whsec_/) });

    const listed = await admin('webhook', 'list', '--workspace', workspaceId, '--json');
    expect(listed.code, listed.stderr).toBe(0);
    const rows = JSON.parse(listed.stdout) as Array<{ id: string; status: string }>;
    expect(rows.map((row) => row.id).sort()).toEqual([created.id, createdText.stdout.match(/we_\w+/)?.[0]].sort());
    expect(listed.stdout).not.toContain('whsec_');
    expect(rows.every((row) => row.status === 'healthy')).toBe(true);
    // The overview surface sees what the CLI made.
    expect((await call('/v1/webhook-endpoints', { key })).json.data).toHaveLength(2);

    const rotated = await adminJson('webhook', 'rotate-secret', created.id, '--workspace', workspaceId);
    expect(rotated).toEqual({ id: created.id, secret: expect.stringMatching(/^whsec_/), previous_secret_expires_at: expect.any(String) });
    expect(rotated.secret).not.toBe(created.secret);

    const disabled = await adminJson('webhook', 'update', created.id, '--workspace', workspaceId, '--disable');
    expect(disabled).toMatchObject({ id: created.id, enabled: false, status: 'disabled' });
    expect(await adminJson('webhook', 'delete', created.id, '--workspace', workspaceId)).toEqual({ id: created.id, deleted: true });
    expect(await adminJson('webhook', 'list', '--workspace', workspaceId)).toHaveLength(1);
  });

  it('refuses unknown event types before touching anything, and SSRF targets with the reason', async () => {
    const { workspaceId } = await workspaceWithOverviewKey();
    const unknown = await admin('webhook', 'create', '--workspace', workspaceId, '--url', 'https://hooks.example.com/', '--events', '*');
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('invalid --events "*"');
    const metadata = await admin(
      'webhook',
      'create',
      '--workspace',
      workspaceId,
      '--url',
      'https://169.254.169.254/',
      '--events',
      'batch.failed',
    );
    expect(metadata.code).toBe(1);
    expect(metadata.stderr).toMatch(/link-local/);
    expect(await adminJson('webhook', 'list', '--workspace', workspaceId)).toEqual([]);
  });
});

describe('the admin CLI’s console users', () => {
  it('creates a console user with a one-time password that signs in, and one whose password comes on stdin', async () => {
    const { workspaceId } = await adminJson('workspace', 'create', '--name', 'Console');
    const email = `Admin-${Date.now()}@Example.com`;
    const created = await admin('user', 'create', '--workspace', workspaceId, '--email', email, '--roles', 'admin,finance');
    expect(created.code, created.stderr).toBe(0);
    expect(created.stdout).toContain(`Created console user ${email.toLowerCase()}`);
    const password = created.stdout.trim().split('\n').at(-1) ?? '';
    expect(password).toMatch(/^[0-9A-Za-z]{24}$/);
    expect((await new ConsoleBrowser().signIn(email, password)).status).toBe(303);

    const chosen = 'a password of my own choosing';
    const piped = await adminWithStdin(
      `${chosen}\n`,
      'user',
      'create',
      '--workspace',
      workspaceId,
      '--email',
      `p-${email}`,
      '--roles',
      'pricing',
      '--password-stdin',
      '--json',
    );
    expect(piped.code, piped.stderr).toBe(0);
    expect(JSON.parse(piped.stdout)).toEqual({ userId: expect.stringMatching(/^usr_/), email: `p-${email}`.toLowerCase() });
    expect((await new ConsoleBrowser().signIn(`p-${email}`, chosen)).status).toBe(303);
  });

  it(
    'changes a console user’s roles, disables, enables and deletes them, and finds no user of another workspace',
    { timeout: 180_000 },
    async () => {
      const { workspaceId } = await adminJson('workspace', 'create', '--name', 'Users');
      const { workspaceId: otherWorkspace } = await adminJson('workspace', 'create', '--name', 'Other');
      const email = `cli-${Date.now()}@example.com`;
      expect((await admin('user', 'create', '--workspace', workspaceId, '--email', email, '--roles', 'admin')).code).toBe(0);
      expect(await adminJson('user', 'update', '--workspace', workspaceId, '--email', email, '--roles', 'finance,pricing')).toEqual({
        email,
        workspaceId,
        roles: ['pricing', 'finance'],
      });
      const [listed] = await listConsoleUsers(workspaceId);
      expect(listed?.roles).toEqual(['pricing', 'finance']);
      expect((await adminJson('user', 'disable', '--workspace', workspaceId, '--email', email)).status).toBe('disabled');
      expect((await listConsoleUsers(workspaceId))[0]?.status).toBe('disabled');
      expect((await adminJson('user', 'enable', '--workspace', workspaceId, '--email', email)).status).toBe('active');
      const elsewhere = await admin('user', 'delete', '--workspace', otherWorkspace, '--email', email);
      expect(elsewhere.code).toBe(1);
      expect(elsewhere.stderr).toContain(`There is no console user ${email} in this workspace.`);
      const noRoles = await admin('user', 'update', '--workspace', workspaceId, '--email', email, '--roles', 'owner');
      expect(noRoles.code).toBe(2);
      expect(await adminJson('user', 'delete', '--workspace', workspaceId, '--email', email)).toEqual({
        email,
        workspaceId,
        deleted: true,
      });
      expect(await listConsoleUsers(workspaceId)).toEqual([]);
    },
  );

  it('lists the keys issued before the console had listings, once', async () => {
    const { workspaceId } = await adminJson('workspace', 'create', '--name', 'Upgraded');
    const issued = await adminJson('key', 'create', '--workspace', workspaceId, '--name', 'Overview', '--family', 'pw_live');
    const keyId = issued.keyId as string;
    // As a key issued before listings existed: its listing item is not there.
    await tableClient().send(new DeleteCommand({ TableName: tableName(), Key: keys.apiKeyListing(workspaceId, keyId) }));
    expect(await listApiKeys(workspaceId)).toEqual([]);
    const keyItem = await getItem({ Key: keys.apiKey(hashApiKey(issued.key as string)), ConsistentRead: true });
    if (!keyItem) throw new Error('the key item is missing');
    // The backfill Scans a table that holds this workspace and its key, and nothing else the run wrote.
    await withTableHolding({ workspaceIds: [workspaceId], items: [keyItem] }, async (table) => {
      const stackFile = stackFileOf(table);
      const backfill = async () => {
        const result = await runAdmin(['key', 'backfill-listings', '--stack', stackFile, '--json']);
        expect(result.code, result.stderr).toBe(0);
        return JSON.parse(result.stdout);
      };
      expect(await backfill()).toEqual({ keys: 1, written: 1 });
      expect((await listApiKeys(workspaceId)).map((key) => key.keyId)).toEqual([keyId]);
      expect(await backfill()).toEqual({ keys: 1, written: 0 });
    });
  });

  it('refuses a console user with an unknown role, a malformed email or a taken one', async () => {
    const { workspaceId } = await adminJson('workspace', 'create', '--name', 'Console');
    const badRole = await admin('user', 'create', '--workspace', workspaceId, '--email', 'x@example.com', '--roles', 'admin,owner');
    expect(badRole.code).toBe(2);
    expect(badRole.stderr).toContain('invalid --roles "owner"');
    const badEmail = await admin('user', 'create', '--workspace', workspaceId, '--email', 'not-an-email', '--roles', 'admin');
    expect(badEmail.code).toBe(2);
    const email = `taken-${Date.now()}@example.com`;
    expect((await admin('user', 'create', '--workspace', workspaceId, '--email', email, '--roles', 'admin')).code).toBe(0);
    const taken = await admin('user', 'create', '--workspace', workspaceId, '--email', email, '--roles', 'finance');
    expect(taken.code).toBe(1);
    expect(taken.stderr).toContain('This email cannot be given a new console user.');
  });
});

/** Runs the admin CLI with text on its stdin, as `echo … | npm run admin -- …` would. */
function adminWithStdin(input: string, ...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['bin/admin.ts', ...args, '--stack', inject('stackFile')], { cwd: projectRoot });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? 1, stdout, stderr }));
    child.stdin.end(input);
  });
}
