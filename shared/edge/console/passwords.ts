// Console passwords: scrypt hashes with a salt of their own, checked in constant time, and the one-time passwords the service mints.
import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';
import { randomBase62 } from '#platform/ids.ts';

/** One of OWASP's recommended scrypt settings: N = 2^16, r = 8, p = 2, 64 MiB of memory per hash. */
const COST = 2 ** 16;
const BLOCK_SIZE = 8;
const PARALLELISM = 2;
const KEY_LENGTH = 32;
const SALT_BYTES = 16;
/** scrypt needs 128 × N × r bytes; Node refuses more than maxmem, 32 MiB by default. */
const MAX_MEMORY = 160 * 1024 * 1024;

/** A person's password is at least this long; the service's own are longer. */
export const MIN_PASSWORD_LENGTH = 12;
/** scrypt hashes any length, but a form field of megabytes is no password. */
export const MAX_PASSWORD_LENGTH = 256;

interface ScryptParameters {
  readonly N: number;
  readonly r: number;
  readonly p: number;
}

function derive(password: string, salt: Buffer, params: ScryptParameters, length: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scrypt(password.normalize('NFKC'), salt, length, { ...params, maxmem: MAX_MEMORY }, (error, key) =>
      error ? reject(error) : resolve(key),
    );
  });
}

/** `scrypt$N$r$p$salt$hash`, both base64url: the parameters travel with the hash, so they may change later. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  const params = { N: COST, r: BLOCK_SIZE, p: PARALLELISM };
  const key = await derive(password, salt, params, KEY_LENGTH);
  return ['scrypt', params.N, params.r, params.p, salt.toString('base64url'), key.toString('base64url')].join('$');
}

/** Whether the password is the one hashed; a malformed stored hash matches nothing. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || !salt || !hash) return false;
  const params = { N: Number(n), r: Number(r), p: Number(p) };
  if (![params.N, params.r, params.p].every((value) => Number.isSafeInteger(value) && value > 0)) return false;
  const expected = Buffer.from(hash, 'base64url');
  const actual = await derive(password, Buffer.from(salt, 'base64url'), params, expected.length);
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

/**
 * What a sign-in without a user checks against, so that an unknown email takes as long as a wrong password and the
 * answer's timing does not tell which emails have accounts.
 */
let decoy: Promise<string> | undefined;
export function decoyHash(): Promise<string> {
  decoy ??= hashPassword(randomBase62(24));
  return decoy;
}

/** 24 base62 characters, about 143 bits: shown once to whoever created the user, who hands it on. */
export function oneTimePassword(): string {
  return randomBase62(24);
}

/** Why a chosen password is refused, or undefined when it will do. */
export function passwordProblem(password: string): string | undefined {
  if (password.length < MIN_PASSWORD_LENGTH) return `A password needs at least ${MIN_PASSWORD_LENGTH} characters.`;
  if (password.length > MAX_PASSWORD_LENGTH) return `A password has at most ${MAX_PASSWORD_LENGTH} characters.`;
  return undefined;
}
