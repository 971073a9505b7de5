// Hostile use of the console through the local gateway: sign-ins sent at once at the limit, strangers locking a user out, odd `next` addresses, ids of no shape, emails of other workspaces, forms of an inactive workspace, and the sessions of removed users.
import { randomInt, randomUUID } from 'node:crypto';
import { request } from 'node:http';
import { describe, expect, inject, it } from 'vitest';
import { listApiKeys } from '#shared/api-keys/repository.ts';
import { updateWorkspace } from '#shared/workspaces/repository.ts';
import { SESSION_COOKIE, SIGN_IN_COOKIE } from '#edge/console/sessions.ts';
import { MAX_FAILURES, reserveAttempt, windowOf } from '#edge/console/sign-in-limits.ts';
import { changeConsoleUser, deleteConsoleUser } from '#edge/console/user-changes.ts';
import { createConsoleUser, PASSWORD_PATH } from '#edge/console/users.ts';
import type { ConsoleRole } from '#edge/console/page.ts';
import { ConsoleBrowser, csrfTokenOf } from './console-session.ts';
import { long, unusualStrings } from './hostile-input-values.ts';
import { newWorkspace } from './support.ts';

const KEYS = '/console/settings/api-keys';
const USERS = '/console/settings/users';
/** scrypt takes 64 MiB and a good share of a second per hash; the busy machine runs several tests' hashes at once. */
const SLOW = { timeout: 300_000 };

async function userOf(workspaceId: string, roles: readonly ConsoleRole[], options: { oneTime?: boolean } = {}) {
  const email = `hostile-${randomUUID()}@example.com`;
  const password = options.oneTime ? undefined : `chosen-${randomUUID()}`;
  return createConsoleUser({ workspaceId, email, roles, password });
}

/**
 * A busy machine may take longer than the sign-in function's 10 s for a scrypt hash, which is answered 503 or 500 as
 * a timeout is; a person tries again, and so does the test, for sign-ins whose count it does not judge. A fault that
 * comes every time still shows: the fourth answer is judged.
 */
async function patiently<T extends { status: number }>(attempt: () => Promise<T>): Promise<T> {
  for (let tries = 1; ; tries++) {
    const answer = await attempt();
    // 503: the gateway's answer to a timeout; 500: the function's own, when a table call came after its deadline.
    if ((answer.status !== 503 && answer.status !== 500) || tries === 4) return answer;
  }
}

async function signedIn(workspaceId: string, roles: readonly ConsoleRole[]) {
  const user = await userOf(workspaceId, roles);
  const browser = new ConsoleBrowser();
  expect((await patiently(() => browser.signIn(user.email, user.password))).status).toBe(303);
  return { user, browser };
}

/** A loopback address of the test's own: the gateway sees it as the source address, so no other test's sign-ins count with it. */
function ownAddress(): string {
  return `127.${randomInt(1, 255)}.${randomInt(0, 256)}.${randomInt(1, 255)}`;
}

interface SignInAnswer {
  readonly status: number;
  readonly location: string | undefined;
  readonly body: string;
  readonly sessionCookie: boolean;
}

/** A sign-in post through the gateway from `address`, with a sign-in token of its own in the cookie and the form. */
function signInFrom(address: string, form: { email: string; password: string; next?: string }): Promise<SignInAnswer> {
  const token = randomUUID().replaceAll('-', '').padEnd(43, 'T');
  const body = new URLSearchParams({ _csrf: token, ...form }).toString();
  const { hostname, port } = new URL(inject('stack').gatewayUrl);
  return new Promise((resolve, reject) => {
    const post = request(
      {
        host: hostname,
        port,
        localAddress: address,
        method: 'POST',
        path: '/console/sign-in',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          'content-length': Buffer.byteLength(body),
          cookie: `${SIGN_IN_COOKIE}=${token}`,
        },
      },
      (answer) => {
        const chunks: Buffer[] = [];
        answer.on('data', (chunk: Buffer) => chunks.push(chunk));
        answer.on('end', () =>
          resolve({
            status: answer.statusCode ?? 0,
            location: answer.headers.location,
            body: Buffer.concat(chunks).toString('utf8'),
            sessionCookie: (answer.headers['set-cookie'] ?? []).some((line) => line.startsWith(`${SESSION_COOKIE}=`)),
          }),
        );
      },
    );
    post.on('error', reject);
    post.end(body);
  });
}

/**
 * What `times` failed sign-ins of the account from the address leave behind: attempts counted and never given back.
 * Counted directly, without as many scrypt hashes, which a busy machine may take longer than the function's timeout for.
 */
async function failTimes(address: string, email: string, times: number): Promise<void> {
  for (let attempt = 0; attempt < times; attempt++) {
    expect(await reserveAttempt({ email, sourceIp: address }, Date.now())).toBeDefined();
  }
}

/** A sign-in from the address whose outcome the test judges, tried again only when the function timed out. */
function patientSignIn(address: string, form: { email: string; password: string; next?: string }): Promise<SignInAnswer> {
  return patiently(() => signInFrom(address, form));
}

describe('sign-in limits under attack', () => {
  it('check at most the one attempt left of the limit when nine are sent at once, the right password among them', SLOW, async () => {
    const workspace = await newWorkspace();
    const user = await userOf(workspace.workspaceId, ['admin']);
    const address = ownAddress();
    const window = windowOf(Date.now());
    await failTimes(address, user.email, MAX_FAILURES - 1);
    const attempts = Array.from({ length: 9 }, (_, index) => ({
      email: user.email,
      password: index === 8 ? user.password : `wrong ${index}`,
    }));
    const answers = await Promise.all(attempts.map((form) => signInFrom(address, form)));
    // A window turning mid-test resets the counts: nothing to judge then.
    if (windowOf(Date.now()) !== window) return;
    // Every answer but a refusal had its password checked (a 503 too: the function ran out of time checking it).
    const checked = answers.filter((answer) => answer.status !== 429);
    expect(checked.length).toBeLessThanOrEqual(1);
    expect(answers.filter((answer) => answer.sessionCookie).length).toBeLessThanOrEqual(1);
  });

  it('never lock a user out for a stranger’s wrong passwords, while the stranger’s own address is stopped', SLOW, async () => {
    const workspace = await newWorkspace();
    const user = await userOf(workspace.workspaceId, ['admin']);
    const stranger = ownAddress();
    const window = windowOf(Date.now());
    await failTimes(stranger, user.email, MAX_FAILURES);
    const owner = await patientSignIn(ownAddress(), { email: user.email, password: user.password });
    const guess = await patientSignIn(stranger, { email: user.email, password: user.password });
    if (windowOf(Date.now()) !== window) return;
    expect(owner.status).toBe(303);
    expect(owner.sessionCookie).toBe(true);
    expect(guess.status).toBe(429);
    expect(guess.sessionCookie).toBe(false);
  });
});

describe('the address a sign-in leads on to', () => {
  const odd = ['/console/x\nSet-Cookie: a=b', '/console/€uro', `/console/${long(3000)}\u2028`, ...unusualStrings.slice(0, 3)];

  it('is a console path of safe characters, or else the console’s home: the sign-in succeeds either way', SLOW, async () => {
    const workspace = await newWorkspace();
    const user = await userOf(workspace.workspaceId, ['finance']);
    for (const next of odd) {
      const answer = await patientSignIn(ownAddress(), { email: user.email, password: user.password, next });
      expect(answer.status, JSON.stringify(next)).toBe(303);
      expect(answer.location, JSON.stringify(next)).toMatch(/^\/console[\x21-\x7e]*$/);
    }
    const kept = await patientSignIn(ownAddress(), { email: user.email, password: user.password, next: '/console/cost?period=2026-11' });
    expect(kept.location).toBe('/console/cost?period=2026-11');
  });

  it('is never shown in the sign-in form but as a safe console path', async () => {
    const form = await new ConsoleBrowser().get(`/console/sign-in?next=${encodeURIComponent('/console/€\n')}`);
    expect(form.status).toBe(200);
    expect(form.text).toContain('name="next" value="/console"');
  });
});

describe('ids in the console’s forms', () => {
  const malformed = [long(2000), `key_${long(3000)}`, 'key_../../x', 'evt_\u0000', `evt_${'🙂'.repeat(11)}`, ' key_0000000000000000000000'];

  it('that cannot be ids are answered 404, whatever their length or characters, and change nothing', SLOW, async () => {
    const workspace = await newWorkspace();
    const { browser } = await signedIn(workspace.workspaceId, ['admin']);
    const keys = await browser.get(KEYS);
    const webhooks = await browser.get('/console/settings/webhooks');
    for (const id of malformed) {
      const revoke = await browser.request('POST', KEYS, { _csrf: csrfTokenOf(keys.text), _action: 'revoke', keyId: id });
      expect(revoke.status, JSON.stringify(id)).toBe(404);
      const rotate = await browser.request('POST', KEYS, { _csrf: csrfTokenOf(keys.text), _action: 'rotate', keyId: id, graceHours: '0' });
      expect(rotate.status, JSON.stringify(id)).toBe(404);
      const redeliver = await browser.request('POST', '/console/settings/webhooks', {
        _csrf: csrfTokenOf(webhooks.text),
        _action: 'redeliver',
        endpointId: 'we_0000000000000000000000',
        eventId: id,
      });
      expect(redeliver.status, JSON.stringify(id)).toBe(404);
    }
    expect((await listApiKeys(workspace.workspaceId)).every((key) => !key.revokedAt && !key.revokeAt)).toBe(true);
  });

  it('and emails of no shape are refused on the users page without a fault', SLOW, async () => {
    const workspace = await newWorkspace();
    const { browser } = await signedIn(workspace.workspaceId, ['admin']);
    for (const email of [long(5000), 'a@b\u0000.c', '🙂@🙂']) {
      for (const action of ['disable', 'delete', 'roles']) {
        const answer = await browser.submit(USERS, { _action: action, email, roles: 'finance' });
        expect([404, 422], `${action} ${JSON.stringify(email.slice(0, 20))}`).toContain(answer.status);
      }
    }
  });
});

describe('an email that has a console user in another workspace', () => {
  it('is refused in words that say nothing of the other workspace, the same as for one of this workspace', SLOW, async () => {
    const [mine, theirs] = await Promise.all([newWorkspace('Mine'), newWorkspace('Theirs')]);
    const { user: me, browser } = await signedIn(mine.workspaceId, ['admin']);
    const other = await userOf(theirs.workspaceId, ['finance']);
    const elsewhere = await browser.submit(USERS, { _action: 'create', email: other.email, roles: 'finance' });
    const here = await browser.submit(USERS, { _action: 'create', email: me.email, roles: 'finance' });
    expect(elsewhere.status).toBe(422);
    expect(elsewhere.text).not.toContain('already a console user');
    const messageOf = (text: string, email: string) => /<p class="error" role="alert">([^<]*)</.exec(text)?.[1]?.replace(email, 'EMAIL');
    expect(messageOf(elsewhere.text, other.email)).toBeDefined();
    expect(messageOf(elsewhere.text, other.email)).toBe(messageOf(here.text, me.email));
  });
});

describe('a workspace that may not work', () => {
  it('refuses every console form while inactive, with 402, and changes nothing', SLOW, async () => {
    const workspace = await newWorkspace();
    const { browser } = await signedIn(workspace.workspaceId, ['admin', 'pricing']);
    const before = (await listApiKeys(workspace.workspaceId)).length;
    await updateWorkspace(workspace.workspaceId, { status: 'inactive' });
    expect((await browser.get(KEYS)).status).toBe(200);
    const create = await browser.submit(KEYS, { _action: 'create', family: 'pw_live' });
    expect(create.status).toBe(402);
    expect(create.text).toContain('The workspace is not active.');
    expect(await listApiKeys(workspace.workspaceId)).toHaveLength(before);
    const user = await browser.submit(USERS, { _action: 'create', email: `late-${randomUUID()}@example.com`, roles: 'finance' });
    expect(user.status).toBe(402);
  });

  it('refuses an approval in the console while the overview feature is off, with 403, as /v1 does', SLOW, async () => {
    const workspace = await newWorkspace();
    const { browser } = await signedIn(workspace.workspaceId, ['pricing']);
    await updateWorkspace(workspace.workspaceId, { features: ['writebacks'] });
    const page = await browser.get('/console/recommendations');
    const answer = await browser.request('POST', '/console/recommendations/ANY-SKU', {
      _csrf: csrfTokenOf(page.text),
      _action: 'approve',
      price: '10.00',
    });
    expect(answer.status).toBe(403);
    expect(answer.text).toContain('The workspace does not have the overview feature.');
  });
});

describe('a removed or changed user', () => {
  it('loses their open session at its next request when disabled, and cannot sign in', SLOW, async () => {
    const workspace = await newWorkspace();
    const { browser: admin } = await signedIn(workspace.workspaceId, ['admin']);
    const { user, browser } = await signedIn(workspace.workspaceId, ['admin']);
    expect((await browser.get('/console')).status).toBe(200);
    const disabled = await admin.submit(USERS, { _action: 'disable', email: user.email });
    expect(disabled.status).toBe(303);
    const after = await browser.get('/console');
    expect(after.status).toBe(303);
    expect(after.headers.get('location')).toMatch(/^\/console\/sign-in/);
    expect((await browser.request('POST', KEYS, { _action: 'create', family: 'pw_live' })).status).toBe(303);
    const again = await patientSignIn(ownAddress(), { email: user.email, password: user.password });
    expect(again.status).toBe(403);
    expect(again.sessionCookie).toBe(false);
    // Enabling again lets them sign in, but does not bring the ended session back.
    await changeConsoleUser(workspace.workspaceId, user.email, { status: 'active' });
    expect((await browser.get('/console')).status).toBe(303);
  });

  it('has the new roles at the next request, so a downgraded admin’s session can no longer act as one', SLOW, async () => {
    const workspace = await newWorkspace();
    const { user, browser } = await signedIn(workspace.workspaceId, ['admin']);
    const page = await browser.get(KEYS);
    await changeConsoleUser(workspace.workspaceId, user.email, { roles: ['finance'] });
    const before = (await listApiKeys(workspace.workspaceId)).length;
    const create = await browser.request('POST', KEYS, { _csrf: csrfTokenOf(page.text), _action: 'create', family: 'pw_live' });
    expect(create.status).toBe(403);
    expect(await listApiKeys(workspace.workspaceId)).toHaveLength(before);
    expect((await browser.get('/console')).text).toContain('(finance)');
  });

  it('loses their open session at its next request when deleted', SLOW, async () => {
    const workspace = await newWorkspace();
    const { user, browser } = await signedIn(workspace.workspaceId, ['finance']);
    await deleteConsoleUser(workspace.workspaceId, user.email);
    expect((await browser.get('/console')).status).toBe(303);
    expect((await patientSignIn(ownAddress(), { email: user.email, password: user.password })).status).toBe(401);
  });

  it('cannot be changed by an admin of another workspace', SLOW, async () => {
    const [mine, theirs] = await Promise.all([newWorkspace('Mine'), newWorkspace('Theirs')]);
    const { browser } = await signedIn(mine.workspaceId, ['admin']);
    const other = await userOf(theirs.workspaceId, ['admin']);
    for (const action of ['disable', 'delete', 'roles']) {
      const answer = await browser.submit(USERS, { _action: action, email: other.email, roles: 'finance' });
      expect(answer.status, action).toBe(404);
    }
    expect((await patientSignIn(ownAddress(), { email: other.email, password: other.password })).status).toBe(303);
  });
});

describe('a one-time password', () => {
  it('leads only to choosing one’s own, which ends every other session and retires the one-time password', SLOW, async () => {
    const workspace = await newWorkspace();
    const user = await userOf(workspace.workspaceId, ['admin'], { oneTime: true });
    const first = new ConsoleBrowser();
    const other = new ConsoleBrowser();
    for (const browser of [first, other]) {
      const answer = await browser.signIn(user.email, user.password, { firstPassword: 'leave' });
      expect(answer.headers.get('location')).toBe(PASSWORD_PATH);
    }
    const home = await first.get('/console');
    expect(home.status).toBe(303);
    expect(home.headers.get('location')).toBe(PASSWORD_PATH);
    const before = (await listApiKeys(workspace.workspaceId)).length;
    const form = await first.get(PASSWORD_PATH);
    const create = await first.request('POST', KEYS, { _csrf: csrfTokenOf(form.text), _action: 'create', family: 'pw_live' });
    expect(create.status).toBe(303);
    expect(await listApiKeys(workspace.workspaceId)).toHaveLength(before);
    const same = await first.submit(PASSWORD_PATH, { _action: 'change', current: user.password, password: user.password });
    expect(same.status).toBe(422);
    const wrong = await first.submit(PASSWORD_PATH, { _action: 'change', current: 'not it at all', password: 'my own new password' });
    expect(wrong.status).toBe(422);
    const changed = await first.submit(PASSWORD_PATH, { _action: 'change', current: user.password, password: 'my own new password' });
    expect(changed.status).toBe(303);
    expect((await first.get('/console')).status).toBe(200);
    expect((await other.get('/console')).status).toBe(303);
    expect((await patientSignIn(ownAddress(), { email: user.email, password: user.password })).status).toBe(401);
    expect((await patientSignIn(ownAddress(), { email: user.email, password: 'my own new password' })).location).toBe('/console');
  });
});
