// Price serving on the local stack: latency of 100-line calls against a DynamoDB floor, and their cost per million lines.
import { randomUUID } from 'node:crypto';
import { brotliCompressSync, constants } from 'node:zlib';
import { getItems } from '#platform/table/bulk.ts';
import { listenToRequestCosts, type RequestCost } from '#platform/observability.ts';
import { routeById } from '#edge/routes.ts';
import { putItem } from '#platform/table/commands.ts';
import { keys } from '#platform/table/keys.ts';
import type { PrimaryKey } from '#platform/table/key-parts.ts';
import { createWorkspaceWithKeys } from '#lib/local/seed.ts';
import type { LocalStack } from '#lib/local/stack.ts';
import { type CatalogueSize, mixFor, type SampleCatalogue, sampleCatalogue } from '#lib/local/sample-catalogue.ts';
import { seededRandom } from '#platform/seeded-random.ts';
import { type CostBreakdown, costAtListPrices, gbSecondsOf, HTTP_API_METERING_BYTES } from '#shared/cost/list-prices.ts';
import { keepAliveClient, percentile } from './measure.ts';

const LINES_PER_CALL = 100;
const WARMUP_CALLS = 10;

export interface PriceServingFigures {
  readonly catalogue: CatalogueSize;
  readonly calls: number;
  readonly linesPerCall: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly floorP50Ms: number;
  readonly floorP99Ms: number;
  readonly ratioToFloor: number;
  /** Per call, averaged over the measured calls. */
  readonly readUnits: number;
  readonly writeUnits: number;
  readonly readKeys: number;
  readonly lambdaMs: number;
  readonly responseBytes: number;
  readonly storedBytes: number;
  readonly memoryMb: number;
  readonly costPerMillionLines: CostBreakdown;
  /** The same calls priced the naive way: a read per line per item, the response stored raw, a write per decision. */
  readonly naivePerMillionLines: CostBreakdown;
  readonly naiveReadUnits: number;
  readonly naiveWriteUnits: number;
}

function costOf(perCall: {
  readUnits: number;
  writeUnits: number;
  lambdaMs: number;
  memoryMb: number;
  meteredRequests: number;
}): CostBreakdown {
  const calls = 1_000_000 / LINES_PER_CALL;
  return costAtListPrices({
    readUnits: perCall.readUnits * calls,
    writeUnits: perCall.writeUnits * calls,
    gbSeconds: gbSecondsOf(perCall.lambdaMs, perCall.memoryMb) * calls,
    invocations: calls,
    meteredRequests: perCall.meteredRequests * calls,
  });
}

export async function ingest(stack: LocalStack, catalogue: SampleCatalogue, connectorKey: string): Promise<void> {
  const client = keepAliveClient(stack.gatewayUrl);
  const headers = { authorization: `Bearer ${connectorKey}`, 'content-type': 'application/json' };
  try {
    const opened = await client.send('POST', '/api/v1/ingest/batches', headers);
    const { batchId } = JSON.parse(opened.body) as { batchId: string };
    for (const entity of ['product', 'customer', 'quote', 'order'] as const) {
      const records = catalogue[entity];
      for (let start = 0; start < records.length; start += 1000) {
        const body = JSON.stringify({ entity, records: records.slice(start, start + 1000) });
        const staged = await client.send('POST', `/api/v1/ingest/batches/${batchId}/records`, headers, body);
        if (staged.status !== 202) throw new Error(`staging answered ${staged.status}: ${staged.body}`);
      }
    }
    await client.send('POST', `/api/v1/ingest/batches/${batchId}/commit`, headers);
    // Measured once the bands job after the drain is done: prices are drawn from its bands, and it would compete.
    for (;;) {
      const { status, bandsRecomputedAt } = JSON.parse((await client.send('GET', `/api/v1/ingest/batches/${batchId}`, headers)).body) as {
        status: string;
        bandsRecomputedAt?: string;
      };
      if (bandsRecomputedAt) return;
      if (status === 'failed') throw new Error('the bench catalogue failed to drain');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  } finally {
    client.close();
  }
}

export interface PlannedCall {
  readonly body: string;
  /** The keys a call of these lines reads: what the floor reads in one go. */
  readonly keys: PrimaryKey[];
}

/** A storefront or ERP quote: one customer, 100 different products, quantities of a typical order line. */
export function planCalls(workspaceId: string, catalogue: SampleCatalogue, count: number): PlannedCall[] {
  const next = seededRandom(7);
  const categoryOf = new Map(catalogue.product.map((product) => [product.sku, product.category]));
  return Array.from({ length: count }, () => {
    const customer = catalogue.customer[Math.floor(next() * catalogue.customer.length)]?.externalId as string;
    const skus = new Set<string>();
    while (skus.size < LINES_PER_CALL) skus.add(catalogue.product[Math.floor(next() * catalogue.product.length)]?.sku as string);
    const lines = [...skus].map((productSku) => ({ productSku, customerExternalId: customer, quantity: 1 + Math.floor(next() * 50) }));
    const categories = new Set([...skus].map((sku) => categoryOf.get(sku) as string));
    return {
      body: JSON.stringify({ lines }),
      keys: [
        ...[...skus].map((sku) => keys.product(workspaceId, sku)),
        keys.customer(workspaceId, customer),
        keys.workspaceBands(workspaceId),
        ...[...categories].map((category) => keys.categoryBands(workspaceId, category)),
        ...[...categories].map((category) => keys.customerBands(workspaceId, customer, category)),
      ],
    };
  });
}

function storedSize(json: string): number {
  return brotliCompressSync(Buffer.from(json), { params: { [constants.BROTLI_PARAM_QUALITY]: 5 } }).byteLength;
}

/** Each call's latency and its floor's, and the bytes it sent and stored; the warm-up calls made but not kept. */
interface TimedCalls {
  readonly latencies: number[];
  readonly floor: number[];
  readonly responseBytes: number[];
  readonly storedBytes: number[];
}

async function timeCalls(client: ReturnType<typeof keepAliveClient>, planned: readonly PlannedCall[], erpKey: string): Promise<TimedCalls> {
  const latencies: number[] = [];
  const floor: number[] = [];
  const responseBytes: number[] = [];
  const storedBytes: number[] = [];
  // The floor: the same keys in one BatchGetItem round and one PutItem of the stored answer's size, on the same table.
  // Each call is followed by its floor, so that both see the machine in the same state.
  const timeFloor = async (call: PlannedCall, bytes: number) => {
    const started = performance.now();
    await getItems(call.keys, { consistent: false });
    await putItem({ Item: { PK: `BENCH#FLOOR#${randomUUID()}`, SK: 'CALL', response: Buffer.alloc(bytes, 1), expiresAt: 0 } });
    return performance.now() - started;
  };
  for (const [index, call] of planned.entries()) {
    const headers = { authorization: `Bearer ${erpKey}`, 'content-type': 'application/json', 'idempotency-key': randomUUID() };
    const started = performance.now();
    const response = await client.send('POST', '/api/v1/prices', headers, call.body);
    const elapsed = performance.now() - started;
    if (response.status !== 200) throw new Error(`prices answered ${response.status}: ${response.body}`);
    const stored = storedSize(response.body);
    const floorMs = await timeFloor(call, stored);
    if (index < WARMUP_CALLS) continue;
    latencies.push(elapsed);
    floor.push(floorMs);
    responseBytes.push(Buffer.byteLength(response.body) + Buffer.byteLength(call.body));
    storedBytes.push(stored);
  }
  return { latencies, floor, responseBytes, storedBytes };
}

export async function measurePriceServing(stack: LocalStack, options: { records: number; calls: number }): Promise<PriceServingFigures> {
  const size = mixFor(options.records);
  const catalogue = sampleCatalogue(size, { seed: 11, prefix: 'PS-', now: new Date() });
  const seller = await createWorkspaceWithKeys('Bench pricing');
  await ingest(stack, catalogue, seller.keys.connector);

  const planned = planCalls(seller.workspaceId, catalogue, WARMUP_CALLS + options.calls);
  const client = keepAliveClient(stack.gatewayUrl);
  const costs: RequestCost[] = [];
  const stopListening = listenToRequestCosts((cost) => {
    if (cost.route === 'priceLines') costs.push(cost);
  });
  const { latencies, floor, responseBytes, storedBytes } = await timeCalls(client, planned, seller.keys.erp).finally(() => {
    stopListening();
    client.close();
  });
  const measured = costs.slice(WARMUP_CALLS);

  const average = (values: readonly number[]) => values.reduce((sum, value) => sum + value, 0) / Math.max(1, values.length);
  const readUnits = average(measured.map((cost) => cost.ledger.readUnits));
  const writeUnits = average(measured.map((cost) => cost.ledger.writeUnits));
  const lambdaMs = average(measured.map((cost) => cost.durationMs));
  const memoryMb = routeById('priceLines').memoryMb;
  const meteredRequests = average(responseBytes.map((bytes) => Math.max(1, Math.ceil(bytes / HTTP_API_METERING_BYTES))));
  const readKeys = average(planned.slice(WARMUP_CALLS).map((call) => call.keys.length));
  const ours = costOf({ readUnits, writeUnits, lambdaMs, memoryMb, meteredRequests });

  // Naive: per line a GetItem of the product, the customer and five bands (0.5 RRU each); the response stored as JSON
  // (1 WRU per KB); a decision item per line (1 WRU each); plus the marker and the usage counter writes we make too.
  const averageResponse = average(responseBytes);
  const naiveReadUnits = LINES_PER_CALL * 7 * 0.5;
  const fixedWrites = writeUnits - Math.ceil(average(storedBytes) / 1024);
  const naiveWriteUnits = fixedWrites + Math.ceil(averageResponse / 1024) + LINES_PER_CALL;
  const naive = costOf({ readUnits: naiveReadUnits, writeUnits: naiveWriteUnits, lambdaMs, memoryMb, meteredRequests });

  const p50Ms = percentile(latencies, 50);
  const floorP50Ms = percentile(floor, 50);
  return {
    catalogue: size,
    calls: latencies.length,
    linesPerCall: LINES_PER_CALL,
    p50Ms,
    p99Ms: percentile(latencies, 99),
    floorP50Ms,
    floorP99Ms: percentile(floor, 99),
    ratioToFloor: p50Ms / floorP50Ms,
    readUnits,
    writeUnits,
    readKeys,
    lambdaMs,
    responseBytes: averageResponse,
    storedBytes: average(storedBytes),
    memoryMb,
    costPerMillionLines: ours,
    naivePerMillionLines: naive,
    naiveReadUnits,
    naiveWriteUnits,
  };
}
