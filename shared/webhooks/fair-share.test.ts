// Unit tests of each workspace's line onto the shared webhooks queue: where a message's place is, and how long it waits for it.
import { describe, expect, it } from 'vitest';
import { firstPlace, LINE_BURST, LINE_PLACES_PER_SECOND, placeAt, waitSeconds } from './fair-share.ts';

const NOW = Date.parse('2026-11-27T01:00:00.000Z');

/** How many of `count` messages placed at once on an idle line become visible in each second from now. */
function visibleEachSecond(count: number): number[] {
  const first = firstPlace(undefined, NOW);
  const perSecond: number[] = [];
  for (let index = 0; index < count; index++) {
    const second = waitSeconds(placeAt(first, index), NOW, NOW);
    perSecond[second] = (perSecond[second] ?? 0) + 1;
  }
  return perSecond;
}

describe("a workspace's line onto the webhooks queue", () => {
  it('lets an idle workspace send its burst at once, so that an event to each of its endpoints goes without waiting', () => {
    expect(visibleEachSecond(LINE_BURST)).toEqual([LINE_BURST]);
  });

  it('lets no more than its rate of a flood become visible in any second after the burst, however large the flood', () => {
    const perSecond = visibleEachSecond(3_800);
    expect(perSecond[0]).toBe(LINE_BURST);
    for (const count of perSecond.slice(1)) expect(count).toBeLessThanOrEqual(LINE_PLACES_PER_SECOND);
    expect(perSecond.reduce((sum, count) => sum + count, 0)).toBe(3_800);
  });

  it('places a message behind what the line already holds, and starts a line idle for longer than the burst afresh', () => {
    const ahead = NOW + 30_000;
    expect(firstPlace(ahead, NOW)).toBe(ahead);
    expect(firstPlace(NOW - 60_000, NOW)).toBe(firstPlace(undefined, NOW));
  });

  it('holds a message until its own moment when that is later than its place, and never less than nothing', () => {
    expect(waitSeconds(NOW + 1_000, NOW + 10_000, NOW)).toBe(10);
    expect(waitSeconds(NOW + 10_001, NOW + 1_000, NOW)).toBe(11);
    expect(waitSeconds(NOW - 5_000, NOW - 1_000, NOW)).toBe(0);
  });
});
