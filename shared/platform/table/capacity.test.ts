// Unit tests of item sizes, by the rules DynamoDB bills.
import { describe, expect, it } from 'vitest';
import { attributeValueSize, itemSize, transactionalWriteUnitsForSize, writeUnitsForSize } from './capacity.ts';

describe('item sizes, by the rules DynamoDB bills', () => {
  it('counts strings in UTF-8 bytes and names as well as values', () => {
    expect(attributeValueSize({ S: 'abc' })).toBe(3);
    expect(attributeValueSize({ S: 'é' })).toBe(2);
    expect(itemSize({ PK: { S: 'WS#1' }, n: { S: '' } })).toBe(2 + 4 + 1);
  });

  it('counts a number as one byte per two significant digits, plus one', () => {
    expect(attributeValueSize({ N: '1' })).toBe(2);
    expect(attributeValueSize({ N: '12345' })).toBe(4);
    expect(attributeValueSize({ N: '-1000' })).toBe(2);
    expect(attributeValueSize({ N: '0.0012' })).toBe(2);
  });

  it('counts binary in bytes, booleans and nulls as one byte, and lists and maps with their overhead', () => {
    expect(attributeValueSize({ B: new Uint8Array(10) })).toBe(10);
    expect(attributeValueSize({ BOOL: true })).toBe(1);
    expect(attributeValueSize({ NULL: true })).toBe(1);
    expect(attributeValueSize({ L: [{ S: 'ab' }, { BOOL: false }] })).toBe(3 + (1 + 2) + (1 + 1));
    expect(attributeValueSize({ M: { a: { S: 'xy' } } })).toBe(3 + 1 + (1 + 2));
  });

  it('charges a standard write one unit per started KB and a transactional write two', () => {
    expect(writeUnitsForSize(0)).toBe(1);
    expect(writeUnitsForSize(1024)).toBe(1);
    expect(writeUnitsForSize(1025)).toBe(2);
    expect(transactionalWriteUnitsForSize(3000)).toBe(6);
  });
});
