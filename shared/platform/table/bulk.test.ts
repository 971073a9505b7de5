// Unit tests of running tasks a few at a time: every task under way ends before a failure is answered.
import { describe, expect, it } from 'vitest';
import { inParallel } from './bulk.ts';

describe('tasks run a few at a time', () => {
  it('run every task when none fails', async () => {
    const ran: number[] = [];
    await inParallel([1, 2, 3, 4, 5], 2, async (task) => {
      ran.push(task);
    });
    expect(ran.sort()).toEqual([1, 2, 3, 4, 5]);
  });

  it('answer a failure only once the tasks under way have ended, and start no other after it', async () => {
    const ended: string[] = [];
    let letSlowEnd: () => void = () => undefined;
    const slowHeld = new Promise<void>((resolve) => {
      letSlowEnd = resolve;
    });
    const run = inParallel(['slow', 'fails', 'later'], 2, async (task) => {
      if (task === 'slow') await slowHeld;
      if (task === 'fails') throw new Error('refused');
      ended.push(task);
    });
    let settled = false;
    const outcome = run.then(
      () => 'resolved',
      (error: Error) => error.message,
    );
    void outcome.then(() => {
      settled = true;
    });
    // The failure has happened; the slow task is still under way, so the caller is not answered yet.
    await new Promise((resolve) => setImmediate(resolve));
    expect(settled).toBe(false);
    letSlowEnd();
    expect(await outcome).toBe('refused');
    expect(ended).toEqual(['slow']);
  });
});
