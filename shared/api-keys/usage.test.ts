// Unit tests of the last-used throttle: when a stored time is old enough to write again, and what one instance skips.
import { describe, expect, it } from 'vitest';
import { KeyUseThrottle, LAST_USE_RESOLUTION_MS, lastUseStaleFrom } from './usage.ts';

const now = Date.parse('2026-11-27T08:00:00.000Z');

describe('the last-used time of a key', () => {
  it('is written again once the stored use is a resolution old, compared as ISO text as the table compares it', () => {
    expect(lastUseStaleFrom(now)).toBe('2026-11-27T07:55:00.000Z');
    const justInside = new Date(now - LAST_USE_RESOLUTION_MS + 1).toISOString();
    expect(justInside > lastUseStaleFrom(now)).toBe(true);
  });

  it('keeps the resolution at a few minutes: fresh enough to trace a leak, at most one write per key in it', () => {
    expect(LAST_USE_RESOLUTION_MS).toBeGreaterThanOrEqual(60_000);
    expect(LAST_USE_RESOLUTION_MS).toBeLessThanOrEqual(15 * 60_000);
  });
});

describe('one instance trying to write a key’s use', () => {
  it('tries once per key within the resolution, and again once it has passed', () => {
    const throttle = new KeyUseThrottle();
    expect(throttle.claim('key_a', now)).toBe(true);
    expect(throttle.claim('key_a', now + 1)).toBe(false);
    expect(throttle.claim('key_a', now + LAST_USE_RESOLUTION_MS - 1)).toBe(false);
    expect(throttle.claim('key_a', now + LAST_USE_RESOLUTION_MS)).toBe(true);
  });

  it('counts each key on its own', () => {
    const throttle = new KeyUseThrottle();
    expect(throttle.claim('key_a', now)).toBe(true);
    expect(throttle.claim('key_b', now)).toBe(true);
  });

  it('forgets its oldest keys past its bound, so that its memory never grows with the keys it has seen', () => {
    const throttle = new KeyUseThrottle(2);
    throttle.claim('key_a', now);
    throttle.claim('key_b', now);
    throttle.claim('key_c', now);
    // key_a was forgotten: tried again, and the table's condition still keeps it to one stored write.
    expect(throttle.claim('key_a', now + 1)).toBe(true);
  });
});
