// The ack batcher alone: a fake ack call, a clock the test sets, and an ack delay the test lets pass.
import { describe, expect, it } from 'vitest';
import { ACK_BATCH_MAX, ackBatcher } from './ack-batcher.ts';
import type { AckResult, Timers, WorkerEvent } from './contract.ts';
import { memoryOfFinished } from './finished.ts';
import { emptySummary, type Lease } from './run-state.ts';

const settle = async () => {
  for (let turn = 0; turn < 20; turn++) await Promise.resolve();
};

function setUp(answer: (results: AckResult[]) => Promise<void> = async () => undefined) {
  const calls: AckResult[][] = [];
  const delays: Array<() => void> = [];
  const sleeps: number[] = [];
  const clock = { now: 0 };
  const timers: Timers = {
    now: () => clock.now,
    every: () => () => undefined,
    sleep(ms) {
      sleeps.push(ms);
      let wake = () => {};
      const done = new Promise<void>((resolve) => (wake = resolve));
      delays.push(wake);
      return { done, wake };
    },
  };
  const store = memoryOfFinished();
  const summary = emptySummary();
  const events: WorkerEvent[] = [];
  const api = {
    async ackWritebacks(results: AckResult[]) {
      calls.push(results);
      await answer(results);
      return {
        applied: results.filter((result) => result.ok).length,
        failed: results.filter((result) => !result.ok).length,
        expired: 0,
        ignored: 0,
      };
    },
  };
  const batcher = ackBatcher({ api, timers, store, summary, report: (event) => events.push(event), delayMs: 1_000 });
  const passDelay = async () => {
    for (const wake of delays.splice(0)) wake();
    await settle();
  };
  return { batcher, calls, sleeps, clock, store, summary, events, passDelay };
}

const lease = (deadline = 60_000): Lease => ({ deadline, leaseUntil: '2026-01-01T00:01:00.000Z', gone: false });
const ok = (index: number): AckResult => ({ id: `wb_${index}`, ok: true });

describe('the ack batcher', () => {
  it('sends nothing until the ack delay passes, then the results queued within it in one call', async () => {
    const { batcher, calls, sleeps, passDelay } = setUp();
    batcher.queue(ok(1), lease());
    batcher.queue(ok(2), lease());
    await settle();
    expect(calls).toEqual([]);
    expect(sleeps).toEqual([1_000]);
    await passDelay();
    expect(calls).toEqual([[ok(1), ok(2)]]);
  });

  it('starts a new delay for a result queued after a group was sent', async () => {
    const { batcher, calls, sleeps, passDelay } = setUp();
    batcher.queue(ok(1), lease());
    await passDelay();
    batcher.queue(ok(2), lease());
    await passDelay();
    expect(sleeps).toEqual([1_000, 1_000]);
    expect(calls).toEqual([[ok(1)], [ok(2)]]);
  });

  it('sends at most the batch limit in one call', async () => {
    const { batcher, calls, passDelay } = setUp();
    for (let index = 0; index < ACK_BATCH_MAX + 2; index++) batcher.queue(ok(index), lease());
    await passDelay();
    expect(calls.map((call) => call.length)).toEqual([ACK_BATCH_MAX, 2]);
  });

  it('sends what waits at once when flushed, without waiting for the delay', async () => {
    const { batcher, calls } = setUp();
    batcher.queue(ok(1), lease());
    await batcher.flush();
    expect(calls).toEqual([[ok(1)]]);
  });

  it('keeps back a result whose lease ran out or was lost while it waited, and still acks the live ones', async () => {
    const { batcher, calls, clock } = setUp();
    batcher.queue(ok(1), lease(10_000));
    batcher.queue(ok(2), { ...lease(), gone: true });
    batcher.queue(ok(3), lease(60_000));
    clock.now = 10_000;
    await batcher.flush();
    expect(calls).toEqual([[ok(3)]]);
  });

  it('counts the answer, marks the results acked and reports it', async () => {
    const { batcher, store, summary, events } = setUp();
    store.recordFinished(ok(1));
    batcher.queue(ok(1), lease());
    await batcher.flush();
    expect(store.finished.size).toBe(0);
    expect(summary.acks).toEqual({ applied: 1, failed: 0, expired: 0, ignored: 0 });
    expect(events).toEqual([{ type: 'acked', counts: { applied: 1, failed: 0, expired: 0, ignored: 0 } }]);
  });

  it('keeps the results as finished when the ack call fails, and counts and reports the failure', async () => {
    const { batcher, store, summary, events } = setUp(async () => {
      throw new Error('service unavailable');
    });
    store.recordFinished(ok(1));
    batcher.queue(ok(1), lease());
    await batcher.flush();
    expect([...store.finished.keys()]).toEqual(['wb_1']);
    expect(summary.ackFailed).toBe(1);
    expect(events).toEqual([{ type: 'ack_failed', count: 1, error: 'service unavailable' }]);
  });

  it('makes one ack call at a time: a group ready while a call is under way waits for its answer', async () => {
    let release = () => {};
    const first = new Promise<void>((resolve) => (release = resolve));
    let answered = 0;
    const { batcher, calls, passDelay } = setUp(async () => {
      if (answered++ === 0) await first;
    });
    batcher.queue(ok(1), lease());
    await passDelay();
    batcher.queue(ok(2), lease());
    await passDelay();
    expect(calls).toEqual([[ok(1)]]);
    release();
    await settle();
    expect(calls).toEqual([[ok(1)], [ok(2)]]);
  });
});
