// Several instances, each a worker thread with its own module state, against one workspace's rate and quota: no second past the limit, no line past the quota, none lost or charged twice.
import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { tableName } from '#platform/config.ts';
import { tableClient } from '#platform/table/client.ts';
import { keys } from '#platform/table/keys.ts';
import { readCostLedger } from '#shared/cost/repository.ts';
import { dayOf } from '#shared/cost/counts.ts';
import { updateWorkspace } from '#shared/workspaces/repository.ts';
import { monthOf } from '#shared/workspaces/usage.ts';
import type { Answer, InstanceReport, InstanceTask } from './price-instance.ts';
import { newWorkspace } from './support.ts';

/** Each instance's settings, as a deployed function has them, scaled down so that a few calls cross them. */
const INSTANCE_ENVIRONMENT = { QUOTA_LEASE_LINES: '8', RATE_SHARD_WRITES: '2', PRICE_BANDS_CACHE_SECONDS: '3' };

function runInstance(task: InstanceTask): Promise<InstanceReport> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL('./price-instance.ts', import.meta.url), {
      workerData: task,
      env: { ...process.env, ...INSTANCE_ENVIRONMENT },
    });
    worker.once('message', (report: InstanceReport) => resolve(report));
    worker.once('error', reject);
    worker.once('exit', (code) => (code === 0 ? undefined : reject(new Error(`instance exited with ${code}`))));
  });
}

async function storedLines(workspaceId: string, nowMs: number): Promise<number> {
  const { Item } = await tableClient().send(
    new GetCommand({ TableName: tableName(), Key: keys.usage(workspaceId, monthOf(nowMs)), ConsistentRead: true }),
  );
  return Number(Item?.lines ?? 0);
}

const sum = (answers: readonly Answer[]) => answers.reduce((total, answer) => total + answer.lines, 0);

/** Line counts from 1 to 9 in turn, a different start per instance. */
const lineCounts = (instance: number, calls: number) => Array.from({ length: calls }, (_, index) => ((index + instance * 4) % 9) + 1);

describe('usage under concurrent instances', () => {
  it('admits exactly the limit of a second over its shards when instances race for it, and refuses the rest as rate_limited', async () => {
    const workspace = { workspaceId: (await newWorkspace()).workspaceId, rateLimit: 7, overviewRateLimit: 20 };
    // 7 over shards of 2 writes: four shards, holding 2, 2, 2 and 1.
    const atMs = Math.floor(Date.now() / 1000) * 1000 + 1000;
    const reports = await Promise.all([0, 1, 2].map(() => runInstance({ kind: 'admit', workspace, atMs, count: 6 })));
    const answers = reports.flatMap((report) => report.answers);
    expect(answers).toHaveLength(18);
    expect(answers.filter((answer) => answer.status === 200)).toHaveLength(7);
    for (const refused of answers.filter((answer) => answer.status !== 200)) {
      expect(refused).toEqual({ lines: 0, status: 429, code: 'rate_limited', retryAfter: '1' });
    }
  });

  it('never charges past the quota from leased blocks, and the usage item holds exactly the lines kept once the leases are given back', async () => {
    const workspace = { workspaceId: (await newWorkspace()).workspaceId, monthlyLines: 100 };
    const atMs = Date.now();
    const reports = await Promise.all(
      [0, 1, 2, 3].map((instance) =>
        runInstance({ kind: 'charge', workspace, atMs, lineCounts: lineCounts(instance, 12), refundEvery: 5 }),
      ),
    );
    const kept = reports.reduce((total, report) => total + report.keptLines, 0);
    const answers = reports.flatMap((report) => report.answers);
    expect(kept).toBeLessThanOrEqual(100);
    // 4 × 12 calls of 5 lines on average ask for far more than 100: the month ends refusing some.
    expect(answers.some((answer) => answer.code === 'monthly_volume_exceeded')).toBe(true);
    expect(answers.every((answer) => answer.status === 200 || answer.code === 'monthly_volume_exceeded')).toBe(true);
    expect(await storedLines(workspace.workspaceId, atMs)).toBe(kept);
  });

  it('answers every price call of instances hammering one workspace with a 200 or the right 429, and charges exactly the lines answered', async () => {
    const workspace = await newWorkspace();
    await updateWorkspace(workspace.workspaceId, { rateLimit: 4, monthlyLines: 60 });
    const startedAt = Date.now();
    const reports = await Promise.all(
      [0, 1, 2].map((instance) =>
        runInstance({ kind: 'price', key: workspace.keys.erp, lineCounts: lineCounts(instance, 40), idPrefix: `instance-${instance}` }),
      ),
    );
    const answers = reports.flatMap((report) => report.answers);
    const answered = answers.filter((answer) => answer.status === 200);
    for (const refused of answers.filter((answer) => answer.status !== 200)) {
      expect(refused.status).toBe(429);
      expect(['rate_limited', 'monthly_volume_exceeded']).toContain(refused.code);
      if (refused.code === 'rate_limited') expect(refused.retryAfter).toBe('1');
      else expect(Number(refused.retryAfter)).toBeGreaterThan(0);
    }
    // Each instance went on until the month refused it: the quota, not the test, ended the run.
    for (const report of reports) expect(report.answers.at(-1)?.code).toBe('monthly_volume_exceeded');
    const charged = sum(answered);
    expect(charged).toBeLessThanOrEqual(60);
    // A call is refused only when the month's free lines could not cover it: what the instances held unspent then (a
    // block of at most 8 each) and the call itself (at most 9 lines) bound what is left unspent.
    expect(charged).toBeGreaterThanOrEqual(60 - 3 * 8 - 9);
    expect(await storedLines(workspace.workspaceId, startedAt)).toBe(charged);
    const ledger = await readCostLedger(workspace.workspaceId, dayOf(startedAt), dayOf(Date.now()));
    const pricedLines = ledger.filter((row) => row.route === 'priceLines').reduce((total, row) => total + row.counts.pricedLines, 0);
    expect(pricedLines).toBe(charged);
  });
});
