// Unit tests of the quota's leases: the size of the block an instance takes from the month.
import { describe, expect, it } from 'vitest';
import { blockSize } from './quota.ts';

describe('the block of lines a lease takes', () => {
  it('takes the full lease size while the month has plenty left', () => {
    expect(blockSize(100, 1_000_000_000, 5_000)).toBe(5_000);
  });

  it('takes a sixteenth of what is left as the month nears its quota, so that instances hold little of the end', () => {
    expect(blockSize(10, 16_000, 5_000)).toBe(1_000);
    expect(blockSize(10, 320, 5_000)).toBe(20);
  });

  it('always covers the call it is taken for', () => {
    expect(blockSize(100, 320, 5_000)).toBe(100);
    expect(blockSize(100, 1_000_000_000, 50)).toBe(100);
  });

  it('takes exactly what the call lacks when leases are off', () => {
    expect(blockSize(7, 1_000_000_000, 0)).toBe(7);
  });
});
