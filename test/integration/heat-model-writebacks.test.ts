// The heat model against the local stack for the write-back path: an approval and a claim put on each key family the units their table calls, counted key by key, spend.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { familyMatcher } from '#lib/bench/heat/family-of.ts';
import { approval, claim, TASKS_PER_CLAIM } from '#lib/bench/heat/mix.ts';
import { defaultProfile, type FamilyFigures, type RequestKind, resolveStep, unitsPerRequest } from '#lib/bench/heat/model.ts';
import { installPartitionCounting, PartitionTally, tallyOfRequest } from '#lib/bench/heat/partition-counts.ts';
import { ingest } from '#lib/bench/prices.ts';
import { type LocalStack, startLocalStack } from '#lib/local/stack.ts';
import { mixFor, sampleCatalogue } from '#lib/local/sample-catalogue.ts';
import { listenToRequestCosts, type RequestCost } from '#platform/observability.ts';
import { tableClient } from '#platform/table/client.ts';
import { workers } from '#edge/routes.ts';
import { newWorkspace, type TestWorkspace } from './support.ts';

// Counts, not seconds: the drain of the sample batch and a hundred approvals take what they take on a busy machine.
vi.setConfig({ testTimeout: 400_000 });

const catalogue = sampleCatalogue(mixFor(600), { seed: 17, prefix: 'HW-', now: new Date() });

let stack: LocalStack;
let workspace: TestWorkspace;

beforeAll(async () => {
  // The cost ledger is flushed once an hour, so that a counted request never carries a flush.
  process.env.COST_LEDGER_FLUSH_SECONDS = '3600';
  // No webhook worker: its fan-out would add calls to the workspace's partitions that these requests do not make.
  stack = await startLocalStack({ port: 0, workers: workers.filter((worker) => worker.id === 'drain') });
  installPartitionCounting(tableClient());
  workspace = await newWorkspace('Heat model, write-backs');
  await ingest(stack, catalogue, workspace.keys.connector);
}, 400_000);

afterAll(async () => {
  await stack?.stop();
});

interface Answer {
  status: number;
  json: Record<string, unknown>;
}

/** One request through the gateway. */
async function send(path: string, key: string, body?: unknown): Promise<Answer> {
  const response = await fetch(`${stack.gatewayUrl}${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'idempotency-key': randomUUID() },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, json: (await response.json()) as Record<string, unknown> };
}

/** One request through the gateway, with the table calls it made tallied by partition; none other may run meanwhile. */
async function counted(route: string, path: string, key: string, body?: unknown): Promise<{ answer: Answer; tally: PartitionTally }> {
  const costs: RequestCost[] = [];
  const stop = listenToRequestCosts((cost) => {
    if (cost.route === route && cost.workspaceId === workspace.workspaceId) costs.push(cost);
  });
  let answer: Answer;
  try {
    answer = await send(path, key, body);
  } finally {
    stop();
  }
  expect(costs).toHaveLength(1);
  return { answer, tally: tallyOfRequest(costs[0]?.ledger as RequestCost['ledger']) ?? new PartitionTally() };
}

/** Counted figures per family of the kind's steps; a partition of no family is reported under its own key. */
function byFamily(kind: RequestKind, tally: PartitionTally): Map<string, FamilyFigures> {
  const familyOf = familyMatcher(
    kind.steps.map((step) => resolveStep(step)),
    workspace.workspaceId,
  );
  const families = new Map<string, FamilyFigures>();
  for (const [partition, count] of tally.partitions) {
    const family = familyOf(partition) ?? `(no family) ${partition}`;
    const sum = families.get(family) ?? { items: 0, readUnits: 0, writeUnits: 0 };
    families.set(family, sum);
    sum.items += count.items;
    sum.readUnits += count.readUnits;
    sum.writeUnits += count.writeUnits;
  }
  return families;
}

const RATE = /^WS#<workspaceId>#USAGE#RATE#/;

/**
 * What can be told apart on both sides: the read units on each key family, and the write units of the whole request.
 * An UpdateItem that moves an item's index entries is reported as one figure, which the counting puts on the item's own
 * partition, where the model names the index partitions too; so writes are compared in total. A rate shard's first
 * request of a second starts its window with one more write: a second's cost, not a request's, left out.
 */
function compared(counted: Map<string, FamilyFigures>, modelled: Map<string, FamilyFigures>) {
  const side = (figures: Map<string, FamilyFigures>, firstOfSecond: number) => {
    const reads = Object.fromEntries(
      [...new Set([...counted.keys(), ...modelled.keys()])]
        .filter((family) => (counted.get(family)?.readUnits ?? 0) + (modelled.get(family)?.readUnits ?? 0) > 0)
        .sort()
        .map((family) => [family, +(figures.get(family)?.readUnits ?? 0).toFixed(3)]),
    );
    const writes = [...figures.values()].reduce((sum, figure) => sum + figure.writeUnits, 0) - firstOfSecond;
    return { reads, writeUnits: +writes.toFixed(3) };
  };
  const rateWrites = (figures: Map<string, FamilyFigures>) =>
    [...figures].filter(([family]) => RATE.test(family)).reduce((sum, [, figure]) => sum + figure.writeUnits, 0);
  const extra = rateWrites(counted) - rateWrites(modelled);
  expect([0, 1]).toContain(extra);
  return { counted: side(counted, extra), modelled: side(modelled, 0) };
}

/** Approves a product at its recommended price, confirmed, so that no guardrail or confirmation stops it. */
async function approveAtRecommendation(sku: string): Promise<void> {
  const price = await send(`/v1/prices/${encodeURIComponent(sku)}`, workspace.keys.pwLive);
  expect(price.status, JSON.stringify(price.json)).toBe(200);
  const approved = await send('/v1/prices/approve', workspace.keys.pwLive, { sku, price: price.json.recommended_price, confirm: true });
  expect(approved.status, JSON.stringify(approved.json)).toBe(200);
}

/** The same, with the approval's table calls counted. */
async function approvalCounted(sku: string): Promise<PartitionTally> {
  const price = await send(`/v1/prices/${encodeURIComponent(sku)}`, workspace.keys.pwLive);
  const { answer, tally } = await counted('approvePrice', '/v1/prices/approve', workspace.keys.pwLive, {
    sku,
    price: price.json.recommended_price,
    confirm: true,
  });
  expect(answer.status, JSON.stringify(answer.json)).toBe(200);
  return tally;
}

describe('the heat model against the counted calls of the write-back path', () => {
  it("puts an approval's units on the key families the table calls spend them on", async () => {
    const skus = catalogue.product.slice(0, 2).map((product) => product.sku);
    // The first request of an instance reads the key and the workspace and records the key's use: left out, as the model does.
    await approveAtRecommendation(skus[0] as string);
    const tally = await approvalCounted(skus[1] as string);
    const { counted: seen, modelled } = compared(byFamily(approval, tally), unitsPerRequest(approval, defaultProfile));
    expect(seen).toEqual(modelled);
  });

  it(`puts the units of a claim of ${TASKS_PER_CLAIM} tasks on the key families the table calls spend them on`, async () => {
    // The model's claim reads a window of a hundred claimable tasks (limit × 10): more than that wait.
    const skus = catalogue.product.slice(2, 2 + 10 * TASKS_PER_CLAIM + 2).map((product) => product.sku);
    const queue = [...skus];
    const approver = async () => {
      for (let sku = queue.shift(); sku !== undefined; sku = queue.shift()) await approveAtRecommendation(sku);
    };
    await Promise.all([approver(), approver(), approver(), approver()]);
    // A first claim warms the instance (key, workspace, last use) and takes one task; the counted one leases ten.
    const warm = await send('/api/v1/writebacks/claim', workspace.keys.connector, { limit: 1 });
    expect(warm.status, JSON.stringify(warm.json)).toBe(200);
    const { answer, tally } = await counted('claimWritebacks', '/api/v1/writebacks/claim', workspace.keys.connector, {
      limit: TASKS_PER_CLAIM,
    });
    expect(answer.status, JSON.stringify(answer.json)).toBe(200);
    expect(answer.json.tasks).toHaveLength(TASKS_PER_CLAIM);
    const { counted: seen, modelled } = compared(byFamily(claim, tally), unitsPerRequest(claim, defaultProfile));
    expect(seen).toEqual(modelled);
  });
});
