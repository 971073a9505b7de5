// Unit tests of what a drain remembers between chunks; the upsert itself needs a table.
import { describe, expect, it } from 'vitest';
import { DrainMemory } from './memory.ts';

describe('DrainMemory', () => {
  it('starts with empty category and segment maps bounded at 50,000 entries', () => {
    const memory = new DrainMemory();
    expect(memory.categories.size).toBe(0);
    expect(memory.segments.size).toBe(0);
    expect(memory.categories.limit).toBe(50_000);
    expect(memory.segments.limit).toBe(50_000);
  });
});
