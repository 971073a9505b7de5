// The write-back worker loop against a fake client, a fake process runner, and a clock and timers the test moves by hand.
import { describe, expect, it } from 'vitest';
import {
  type AckResult,
  type CommandOutcome,
  MAX_ERROR_LENGTH,
  memoryOfFinished,
  startWritebackWorker,
  type Timers,
  type WorkerEvent,
  type WorkerOptions,
  type WritebackApi,
  type WritebackTask,
} from './writeback-worker.ts';

const LEASE_SECONDS = 60;
const ACK_DELAY_MS = 1_234;
const GRACE_MS = 5_678;

function task(index: number): WritebackTask {
  return {
    id: `wb_${index}`,
    productSku: `SKU-${index}`,
    priceCents: 1000 + index,
    currency: 'USD',
    leaseUntil: '2026-01-01T00:01:00.000Z',
    approvalId: `apv_${index}`,
  };
}

function deferred<T>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((done) => (resolve = done));
  return { promise, resolve };
}

const gone = () => Object.assign(new Error('lease expired'), { status: 409, code: 'writeback_lease_expired' });

/** A client whose claims answer the batches given, then nothing; it records every ack and extend. */
function fakeApi(batches: WritebackTask[][], extendAnswer: (id: string) => Promise<void> = async () => undefined) {
  const claims: Array<{ limit: number; leaseSeconds: number }> = [];
  const acks: AckResult[][] = [];
  const extends_: string[] = [];
  const extendInputs: Array<{ id: string; running: boolean }> = [];
  const api: WritebackApi = {
    async claimWritebacks(input) {
      claims.push(input);
      return { tasks: batches.shift() ?? [] };
    },
    async ackWritebacks(results) {
      acks.push(results);
      return {
        applied: results.filter((result) => result.ok).length,
        failed: results.filter((result) => !result.ok).length,
        expired: 0,
        ignored: 0,
      };
    },
    async extendWriteback(id, input) {
      extends_.push(id);
      extendInputs.push({ id, running: input.running === true });
      await extendAnswer(id);
      return { task: { leaseUntil: '2026-01-01T00:02:00.000Z' } };
    },
  };
  return { api, claims, acks, extends: extends_, extendInputs };
}

/** A runner whose commands end when the test says, and which tells the test when each starts and with what. */
function fakeRunner() {
  const running = new Map<string, (outcome: CommandOutcome) => void>();
  const starts = new Map<string, ReturnType<typeof deferred<WritebackTask>>>();
  const startOf = (id: string) => {
    if (!starts.has(id)) starts.set(id, deferred<WritebackTask>());
    return starts.get(id) as ReturnType<typeof deferred<WritebackTask>>;
  };
  const ran: string[] = [];
  return {
    ran,
    run(task: WritebackTask) {
      ran.push(task.id);
      const ended = deferred<CommandOutcome>();
      running.set(task.id, ended.resolve);
      startOf(task.id).resolve(task);
      return ended.promise;
    },
    started: (id: string) => startOf(id).promise,
    finish(id: string, outcome: CommandOutcome = { code: 0, stderr: '' }) {
      const end = running.get(id);
      if (!end) throw new Error(`${id} is not running`);
      running.delete(id);
      end(outcome);
    },
  };
}

const settle = async () => {
  for (let turn = 0; turn < 20; turn++) await Promise.resolve();
};

/** A clock the test moves; lease timers the test fires; the ack delay and the grace held until the test lets them pass; other waits end at once. */
function manualTimers() {
  const active = new Set<() => void>();
  const ackWaits: Array<() => void> = [];
  const clock = { now: 0 };
  const timers: Timers & { sleeps: number[] } = {
    sleeps: [],
    now: () => clock.now,
    every(_ms, fn) {
      active.add(fn);
      return () => active.delete(fn);
    },
    sleep(ms) {
      timers.sleeps.push(ms);
      if (ms !== ACK_DELAY_MS && ms !== GRACE_MS) return { done: Promise.resolve(), wake: () => undefined };
      const wait = deferred<void>();
      ackWaits.push(() => wait.resolve());
      return { done: wait.promise, wake: () => wait.resolve() };
    },
  };
  return {
    timers,
    active,
    clock,
    /** Fires every lease timer, and lets the extends it starts settle. */
    async tick() {
      for (const fn of [...active]) fn();
      await settle();
    },
    /** The ack delay (and the grace) pass. */
    async passAckDelay() {
      for (const wake of ackWaits.splice(0)) wake();
      await settle();
    },
  };
}

function worker(api: WritebackApi, run: (task: WritebackTask) => Promise<CommandOutcome>, options: Partial<WorkerOptions> = {}) {
  const events: WorkerEvent[] = [];
  const clock = manualTimers();
  const started = startWritebackWorker({
    api,
    run,
    limit: 10,
    leaseSeconds: LEASE_SECONDS,
    minMarginMs: 30_000,
    concurrency: 1,
    once: true,
    ackDelayMs: ACK_DELAY_MS,
    report: (event) => events.push(event),
    timers: clock.timers,
    ...options,
  });
  return { ...started, events, clock };
}

const notStarted = (events: WorkerEvent[]) => events.flatMap((event) => (event.type === 'not_started' ? [[event.id, event.reason]] : []));

describe('the write-back worker', () => {
  it('acks ok on exit code 0, and failed with the trimmed stderr or the exit code otherwise', async () => {
    const { api, acks } = fakeApi([[task(1), task(2), task(3)]]);
    const outcomes: Record<string, CommandOutcome> = {
      wb_1: { code: 0, stderr: 'warnings are fine' },
      wb_2: { code: 1, stderr: `  Price list locked ${'x'.repeat(2_000)}\n` },
      wb_3: { code: 3, stderr: ' \n' },
    };
    const { done, events } = worker(api, async (claimed) => outcomes[claimed.id] as CommandOutcome);
    const summary = await done;
    expect(acks.flat()).toEqual([
      { id: 'wb_1', ok: true },
      { id: 'wb_2', ok: false, error: `Price list locked ${'x'.repeat(MAX_ERROR_LENGTH - 'Price list locked '.length)}` },
      { id: 'wb_3', ok: false, error: 'exit code 3' },
    ]);
    expect(summary).toMatchObject({ claimed: 3, succeeded: 1, failed: 2, acks: { applied: 1, failed: 2 } });
    expect(events.filter((event) => event.type === 'task').map((event) => [event.id, event.sku, event.result])).toEqual([
      ['wb_1', 'SKU-1', 'applied'],
      ['wb_2', 'SKU-2', 'failed'],
      ['wb_3', 'SKU-3', 'failed'],
    ]);
  });

  it('claims with the limit and lease it was given', async () => {
    const { api, claims } = fakeApi([]);
    await worker(api, async () => ({ code: 0, stderr: '' })).done;
    expect(claims).toEqual([{ limit: 10, leaseSeconds: 60 }]);
  });

  it('acks the tasks that end within the ack delay together, and each group as soon as the delay passes, not at the end of the claim', async () => {
    const fake = fakeApi([[task(1), task(2), task(3)]]);
    const runner = fakeRunner();
    const { done, clock } = worker(fake.api, runner.run);
    await runner.started('wb_1');
    runner.finish('wb_1');
    await runner.started('wb_2');
    runner.finish('wb_2');
    await runner.started('wb_3');
    expect(fake.acks).toEqual([]);
    await clock.passAckDelay();
    // The third task still runs: the first two are acked already, in one call.
    expect(fake.acks).toEqual([
      [
        { id: 'wb_1', ok: true },
        { id: 'wb_2', ok: true },
      ],
    ]);
    runner.finish('wb_3');
    await done;
    expect(fake.acks).toEqual([
      [
        { id: 'wb_1', ok: true },
        { id: 'wb_2', ok: true },
      ],
      [{ id: 'wb_3', ok: true }],
    ]);
  });

  it('renews the lease before starting a task, and hands the command the renewed lease', async () => {
    const fake = fakeApi([[task(1)]]);
    const runner = fakeRunner();
    const { done } = worker(fake.api, runner.run);
    const started = await runner.started('wb_1');
    expect(fake.extends).toEqual(['wb_1']);
    expect(started.leaseUntil).toBe('2026-01-01T00:02:00.000Z');
    runner.finish('wb_1');
    await done;
  });

  it('never starts a task whose lease ran out on its own clock, and does not even renew it', async () => {
    const fake = fakeApi([[task(1), task(2)]]);
    const runner = fakeRunner();
    const { done, clock, events } = worker(fake.api, runner.run);
    await runner.started('wb_1');
    // The first command outlasts the lease the claim gave the second task.
    clock.clock.now += LEASE_SECONDS * 1000;
    runner.finish('wb_1');
    const summary = await done;
    expect(runner.ran).toEqual(['wb_1']);
    expect(fake.extends).toEqual(['wb_1']);
    expect(notStarted(events)).toEqual([['wb_2', 'lease_ran_out']]);
    expect(fake.acks.flat().map((result) => result.id)).toEqual([]);
    expect(summary).toMatchObject({ leaseLost: 1, notStarted: 1 });
  });

  it('does not start a task whose renewal got no answer twice, for the service may have cancelled it, and starts one answered on the second try', async () => {
    const tries = new Map<string, number>();
    const fake = fakeApi([[task(1), task(2), task(3)]], async (id) => {
      tries.set(id, (tries.get(id) ?? 0) + 1);
      if (id === 'wb_1' || (id === 'wb_2' && tries.get(id) === 1)) throw new Error('socket hang up');
    });
    const runner = fakeRunner();
    const { done, events } = worker(fake.api, runner.run);
    await runner.started('wb_2');
    runner.finish('wb_2');
    await runner.started('wb_3');
    runner.finish('wb_3');
    const summary = await done;
    expect(runner.ran).toEqual(['wb_2', 'wb_3']);
    expect(notStarted(events)).toEqual([['wb_1', 'unconfirmed']]);
    expect(fake.extendInputs.filter((input) => input.id === 'wb_1')).toEqual([
      { id: 'wb_1', running: false },
      { id: 'wb_1', running: false },
    ]);
    expect(summary).toMatchObject({ notStarted: 1, succeeded: 2 });
  });

  it('does not start a task with no more than the margin of its renewed lease left, and starts one with more', async () => {
    const tight = fakeApi([[task(1)]]);
    const tightRunner = fakeRunner();
    const refused = worker(tight.api, tightRunner.run, { minMarginMs: LEASE_SECONDS * 1000 });
    await refused.done;
    expect(tightRunner.ran).toEqual([]);
    expect(notStarted(refused.events)).toEqual([['wb_1', 'no_margin']]);

    const roomy = fakeApi([[task(2)]]);
    const roomyRunner = fakeRunner();
    const started = worker(roomy.api, roomyRunner.run, { minMarginMs: LEASE_SECONDS * 1000 - 1 });
    await roomyRunner.started('wb_2');
    roomyRunner.finish('wb_2');
    await started.done;
    expect(roomyRunner.ran).toEqual(['wb_2']);
  });

  it('renews a running task as running, so that the service keeps a superseded task it cannot stop, and renews before the start as not', async () => {
    const fake = fakeApi([[task(1)]]);
    const runner = fakeRunner();
    const { done, clock } = worker(fake.api, runner.run);
    await runner.started('wb_1');
    await clock.tick();
    await clock.tick();
    runner.finish('wb_1');
    await done;
    expect(fake.extendInputs).toEqual([
      { id: 'wb_1', running: false },
      { id: 'wb_1', running: true },
      { id: 'wb_1', running: true },
    ]);
  });

  it('does not start a task the service will not renew: its lease was lost, or a newer approval superseded it', async () => {
    const fake = fakeApi([[task(1), task(2)]], async (id) => {
      if (id === 'wb_1') throw gone();
    });
    const runner = fakeRunner();
    const { done, events } = worker(fake.api, async (claimed) => runner.run(claimed).then((outcome) => outcome));
    await runner.started('wb_2');
    runner.finish('wb_2');
    await done;
    expect(runner.ran).toEqual(['wb_2']);
    expect(notStarted(events)).toEqual([['wb_1', 'refused']]);
    expect(fake.acks.flat()).toEqual([{ id: 'wb_2', ok: true }]);
  });

  it('extends the lease while a command runs, and stops extending once it ends', async () => {
    const fake = fakeApi([[task(1)]]);
    const runner = fakeRunner();
    const { done, clock } = worker(fake.api, runner.run);
    await runner.started('wb_1');
    await clock.tick();
    await clock.tick();
    expect(fake.extends).toEqual(['wb_1', 'wb_1', 'wb_1']);
    runner.finish('wb_1');
    await done;
    expect(clock.active.size).toBe(0);
    await clock.tick();
    expect(fake.extends).toHaveLength(3);
    expect(fake.acks).toEqual([[{ id: 'wb_1', ok: true }]]);
  });

  it('acks nothing for a task whose lease is lost while it runs, says so, and acks its kept result when it is claimed again, without running it', async () => {
    let refuse = false;
    const fake = fakeApi([[task(1)], [task(1)]], async () => {
      if (refuse) throw gone();
    });
    const runner = fakeRunner();
    const { done, clock, events } = worker(fake.api, runner.run);
    await runner.started('wb_1');
    refuse = true;
    await clock.tick();
    runner.finish('wb_1');
    refuse = false;
    const summary = await done;
    expect(runner.ran).toEqual(['wb_1']);
    expect(events.filter((event) => event.type === 'task').map((event) => event.type === 'task' && event.result)).toEqual(['lease_lost']);
    expect(events.some((event) => event.type === 'recovered' && event.id === 'wb_1')).toBe(true);
    expect(fake.acks.flat()).toEqual([{ id: 'wb_1', ok: true }]);
    expect(summary).toMatchObject({ leaseLost: 1, recovered: 1, acks: { applied: 1 } });
  });

  it('keeps extending after an extend that fails for another reason', async () => {
    let calls = 0;
    const fake = fakeApi([[task(1)]], async () => {
      calls += 1;
      if (calls === 2) throw new Error('socket hang up');
    });
    const runner = fakeRunner();
    const { done, clock, events } = worker(fake.api, runner.run);
    await runner.started('wb_1');
    await clock.tick();
    await clock.tick();
    runner.finish('wb_1');
    await done;
    expect(fake.extends).toHaveLength(3);
    expect(events.some((event) => event.type === 'extend_failed')).toBe(true);
    expect(fake.acks).toEqual([[{ id: 'wb_1', ok: true }]]);
  });

  it('on a stop (SIGTERM) claims no more, starts nothing more, lets the running command finish, acks it and ends', async () => {
    const fake = fakeApi([[task(1), task(2)], [task(3)]]);
    const runner = fakeRunner();
    const terminated: number[] = [];
    const { done, stop, events } = worker(fake.api, runner.run, { once: false, graceMs: GRACE_MS, terminate: () => terminated.push(1) });
    await runner.started('wb_1');
    stop();
    runner.finish('wb_1');
    const summary = await done;
    expect(runner.ran).toEqual(['wb_1']);
    expect(fake.claims).toHaveLength(1);
    expect(notStarted(events)).toEqual([['wb_2', 'stopping']]);
    expect(fake.acks).toEqual([[{ id: 'wb_1', ok: true }]]);
    expect(terminated).toEqual([]);
    expect(summary).toMatchObject({ succeeded: 1, notStarted: 1 });
  });

  it('ends the running commands when the grace after a stop runs out, and acks none of them as failed', async () => {
    const fake = fakeApi([[task(1)]]);
    const runner = fakeRunner();
    const { done, stop, events, clock } = worker(fake.api, runner.run, {
      once: false,
      graceMs: GRACE_MS,
      terminate: () => runner.finish('wb_1', { code: null, signal: 'SIGTERM', stderr: '' }),
    });
    await runner.started('wb_1');
    stop();
    await clock.passAckDelay();
    const summary = await done;
    expect(events.some((event) => event.type === 'task' && event.result === 'interrupted')).toBe(true);
    expect(fake.acks).toEqual([]);
    expect(summary).toMatchObject({ interrupted: 1, failed: 0 });
  });

  it('runs as many commands at once as its concurrency allows', async () => {
    const fake = fakeApi([[task(1), task(2), task(3)]]);
    const runner = fakeRunner();
    const { done } = worker(fake.api, runner.run, { concurrency: 2 });
    await runner.started('wb_1');
    await runner.started('wb_2');
    expect(runner.ran).toEqual(['wb_1', 'wb_2']);
    runner.finish('wb_2');
    await runner.started('wb_3');
    runner.finish('wb_1');
    runner.finish('wb_3');
    const summary = await done;
    expect(summary.succeeded).toBe(3);
  });

  it('with --once exits when nothing is left to claim', async () => {
    const { api, claims } = fakeApi([[task(1)]]);
    const summary = await worker(api, async () => ({ code: 0, stderr: '' })).done;
    expect(claims).toHaveLength(2);
    expect(summary.claimed).toBe(1);
  });

  it('without --once waits longer after each empty claim, up to its most, and claims again', async () => {
    const { api, claims } = fakeApi([[], [], [], [], [], [task(1)]]);
    const { done, stop, clock } = worker(api, async () => ({ code: 0, stderr: '' }), { once: false, maxIdleMs: 1_500 });
    while (claims.length < 7) await settle();
    stop();
    await done;
    expect(clock.timers.sleeps.filter((ms) => ms !== ACK_DELAY_MS && ms !== GRACE_MS).slice(0, 5)).toEqual([250, 500, 1000, 1500, 1500]);
  });

  it('ends with the claim error when a claim fails, as a refused key does', async () => {
    const refused = Object.assign(new Error('unauthorized'), { status: 401 });
    const api: WritebackApi = {
      claimWritebacks: () => Promise.reject(refused),
      ackWritebacks: () => Promise.reject(new Error('not called')),
      extendWriteback: () => Promise.reject(new Error('not called')),
    };
    await expect(worker(api, async () => ({ code: 0, stderr: '' })).done).rejects.toBe(refused);
  });

  it('acks at start what the journal kept from an earlier run, and forgets each once the service counts it', async () => {
    const journal = memoryOfFinished();
    journal.recordFinished({ id: 'wb_7', ok: true });
    const fake = fakeApi([]);
    const summary = await worker(fake.api, async () => ({ code: 0, stderr: '' }), { journal }).done;
    expect(fake.acks).toEqual([[{ id: 'wb_7', ok: true }]]);
    expect(journal.finished.size).toBe(0);
    expect(summary.recovered).toBe(1);
  });
});
