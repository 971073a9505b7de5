import { describe, expect, it } from 'vitest';
import { NO_NUMBER_PREFIX, noNumberSortKey, numberSortKey, numberSortKeyParts, skuSortKey } from './listing-sort-keys.ts';

describe('the sort keys of the recommendation orderings', () => {
  it('are the keys the rows were stored under', () => {
    expect(skuSortKey('CLIP-007b')).toBe('clip-017b#CLIP-007b');
    expect(numberSortKey(1250, 'CLIP-10')).toBe('C1000000000001250#clip-0210#CLIP-10');
    expect(numberSortKey(-300, 'BOLT-1')).toBe('C0999999999999700#bolt-011#BOLT-1');
    expect(numberSortKey(9e17, 'X')).toBe('C1999999999999999#x#X');
    expect(noNumberSortKey('X')).toBe('N#x#X');
  });

  it('read back the number and the SKU’s key a key of an ordering by a number was built from', () => {
    for (const value of [-1e15, -300, 0, 1, 1250, 1e15 - 1]) {
      for (const sku of ['CLIP-10', 'a#b', 'C0000000000000001#x', '']) {
        expect(numberSortKeyParts(numberSortKey(value, sku))).toEqual({ value, skuKey: skuSortKey(sku) });
      }
    }
  });

  it('read no number from a row without one, nor from a key of the ordering by SKU', () => {
    expect(noNumberSortKey('CLIP-10').startsWith(NO_NUMBER_PREFIX)).toBe(true);
    expect(numberSortKeyParts(noNumberSortKey('CLIP-10'))).toBeUndefined();
    expect(numberSortKeyParts(skuSortKey('C0000000000000001'))).toBeUndefined();
    expect(numberSortKeyParts('C-000000000000001#x#X')).toBeUndefined();
  });

  it('sort every number before the rows without one, and numbers in order', () => {
    expect(numberSortKey(-1, 'Z') < numberSortKey(0, 'A')).toBe(true);
    expect(numberSortKey(1e15 - 1, 'Z') < noNumberSortKey('A')).toBe(true);
  });
});
