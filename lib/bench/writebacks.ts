// Write-back tasks on the local stack: claim throughput by concurrent workers, refused leases, and the cost of claim plus ack.
import { memoryOf } from '#edge/routes.ts';
import { listenToRequestCosts, type RequestCost } from '#platform/observability.ts';
import { createWorkspaceWithKeys, seedPendingTasks } from '#lib/local/seed.ts';
import type { LocalStack } from '#lib/local/stack.ts';
import { type CostBreakdown, costAtListPrices, gbSecondsOf } from '#shared/cost/list-prices.ts';
import { keepAliveClient } from './measure.ts';

const CLAIM_LIMIT = 10;
const LEASE_SECONDS = 300;
const INDEX_ENTRIES_LEFT_BY_APPLIED_TASK = 2;

export interface ClaimRun {
  readonly claimers: number;
  readonly tasks: number;
  readonly seconds: number;
  readonly tasksPerSecond: number;
  readonly claimCalls: number;
  /** Leases refused because another claim took the task first, per task leased. */
  readonly refusedPerLease: number;
  /** How long one claim call ran in its handler: contention shows here before it shows in throughput. */
  readonly claimP50Ms: number;
  readonly claimP99Ms: number;
  readonly claimMaxMs: number;
}

export interface WritebackCost extends CostBreakdown {
  readonly tasks: number;
  /** Per task, claim and ack together, as the ledger charged them. */
  readonly readUnits: number;
  readonly writeUnits: number;
}

export interface WritebackFigures {
  readonly runs: readonly ClaimRun[];
  readonly costPerMillionTasks: WritebackCost;
}

interface Worker {
  readonly claimed: number;
  readonly calls: number;
}

/**
 * One connector's workers, each looping claim → ack until nothing is left, as a connector would run them: each with
 * its own keep-alive connection. With `acknowledge` off they only claim, so that claims alone are timed.
 */
async function runWorkers(stack: LocalStack, key: string, claimers: number, acknowledge: boolean): Promise<Worker[]> {
  const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
  const claimBody = JSON.stringify({ limit: CLAIM_LIMIT, leaseSeconds: LEASE_SECONDS });
  return Promise.all(
    Array.from({ length: claimers }, async () => {
      const client = keepAliveClient(stack.gatewayUrl);
      let claimed = 0;
      let calls = 0;
      try {
        for (;;) {
          const response = await client.send('POST', '/api/v1/writebacks/claim', headers, claimBody);
          calls += 1;
          if (response.status !== 200) throw new Error(`claim answered ${response.status}: ${response.body}`);
          const { tasks } = JSON.parse(response.body) as { tasks: Array<{ id: string }> };
          if (tasks.length === 0) return { claimed, calls };
          claimed += tasks.length;
          if (!acknowledge) continue;
          const results = tasks.map((task) => ({ id: task.id, ok: true }));
          const acked = await client.send('POST', '/api/v1/writebacks/ack', headers, JSON.stringify({ results }));
          if (acked.status !== 200) throw new Error(`ack answered ${acked.status}: ${acked.body}`);
        }
      } finally {
        client.close();
      }
    }),
  );
}

async function measureClaims(stack: LocalStack, claimers: number, tasks: number): Promise<ClaimRun> {
  const seller = await createWorkspaceWithKeys(`Bench claims ${claimers}`);
  await seedPendingTasks(seller.workspaceId, seller.connectorId, tasks);
  const costs: RequestCost[] = [];
  const stop = listenToRequestCosts((cost) => {
    if (cost.route === 'claimWritebacks' && cost.workspaceId === seller.workspaceId) costs.push(cost);
  });
  const started = performance.now();
  let workers: Worker[];
  try {
    workers = await runWorkers(stack, seller.keys.connector, claimers, false);
  } finally {
    stop();
  }
  const seconds = (performance.now() - started) / 1000;
  const leased = workers.reduce((sum, worker) => sum + worker.claimed, 0);
  if (leased !== tasks) throw new Error(`${claimers} claimers leased ${leased} of ${tasks} tasks`);
  const refused = costs.reduce((sum, cost) => sum + cost.ledger.refusedWrites, 0);
  const durations = costs.map((cost) => cost.durationMs).sort((a, b) => a - b);
  const at = (quantile: number) => durations[Math.min(durations.length - 1, Math.floor(quantile * durations.length))] ?? 0;
  return {
    claimers,
    tasks,
    seconds,
    tasksPerSecond: tasks / seconds,
    claimCalls: workers.reduce((sum, worker) => sum + worker.calls, 0),
    refusedPerLease: refused / leased,
    claimP50Ms: at(0.5),
    claimP99Ms: at(0.99),
    claimMaxMs: durations.at(-1) ?? 0,
  };
}

/** Claim plus ack, each task applied: the task, the product's price and its recommendation, as in production. */
async function measureCost(stack: LocalStack, claimers: number, tasks: number): Promise<WritebackCost> {
  const seller = await createWorkspaceWithKeys('Bench write-back cost');
  await seedPendingTasks(seller.workspaceId, seller.connectorId, tasks, { products: true });
  const costs: RequestCost[] = [];
  const stop = listenToRequestCosts((cost) => {
    if (cost.workspaceId === seller.workspaceId) costs.push(cost);
  });
  try {
    await runWorkers(stack, seller.keys.connector, claimers, true);
  } finally {
    stop();
  }
  let readUnits = 0;
  let writeUnits = 0;
  let gbSeconds = 0;
  for (const cost of costs) {
    readUnits += cost.ledger.readUnits;
    writeUnits += cost.ledger.writeUnits;
    // The routes' and the webhook worker's (the acks' events fan out): each at its own function's memory.
    gbSeconds += gbSecondsOf(cost.durationMs, memoryOf(cost.route));
  }
  // The ledger charges a transaction from its items' sizes, without the index entries it changes: an applied task
  // leaves both indexes, a write each. DynamoDB Local reports the index writes of a plain UpdateItem itself.
  writeUnits += tasks * INDEX_ENTRIES_LEFT_BY_APPLIED_TASK;
  const perMillion = 1_000_000 / tasks;
  return {
    tasks,
    readUnits: readUnits / tasks,
    writeUnits: writeUnits / tasks,
    ...costAtListPrices({
      readUnits: readUnits * perMillion,
      writeUnits: writeUnits * perMillion,
      gbSeconds: gbSeconds * perMillion,
      invocations: costs.length * perMillion,
      // Claim and ack bodies for ten tasks are a few KB, far below the 512 KB that API Gateway meters as one request.
      meteredRequests: costs.length * perMillion,
    }),
  };
}

export async function measureWritebacks(
  stack: LocalStack,
  options: { tasks: number; claimers: readonly number[] },
): Promise<WritebackFigures> {
  const runs: ClaimRun[] = [];
  for (const claimers of options.claimers) runs.push(await measureClaims(stack, claimers, options.tasks));
  return { runs, costPerMillionTasks: await measureCost(stack, 10, options.tasks) };
}
