// Unit tests of sign-in limits: the fixed windows and when an account or an address is locked.
import { describe, expect, it } from 'vitest';
import { isLocked, MAX_FAILURES, WINDOW_MS, windowEndMs, windowOf } from './sign-in-limits.ts';

describe('sign-in limits', () => {
  it('allow ten failures per account and per address in fifteen minutes', () => {
    expect(MAX_FAILURES).toBe(10);
    expect(WINDOW_MS).toBe(15 * 60 * 1000);
  });

  it('lock when either the account or the address is at the limit', () => {
    expect(isLocked({ account: 0, address: 0 })).toBe(false);
    expect(isLocked({ account: MAX_FAILURES - 1, address: MAX_FAILURES - 1 })).toBe(false);
    expect(isLocked({ account: MAX_FAILURES, address: 0 })).toBe(true);
    expect(isLocked({ account: 0, address: MAX_FAILURES })).toBe(true);
  });

  it('count in fixed windows, each ending where the next starts', () => {
    const start = 1_000 * WINDOW_MS;
    expect(windowOf(start)).toBe(1_000);
    expect(windowOf(start + WINDOW_MS - 1)).toBe(1_000);
    expect(windowOf(start + WINDOW_MS)).toBe(1_001);
    expect(windowEndMs(start + 5)).toBe(start + WINDOW_MS);
  });
});
