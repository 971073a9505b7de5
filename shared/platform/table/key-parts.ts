// The pieces every key is made of: the key shape, fixed-width numbers, and the digest that stands in for a caller's text.
import { createHash } from 'node:crypto';

export interface PrimaryKey {
  readonly PK: string;
  readonly SK: string;
}

export type DocumentKind = 'quote' | 'order';

export function pad(value: number, width: number): string {
  return String(value).padStart(width, '0');
}

/**
 * A fixed-length stand-in for a caller's text inside a sort key: sort keys are capped at 1 KB, and ids may hold any
 * character, including the `#` that separates key parts. 96 bits make a collision vanishingly unlikely.
 */
export function keyDigest(text: string): string {
  return createHash('sha256').update(text).digest('base64url').slice(0, 16);
}

/**
 * Which of `shards` partitions a text falls in, the same every time: the first two bytes of its SHA-256, modulo the
 * count (the history log, the adherence aggregates and the console's lists spread their items so).
 */
export function hashShard(text: string, shards: number): number {
  return createHash('sha256').update(text).digest().readUInt16BE(0) % shards;
}

export function lineDigest(kind: DocumentKind, externalId: string, index: number): string {
  return keyDigest(`${kind}#${externalId}#${index}`);
}
