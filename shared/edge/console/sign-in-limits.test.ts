// Unit tests of sign-in limits: the fixed windows and the two limits.
import { describe, expect, it } from 'vitest';
import { MAX_ADDRESS_FAILURES, MAX_FAILURES, WINDOW_MS, windowEndMs, windowOf } from './sign-in-limits.ts';

describe('sign-in limits', () => {
  it('allow ten failures per account from one address, and thirty per address, in fifteen minutes', () => {
    expect(MAX_FAILURES).toBe(10);
    expect(MAX_ADDRESS_FAILURES).toBe(30);
    expect(MAX_ADDRESS_FAILURES).toBeGreaterThan(MAX_FAILURES);
    expect(WINDOW_MS).toBe(15 * 60 * 1000);
  });

  it('count in fixed windows, each ending where the next starts', () => {
    const start = 1_000 * WINDOW_MS;
    expect(windowOf(start)).toBe(1_000);
    expect(windowOf(start + WINDOW_MS - 1)).toBe(1_000);
    expect(windowOf(start + WINDOW_MS)).toBe(1_001);
    expect(windowEndMs(start + 5)).toBe(start + WINDOW_MS);
  });
});
