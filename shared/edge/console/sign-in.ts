// Signing in and out of the console: the form, the checks in order (CSRF, limits, password), the session cookie, and signing out.
import type { HttpEvent, HttpResult } from '#edge/http/endpoint.ts';
import { html } from './html.ts';
import { decoyHash, MAX_PASSWORD_LENGTH, verifyPassword } from './passwords.ts';
import { htmlAnswer, isConsoleLocation, redirect } from './responses.ts';
import { bareFrame, readForm } from './router.ts';
import {
  closeSession,
  cookie,
  csrfTokenMatches,
  isHttps,
  newSignInToken,
  openSession,
  readCookies,
  readSession,
  SESSION_COOKIE,
  SESSION_TTL_MS,
  SIGN_IN_COOKIE,
} from './sessions.ts';
import { DEVICE_TTL_MS, isKnownDevice, rememberDevice, reserveAttempt, windowEndMs } from './sign-in-limits.ts';
import { findCredentials, PASSWORD_PATH } from './users.ts';

/** The sign-in form's token lives as long as a person may take to type a password. */
const SIGN_IN_TOKEN_SECONDS = 60 * 60;

function nextOf(value: string | null | undefined): string {
  return value && isConsoleLocation(value) && !value.startsWith('/console/sign-') ? value : '/console';
}

function signInPage(token: string, options: { next: string; email?: string; error?: string; notice?: string }) {
  return bareFrame(
    'Sign in',
    html`<div class="sign-in">
      <h1>Sign in to the pricing console</h1>
      ${options.notice ? html`<p class="notice" role="status">${options.notice}</p>` : ''}
      ${options.error ? html`<p class="error" role="alert" id="sign-in-error">${options.error}</p>` : ''}
      <form method="post" action="/console/sign-in">
        <input type="hidden" name="_csrf" value="${token}" />
        <input type="hidden" name="next" value="${options.next}" />
        <label for="email">Email</label>
        <input id="email" name="email" type="email" autocomplete="username" required value="${options.email ?? ''}" />
        <label for="password">Password</label>
        <input id="password" name="password" type="password" autocomplete="current-password" required maxlength="${MAX_PASSWORD_LENGTH}" />
        <div class="actions"><button type="submit">Sign in</button></div>
      </form>
    </div>`,
  );
}

/** The cookie that tells a browser an account signed in from before: its sign-ins are not held by the account's limit. */
export const DEVICE_COOKIE = 'console_device';

/** Sign-out's redirect says so by a flag whose words are the console's own: no text from an address is ever shown. */
const SIGNED_OUT_FLAG = 'signed-out';

/** GET /console/sign-in: the form, with a fresh token in a cookie and in the form (double submit). */
export function showSignIn(event: HttpEvent, requestId: string): HttpResult {
  const query = new URLSearchParams(event.rawQueryString ?? '');
  const token = newSignInToken();
  const secure = isHttps(event.headers);
  return htmlAnswer(
    200,
    signInPage(token, { next: nextOf(query.get('next')), ...(query.has(SIGNED_OUT_FLAG) ? { notice: 'You are signed out.' } : {}) }),
    requestId,
    [cookie(SIGN_IN_COOKIE, token, { secure, maxAgeSeconds: SIGN_IN_TOKEN_SECONDS })],
  );
}

/**
 * POST /console/sign-in: token, then the attempt counted against the limits, then the password; a session and its
 * cookie when all pass, and the attempt given back. A one-time password leads to the password page first.
 */
export async function signIn(event: HttpEvent, requestId: string, nowMs: number): Promise<HttpResult> {
  const form = readForm(event) ?? {};
  const secure = isHttps(event.headers);
  const cookies = readCookies(event.cookies, event.headers?.cookie);
  const next = nextOf(form.next);
  const email = (form.email ?? '').trim().toLowerCase().slice(0, 254);
  const again = (status: number, error: string) => {
    const token = newSignInToken();
    return htmlAnswer(status, signInPage(token, { next, email, error }), requestId, [
      cookie(SIGN_IN_COOKIE, token, { secure, maxAgeSeconds: SIGN_IN_TOKEN_SECONDS }),
    ]);
  };
  const expected = cookies.get(SIGN_IN_COOKIE);
  if (!expected || !csrfTokenMatches(expected, form._csrf)) {
    return again(403, 'The sign-in form had expired or did not come from this console. Please try again.');
  }
  const password = form.password ?? '';
  const device = cookies.get(DEVICE_COOKIE);
  const knownDevice = await isKnownDevice(device, email, nowMs);
  // The attempt is counted before its password is checked, so that attempts sent at once cannot pass the limit.
  const reservation = await reserveAttempt({ email, sourceIp: event.requestContext.http.sourceIp, knownDevice }, nowMs);
  if (!reservation) {
    const minutes = Math.max(1, Math.ceil((windowEndMs(nowMs) - nowMs) / 60_000));
    return again(
      429,
      `Too many failed sign-ins for this account from this address, from this address, or for this account from browsers it has not signed in from. Try again in ${minutes} minute${minutes === 1 ? '' : 's'}.`,
    );
  }
  const user = email && password.length <= MAX_PASSWORD_LENGTH ? await findCredentials(email) : undefined;
  // An unknown email is checked against a decoy hash, so that it takes as long as a wrong password.
  const matches = await verifyPassword(password, user?.passwordHash ?? (await decoyHash()));
  if (!user || !matches) return again(401, 'The email or the password is not right.');
  // Only someone who knows the password learns that the user is disabled.
  if (user.status !== 'active') {
    await reservation.release();
    return again(403, 'This user is disabled. Ask an admin of your workspace.');
  }
  const [{ sessionId }, deviceId] = await Promise.all([
    openSession(user, nowMs),
    knownDevice ? undefined : rememberDevice(email, nowMs),
    reservation.release(),
  ]);
  return redirect(user.mustChangePassword ? PASSWORD_PATH : next, requestId, [
    cookie(SESSION_COOKIE, sessionId, { secure, maxAgeSeconds: Math.floor(SESSION_TTL_MS / 1000) }),
    cookie(SIGN_IN_COOKIE, '', { secure, maxAgeSeconds: 0 }),
    ...(deviceId ? [cookie(DEVICE_COOKIE, deviceId, { secure, maxAgeSeconds: Math.floor(DEVICE_TTL_MS / 1000) })] : []),
  ]);
}

/** POST /console/sign-out: ends the session (with its CSRF token, so another site cannot sign a person out) and clears the cookie. */
export async function signOut(event: HttpEvent, requestId: string, nowMs: number): Promise<HttpResult> {
  const secure = isHttps(event.headers);
  const sessionId = readCookies(event.cookies, event.headers?.cookie).get(SESSION_COOKIE);
  const session = await readSession(sessionId, nowMs);
  const form = readForm(event);
  if (!session || !sessionId) return redirect('/console/sign-in', requestId);
  if (!csrfTokenMatches(session.csrfToken, form?._csrf)) {
    const page = bareFrame(
      'Form refused',
      html`<h1>Form refused</h1>
        <p class="error" role="alert">This form did not come from your console session. You are still signed in.</p>
        <p><a href="/console">Back to the console</a></p>`,
    );
    return htmlAnswer(403, page, requestId);
  }
  await closeSession(sessionId);
  return redirect(`/console/sign-in?${SIGNED_OUT_FLAG}`, requestId, [cookie(SESSION_COOKIE, '', { secure, maxAgeSeconds: 0 })]);
}
