// The heat model against the local stack beyond price calls and ingest: an approval, a claim and a webhook delivery put on each key family the units their table calls, counted key by key, spend.
import { randomUUID } from 'node:crypto';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { countedByFamily } from '#lib/bench/heat/family-of.ts';
import { approval, claim, TASKS_PER_CLAIM, webhookDelivery } from '#lib/bench/heat/mix.ts';
import { defaultProfile, type FamilyFigures, type RequestKind, unitsPerRequest } from '#lib/bench/heat/model.ts';
import { installPartitionCounting, PartitionTally, tallyOfRequest, tallyPartitions } from '#lib/bench/heat/partition-counts.ts';
import { ingest } from '#lib/bench/prices.ts';
import { type LocalStack, startLocalStack } from '#lib/local/stack.ts';
import { mixFor, sampleCatalogue } from '#lib/local/sample-catalogue.ts';
import { listenToRequestCosts, type RequestCost } from '#platform/observability.ts';
import { tableClient } from '#platform/table/client.ts';
import { workers } from '#edge/routes.ts';
import { createDeliveryHandler } from '../../functions/workers/deliver-webhooks.ts';
import { newWorkspace, type TestWorkspace } from './support.ts';
import { type Receiver, startReceiver } from './webhook-receiver.ts';

// Counts, not seconds: the drain of the sample batch and a hundred approvals take what they take on a busy machine.
vi.setConfig({ testTimeout: 400_000 });

const catalogue = sampleCatalogue(mixFor(600), { seed: 17, prefix: 'HW-', now: new Date() });

let stack: LocalStack;
let workspace: TestWorkspace;
/** The webhook worker's table calls, by the event each message is about. */
const byEvent = new Map<string, PartitionTally>();

/** The webhook worker, one message at a time, each message's calls tallied under its event. */
function countedDeliveryHandler() {
  const deliver = createDeliveryHandler();
  return async (event: SQSEvent, context: unknown) => {
    const failures: SQSBatchResponse['batchItemFailures'] = [];
    for (const record of event.Records) {
      const { eventId } = JSON.parse(record.body) as { eventId: string };
      const tally = byEvent.get(eventId) ?? new PartitionTally();
      byEvent.set(eventId, tally);
      installPartitionCounting(tableClient());
      const answer = await tallyPartitions(tally, () => deliver({ Records: [record] }, context as never));
      failures.push(...answer.batchItemFailures);
    }
    return { batchItemFailures: failures };
  };
}

beforeAll(async () => {
  // The cost ledger is flushed once an hour, so that a counted request never carries a flush.
  process.env.COST_LEDGER_FLUSH_SECONDS = '3600';
  // Each request's calls are tallied on its own ledger, the webhook worker's by event: neither sees the other's.
  stack = await startLocalStack({
    port: 0,
    workers: workers.filter((worker) => worker.id === 'drain' || worker.id === 'deliverWebhooks'),
    workerHandlers: { deliverWebhooks: countedDeliveryHandler() },
    webhooks: { allowLoopbackHttp: true },
  });
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

/** Counted figures per family of the kind's steps. */
function byFamily(kind: RequestKind, tally: PartitionTally): Map<string, FamilyFigures> {
  return countedByFamily(kind, workspace.workspaceId, tally);
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

describe('the heat model against the counted calls of a webhook delivery', () => {
  let receiver: Receiver | undefined;
  afterAll(async () => {
    await receiver?.close();
  });

  it("puts a delivery's units, its event's fan-out and its one attempt, on the key families the table calls spend them on", async () => {
    const seller = await newWorkspace('Heat model, webhooks');
    receiver = await startReceiver();
    const created = await send('/v1/webhook-endpoints', seller.keys.pwLive, { url: receiver.url, event_types: ['batch.committed'] });
    expect(created.status, JSON.stringify(created.json)).toBe(201);
    receiver.verifyWith(created.json.secret as string);
    // An empty batch committed: one batch.committed event, to one endpoint.
    const opened = await send('/api/v1/ingest/batches', seller.keys.connector, {});
    expect(opened.status, JSON.stringify(opened.json)).toBe(201);
    const committed = await send(`/api/v1/ingest/batches/${String(opened.json.batchId)}/commit`, seller.keys.connector, {});
    expect(committed.status, JSON.stringify(committed.json)).toBe(202);
    await receiver.waitFor((requests) => requests.some((request) => request.event?.type === 'batch.committed'), 60_000);
    const eventId = receiver.events().find((event) => event.type === 'batch.committed')?.id as string;
    // The attempt is logged a moment after the receiver answers.
    const endpointId = created.json.id as string;
    for (const deadline = Date.now() + 60_000; ;) {
      const listed = await send(`/v1/webhook-endpoints/${endpointId}/deliveries`, seller.keys.pwLive);
      const data = listed.json.data as Array<{ event_id: string; status: string }>;
      if (data.some((delivery) => delivery.event_id === eventId && delivery.status !== 'pending')) break;
      if (Date.now() > deadline) throw new Error(`the delivery was never logged: ${JSON.stringify(listed.json)}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const families = countedByFamily(webhookDelivery, seller.workspaceId, byEvent.get(eventId) ?? new PartitionTally());
    const { counted: seen, modelled } = compared(families, unitsPerRequest(webhookDelivery, defaultProfile));
    expect(seen).toEqual(modelled);
  });
});
