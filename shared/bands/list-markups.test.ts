// Unit tests of which list markups a category's run trusts from the last run and which it reads again.
import { describe, expect, it } from 'vitest';
import { KEPT_MARKUPS_TRUSTED_MS, MAX_KEPT_BYTES, markupsToKeep, markupsToRead } from './list-markups.ts';

const kept = {
  markups: new Map([
    ['A', 1.5],
    ['B', 0],
    ['C', 2],
  ]),
  fullReadAtMs: 1_000,
};
const nothingMoved = () => false;

describe("a category's list markups", () => {
  it('are read in full when nothing is kept', () => {
    expect(markupsToRead(['A', 'B'], undefined, nothingMoved, 2_000)).toEqual({ trusted: new Map(), read: ['A', 'B'], full: true });
  });

  it('are trusted as kept, a product without one included, when no record moved', () => {
    const plan = markupsToRead(['A', 'B'], kept, nothingMoved, 2_000);
    expect(plan).toEqual({
      trusted: new Map([
        ['A', 1.5],
        ['B', 0],
      ]),
      read: [],
      full: false,
    });
  });

  it('are read again for the products the batch re-sent and for those new to the category', () => {
    const plan = markupsToRead(['A', 'C', 'D'], kept, (sku) => sku === 'C', 2_000);
    expect(plan.trusted).toEqual(new Map([['A', 1.5]]));
    expect(plan.read).toEqual(['C', 'D']);
    expect(plan.full).toBe(false);
  });

  it('count as read in full when every product is read again, as in a rebuild', () => {
    expect(markupsToRead(['A', 'C'], kept, () => true, 2_000)).toEqual({ trusted: new Map(), read: ['A', 'C'], full: true });
  });

  it('are read in full again once the last full read is a week old', () => {
    const plan = markupsToRead(['A'], kept, nothingMoved, kept.fullReadAtMs + KEPT_MARKUPS_TRUSTED_MS);
    expect(plan).toEqual({ trusted: new Map(), read: ['A'], full: true });
  });
});

describe("the item that keeps a category's markups", () => {
  const key = { PK: 'WS#w#LISTMARKUPS', SK: 'CATEGORY#c' };

  it('restarts the week on a full read and keeps the last full read otherwise', () => {
    const markups = new Map([['A', 1.5]]);
    expect(markupsToKeep(key, markups, true, kept, 5_000)).toEqual({
      ...key,
      type: 'listMarkups',
      markups: '{"A":1.5}',
      fullReadAtMs: 5_000,
    });
    expect(markupsToKeep(key, markups, false, kept, 5_000)).toMatchObject({ fullReadAtMs: kept.fullReadAtMs });
  });

  it('keeps none for a category too large in bytes, replacing what was kept, and writes nothing where nothing was', () => {
    // Each SKU is three bytes a character: under the limit in characters, over it in bytes.
    const wide = new Map(Array.from({ length: 3_000 }, (_, index) => [`${'品'.repeat(40)}${index}`, 1.25]));
    expect(JSON.stringify(Object.fromEntries(wide)).length).toBeLessThan(MAX_KEPT_BYTES);
    expect(markupsToKeep(key, wide, true, kept, 5_000)).toEqual({ ...key, type: 'listMarkups' });
    expect(markupsToKeep(key, wide, true, undefined, 5_000)).toBeUndefined();
  });
});
