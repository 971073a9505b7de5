// The write-back worker loop against a fake client, a fake process runner and timers the test fires by hand.
import { describe, expect, it } from 'vitest';
import {
  type AckResult,
  type CommandOutcome,
  MAX_ERROR_LENGTH,
  startWritebackWorker,
  type Timers,
  type WorkerEvent,
  type WritebackApi,
  type WritebackTask,
} from './writeback-worker.ts';

function task(index: number): WritebackTask {
  return {
    id: `wb_${index}`,
    productSku: `SKU-${index}`,
    priceCents: 1000 + index,
    currency: 'USD',
    leaseUntil: '2026-01-01T00:00:00.000Z',
  };
}

function deferred<T>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((done) => (resolve = done));
  return { promise, resolve };
}

/** A client whose claims answer the batches given, then nothing; it records every ack and extend. */
function fakeApi(batches: WritebackTask[][], extendAnswer: (id: string) => Promise<unknown> = async () => ({})) {
  const claims: Array<{ limit: number; leaseSeconds: number }> = [];
  const acks: AckResult[][] = [];
  const extends_: string[] = [];
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
    async extendWriteback(id) {
      extends_.push(id);
      return extendAnswer(id);
    },
  };
  return { api, claims, acks, extends: extends_ };
}

/** A runner whose commands end when the test says, and which tells the test when each starts. */
function fakeRunner() {
  const running = new Map<string, (outcome: CommandOutcome) => void>();
  const starts = new Map<string, ReturnType<typeof deferred<void>>>();
  const startOf = (id: string) => {
    if (!starts.has(id)) starts.set(id, deferred<void>());
    return starts.get(id) as ReturnType<typeof deferred<void>>;
  };
  return {
    run(task: WritebackTask) {
      const ended = deferred<CommandOutcome>();
      running.set(task.id, ended.resolve);
      startOf(task.id).resolve();
      return ended.promise;
    },
    started: (id: string) => startOf(id).promise,
    finish(id: string, outcome: CommandOutcome) {
      const end = running.get(id);
      if (!end) throw new Error(`${id} is not running`);
      running.delete(id);
      end(outcome);
    },
  };
}

/** Lease timers the test fires; idle waits end at once and are counted. */
function manualTimers() {
  const active = new Set<() => void>();
  const timers: Timers & { sleeps: number[] } = {
    sleeps: [],
    every(_ms, fn) {
      active.add(fn);
      return () => active.delete(fn);
    },
    sleep(ms) {
      timers.sleeps.push(ms);
      return { done: Promise.resolve(), wake: () => undefined };
    },
  };
  return {
    timers,
    active,
    /** Fires every lease timer, and lets the extends it starts settle. */
    async tick() {
      for (const fn of [...active]) fn();
      for (let turn = 0; turn < 10; turn++) await Promise.resolve();
    },
  };
}

function worker(
  api: WritebackApi,
  run: (task: WritebackTask) => Promise<CommandOutcome>,
  options: { once?: boolean; concurrency?: number } = {},
) {
  const events: WorkerEvent[] = [];
  const clock = manualTimers();
  const started = startWritebackWorker({
    api,
    run,
    limit: 10,
    leaseSeconds: 60,
    concurrency: options.concurrency ?? 1,
    once: options.once ?? true,
    report: (event) => events.push(event),
    timers: clock.timers,
  });
  return { ...started, events, clock };
}

describe('the write-back worker', () => {
  it('acks ok on exit code 0, and failed with the trimmed stderr or the exit code otherwise, in one ack per claim', async () => {
    const { api, acks } = fakeApi([[task(1), task(2), task(3)]]);
    const outcomes: Record<string, CommandOutcome> = {
      wb_1: { code: 0, stderr: 'warnings are fine' },
      wb_2: { code: 1, stderr: `  Price list locked ${'x'.repeat(2_000)}\n` },
      wb_3: { code: 3, stderr: ' \n' },
    };
    const { done, events } = worker(api, async (claimed) => outcomes[claimed.id] as CommandOutcome);
    const summary = await done;
    expect(acks).toEqual([
      [
        { id: 'wb_1', ok: true },
        { id: 'wb_2', ok: false, error: `Price list locked ${'x'.repeat(MAX_ERROR_LENGTH - 'Price list locked '.length)}` },
        { id: 'wb_3', ok: false, error: 'exit code 3' },
      ],
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

  it('extends the lease while a command runs, and stops extending once it ends', async () => {
    const fake = fakeApi([[task(1)]]);
    const runner = fakeRunner();
    const { done, clock } = worker(fake.api, runner.run);
    await runner.started('wb_1');
    await clock.tick();
    await clock.tick();
    expect(fake.extends).toEqual(['wb_1', 'wb_1']);
    runner.finish('wb_1', { code: 0, stderr: '' });
    await done;
    expect(clock.active.size).toBe(0);
    await clock.tick();
    expect(fake.extends).toEqual(['wb_1', 'wb_1']);
    expect(fake.acks).toEqual([[{ id: 'wb_1', ok: true }]]);
  });

  it('lets the command finish but acks nothing for a task whose extend answers 409, and says so', async () => {
    const gone = Object.assign(new Error('lease expired'), { status: 409, code: 'writeback_lease_expired' });
    const fake = fakeApi([[task(1), task(2)]], async (id) => {
      if (id === 'wb_1') throw gone;
      return {};
    });
    const runner = fakeRunner();
    const { done, clock, events } = worker(fake.api, runner.run);
    await runner.started('wb_1');
    await clock.tick();
    await clock.tick();
    expect(fake.extends).toEqual(['wb_1']);
    runner.finish('wb_1', { code: 0, stderr: '' });
    await runner.started('wb_2');
    runner.finish('wb_2', { code: 0, stderr: '' });
    const summary = await done;
    expect(fake.acks).toEqual([[{ id: 'wb_2', ok: true }]]);
    expect(summary).toMatchObject({ succeeded: 1, leaseLost: 1 });
    expect(events).toContainEqual({ type: 'lease_lost', id: 'wb_1' });
    expect(events).toContainEqual({ type: 'task', id: 'wb_1', sku: 'SKU-1', result: 'lease_lost' });
  });

  it('keeps extending after an extend that fails for another reason', async () => {
    const fake = fakeApi([[task(1)]], async () => {
      throw Object.assign(new Error('service unavailable'), { status: 503 });
    });
    const runner = fakeRunner();
    const { done, clock, events } = worker(fake.api, runner.run);
    await runner.started('wb_1');
    await clock.tick();
    await clock.tick();
    runner.finish('wb_1', { code: 0, stderr: '' });
    await done;
    expect(fake.extends).toEqual(['wb_1', 'wb_1']);
    expect(events).toContainEqual({ type: 'extend_failed', id: 'wb_1', error: 'service unavailable' });
    expect(fake.acks).toEqual([[{ id: 'wb_1', ok: true }]]);
  });

  it('stops claiming on a signal, finishes and acks its running tasks, and starts no more', async () => {
    const fake = fakeApi([[task(1), task(2)], [task(3)]]);
    const runner = fakeRunner();
    const { done, stop, events } = worker(fake.api, runner.run, { once: false });
    await runner.started('wb_1');
    stop();
    runner.finish('wb_1', { code: 1, stderr: 'ERP offline' });
    const summary = await done;
    expect(fake.claims).toHaveLength(1);
    expect(fake.acks).toEqual([[{ id: 'wb_1', ok: false, error: 'ERP offline' }]]);
    expect(summary).toMatchObject({ claimed: 2, failed: 1, skipped: 1 });
    expect(events).toContainEqual({ type: 'skipped', id: 'wb_2', sku: 'SKU-2' });
  });

  it('runs as many commands at once as its concurrency allows', async () => {
    const fake = fakeApi([[task(1), task(2), task(3)]]);
    const runner = fakeRunner();
    const { done } = worker(fake.api, runner.run, { concurrency: 2 });
    await Promise.all([runner.started('wb_1'), runner.started('wb_2')]);
    runner.finish('wb_2', { code: 0, stderr: '' });
    await runner.started('wb_3');
    runner.finish('wb_3', { code: 0, stderr: '' });
    runner.finish('wb_1', { code: 0, stderr: '' });
    await done;
    expect(fake.acks).toEqual([
      [
        { id: 'wb_2', ok: true },
        { id: 'wb_3', ok: true },
        { id: 'wb_1', ok: true },
      ],
    ]);
  });

  it('exits with --once when nothing is claimable', async () => {
    const fake = fakeApi([]);
    const { done, clock } = worker(fake.api, async () => ({ code: 0, stderr: '' }));
    expect(await done).toMatchObject({ claimed: 0 });
    expect(fake.claims).toHaveLength(1);
    expect(clock.timers.sleeps).toEqual([]);
  });

  it('without --once waits longer after each empty claim, up to its most, and claims again', async () => {
    const fake = fakeApi([]);
    const runner = fakeRunner();
    const { done, stop, clock } = worker(
      {
        ...fake.api,
        async claimWritebacks(input) {
          const answer = await fake.api.claimWritebacks(input);
          if (fake.claims.length === 6) return { tasks: [task(1)] };
          return answer;
        },
      },
      runner.run,
      { once: false },
    );
    await runner.started('wb_1');
    stop();
    runner.finish('wb_1', { code: 0, stderr: '' });
    await done;
    expect(clock.timers.sleeps).toEqual([250, 500, 1000, 2000, 4000]);
  });

  it('ends with the claim error when a claim fails, as a refused key does', async () => {
    const refused = Object.assign(new Error('unauthorized'), { status: 401 });
    const api: WritebackApi = { ...fakeApi([]).api, claimWritebacks: () => Promise.reject(refused) };
    await expect(worker(api, async () => ({ code: 0, stderr: '' })).done).rejects.toBe(refused);
  });
});
