// The console through the local gateway, with plain HTTP: sign-in and its cookie, CSRF and role checks on every form, one workspace's data only, and the CSP on every answer.
import { randomUUID } from 'node:crypto';
import { DeleteCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { Context } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { handler as signInHandler } from '../../functions/console/console-sign-in.ts';
import { buildEvent } from '#lib/local/gateway.ts';
import { createLambdaContext } from '#lib/local/lambda-context.ts';
import { listApiKeys } from '#shared/api-keys/repository.ts';
import { tableName } from '#platform/config.ts';
import { CONSOLE_POLICY } from '#edge/console/responses.ts';
import { hashSessionId, SESSION_COOKIE, SIGN_IN_COOKIE } from '#edge/console/sessions.ts';
import { MAX_FAILURES, windowOf } from '#edge/console/sign-in-limits.ts';
import { createConsoleUser } from '#edge/console/users.ts';
import type { ConsoleRole } from '#edge/console/page.ts';
import { tableClient } from '#platform/table/client.ts';
import { consoleKeys } from '#platform/table/console-keys.ts';
import { revealedSecret } from './console-reveals.ts';
import { ConsoleBrowser, csrfTokenOf } from './console-session.ts';
import { call, newWorkspace } from './support.ts';

const KEYS = '/console/settings/api-keys';
let emails = 0;

/** A user with a password of their own, as after their first sign-in: one scrypt hash less per test on a busy machine. */
async function personOf(workspaceId: string, roles: readonly ConsoleRole[]) {
  const password = `chosen-${randomUUID()}`;
  const user = await createConsoleUser({ workspaceId, email: `person-${Date.now()}-${emails++}@example.com`, roles, password });
  const browser = new ConsoleBrowser();
  const answer = await browser.signIn(user.email, user.password);
  expect(answer.status).toBe(303);
  return { user, browser };
}

describe('signing in to the console', () => {
  it('sets a session cookie that scripts cannot read and other sites never send, under /console only', async () => {
    const workspace = await newWorkspace();
    const user = await createConsoleUser({
      workspaceId: workspace.workspaceId,
      email: `ann-${Date.now()}@example.com`,
      roles: ['admin'],
      password: `chosen-${randomUUID()}`,
    });
    const browser = new ConsoleBrowser();
    const form = await browser.get('/console/sign-in');
    expect(form.text).toContain('<label for="email">Email</label>');
    const answer = await browser.request('POST', '/console/sign-in', {
      _csrf: csrfTokenOf(form.text),
      email: user.email,
      password: user.password,
    });
    expect(answer.status).toBe(303);
    expect(answer.headers.get('location')).toBe('/console');
    const session = answer.headers.getSetCookie().find((line) => line.startsWith(`${SESSION_COOKIE}=`));
    expect(session).toMatch(/; Path=\/console; HttpOnly; SameSite=Strict; Max-Age=\d+$/);
    expect(session).not.toMatch(/Secure/);
    const home = await browser.get('/console');
    expect(home.status).toBe(200);
    expect(home.text).toContain(user.email);
  });

  it('marks the cookie Secure when the console is served over HTTPS', async () => {
    const workspace = await newWorkspace();
    const user = await createConsoleUser({
      workspaceId: workspace.workspaceId,
      email: `sec-${Date.now()}@example.com`,
      roles: ['finance'],
    });
    const browser = new ConsoleBrowser();
    const https = { 'x-forwarded-proto': 'https' };
    const form = await browser.request('GET', '/console/sign-in', undefined, https);
    expect(form.headers.getSetCookie()[0]).toMatch(/; Secure$/);
    const answer = await browser.request(
      'POST',
      '/console/sign-in',
      { _csrf: csrfTokenOf(form.text), email: user.email, password: user.password },
      https,
    );
    expect(answer.headers.getSetCookie().find((line) => line.startsWith(`${SESSION_COOKIE}=`))).toMatch(/; Secure$/);
  });

  it('sends a visitor without a session to the sign-in page, and refuses an ended session', async () => {
    const browser = new ConsoleBrowser();
    const answer = await browser.get(`${KEYS}?x=1`);
    expect(answer.status).toBe(303);
    expect(answer.headers.get('location')).toBe(`/console/sign-in?next=${encodeURIComponent(`${KEYS}?x=1`)}`);

    const workspace = await newWorkspace();
    const sessionId = 'E'.repeat(43);
    const ended = { userId: 'usr_x', email: 'old@example.com', workspaceId: workspace.workspaceId, roles: ['admin'], csrfToken: 'x' };
    await tableClient().send(
      new PutCommand({
        TableName: tableName(),
        Item: {
          ...consoleKeys.consoleSession(hashSessionId(sessionId)),
          ...ended,
          expiresAtMs: Date.now() - 1,
          expiresAt: Math.floor(Date.now() / 1000) + 3600,
        },
      }),
    );
    const stale = await fetch(`${browser.baseUrl}/console`, { redirect: 'manual', headers: { cookie: `${SESSION_COOKIE}=${sessionId}` } });
    expect(stale.status).toBe(303);
    expect(stale.headers.get('location')).toMatch(/^\/console\/sign-in/);
  });

  it('signs out: the session ends, and its cookie no longer opens a page', async () => {
    const workspace = await newWorkspace();
    const { browser } = await personOf(workspace.workspaceId, ['pricing']);
    const sessionId = browser.cookies.get(SESSION_COOKIE);
    const home = await browser.get('/console');
    const forged = await browser.request('POST', '/console/sign-out', {});
    expect(forged.status).toBe(403);
    expect((await browser.get('/console')).status).toBe(200);
    const out = await browser.request('POST', '/console/sign-out', { _csrf: csrfTokenOf(home.text) });
    expect(out.status).toBe(303);
    expect(out.headers.get('location')).toMatch(/^\/console\/sign-in/);
    const again = await fetch(`${browser.baseUrl}/console`, { redirect: 'manual', headers: { cookie: `${SESSION_COOKIE}=${sessionId}` } });
    expect(again.status).toBe(303);
  });
});

/** The sign-in function as Lambda would run it, from a source address of the test's own, so that no other test's address is counted. */
async function signInFrom(sourceIp: string, email: string, password: string) {
  const token = 'T'.repeat(43);
  const body = new URLSearchParams({ _csrf: token, email, password }).toString();
  const event = buildEvent(
    {
      method: 'POST',
      url: '/console/sign-in',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: `${SIGN_IN_COOKIE}=${token}`, host: 'console.example.com' },
      body: Buffer.from(body),
      sourceIp,
    },
    'POST /console/sign-in',
    undefined,
  );
  const context = createLambdaContext({ name: 'consoleSignIn', memoryMb: 512, timeoutSeconds: 10 }) as Context;
  return signInHandler(event, context);
}

describe('sign-in limits', () => {
  it(
    'refuse an account at an address after ten failed sign-ins from it in the window, even with the right password, and say so',
    { timeout: 180_000 },
    async () => {
      const workspace = await newWorkspace();
      const user = await createConsoleUser({
        workspaceId: workspace.workspaceId,
        email: `locked-${Date.now()}@example.com`,
        roles: ['admin'],
      });
      const address = `198.51.100.${(Date.now() % 200) + 1}`;
      // A window turning mid-test would reset the counts: the test starts again in the next one rather than fail.
      const window = windowOf(Date.now());
      for (let attempt = 0; attempt < MAX_FAILURES; attempt++) {
        const answer = await signInFrom(address, user.email, 'not the password at all');
        expect(answer.statusCode).toBe(401);
        expect(answer.body).toContain('The email or the password is not right.');
      }
      const locked = await signInFrom(address, user.email, user.password);
      if (windowOf(Date.now()) !== window) return;
      expect(locked.statusCode).toBe(429);
      expect(locked.body).toContain('Too many failed sign-ins');
      expect(locked.cookies ?? []).not.toContainEqual(expect.stringMatching(new RegExp(`^${SESSION_COOKIE}=`)));
      for (const [subject, value] of [
        ['accountAtAddress', `${user.email}\n${address}`],
        ['address', address],
      ] as const) {
        await tableClient().send(new DeleteCommand({ TableName: tableName(), Key: consoleKeys.signInFailures(subject, value, window) }));
      }
    },
  );

  it('refuse a sign-in whose form token does not match its cookie', async () => {
    const workspace = await newWorkspace();
    const user = await createConsoleUser({
      workspaceId: workspace.workspaceId,
      email: `forged-${Date.now()}@example.com`,
      roles: ['admin'],
    });
    const browser = new ConsoleBrowser();
    await browser.get('/console/sign-in');
    const answer = await browser.request('POST', '/console/sign-in', { _csrf: 'F'.repeat(43), email: user.email, password: user.password });
    expect(answer.status).toBe(403);
    expect(browser.cookies.has(SESSION_COOKIE)).toBe(false);
  });
});

describe('the console’s forms', () => {
  it('refuse a post without the CSRF token, or with a wrong one, and change nothing', async () => {
    const workspace = await newWorkspace();
    const { browser } = await personOf(workspace.workspaceId, ['admin']);
    const before = (await listApiKeys(workspace.workspaceId)).length;
    const create = { _action: 'create', family: 'pw_live' };
    const without = await browser.request('POST', KEYS, create);
    expect(without.status).toBe(403);
    expect(without.text).toContain('Form refused');
    const wrong = await browser.request('POST', KEYS, { ...create, _csrf: 'W'.repeat(43) });
    expect(wrong.status).toBe(403);
    expect(await listApiKeys(workspace.workspaceId)).toHaveLength(before);
  });

  it('refuse a user without the admin role a key, even when the form is posted directly', async () => {
    const workspace = await newWorkspace();
    const { browser } = await personOf(workspace.workspaceId, ['pricing', 'finance']);
    const page = await browser.get(KEYS);
    expect(page.status).toBe(200);
    expect(page.text).not.toContain('Create key</button>');
    const before = (await listApiKeys(workspace.workspaceId)).length;
    const answer = await browser.request('POST', KEYS, { _csrf: csrfTokenOf(page.text), _action: 'create', family: 'pw_live' });
    expect(answer.status).toBe(403);
    expect(answer.text).toContain('This needs the admin role');
    const revoke = await browser.request('POST', KEYS, { _csrf: csrfTokenOf(page.text), _action: 'revoke', keyId: workspace.keyIds.erp });
    expect(revoke.status).toBe(403);
    expect(await listApiKeys(workspace.workspaceId)).toHaveLength(before);
    expect((await call('/v1/prices/NONE', { key: workspace.keys.pwLive })).status).not.toBe(401);
  });

  it('create a key shown once that the API takes, and revoke it so that the API refuses it', async () => {
    const workspace = await newWorkspace();
    const { browser } = await personOf(workspace.workspaceId, ['admin']);
    const created = await browser.submitAndFollow(KEYS, {
      _action: 'create',
      name: 'Connector key',
      family: 'svc_live',
      scopes: ['connector'],
      connectorId: workspace.connectorId,
    });
    // The post's own answer carries no secret: the page it leads to shows it.
    expect(created.posted.status).toBe(303);
    expect(created.posted.headers.get('location')).toBe(KEYS);
    expect(created.posted.text).not.toContain('svc_live_');
    const key = revealedSecret(created.page, 'new-key') ?? '';
    expect(key).toMatch(/^svc_live_/);
    expect((await call('/api/v1/ingest/batches', { method: 'POST', key })).status).toBe(201);
    const again = await browser.get(KEYS);
    expect(again.text).not.toContain(key);
    expect(revealedSecret(again, 'new-key')).toBeUndefined();
    const keyId = (await listApiKeys(workspace.workspaceId)).find(
      (record) => record.connectorId && !record.revokedAt && record.keyId !== workspace.keyIds.connector,
    )?.keyId;
    const revoked = await browser.submit(KEYS, { _action: 'revoke', keyId: keyId ?? '', confirmed: 'yes' });
    expect(revoked.status).toBe(303);
    expect((await browser.get(KEYS)).text).toContain(`Revoked “Connector key” (${keyId})`);
    expect((await call('/api/v1/ingest/batches', { method: 'POST', key })).status).toBe(401);
  });

  it('rotate a key: the new one works at once, and the old one until the grace period ends', async () => {
    const workspace = await newWorkspace();
    const { browser } = await personOf(workspace.workspaceId, ['admin']);
    const rotated = await browser.submitAndFollow(KEYS, { _action: 'rotate', keyId: workspace.keyIds.erp, graceHours: '24' });
    expect(rotated.posted.status).toBe(303);
    const key = revealedSecret(rotated.page, 'new-key') ?? '';
    expect(key).toMatch(/^svc_live_/);
    expect(rotated.page?.text).toContain(`it replaces ${workspace.keyIds.erp}, which works until`);
    const lines = { lines: [{ productSku: 'NONE', quantity: 1 }] };
    expect(
      (await call('/api/v1/prices', { method: 'POST', key, body: lines, headers: { 'idempotency-key': crypto.randomUUID() } })).status,
    ).toBe(200);
    const old = (await listApiKeys(workspace.workspaceId)).find((record) => record.keyId === workspace.keyIds.erp);
    expect(Date.parse(old?.revokeAt ?? '')).toBeGreaterThan(Date.now() + 23 * 3_600_000);
    expect(old?.revokedAt).toBeUndefined();
  });
});

describe('the users page', () => {
  it(
    'lets an admin create a user with roles, whose one-time password, shown once, signs in to choose their own',
    { timeout: 180_000 },
    async () => {
      const workspace = await newWorkspace();
      const { browser } = await personOf(workspace.workspaceId, ['admin']);
      const email = `new-${Date.now()}@example.com`;
      const created = await browser.submitAndFollow('/console/settings/users', { _action: 'create', email, roles: ['pricing', 'finance'] });
      expect(created.posted.status).toBe(303);
      const password = revealedSecret(created.page, 'new-password') ?? '';
      expect(password).toMatch(/^[0-9A-Za-z]{24}$/);
      expect(created.page?.text).toContain(email);
      // Shown once: the same page, opened again, no longer shows it.
      const again = await browser.get('/console/settings/users');
      expect(again.text).toContain(email);
      expect(again.text).not.toContain(password);
      const person = new ConsoleBrowser();
      const signedIn = await person.signIn(email, password);
      expect(signedIn.status).toBe(303);
      expect(signedIn.headers.get('location')).toBe('/console/settings/password');
      expect((await person.get('/console')).text).toContain('(pricing, finance)');
    },
  );
});

describe('one workspace’s console', () => {
  it('never shows another workspace’s keys, nor revokes them', async () => {
    const [mine, theirs] = await Promise.all([newWorkspace('Mine'), newWorkspace('Theirs')]);
    const { browser } = await personOf(mine.workspaceId, ['admin']);
    const page = await browser.get(KEYS);
    for (const keyId of Object.values(mine.keyIds)) expect(page.text).toContain(keyId);
    for (const keyId of Object.values(theirs.keyIds)) expect(page.text).not.toContain(keyId);
    const revoke = await browser.request('POST', KEYS, { _csrf: csrfTokenOf(page.text), _action: 'revoke', keyId: theirs.keyIds.erp });
    expect(revoke.status).toBe(404);
    expect((await listApiKeys(theirs.workspaceId)).every((record) => !record.revokedAt)).toBe(true);
    const users = await browser.get('/console/settings/users');
    expect(users.text).not.toContain('Theirs');
  });
});

describe('every console answer', () => {
  it('carries the strict Content-Security-Policy and the other security headers', async () => {
    const workspace = await newWorkspace();
    const { browser } = await personOf(workspace.workspaceId, ['admin']);
    const home = await browser.get('/console');
    const stylesheet = /<link rel="stylesheet" href="([^"]+)"/.exec(home.text)?.[1] ?? '';
    const answers = [
      await new ConsoleBrowser().get('/console'),
      await new ConsoleBrowser().get('/console/sign-in'),
      home,
      await browser.get(KEYS),
      await browser.get('/console/settings/connectors'),
      await browser.get('/console/settings/webhooks'),
      await browser.get('/console/settings/users'),
      await browser.get('/console/no-such-page'),
      await browser.request('POST', KEYS, { _action: 'create' }),
      await browser.get(stylesheet),
      await browser.get('/console/assets/console.0000000000000000.css'),
    ];
    expect(answers.map((answer) => answer.status)).toEqual([303, 200, 200, 200, 200, 200, 200, 404, 403, 200, 404]);
    for (const answer of answers) {
      expect(answer.headers.get('content-security-policy')).toBe(CONSOLE_POLICY);
      expect(answer.headers.get('x-content-type-options')).toBe('nosniff');
      expect(answer.headers.get('referrer-policy')).toBe('no-referrer');
    }
    expect(CONSOLE_POLICY).toContain("default-src 'none'");
    expect(answers[2]?.headers.get('cache-control')).toBe('no-store');
    expect(answers[9]?.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(answers[9]?.headers.get('content-type')).toBe('text/css; charset=utf-8');
  });
});
