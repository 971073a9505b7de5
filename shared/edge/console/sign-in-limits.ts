// How many failed sign-ins an account and a source address may have: counters in the table, one per fixed window, removed by TTL.
import { batchGetItems, updateItem } from '#platform/table/commands.ts';
import { table } from '#platform/table/definition.ts';
import { consoleKeys } from '#platform/table/console-keys.ts';
import type { PrimaryKey } from '#platform/table/key-parts.ts';

/** Failed sign-ins allowed per account, and per source address, in one window. */
export const MAX_FAILURES = 10;
export const WINDOW_MS = 15 * 60 * 1000;

export interface SignInSubject {
  /** The email as typed, normalised: an account is counted whether or not it exists, so the limit tells nothing. */
  readonly email: string;
  readonly sourceIp: string;
}

export function windowOf(nowMs: number): number {
  return Math.floor(nowMs / WINDOW_MS);
}

/** When the window of `nowMs` ends: the moment a locked account or address may try again. */
export function windowEndMs(nowMs: number): number {
  return (windowOf(nowMs) + 1) * WINDOW_MS;
}

function counterKeys(subject: SignInSubject, nowMs: number): [PrimaryKey, PrimaryKey] {
  const window = windowOf(nowMs);
  return [consoleKeys.signInFailures('account', subject.email, window), consoleKeys.signInFailures('address', subject.sourceIp, window)];
}

/** Whether either counter is at the limit: then the attempt is refused before its password is even checked. */
export function isLocked(failures: { account: number; address: number }): boolean {
  return failures.account >= MAX_FAILURES || failures.address >= MAX_FAILURES;
}

/** The failures counted so far in this window, for the account and for the address: one BatchGetItem of two items. */
export async function readFailures(subject: SignInSubject, nowMs: number): Promise<{ account: number; address: number }> {
  const [account, address] = counterKeys(subject, nowMs);
  const items = await batchGetItems([account, address], { ConsistentRead: true });
  const countOf = (key: PrimaryKey) => Number(items.find((item) => item.PK === key.PK && item.SK === key.SK)?.failures ?? 0);
  return { account: countOf(account), address: countOf(address) };
}

/** Counts one failure against both; the counters expire by TTL when their window is over. */
export async function recordFailure(subject: SignInSubject, nowMs: number): Promise<void> {
  const expires = Math.ceil(windowEndMs(nowMs) / 1000);
  await Promise.all(
    counterKeys(subject, nowMs).map((Key) =>
      updateItem({
        Key,
        UpdateExpression: 'ADD failures :one SET #ttl = :expires',
        ExpressionAttributeNames: { '#ttl': table.ttlAttribute },
        ExpressionAttributeValues: { ':one': 1, ':expires': expires },
      }),
    ),
  );
}
