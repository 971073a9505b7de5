import { describe, expect, it } from 'vitest';
import { DRAIN_ATTEMPTS, givesUpAfterFault, judgeAttempt } from './attempts.ts';
import type { DrainAttempts } from '#shared/batches/schema.ts';

/** Runs receipts of one message in turn, each attempt that runs recording itself as the lease would. */
function receive(drainedCounts: readonly number[], continuation = 0) {
  let recorded: DrainAttempts | undefined;
  return drainedCounts.map((drainedCount, index) => {
    const judged = judgeAttempt(recorded, { continuation, receiveCount: index + 1, drainedCount });
    if (judged.verdict === 'run') recorded = judged.attempt;
    return judged.verdict;
  });
}

describe('judging a drain attempt', () => {
  it('gives up after as many attempts as allowed that each stopped without moving the checkpoint', () => {
    let recorded: DrainAttempts | undefined;
    const verdicts = [];
    for (let attempt = 0; attempt <= DRAIN_ATTEMPTS; attempt++) {
      // Each attempt is a fresh copy of the message, handed on; the record of the attempts stays on the batch.
      const judged = judgeAttempt(recorded, { continuation: 0, receiveCount: 1, drainedCount: 40 });
      verdicts.push(judged.verdict);
      if (judged.verdict === 'run') recorded = judged.attempt;
    }
    expect(verdicts).toEqual(['run', 'run', 'run', 'giveUp']);
    expect(receive([0, 0, 0])).toEqual(['run', 'run', 'handOff']);
  });

  it('never gives up on attempts that each ran out of time but moved the checkpoint on', () => {
    let recorded: DrainAttempts | undefined;
    for (let attempt = 0; attempt < 20; attempt++) {
      const judged = judgeAttempt(recorded, { continuation: 0, receiveCount: (attempt % 2) + 1, drainedCount: attempt * 20 });
      expect(judged.verdict).toBe('run');
      recorded = judged.attempt;
    }
    expect(recorded).toMatchObject({ started: 20, stalled: 0 });
  });

  it('hands a message received as often as allowed to a fresh copy, rather than let the queue park it', () => {
    expect(receive([0, 20, 40])).toEqual(['run', 'run', 'handOff']);
  });

  it('gives up on a message whose receipts never took the lease, as none of them moved anything', () => {
    expect(judgeAttempt(undefined, { continuation: 0, receiveCount: DRAIN_ATTEMPTS + 1, drainedCount: 0 }).verdict).toBe('giveUp');
    expect(judgeAttempt(undefined, { continuation: 0, receiveCount: DRAIN_ATTEMPTS, drainedCount: 0 }).verdict).toBe('run');
  });

  it('starts the count again for a continuation, which is a message of its own', () => {
    const stalled: DrainAttempts = { continuation: 2, started: 3, from: 60, stalled: 2 };
    expect(judgeAttempt(stalled, { continuation: 3, receiveCount: 1, drainedCount: 60 })).toEqual({
      verdict: 'run',
      attempt: { continuation: 3, started: 1, from: 60, stalled: 0 },
    });
  });

  it('gives up after faults once as many attempts as allowed took the lease, whatever they moved', () => {
    expect(givesUpAfterFault({ continuation: 0, started: DRAIN_ATTEMPTS - 1, from: 40, stalled: 0 })).toBe(false);
    expect(givesUpAfterFault({ continuation: 0, started: DRAIN_ATTEMPTS, from: 40, stalled: 0 })).toBe(true);
  });
});
