// A key's last use and its trace: written at most once per key in the resolution, the key id on request logs, and the admin CLI's key list and key find.
import { execFile, spawn } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, inject, it, vi } from 'vitest';
import { projectRoot } from '#lib/stack/project.ts';
import { authenticate, forgetCachedCredentials } from '#shared/api-keys/authenticate.ts';
import { getWorkspaceApiKey, issueApiKey, revokeApiKey } from '#shared/api-keys/repository.ts';
import { withLogKeys } from '#platform/observability.ts';
import { LAST_USE_RESOLUTION_MS, writeLastUse } from '#shared/api-keys/usage.ts';
import { CapacityLedger, withCapacityLedger } from '#platform/meter.ts';
import { call, newWorkspace } from './support.ts';

const run = promisify(execFile);

async function admin(args: string[], stdin?: string): Promise<{ code: number; stdout: string; stderr: string }> {
  const argv = ['bin/admin.ts', ...args, '--stack', inject('stackFile')];
  if (stdin === undefined) {
    try {
      const { stdout, stderr } = await run(process.execPath, argv, { cwd: projectRoot });
      return { code: 0, stdout, stderr };
    } catch (error) {
      const failed = error as { code: number; stdout: string; stderr: string };
      return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
    }
  }
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, argv, { cwd: projectRoot });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? 1, stdout, stderr }));
    child.stdin.end(stdin);
  });
}

async function adminJson(args: string[], stdin?: string) {
  const result = await admin([...args, '--json'], stdin);
  expect(result.code, result.stderr).toBe(0);
  return JSON.parse(result.stdout);
}

describe('a key’s last use', () => {
  it('is written once within the resolution, and again once it has passed, time injected', async () => {
    const { workspaceId, keyIds } = await newWorkspace();
    const t0 = Date.parse('2030-01-01T10:00:00.000Z');
    const lastUsed = async () => (await getWorkspaceApiKey(workspaceId, keyIds.erp))?.lastUsedAt;

    expect(await writeLastUse(workspaceId, keyIds.erp, t0)).toBe('written');
    expect(await lastUsed()).toBe('2030-01-01T10:00:00.000Z');

    // Within the resolution, every other write is refused by the table's condition and changes nothing.
    for (const later of [1, 60_000, LAST_USE_RESOLUTION_MS - 1]) {
      expect(await writeLastUse(workspaceId, keyIds.erp, t0 + later)).toBe('refused');
    }
    expect(await lastUsed()).toBe('2030-01-01T10:00:00.000Z');

    expect(await writeLastUse(workspaceId, keyIds.erp, t0 + LAST_USE_RESOLUTION_MS)).toBe('written');
    expect(await lastUsed()).toBe(new Date(t0 + LAST_USE_RESOLUTION_MS).toISOString());
  });

  it('costs one write unit when written and one when refused, and nothing else', async () => {
    const { workspaceId, keyIds } = await newWorkspace();
    const t0 = Date.parse('2030-01-01T10:00:00.000Z');
    for (const [at, outcome] of [
      [t0, 'written'],
      [t0 + 1000, 'refused'],
    ] as const) {
      const ledger = new CapacityLedger();
      expect(await withCapacityLedger(ledger, () => writeLastUse(workspaceId, keyIds.erp, at))).toBe(outcome);
      expect(ledger.writeUnits).toBe(1);
      expect(ledger.readUnits).toBe(0);
    }
  });

  it('is set by a request the key authenticates, and shown as that request’s time', async () => {
    const { workspaceId, keyIds, keys } = await newWorkspace();
    expect((await getWorkspaceApiKey(workspaceId, keyIds.pwLive))?.lastUsedAt).toBeUndefined();
    const before = Date.now();
    const response = await call('/v1/prices/NONE', { key: keys.pwLive });
    expect(response.status).not.toBe(401);
    const lastUsedAt = (await getWorkspaceApiKey(workspaceId, keyIds.pwLive))?.lastUsedAt ?? '';
    expect(Date.parse(lastUsedAt)).toBeGreaterThanOrEqual(before - 1000);
    // Another key of the workspace that made no request keeps none.
    expect((await getWorkspaceApiKey(workspaceId, keyIds.pwTest))?.lastUsedAt).toBeUndefined();
  });

  it('is never written for a key whose listing item is missing: the write is refused, not created', async () => {
    const { workspaceId } = await newWorkspace();
    expect(await writeLastUse(workspaceId, 'key_nolisting000000000000', Date.now())).toBe('refused');
    expect(await getWorkspaceApiKey(workspaceId, 'key_nolisting000000000000')).toBeUndefined();
  });
});

describe('the admin CLI’s key list and key find', () => {
  it('lists a workspace’s keys with name, last four, scopes, created, last used and revoked, and never a secret or hash', async () => {
    const workspace = await newWorkspace();
    const issued = await issueApiKey({ workspaceId: workspace.workspaceId, name: 'Nightly export', family: 'pw_live', scopes: [] });
    await writeLastUse(workspace.workspaceId, issued.keyId, Date.parse('2030-02-02T02:02:02.000Z'));
    const listed = await adminJson(['key', 'list', '--workspace', workspace.workspaceId]);
    expect(listed).toHaveLength(6);
    expect(listed[0]).toEqual({
      keyId: issued.keyId,
      workspaceId: workspace.workspaceId,
      name: 'Nightly export',
      lastFour: issued.key.slice(-4),
      family: 'pw_live',
      scopes: [],
      connectorId: null,
      createdAt: issued.record.createdAt,
      lastUsedAt: '2030-02-02T02:02:02.000Z',
      revokedAt: null,
      revokeAt: null,
    });
    const text = await admin(['key', 'list', '--workspace', workspace.workspaceId]);
    expect(text.stdout).toContain(`${issued.keyId}  Nightly export  pw_live_…${issued.key.slice(-4)}`);
    expect(text.stdout).toContain('last used 2030-02-02T02:02:02.000Z');
    for (const key of Object.values(workspace.keys)) expect(text.stdout + JSON.stringify(listed)).not.toContain(key);
  });

  it('finds a key by its id, by its last four in a workspace or in all, and by the key itself on stdin', async () => {
    const workspace = await newWorkspace();
    const issued = await issueApiKey({ workspaceId: workspace.workspaceId, name: 'Leaky', family: 'svc_live', scopes: ['erp'] });
    const lastFour = issued.key.slice(-4);
    const ids = (found: Array<{ keyId: string }>) => found.map((key) => key.keyId);

    expect(ids(await adminJson(['key', 'find', '--id', issued.keyId]))).toEqual([issued.keyId]);
    expect(ids(await adminJson(['key', 'find', '--last-four', lastFour, '--workspace', workspace.workspaceId]))).toEqual([issued.keyId]);
    expect(ids(await adminJson(['key', 'find', '--last-four', lastFour]))).toContain(issued.keyId);
    const byKey = await adminJson(['key', 'find', '--key-stdin'], `${issued.key}\n`);
    expect(byKey).toMatchObject([{ keyId: issued.keyId, name: 'Leaky', workspaceId: workspace.workspaceId }]);
  });

  it('says when no key is found (exit 1), and refuses a search it cannot make (exit 2) before reading anything', async () => {
    expect((await admin(['key', 'find', '--id', 'key_doesnotexist0000000000'])).code).toBe(1);
    expect((await admin(['key', 'find', '--key-stdin'], 'svc_live_nothingLikeAnyIssuedKey000000000000\n')).code).toBe(1);
    const both = await admin(['key', 'find', '--id', 'key_x', '--last-four', 'abcd']);
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('exactly one of');
    const badFour = await admin(['key', 'find', '--last-four', 'ab;d']);
    expect(badFour.code).toBe(2);
    expect((await admin(['key', 'find', '--id', 'key_x', '--workspace', 'ws_x'])).code).toBe(2);
    expect((await admin(['key', 'list'])).code).toBe(2);
  });

  it('creates a key without a name as every earlier release did, naming it for its family and day', async () => {
    const { workspaceId } = await newWorkspace();
    // The line provisioning scripts have run since before keys had names.
    const unnamed = await adminJson(['key', 'create', '--workspace', workspaceId, '--family', 'pw_live']);
    expect(unnamed.key).toMatch(/^pw_live_/);
    const [found] = await adminJson(['key', 'find', '--id', unnamed.keyId]);
    expect(found.name).toMatch(/^pw_live key, \d{4}-\d{2}-\d{2}$/);
    expect((await call('/v1/prices/NONE', { key: unnamed.key })).status).not.toBe(401);
  });

  it('creates a key only with a valid name when one is given', async () => {
    const { workspaceId } = await newWorkspace();
    const control = await admin(['key', 'create', '--workspace', workspaceId, '--name', 'bad\u0007name', '--family', 'pw_live']);
    expect(control.code).toBe(2);
    expect(control.stderr).toContain('control or invisible');
    const created = await adminJson(['key', 'create', '--workspace', workspaceId, '--name', ' Runbook check ', '--family', 'pw_live']);
    expect(created.key).toMatch(/^pw_live_/);
    const [found] = await adminJson(['key', 'find', '--id', created.keyId]);
    expect(found).toMatchObject({ name: 'Runbook check', lastFour: created.key.slice(-4) });
    expect((await call('/v1/prices/NONE', { key: created.key })).status).not.toBe(401);
  });
});

describe('a key the service knows but refuses', () => {
  /** The service's JSON log lines written while `work` ran (warnings go to stderr, the rest to stdout). */
  async function logLines(work: () => Promise<unknown>): Promise<Array<Record<string, unknown>>> {
    const lines: Array<Record<string, unknown>> = [];
    const spies = [process.stdout, process.stderr].map((stream) =>
      vi.spyOn(stream, 'write').mockImplementation((chunk: string | Uint8Array) => {
        for (const part of String(chunk).split('\n')) if (part.startsWith('{')) lines.push(JSON.parse(part) as Record<string, unknown>);
        return true;
      }),
    );
    try {
      await work();
    } finally {
      for (const spy of spies) spy.mockRestore();
    }
    return lines;
  }

  it('logs its key id, its workspace and the reason on every refused request, and never the key', async () => {
    const { workspaceId } = await newWorkspace();
    const issued = await issueApiKey({ workspaceId, name: 'Leaked', family: 'pw_live', scopes: [] });
    await revokeApiKey(issued.keyId);
    forgetCachedCredentials();
    const auth = { family: 'pw_live', scopes: [] } as const;
    const lines = await logLines(() =>
      withLogKeys({ requestId: 'req-revoked' }, async () => {
        await expect(authenticate(auth, `Bearer ${issued.key}`)).rejects.toMatchObject({ code: 'unauthorized' });
      }),
    );
    const refused = lines.filter((line) => line.message === 'API key refused');
    expect(refused).toEqual([
      expect.objectContaining({ level: 'WARN', requestId: 'req-revoked', keyId: issued.keyId, workspaceId, reason: 'unauthorized' }),
    ]);
    expect(String(refused[0]?.detail)).toMatch(/revoked/);
    expect(JSON.stringify(lines)).not.toContain(issued.key);

    // A key nobody issued names no key: there is none to name.
    const unknown = await logLines(() =>
      expect(authenticate(auth, `Bearer pw_live_${'0'.repeat(32)}`)).rejects.toMatchObject({ code: 'unauthorized' }),
    );
    expect(unknown.filter((line) => line.message === 'API key refused')).toEqual([]);
  });
});
