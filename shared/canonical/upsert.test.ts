// Unit tests of the bounded map a drain remembers categories and segments in; the upsert itself needs a table.
import { describe, expect, it } from 'vitest';
import { BoundedMap, DrainMemory } from './upsert.ts';

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

describe('DrainMemory', () => {
  it('starts with empty category and segment maps bounded at 50,000 entries', () => {
    const memory = new DrainMemory();
    expect(memory.categories.size).toBe(0);
    expect(memory.segments.size).toBe(0);
    expect(memory.categories.limit).toBe(50_000);
    expect(memory.segments.limit).toBe(50_000);
  });
});
