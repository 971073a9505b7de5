// Unit tests of the identifiers the service mints.
import { describe, expect, it } from 'vitest';
import { newBatchId, newId, randomBase62 } from './ids.ts';

describe('identifiers', () => {
  it('draws base62 characters only, of the length asked for', () => {
    const value = randomBase62(500);
    expect(value).toMatch(/^[0-9A-Za-z]{500}$/);
  });

  it('draws every base62 character about equally often', () => {
    const counts = new Map<string, number>();
    for (const char of randomBase62(62_000)) counts.set(char, (counts.get(char) ?? 0) + 1);
    expect(counts.size).toBe(62);
    for (const count of counts.values()) expect(count).toBeGreaterThan(700);
  });

  it('prefixes ids with their kind', () => {
    expect(newId('ws')).toMatch(/^ws_[0-9A-Za-z]{22}$/);
    expect(newId('con')).toMatch(/^con_/);
  });

  it('gives batches version 4 UUIDs', () => {
    expect(newBatchId()).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });
});
