// The heat model against the local stack: for each request kind it checks, the units the model puts on each key family per request are those the table calls, counted key by key, spend.
import { randomUUID } from 'node:crypto';
import type { SQSEvent } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createDrainHandler } from '../../functions/workers/drain.ts';
import { countedByFamily } from '#lib/bench/heat/family-of.ts';
import { ingestRecords, priceCall } from '#lib/bench/heat/mix.ts';
import { defaultProfile, type FamilyFigures, type LoadProfile, type RequestKind, unitsPerRequest } from '#lib/bench/heat/model.ts';
import { installPartitionCounting, PartitionTally, tallyOfRequest, tallyPartitions } from '#lib/bench/heat/partition-counts.ts';
import { ingest } from '#lib/bench/prices.ts';
import { type LocalStack, startLocalStack } from '#lib/local/stack.ts';
import { mixFor, sampleCatalogue } from '#lib/local/sample-catalogue.ts';
import { listenToRequestCosts, type RequestCost } from '#platform/observability.ts';
import { tableClient } from '#platform/table/client.ts';
import { flushCosts } from '#shared/cost/ledger.ts';
import { workers } from '#edge/routes.ts';
import { newWorkspace, type TestWorkspace } from './support.ts';

// Counts, not seconds: the drain of the sample batch takes what it takes on a busy machine.
vi.setConfig({ testTimeout: 400_000 });

/** The bench mix the ingest figures of the model were counted on (mix.ts), staged 1,000 records a call. */
const RECORDS = 2_000;
const RATE = 'WS#<workspaceId>#USAGE#RATE#api#<shard>';

/**
 * The days the figures are counted on: the first of a month, and the last (an hour before it ends, so that the count
 * finishes within it). Each gets its own workspace and catalogue, dated back from it, and the service's clock starts
 * at it: the months an aggregate's line falls in (and so how many month items a fold writes), and how old the bands
 * are when a price call reads them, follow the day counted on, never the day the suite runs.
 */
const countingDays = [new Date('2026-11-01T00:00:00Z'), new Date('2026-11-30T23:00:00Z')].map((countedOn) => ({
  countedOn,
  day: countedOn.toISOString().slice(0, 10),
}));

function rounded(figures: Map<string, FamilyFigures> | undefined, families: readonly string[]) {
  return Object.fromEntries(
    families.map((family) => {
      const figure = figures?.get(family) ?? { items: 0, readUnits: 0, writeUnits: 0 };
      return [
        family,
        { items: +figure.items.toFixed(3), readUnits: +figure.readUnits.toFixed(3), writeUnits: +figure.writeUnits.toFixed(3) },
      ];
    }),
  );
}

let stack: LocalStack;
/** Where the drain's calls are tallied: the tally of the day being counted. */
let drainedInto = new PartitionTally();

// One stack for both days: the service's clients are made once per process, for the first stack's endpoints.
beforeAll(async () => {
  // Only Date is moved, and it runs on from there: timers, leases and the emulators keep real time between them.
  vi.useFakeTimers({ toFake: ['Date'], now: countingDays[0]?.countedOn, shouldAdvanceTime: true });
  // No webhook worker: the webhook fan-out would add calls to the workspace's partitions that ingest does not make.
  // The cost ledger is flushed once an hour, so that a request never carries a flush.
  process.env.COST_LEDGER_FLUSH_SECONDS = '3600';
  // As deployed, an instance leases blocks of the quota and keeps the bands items; kept an hour here, so that the
  // counted call is a warm instance's however slowly the machine runs it.
  process.env.QUOTA_LEASE_LINES = '5000';
  process.env.PRICE_BANDS_CACHE_SECONDS = '3600';
  // Checkpointed chunk by chunk, as the model's ingest mix counts the folds: the most they cost (a checkpoint every few
  // seconds folds several chunks at once, fewer writes on the same keys).
  const drain = createDrainHandler({ checkpointEveryMs: 0 });
  stack = await startLocalStack({
    port: 0,
    workers: workers.filter((worker) => worker.id === 'drain'),
    workerHandlers: {
      drain: (event: SQSEvent, context: unknown) => {
        installPartitionCounting(tableClient());
        return tallyPartitions(drainedInto, () => drain(event, context as never));
      },
    },
  });
  installPartitionCounting(tableClient());
}, 400_000);

afterAll(async () => {
  await stack?.stop();
  vi.useRealTimers();
});

describe.each(countingDays)('the heat model against the calls counted on $day', ({ countedOn }) => {
  const catalogue = sampleCatalogue(mixFor(RECORDS), { seed: 13, prefix: 'HM-', now: countedOn });
  let workspace: TestWorkspace;
  const drained = new PartitionTally();
  /** The staging calls' units, key by key: what the connector's side of ingest spends on the batch's partitions. */
  const staged = new PartitionTally();

  beforeAll(async () => {
    // The costs charged on the day before are written first, so that no request of this day carries their flush.
    await flushCosts();
    vi.setSystemTime(countedOn);
    drainedInto = drained;
    workspace = await newWorkspace('Heat model');
    const stagingCalls: RequestCost[] = [];
    const stop = listenToRequestCosts((cost) => {
      if (cost.route === 'stageRecords' && cost.workspaceId === workspace.workspaceId) stagingCalls.push(cost);
    });
    try {
      await ingest(stack, catalogue, workspace.keys.connector);
    } finally {
      stop();
    }
    for (const cost of stagingCalls) {
      for (const [partition, count] of tallyOfRequest(cost.ledger)?.partitions ?? []) staged.add(partition, count);
    }
  }, 400_000);

  /** Counted figures per family of the kind's steps. */
  function byFamily(kind: RequestKind, tally: PartitionTally, scale = 1): Map<string, FamilyFigures> {
    return countedByFamily(kind, workspace.workspaceId, tally, scale);
  }

  async function priceCallCounted(body: unknown): Promise<PartitionTally> {
    const costs: RequestCost[] = [];
    const stop = listenToRequestCosts((cost) => {
      if (cost.route === 'priceLines' && cost.workspaceId === workspace.workspaceId) costs.push(cost);
    });
    try {
      const response = await fetch(`${stack.gatewayUrl}/api/v1/prices`, {
        method: 'POST',
        headers: { authorization: `Bearer ${workspace.keys.erp}`, 'content-type': 'application/json', 'idempotency-key': randomUUID() },
        body: JSON.stringify(body),
      });
      expect(response.status, await response.text()).toBe(200);
    } finally {
      stop();
    }
    expect(costs).toHaveLength(1);
    return tallyOfRequest(costs[0]?.ledger as RequestCost['ledger']) ?? new PartitionTally();
  }

  it.each([
    { lines: 100, withCustomer: true },
    { lines: 10, withCustomer: false },
  ])(
    "puts a price call's units of $lines lines (a customer: $withCustomer) on the key families the table calls spend them on",
    async ({ lines, withCustomer }) => {
      const customer = catalogue.customer[0]?.externalId as string;
      const products = catalogue.product.slice(0, lines);
      const body = {
        lines: products.map((product) => ({
          productSku: product.sku,
          quantity: 2,
          ...(withCustomer ? { customerExternalId: customer } : {}),
        })),
      };
      // The first call of an instance reads the key and the workspace, records the key's use, leases a block of the
      // quota and reads the bands: the model spreads those over the cache's life and the block's calls.
      await priceCallCounted(body);
      const counted = byFamily(priceCall, await priceCallCounted(body));
      const profile: LoadProfile = {
        ...defaultProfile,
        linesPerCall: lines,
        customerShare: withCustomer ? 1 : 0,
        categoriesPerCall: new Set(products.map((product) => product.category)).size,
      };
      const modelled = unitsPerRequest(priceCall, profile);
      // A rate shard's first request of a second starts its window with one more write: a second's cost, not a call's.
      const rate = counted.get(RATE);
      expect([0, 1]).toContain((rate?.writeUnits ?? 0) - (modelled.get(RATE)?.writeUnits ?? 0));
      counted.set(RATE, modelled.get(RATE) as FamilyFigures);
      const families = [...new Set([...counted.keys(), ...modelled.keys()])].filter(
        (family) => (counted.get(family)?.items ?? 0) + (modelled.get(family)?.items ?? 0) > 0,
      );
      expect(rounded(counted, families)).toEqual(rounded(modelled, families));
    },
  );

  it('puts the units of a thousand ingest records on the key families the drain and its bands job spend them on', () => {
    const counted = byFamily(ingestRecords, drained, 1 / RECORDS);
    const modelled = unitsPerRequest(ingestRecords, defaultProfile);
    // The keys ingest concentrates, each its own family; the rest spread over keys of their own.
    const concentrated = [
      'WS#<workspaceId>#ADHERENCE#<shard>',
      'listing:WS#<workspaceId>#RECROWS#sku#<shard>',
      'listing:WS#<workspaceId>#RECROWS#change#<shard>',
      'listing:WS#<workspaceId>#RECROWS#impact#<shard>',
      'WS#<workspaceId>#HLOG#<category>#<shard>',
    ];
    for (const family of concentrated) {
      const [count, model] = [(counted.get(family)?.writeUnits ?? 0) * 1000, (modelled.get(family)?.writeUnits ?? 0) * 1000];
      expect(model, family).toBeGreaterThan(0);
      // A drain message received again on a busy machine can fold a chunk's months once more: a unit now and then.
      expect(Math.abs(count - model), `${family}: counted ${count}, modelled ${model} per 1,000 records`).toBeLessThanOrEqual(1 + 1e-9);
    }
  });

  it("puts the units of a thousand ingest records on the batch's own partition and on its chunk partitions as staging and the drain spend them", () => {
    const both = new PartitionTally();
    for (const tally of [staged, drained]) for (const [partition, count] of tally.partitions) both.add(partition, count);
    const counted = byFamily(ingestRecords, both, 1 / RECORDS);
    const modelled = unitsPerRequest(ingestRecords, defaultProfile);
    for (const family of ['WS#<workspaceId>#BATCH#<batchId>', 'WS#<workspaceId>#BATCH#<batchId>#C<shard>']) {
      for (const units of ['readUnits', 'writeUnits'] as const) {
        const [count, model] = [counted.get(family)?.[units] ?? 0, modelled.get(family)?.[units] ?? 0];
        expect(model, `${family} ${units}`).toBeGreaterThan(0);
        // A chunk's or a touched list's compressed size moves by a few bytes with the catalogue's dates, and with it a
        // unit of the batch now and then; on a busy machine a drain message received again reads the batch's lease
        // once more: 3%, or two units per 1,000 records.
        expect(Math.abs(count - model), `${family} ${units}: counted ${count}, modelled ${model}`).toBeLessThanOrEqual(
          Math.max(0.03 * model, 2 / 1000) + 1e-9,
        );
      }
    }
  });
});
