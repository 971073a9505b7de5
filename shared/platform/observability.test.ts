// Unit tests of the log keys: a scope's keys on every line written within it, kept apart from concurrent scopes, gone after.
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { appendLogKeys, logger, reportOpenTaskAge, reportRequestCost, withLogKeys } from './observability.ts';
import { CapacityLedger } from './meter.ts';
import { type CapturedLogs, captureLogs } from '#test/support/log-lines.ts';
import { emfDocuments } from '#test/support/emf.ts';

describe('log keys', () => {
  let logs: CapturedLogs;
  beforeEach(() => {
    logs = captureLogs();
  });
  afterEach(() => logs.restore());

  it('puts the keys of a scope on every line written within it, at every level, and on none after it', async () => {
    await withLogKeys({ requestId: 'req-1', route: 'openBatch' }, async () => {
      logger.info('before a pause');
      await sleep(1);
      logger.warn('after a pause');
      logger.error('a fault', { error: new Error('boom') });
    });
    logger.info('outside');
    const [before, after, fault, outside] = logs.lines;
    for (const line of [before, after, fault]) expect(line).toMatchObject({ requestId: 'req-1', route: 'openBatch' });
    expect(fault?.error).toMatchObject({ message: 'boom' });
    expect(outside).toMatchObject({ message: 'outside' });
    expect(outside).not.toHaveProperty('requestId');
    expect(outside).not.toHaveProperty('route');
  });

  it('keeps the keys of scopes that run at once apart, whichever resumes first', async () => {
    let releaseA = () => {};
    const gateA = new Promise<void>((resolve) => (releaseA = resolve));
    const a = withLogKeys({ requestId: 'A' }, async () => {
      logger.info('a started');
      await gateA;
      logger.info('a resumed');
    });
    const b = withLogKeys({ requestId: 'B' }, async () => {
      logger.info('b started');
      await sleep(1);
      logger.info('b resumed');
      releaseA();
    });
    await Promise.all([a, b]);
    expect(logs.lines.map((line) => [line.message, line.requestId])).toEqual([
      ['a started', 'A'],
      ['b started', 'B'],
      ['b resumed', 'B'],
      ['a resumed', 'A'],
    ]);
  });

  it('adds keys learned partway through to the rest of the scope, and to nothing outside one', async () => {
    appendLogKeys({ workspaceId: 'ws_nowhere' });
    await withLogKeys({ requestId: 'req-2' }, async () => {
      logger.info('before authentication');
      appendLogKeys({ workspaceId: 'ws_1' });
      await withLogKeys({ step: 'inner' }, async () => logger.info('within an inner scope'));
      logger.info('after authentication');
    });
    logger.info('outside');
    const [before, inner, after, outside] = logs.lines;
    expect(before).not.toHaveProperty('workspaceId');
    expect(inner).toMatchObject({ requestId: 'req-2', workspaceId: 'ws_1', step: 'inner' });
    expect(after).toMatchObject({ requestId: 'req-2', workspaceId: 'ws_1' });
    expect(after).not.toHaveProperty('step');
    expect(outside).not.toHaveProperty('workspaceId');
  });

  it("lets a key the line passes itself win over the scope's, unless it passes it undefined", () => {
    withLogKeys({ batchId: 'b-1', workspaceId: 'ws_1' }, () => {
      logger.info('explicit', { batchId: 'b-2', workspaceId: undefined });
    });
    expect(logs.lines[0]).toMatchObject({ batchId: 'b-2', workspaceId: 'ws_1' });
  });

  it("ends a scope's work with a cost line that carries its keys", () => {
    withLogKeys({ requestId: 'req-3', route: 'getPrice' }, () => {
      reportRequestCost({ route: 'getPrice', workspaceId: 'ws_1', status: 200, ledger: new CapacityLedger(), durationMs: 1 });
    });
    expect(logs.withMessage('request completed')).toEqual([
      expect.objectContaining({ requestId: 'req-3', route: 'getPrice', workspaceId: 'ws_1', status: 200 }),
    ]);
  });
});

describe('request metrics', () => {
  it('counts the lines a request priced, which the dashboard divides its dollars by, and emits no such count for a request that priced none', () => {
    const priced = new CapacityLedger();
    priced.pricedLines = 40;
    const [pricing] = emfDocuments(() =>
      reportRequestCost({ route: 'priceLines', workspaceId: 'ws_1', status: 200, ledger: priced, durationMs: 1 }),
    );
    expect(pricing).toMatchObject({ route: 'priceLines', PricedLines: 40, ReadRequestUnits: 0 });
    const [staging] = emfDocuments(() =>
      reportRequestCost({ route: 'stageRecords', workspaceId: 'ws_1', status: 202, ledger: new CapacityLedger(), durationMs: 1 }),
    );
    expect(staging).toMatchObject({ route: 'stageRecords' });
    expect(staging).not.toHaveProperty('PricedLines');
  });
  it('counts whether a request answered within its route’s latency budget, 1 over it and 0 within, and nothing for a job with no budget', () => {
    const request = (durationMs: number, latencyBudgetMs?: number) =>
      emfDocuments(() =>
        reportRequestCost({
          route: 'getPrice',
          workspaceId: 'ws_1',
          status: 200,
          ledger: new CapacityLedger(),
          durationMs,
          latencyBudgetMs,
        }),
      )[0];
    expect(request(301, 300)).toMatchObject({ route: 'getPrice', OverLatencyBudget: 1 });
    expect(request(300, 300)).toMatchObject({ route: 'getPrice', OverLatencyBudget: 0 });
    expect(request(5_000)).not.toHaveProperty('OverLatencyBudget');
  });

  it('counts a request answered 429, which the throttled-callers alarm sums, and nothing for any other answer', () => {
    const answered = (status: number) =>
      emfDocuments(() =>
        reportRequestCost({ route: 'priceLines', workspaceId: 'ws_1', status, ledger: new CapacityLedger(), durationMs: 1 }),
      )[0];
    expect(answered(429)).toMatchObject({ route: 'priceLines', RateLimited: 1 });
    expect(answered(200)).not.toHaveProperty('RateLimited');
    expect(answered(422)).not.toHaveProperty('RateLimited');
  });

  it('reports the age of the oldest open write-back task in whole seconds, for the alarm on tasks that wait', () => {
    const [document] = emfDocuments(() => reportOpenTaskAge(3_600.4));
    expect(document).toMatchObject({ OldestOpenWritebackSeconds: 3_600 });
  });
});
