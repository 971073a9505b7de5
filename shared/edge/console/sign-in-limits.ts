// How many sign-ins an account may try from one source address, and an address may try in all: counters in the table, one per fixed window, removed by TTL.
import { updateItem } from '#platform/table/commands.ts';
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
export const WINDOW_MS = 15 * 60 * 1000;

export interface SignInSubject {
  /** The email as typed, normalised: an account is counted whether or not it exists, so the limit tells nothing. */
  readonly email: string;
  readonly sourceIp: string;
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
function countersOf(subject: SignInSubject, nowMs: number): [Counter, Counter] {
  const window = windowOf(nowMs);
  return [
    { key: consoleKeys.signInFailures('accountAtAddress', `${subject.email}\n${subject.sourceIp}`, window), limit: MAX_FAILURES },
    { key: consoleKeys.signInFailures('address', subject.sourceIp, window), limit: MAX_ADDRESS_FAILURES },
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
  const counters = countersOf(subject, nowMs);
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
