// Console sessions: opened at sign-in, kept in the table under a hash of their id with a TTL, each with its CSRF token, notice and sealed reveal; and the cookie that carries them.
import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes, timingSafeEqual } from 'node:crypto';
import * as v from 'valibot';
import { deleteItem, getItem, putItem, updateItem } from '#platform/table/commands.ts';
import { table } from '#platform/table/definition.ts';
import { consoleKeys } from '#platform/table/console-keys.ts';
import { type ConsoleUser, type Reveal, RevealSchema } from './page.ts';
import { ConsoleRoleSchema, type ConsoleUserRecord, consoleUserOf, findCredentials } from './users.ts';

/** A session ends this long after sign-in, used or not: a console left open overnight asks again in the morning. */
export const SESSION_TTL_MS = 8 * 60 * 60 * 1000;

export const SESSION_COOKIE = 'console_session';
/** Carries the sign-in form's CSRF token before there is a session (double submit: the cookie and the field must match). */
export const SIGN_IN_COOKIE = 'console_sign_in';
export const CONSOLE_PATH = '/console';

const SessionSchema = v.object({
  userId: v.string(),
  email: v.string(),
  workspaceId: v.string(),
  roles: v.array(ConsoleRoleSchema),
  csrfToken: v.string(),
  expiresAtMs: v.number(),
  /** The user's version when the session was opened (or took on a new password); sessions from before versions had 0. */
  userVersion: v.optional(v.number(), 0),
  /** What the last form did, kept for the next page view only; never taken from a URL, so no link can make one up. */
  flash: v.optional(v.string()),
  /** A secret a form left for one view of one page, sealed (sealReveal): the table never holds it in plaintext. */
  reveal: v.optional(v.string()),
});

export interface Session {
  readonly user: ConsoleUser;
  readonly csrfToken: string;
  readonly expiresAtMs: number;
  /** The table's name for it: the SHA-256 of the id the cookie carries. */
  readonly sessionIdHash: string;
  /** The notice a form's redirect left for the next page view, if any. */
  readonly flash?: string;
  /** The sealed secret a form's redirect left for its page, if any: opened only with the cookie's id (takeReveal). */
  readonly reveal?: string;
}

/** 32 random bytes, base64url: what the cookie carries; the table holds only its SHA-256. */
function newSecret(): string {
  return randomBytes(32).toString('base64url');
}

export function hashSessionId(sessionId: string): string {
  return createHash('sha256').update(sessionId, 'utf8').digest('hex');
}

/** Opens a session for the user; returns the id for the cookie, which is never stored. */
export async function openSession(record: ConsoleUserRecord, nowMs: number): Promise<{ sessionId: string; session: Session }> {
  const sessionId = newSecret();
  const user = consoleUserOf(record);
  const sessionIdHash = hashSessionId(sessionId);
  const session: Session = { user, csrfToken: newSecret(), expiresAtMs: nowMs + SESSION_TTL_MS, sessionIdHash };
  await putItem({
    Item: {
      ...consoleKeys.consoleSession(sessionIdHash),
      type: 'consoleSession',
      userId: user.userId,
      email: user.email,
      workspaceId: user.workspaceId,
      roles: [...user.roles],
      userVersion: record.version,
      csrfToken: session.csrfToken,
      expiresAtMs: session.expiresAtMs,
      // DynamoDB deletes it some time after; until then the read below refuses it by expiresAtMs.
      [table.ttlAttribute]: Math.ceil(session.expiresAtMs / 1000),
    },
  });
  return { sessionId, session };
}

/**
 * The live session the cookie names, or undefined: unknown, ended, past its time even if TTL has not removed it yet,
 * or its user since deleted, disabled, moved to a new password or made anew. The user is read on every request,
 * strongly consistent and never cached, so such a change ends the session at its next request, and the roles shown
 * and checked are the user's roles now, not those of the sign-in.
 */
export async function readSession(sessionId: string | undefined, nowMs: number): Promise<Session | undefined> {
  if (!sessionId || !/^[A-Za-z0-9_-]{43}$/.test(sessionId)) return undefined;
  const sessionIdHash = hashSessionId(sessionId);
  const Item = await getItem({ Key: consoleKeys.consoleSession(sessionIdHash), ConsistentRead: true });
  if (!Item) return undefined;
  const stored = v.parse(SessionSchema, Item);
  if (!isLive(stored.expiresAtMs, nowMs)) return undefined;
  const record = await findCredentials(stored.email);
  if (!record || !isSessionOf(record, stored)) return undefined;
  return {
    user: consoleUserOf(record),
    csrfToken: stored.csrfToken,
    expiresAtMs: stored.expiresAtMs,
    sessionIdHash,
    ...(stored.flash ? { flash: stored.flash } : {}),
    ...(stored.reveal ? { reveal: stored.reveal } : {}),
  };
}

/**
 * Leaves a form's notice for the session's next page view, its sealed secret for the page its redirect leads to, or
 * both: one write, and only when a form posts something to leave.
 */
export async function leaveForNextView(sessionIdHash: string, left: { readonly notice?: string; readonly reveal?: string }): Promise<void> {
  const fields = [
    ...(left.notice ? [['flash', ':notice', left.notice] as const] : []),
    ...(left.reveal ? [['reveal', ':reveal', left.reveal] as const] : []),
  ];
  if (fields.length === 0) return;
  await updateItem({
    Key: consoleKeys.consoleSession(sessionIdHash),
    ConditionExpression: 'attribute_exists(PK)',
    UpdateExpression: `SET ${fields.map(([name, value]) => `${name} = ${value}`).join(', ')}`,
    ExpressionAttributeValues: Object.fromEntries(fields.map(([, value, text]) => [value, text])),
  });
}

/**
 * Takes the notice off once a page has shown it, so that it is said once. Only a view that has one pays the write;
 * the condition keeps a newer notice, left by a form in another tab meanwhile, for its own view.
 */
export async function clearFlash(sessionIdHash: string, shown: string): Promise<void> {
  await updateItem({
    Key: consoleKeys.consoleSession(sessionIdHash),
    ConditionExpression: 'flash = :shown',
    UpdateExpression: 'REMOVE flash',
    ExpressionAttributeValues: { ':shown': shown },
  });
}

const REVEAL_VERSION = 'r1';
const REVEAL_IV_BYTES = 12;
const REVEAL_TAG_BYTES = 16;

/** Where the reveal belongs (the path of the page that shows it) and what it shows, as sealed. */
const SealedRevealSchema = v.object({ path: v.string(), reveal: RevealSchema });

/**
 * The key a session's reveal is sealed under: HKDF-SHA256 of the id the cookie carries. The table holds only the id's
 * SHA-256, from which this key cannot be had, so a read of the table (a backup, an export, a stolen item) opens no
 * reveal; only a request bearing the cookie does.
 */
function revealKey(sessionId: string): Buffer {
  return Buffer.from(hkdfSync('sha256', sessionId, 'pricing-service console', 'console reveal v1', 32));
}

/** The associated data: sealed text moved onto another session's item does not open there, even under its key. */
function revealContext(sessionId: string): Buffer {
  return Buffer.from(`console-reveal:${hashSessionId(sessionId)}`);
}

/** Seals a secret for one view of the page at `path`, with AES-256-GCM under the session's own key. */
export function sealReveal(sessionId: string, path: string, reveal: Reveal): string {
  const iv = randomBytes(REVEAL_IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', revealKey(sessionId), iv);
  cipher.setAAD(revealContext(sessionId));
  const ciphertext = Buffer.concat([cipher.update(JSON.stringify({ path, reveal }), 'utf8'), cipher.final()]);
  return [REVEAL_VERSION, ...[iv, cipher.getAuthTag(), ciphertext].map((part) => part.toString('base64url'))].join('.');
}

/** The sealed reveal and the page it is for, or undefined where it does not open under this session's id. */
export function openReveal(sessionId: string, sealed: string): { path: string; reveal: Reveal } | undefined {
  const [version, iv, tag, ciphertext] = sealed.split('.');
  if (version !== REVEAL_VERSION || !iv || !tag || ciphertext === undefined) return undefined;
  try {
    // The whole 16-byte tag, always: a shorter one given here would be checked as short, and forged the more easily.
    const decipher = createDecipheriv('aes-256-gcm', revealKey(sessionId), Buffer.from(iv, 'base64url'), {
      authTagLength: REVEAL_TAG_BYTES,
    });
    decipher.setAAD(revealContext(sessionId));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    const text = Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString('utf8');
    const opened = v.safeParse(SealedRevealSchema, JSON.parse(text));
    return opened.success ? opened.output : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The secret the session holds for the page at `path`, taken off the session first: the conditional removal succeeds
 * for one view only, so that two views at once (a reload racing the redirect) cannot both show it. A reveal for
 * another page stays for that page; one that does not open under this session's id is taken off unread.
 */
export async function takeReveal(sessionId: string, sealed: string, path: string): Promise<Reveal | undefined> {
  const opened = openReveal(sessionId, sealed);
  if (opened && opened.path !== path) return undefined;
  const taken = await updateItem({
    Key: consoleKeys.consoleSession(hashSessionId(sessionId)),
    ConditionExpression: 'reveal = :sealed',
    UpdateExpression: 'REMOVE reveal',
    ExpressionAttributeValues: { ':sealed': sealed },
  });
  return taken.refused ? undefined : opened?.reveal;
}

/** Whether the user now is the one the session was opened for, still active, and at the session's version. */
export function isSessionOf(
  record: Pick<ConsoleUserRecord, 'userId' | 'workspaceId' | 'status' | 'version'>,
  session: { readonly userId: string; readonly workspaceId: string; readonly userVersion: number },
): boolean {
  return (
    record.userId === session.userId &&
    record.workspaceId === session.workspaceId &&
    record.status === 'active' &&
    record.version === session.userVersion
  );
}

/** The session making a password change takes on the user's new version, so that it alone stays open. */
export async function adoptUserVersion(sessionIdHash: string, userVersion: number): Promise<void> {
  await updateItem({
    Key: consoleKeys.consoleSession(sessionIdHash),
    ConditionExpression: 'attribute_exists(PK)',
    UpdateExpression: 'SET userVersion = :version',
    ExpressionAttributeValues: { ':version': userVersion },
  });
}

export function isLive(expiresAtMs: number, nowMs: number): boolean {
  return nowMs < expiresAtMs;
}

export async function closeSession(sessionId: string): Promise<void> {
  if (!/^[A-Za-z0-9_-]{43}$/.test(sessionId)) return;
  await deleteItem({ Key: consoleKeys.consoleSession(hashSessionId(sessionId)) });
}

/** Whether a form's token is the session's, compared in constant time; a missing token never is. */
export function csrfTokenMatches(expected: string, given: string | undefined): boolean {
  if (!given) return false;
  const a = Buffer.from(expected);
  const b = Buffer.from(given);
  return a.length === b.length && timingSafeEqual(a, b);
}

export function newSignInToken(): string {
  return newSecret();
}

/** Cookies as API Gateway hands them on (`event.cookies`, each `name=value`), by name; the first of a name wins. */
export function readCookies(cookies: readonly string[] | undefined, header?: string): Map<string, string> {
  const map = new Map<string, string>();
  const all = [...(cookies ?? []), ...(header ? header.split(/;\s*/) : [])];
  for (const cookie of all) {
    const at = cookie.indexOf('=');
    if (at <= 0) continue;
    const name = cookie.slice(0, at).trim();
    if (!map.has(name)) map.set(name, cookie.slice(at + 1).trim());
  }
  return map;
}

/** HttpOnly, SameSite=Strict, under /console only; Secure whenever the console is served over HTTPS. */
export function cookie(name: string, value: string, options: { secure: boolean; maxAgeSeconds: number }): string {
  return [
    `${name}=${value}`,
    `Path=${CONSOLE_PATH}`,
    'HttpOnly',
    'SameSite=Strict',
    `Max-Age=${options.maxAgeSeconds}`,
    ...(options.secure ? ['Secure'] : []),
  ].join('; ');
}

/** API Gateway sets X-Forwarded-Proto; the local gateway serves plain HTTP and sets none. */
export function isHttps(headers: Readonly<Record<string, string | undefined>> | undefined): boolean {
  return (headers?.['x-forwarded-proto'] ?? '').split(',')[0]?.trim().toLowerCase() === 'https';
}
