// Unit tests of how the console writes a cost: one precision on every page.
import { describe, expect, it } from 'vitest';
import { costDollars } from './formats.ts';

describe('a cost as the console writes it', () => {
  it('is in cents from a cent up, and in two significant digits under a cent, so that a small cost never reads as nothing', () => {
    expect(costDollars(0)).toBe('$0');
    expect(costDollars(12.345)).toBe('$12.35');
    expect(costDollars(0.01)).toBe('$0.01');
    expect(costDollars(0.00042)).toBe('$0.00042');
    expect(costDollars(0.0000012345)).toBe('$0.0000012');
    expect(costDollars(-0.5)).toBe('−$0.50');
    expect(costDollars(0.000000015)).toBe('$0.000000015');
    // Where rounding carries into the next digit, the digits follow the rounded amount.
    expect(costDollars(0.000999999)).toBe('$0.0010');
    expect(costDollars(0.00999)).toBe('$0.01');
    expect(costDollars(0.0099)).toBe('$0.0099');
  });
});
