// The lease keeper alone: a fake extend call, a clock the test sets, and renewal timers the test fires.
import { describe, expect, it } from 'vitest';
import type { Timers, WorkerEvent } from './contract.ts';
import { isLeaseGone, keepLease, renewLease } from './lease-keeper.ts';
import type { Lease } from './run-state.ts';

const settle = async () => {
  for (let turn = 0; turn < 20; turn++) await Promise.resolve();
};

const task = { id: 'wb_1', productSku: 'SKU-1', priceCents: 1000, currency: 'USD', leaseUntil: '2026-01-01T00:01:00.000Z' };
const gone = () => Object.assign(new Error('lease expired'), { status: 409, code: 'writeback_lease_expired' });

function setUp(answer: (call: number) => Promise<void> = async () => undefined) {
  const extends_: Array<{ id: string; input: { leaseSeconds: number; running?: boolean } }> = [];
  const timersSet: number[] = [];
  const active = new Set<() => void>();
  const clock = { now: 0 };
  const timers: Timers = {
    now: () => clock.now,
    every(ms, fn) {
      timersSet.push(ms);
      active.add(fn);
      return () => active.delete(fn);
    },
    sleep: () => ({ done: Promise.resolve(), wake: () => undefined }),
  };
  const events: WorkerEvent[] = [];
  const api = {
    async extendWriteback(id: string, input: { leaseSeconds: number; running?: boolean }) {
      extends_.push({ id, input });
      await answer(extends_.length);
      return { task: { leaseUntil: `renewed ${extends_.length}` } };
    },
  };
  const keeping = { api, timers, report: (event: WorkerEvent) => events.push(event), leaseSeconds: 60 };
  const fire = async () => {
    for (const fn of [...active]) fn();
    await settle();
  };
  return { keeping, extends: extends_, timersSet, active, clock, events, fire };
}

const lease = (): Lease => ({ deadline: 60_000, leaseUntil: task.leaseUntil, gone: false });

describe('renewing a lease', () => {
  it('moves the deadline a full term on from when the renewal was sent, and takes the service’s new end', async () => {
    const { keeping, clock, events } = setUp();
    const held = lease();
    clock.now = 20_000;
    expect(await renewLease(keeping, task, held, false)).toBe('renewed');
    expect(held).toEqual({ deadline: 80_000, leaseUntil: 'renewed 1', gone: false });
    expect(events).toEqual([{ type: 'extended', id: 'wb_1' }]);
  });

  it('never moves the deadline back', async () => {
    const { keeping } = setUp();
    const held = { ...lease(), deadline: 90_000 };
    await renewLease(keeping, task, held, false);
    expect(held.deadline).toBe(90_000);
  });

  it('says running only while the command runs', async () => {
    const { keeping, extends: calls } = setUp();
    await renewLease(keeping, task, lease(), false);
    await renewLease(keeping, task, lease(), true);
    expect(calls.map((call) => call.input)).toEqual([{ leaseSeconds: 60 }, { leaseSeconds: 60, running: true }]);
  });

  it('marks the lease gone when the service refuses it, and reports other failures', async () => {
    const refused = setUp(async () => {
      throw gone();
    });
    const held = lease();
    expect(await renewLease(refused.keeping, task, held, false)).toBe('gone');
    expect(held.gone).toBe(true);
    expect(refused.events).toEqual([]);
    const failing = setUp(async () => {
      throw new Error('timeout');
    });
    expect(await renewLease(failing.keeping, task, lease(), false)).toBe('failed');
    expect(failing.events).toEqual([{ type: 'extend_failed', id: 'wb_1', error: 'timeout' }]);
  });

  it('recognises a refused lease by its status and code only', () => {
    expect(isLeaseGone(gone())).toBe(true);
    expect(isLeaseGone({ status: 409, code: 'conflict' })).toBe(false);
    expect(isLeaseGone(undefined)).toBe(false);
  });
});

describe('keeping a lease while a command runs', () => {
  it('renews every third of the lease, before it runs out', async () => {
    const { keeping, timersSet, extends: calls, fire } = setUp();
    keepLease(keeping, task, lease());
    expect(timersSet).toEqual([20_000]);
    await fire();
    await fire();
    expect(calls).toEqual([
      { id: 'wb_1', input: { leaseSeconds: 60, running: true } },
      { id: 'wb_1', input: { leaseSeconds: 60, running: true } },
    ]);
  });

  it('stops renewing once stopped, after the renewal under way has its answer', async () => {
    let answer = () => {};
    const { keeping, active, extends: calls, fire } = setUp(() => new Promise<void>((resolve) => (answer = resolve)));
    const held = lease();
    const keeper = keepLease(keeping, task, held);
    await fire();
    let stopped = false;
    void keeper.stop().then(() => (stopped = true));
    await settle();
    expect(active.size).toBe(0);
    expect(stopped).toBe(false);
    answer();
    await settle();
    expect(stopped).toBe(true);
    expect(calls).toHaveLength(1);
    expect(held.leaseUntil).toBe('renewed 1');
  });

  it('stops renewing and reports the lease lost when the service refuses it', async () => {
    const {
      keeping,
      active,
      extends: calls,
      events,
      fire,
    } = setUp(async () => {
      throw gone();
    });
    keepLease(keeping, task, lease());
    await fire();
    expect(active.size).toBe(0);
    expect(calls).toHaveLength(1);
    expect(events).toEqual([{ type: 'lease_lost', id: 'wb_1' }]);
  });
});
