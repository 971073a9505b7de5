// Unit tests of the rate's shards: how many a limit is spread over, how the limit is divided among them, and the bands stamp they carry.
import { describe, expect, it } from 'vitest';
import { bandsStampOf, MAX_RATE_SHARDS, rateShards, shardShare } from './rate.ts';

describe('the rate shards', () => {
  it('keeps a limit of up to 400 requests a second on one item', () => {
    expect(rateShards(1)).toBe(1);
    expect(rateShards(100)).toBe(1);
    expect(rateShards(400)).toBe(1);
  });

  it('adds a shard for every 400 requests a second, so that no shard takes more than 40% of a partition', () => {
    expect(rateShards(401)).toBe(2);
    expect(rateShards(10_000)).toBe(25);
  });

  it('stops at 32 shards, however high the limit', () => {
    expect(rateShards(100_000)).toBe(MAX_RATE_SHARDS);
  });

  it("divides the limit so that the shards' shares add up to it exactly, none differing by more than one", () => {
    for (const limit of [1, 7, 401, 999, 10_000, 100_000]) {
      const shards = rateShards(limit);
      const shares = Array.from({ length: shards }, (_, shard) => shardShare(limit, shards, shard));
      expect(shares.reduce((sum, share) => sum + share, 0)).toBe(limit);
      expect(Math.max(...shares) - Math.min(...shares)).toBeLessThanOrEqual(1);
    }
  });

  it('reads a bands stamp only where a shard holds a number for it', () => {
    expect(bandsStampOf({ bandsAt: 1_800_000_000_000 })).toBe(1_800_000_000_000);
    expect(bandsStampOf({ bandsAt: '1800000000000' })).toBeUndefined();
    expect(bandsStampOf({})).toBeUndefined();
    expect(bandsStampOf(undefined)).toBeUndefined();
  });
});
