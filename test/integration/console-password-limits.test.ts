// Password checks are limited everywhere they happen: the current password in Settings → Password, and one account's sign-ins across every source address.
import { randomUUID } from 'node:crypto';
import type { Context } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { handler as signInHandler } from '../../functions/console/console-sign-in.ts';
import { buildEvent } from '#lib/local/gateway.ts';
import { createLambdaContext } from '#lib/local/lambda-context.ts';
import { SIGN_IN_COOKIE } from '#edge/console/sessions.ts';
import { DEVICE_COOKIE } from '#edge/console/sign-in.ts';
import { MAX_ACCOUNT_FAILURES, MAX_FAILURES, MAX_PASSWORD_CHECK_FAILURES, reserveAttempt, windowOf } from '#edge/console/sign-in-limits.ts';
import { createConsoleUser, PASSWORD_PATH } from '#edge/console/users.ts';
import { ConsoleBrowser } from './console-session.ts';
import { newWorkspace } from './support.ts';

const SLOW = { timeout: 180_000 };

/** An address of the test's own, so that no other test's attempts are counted with it. */
function ownAddress(): string {
  const bytes = randomUUID().replaceAll('-', '');
  return `10.${parseInt(bytes.slice(0, 2), 16)}.${parseInt(bytes.slice(2, 4), 16)}.${parseInt(bytes.slice(4, 6), 16)}`;
}

/** The sign-in function as Lambda would run it, from `sourceIp`, with the browser's device cookie when it has one. */
async function signInFrom(sourceIp: string, email: string, password: string, device?: string) {
  const token = 'T'.repeat(43);
  const body = new URLSearchParams({ _csrf: token, email, password }).toString();
  const cookie = [`${SIGN_IN_COOKIE}=${token}`, ...(device ? [`${DEVICE_COOKIE}=${device}`] : [])].join('; ');
  const event = buildEvent(
    {
      method: 'POST',
      url: '/console/sign-in',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie, host: 'console.example.com' },
      body: Buffer.from(body),
      sourceIp,
    },
    'POST /console/sign-in',
    undefined,
  );
  const context = createLambdaContext({ name: 'consoleSignIn', memoryMb: 512, timeoutSeconds: 30 }) as Context;
  const answer = await signInHandler(event, context);
  const device_ = (answer.cookies ?? [])
    .find((line) => line.startsWith(`${DEVICE_COOKIE}=`))
    ?.split(';')[0]
    ?.split('=')[1];
  return { status: answer.statusCode, body: String(answer.body), device: device_ };
}

describe('the current-password check in Settings → Password', () => {
  it('refuses after a few wrong current passwords, even the right one, and leaves the password as it was', SLOW, async () => {
    const workspace = await newWorkspace();
    const email = `changer-${randomUUID()}@example.com`;
    const password = `chosen-${randomUUID()}`;
    await createConsoleUser({ workspaceId: workspace.workspaceId, email, roles: ['finance'], password });
    const browser = new ConsoleBrowser();
    expect((await browser.signIn(email, password)).status).toBe(303);
    const window = windowOf(Date.now());
    for (let attempt = 0; attempt < MAX_PASSWORD_CHECK_FAILURES; attempt++) {
      const wrong = await browser.submit(PASSWORD_PATH, {
        _action: 'change',
        current: `guess ${attempt}`,
        password: `new-${randomUUID()}`,
      });
      expect(wrong.status).toBe(422);
      expect(wrong.text).toContain('The current password is not right.');
    }
    const right = await browser.submit(PASSWORD_PATH, { _action: 'change', current: password, password: `new-${randomUUID()}` });
    // A window turning mid-test resets the count: nothing to judge then.
    if (windowOf(Date.now()) !== window) return;
    expect(right.status).toBe(429);
    expect(right.text).toContain('Too many wrong current passwords');
    expect((await new ConsoleBrowser().signIn(email, password)).status).toBe(303);
  });
});

describe("one account's sign-ins from every address", () => {
  it('are held past the limit from a browser the account never signed in from, and never from one it did', SLOW, async () => {
    const workspace = await newWorkspace();
    const email = `held-${randomUUID()}@example.com`;
    const password = `chosen-${randomUUID()}`;
    await createConsoleUser({ workspaceId: workspace.workspaceId, email, roles: ['admin'], password });
    const owners = await signInFrom(ownAddress(), email, password);
    expect(owners.status).toBe(303);
    expect(owners.device).toMatch(/^[A-Za-z0-9_-]{43}$/);

    // A stranger's failures spread over addresses, each under its own limit: counted as the function counts them.
    const window = windowOf(Date.now());
    const addresses = Math.ceil(MAX_ACCOUNT_FAILURES / (MAX_FAILURES - 1)) + 1;
    let spent = 0;
    for (let index = 0; index < addresses && spent < MAX_ACCOUNT_FAILURES; index++) {
      const address = ownAddress();
      for (let attempt = 0; attempt < MAX_FAILURES - 1 && spent < MAX_ACCOUNT_FAILURES; attempt++, spent++) {
        expect(await reserveAttempt({ email, sourceIp: address }, Date.now())).toBeDefined();
      }
    }
    const stranger = await signInFrom(ownAddress(), email, password);
    const owner = await signInFrom(ownAddress(), email, password, owners.device);
    if (windowOf(Date.now()) !== window) return;
    // The right password from yet another address is held with the rest: guessing does not scale with addresses.
    expect(stranger.status).toBe(429);
    expect(stranger.body).toContain('browsers it has not signed in from');
    // The owner's browser still signs in: a stranger cannot lock the owner out.
    expect(owner.status).toBe(303);
  });
});
