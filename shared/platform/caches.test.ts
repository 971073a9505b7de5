// Unit tests of the per-instance caches: bounded in size, and expiring.
import { describe, expect, it } from 'vitest';
import { BoundedMap, ExpiringCache } from './caches.ts';

const TTL_MS = 60_000;

describe('BoundedMap', () => {
  it('holds entries up to its limit', () => {
    const map = new BoundedMap<string, number>(3);
    map.set('a', 1).set('b', 2).set('c', 3);
    expect([...map]).toEqual([
      ['a', 1],
      ['b', 2],
      ['c', 3],
    ]);
    expect(map.limit).toBe(3);
  });

  it('forgets its oldest entry when a new key would take it past the limit', () => {
    const map = new BoundedMap<string, number>(3);
    map.set('a', 1).set('b', 2).set('c', 3).set('d', 4);
    expect(map.size).toBe(3);
    expect(map.has('a')).toBe(false);
    expect([...map.keys()]).toEqual(['b', 'c', 'd']);
    map.set('e', 5);
    expect([...map.keys()]).toEqual(['c', 'd', 'e']);
  });

  it('forgets nothing when an existing key is set again, and keeps that key in its first place', () => {
    const map = new BoundedMap<string, number>(3);
    map.set('a', 1).set('b', 2).set('c', 3).set('a', 10);
    expect([...map]).toEqual([
      ['a', 10],
      ['b', 2],
      ['c', 3],
    ]);
    map.set('d', 4);
    expect([...map.keys()]).toEqual(['b', 'c', 'd']);
  });

  it('makes room again for a key it forgot', () => {
    const map = new BoundedMap<string, number>(2);
    map.set('a', 1).set('b', 2).set('c', 3).set('a', 4);
    expect([...map]).toEqual([
      ['c', 3],
      ['a', 4],
    ]);
  });

  it('holds null values, which a drain uses for a category or segment that does not exist', () => {
    const map = new BoundedMap<string, string | null>(2);
    map.set('SKU-1', null);
    expect(map.has('SKU-1')).toBe(true);
    expect(map.get('SKU-1')).toBeNull();
  });

  it('lets a deleted key free its place', () => {
    const map = new BoundedMap<string, number>(2);
    map.set('a', 1).set('b', 2);
    map.delete('a');
    map.set('c', 3);
    expect([...map.keys()]).toEqual(['b', 'c']);
  });

  it('stays a Map', () => {
    expect(new BoundedMap<string, number>(1)).toBeInstanceOf(Map);
  });
});

describe('ExpiringCache', () => {
  it('serves a found value for its time to live, then reads it again', async () => {
    const cache = new ExpiringCache<string>({ ttlMs: TTL_MS });
    let reads = 0;
    const load = async () => `value-${++reads}`;
    expect(await cache.get('k', 0, load)).toBe('value-1');
    expect(await cache.get('k', TTL_MS - 1, load)).toBe('value-1');
    expect(await cache.get('k', TTL_MS, load)).toBe('value-2');
  });

  it('does not remember a miss, so that a key issued a moment later works at once', async () => {
    const cache = new ExpiringCache<string | undefined>({ ttlMs: TTL_MS });
    expect(await cache.get('k', 0, async () => undefined)).toBeUndefined();
    expect(await cache.get('k', 1, async () => 'issued')).toBe('issued');
  });

  it('forgets its oldest entries past its limit', () => {
    const cache = new ExpiringCache<string>({ ttlMs: TTL_MS, limit: 2 });
    for (const id of ['a', 'b', 'c']) cache.set(id, id, 0);
    expect(cache.peek('a', 1)).toBeUndefined();
    expect(cache.peek('c', 1)).toBe('c');
  });

  it('serves a miss for its miss time to live when asked to, then reads again and keeps what it finds', async () => {
    const cache = new ExpiringCache<string | undefined>({ ttlMs: TTL_MS, missTtlMs: 5_000 });
    let reads = 0;
    const store: { key?: string } = {};
    const load = async () => {
      reads += 1;
      return store.key;
    };
    expect(await cache.get('k', 0, load)).toBeUndefined();
    store.key = 'issued';
    expect(await cache.get('k', 4_999, load)).toBeUndefined();
    expect(reads).toBe(1);
    expect(await cache.get('k', 5_000, load)).toBe('issued');
    expect(await cache.get('k', 5_000 + TTL_MS - 1, load)).toBe('issued');
    expect(reads).toBe(2);
  });
});
