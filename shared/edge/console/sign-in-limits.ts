// How many password checks an account may have from one source address and from everywhere, an address in all, and a signed-in user in Settings → Password: counters in the table, one per fixed window, removed by TTL.
import { createHash, randomBytes } from 'node:crypto';
import { getItem, putItem, updateItem } from '#platform/table/commands.ts';
import { table } from '#platform/table/definition.ts';
import { consoleKeys } from '#platform/table/console-keys.ts';
import type { PrimaryKey } from '#platform/table/key-parts.ts';

/** Failed sign-ins allowed to one account from one source address in one window. */
export const MAX_FAILURES = 10;
/**
 * Failed sign-ins allowed from one source address in one window, whatever the accounts: higher than the account's,
 * so that several people behind one office address may each mistype, and low enough to stop guessing across accounts.
 */
export const MAX_ADDRESS_FAILURES = 30;
/**
 * Failed sign-ins allowed to one account in one window from browsers it has not signed in from, whatever their
 * addresses: past it such sign-ins are held until the window ends, while a browser the account signed in from before
 * still signs in (its device cookie), so that a stranger spreading guesses over many addresses cannot lock the owner out.
 */
export const MAX_ACCOUNT_FAILURES = 20;
/** Wrong current passwords a signed-in user may give in Settings → Password in one window. */
export const MAX_PASSWORD_CHECK_FAILURES = 5;
export const WINDOW_MS = 15 * 60 * 1000;

export interface SignInSubject {
  /** The email as typed, normalised: an account is counted whether or not it exists, so the limit tells nothing. */
  readonly email: string;
  readonly sourceIp: string;
  /** The attempt comes from a browser this account signed in from before: not counted against the account's hold. */
  readonly knownDevice?: boolean;
}

export function windowOf(nowMs: number): number {
  return Math.floor(nowMs / WINDOW_MS);
}

/** When the window of `nowMs` ends: the moment a refused account or address may try again. */
export function windowEndMs(nowMs: number): number {
  return (windowOf(nowMs) + 1) * WINDOW_MS;
}

interface Counter {
  readonly key: PrimaryKey;
  readonly limit: number;
}

/**
 * The account is counted together with the address it is tried from: a stranger's wrong passwords use up the
 * stranger's own count and never lock the account's owner out at another address.
 */
function countersOf(subject: SignInSubject, nowMs: number): Counter[] {
  const window = windowOf(nowMs);
  return [
    { key: consoleKeys.signInFailures('accountAtAddress', `${subject.email}\n${subject.sourceIp}`, window), limit: MAX_FAILURES },
    { key: consoleKeys.signInFailures('address', subject.sourceIp, window), limit: MAX_ADDRESS_FAILURES },
    ...(subject.knownDevice ? [] : [{ key: consoleKeys.signInFailures('account', subject.email, window), limit: MAX_ACCOUNT_FAILURES }]),
  ];
}

function add(key: PrimaryKey, amount: number, nowMs: number, limit?: number) {
  return updateItem({
    Key: key,
    UpdateExpression: 'ADD failures :amount SET #ttl = :expires',
    ...(limit === undefined ? {} : { ConditionExpression: 'attribute_not_exists(failures) OR failures < :limit' }),
    ExpressionAttributeNames: { '#ttl': table.ttlAttribute },
    ExpressionAttributeValues: {
      ':amount': amount,
      ':expires': Math.ceil(windowEndMs(nowMs) / 1000),
      ...(limit === undefined ? {} : { ':limit': limit }),
    },
  });
}

/** An attempt counted before its password is checked: kept if the password is wrong, given back if it is right. */
export interface Reservation {
  /** Gives the attempt back: a sign-in that succeeded is no failure. */
  release(): Promise<void>;
}

/**
 * Counts the attempt against both counters before its password is checked, each by a conditional increment that
 * refuses at the limit: of any number of attempts sent at once, at most the limit's remainder get their password
 * checked. Undefined when either counter is at its limit; then nothing is counted.
 */
export async function reserveAttempt(subject: SignInSubject, nowMs: number): Promise<Reservation | undefined> {
  return reserveCounted(countersOf(subject, nowMs), nowMs);
}

/**
 * Counts a check of the signed-in user's current password (Settings → Password) before it is made, as a sign-in is:
 * only the user's own session can spend it, so its limit locks no one else out.
 */
export function reservePasswordCheck(userId: string, nowMs: number): Promise<Reservation | undefined> {
  const key = consoleKeys.signInFailures('passwordCheck', userId, windowOf(nowMs));
  return reserveCounted([{ key, limit: MAX_PASSWORD_CHECK_FAILURES }], nowMs);
}

async function reserveCounted(counters: readonly Counter[], nowMs: number): Promise<Reservation | undefined> {
  const outcomes = await Promise.all(counters.map((counter) => add(counter.key, 1, nowMs, counter.limit)));
  const taken = counters.filter((_, index) => !outcomes[index]?.refused).map((counter) => counter.key);
  const giveBack = async () => {
    await Promise.all(taken.map((key) => add(key, -1, nowMs)));
  };
  if (taken.length < counters.length) {
    await giveBack();
    return undefined;
  }
  return { release: giveBack };
}

/** A browser's device cookie lives this long from its last sign-in. */
export const DEVICE_TTL_MS = 90 * 24 * 3_600_000;

function hashDeviceId(deviceId: string): string {
  return createHash('sha256').update(deviceId, 'utf8').digest('hex');
}

/** Whether the device cookie names a browser this account signed in from: one strongly consistent GetItem, none without a cookie. */
export async function isKnownDevice(deviceId: string | undefined, email: string, nowMs: number): Promise<boolean> {
  if (!deviceId || !/^[A-Za-z0-9_-]{43}$/.test(deviceId)) return false;
  const Item = await getItem({ Key: consoleKeys.consoleDevice(hashDeviceId(deviceId)), ConsistentRead: true });
  return Item?.email === email && Number(Item.expiresAtMs) > nowMs;
}

/** Remembers the browser of a successful sign-in for its account; returns the cookie's value, which is never stored. */
export async function rememberDevice(email: string, nowMs: number): Promise<string> {
  const deviceId = randomBytes(32).toString('base64url');
  const expiresAtMs = nowMs + DEVICE_TTL_MS;
  await putItem({
    Item: {
      ...consoleKeys.consoleDevice(hashDeviceId(deviceId)),
      type: 'consoleDevice',
      email,
      expiresAtMs,
      [table.ttlAttribute]: Math.ceil(expiresAtMs / 1000),
    },
  });
  return deviceId;
}
