// Unit tests of when a drain stops starting chunks and continues in a new invocation.
import { describe, expect, it } from 'vitest';
import { MIN_TIME_LEFT_MS, timeToStop } from './job.ts';

describe('a drain invocation', () => {
  it('starts another chunk while it has more than the floor left and its chunks and checkpoints are quick', () => {
    expect(timeToStop(MIN_TIME_LEFT_MS + 1, { chunkMs: 500, checkpointMs: 1_000 })).toBe(false);
    expect(timeToStop(MIN_TIME_LEFT_MS - 1, { chunkMs: 0, checkpointMs: 0 })).toBe(true);
  });

  it('stops early enough for a chunk, the checkpoint in the loop and the last one, each as slow as the slowest, twice over', () => {
    const slowest = { chunkMs: 2_000, checkpointMs: 5_000 };
    expect(timeToStop(23_999, slowest)).toBe(true);
    expect(timeToStop(24_001, slowest)).toBe(false);
  });
});
