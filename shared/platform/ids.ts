// Identifiers the service mints: prefixed random ids and the random part of API keys.
import { randomBytes, randomUUID } from 'node:crypto';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** Uniform base62: bytes at or above 248 (= 4 × 62) are dropped so that no character is more likely than another. */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248) out += BASE62[byte % 62];
      if (out.length === length) break;
    }
  }
  return out;
}

export type IdPrefix = 'ws' | 'con' | 'key' | 'job' | 'wb' | 'apv' | 'pd' | 'we' | 'usr';

/** 22 base62 characters carry about 131 bits, as many as a UUID. */
export function newId(prefix: IdPrefix): string {
  return `${prefix}_${randomBase62(22)}`;
}

export function newBatchId(): string {
  return randomUUID();
}
