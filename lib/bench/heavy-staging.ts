// Benchmark: the heaviest legal staging call, about 10 MB of order lines in one call, staged, drained and priced in dollars.
import { readStagedChunks } from '#shared/batches/chunk-items.ts';
import { listenToRequestCosts } from '#platform/observability.ts';
import { workers } from '#edge/routes.ts';
import { createWorkspaceWithKeys } from '#lib/local/seed.ts';
import type { LocalStack } from '#lib/local/stack.ts';
import { type CostBreakdown, costAtListPrices, HTTP_API_METERING_BYTES } from '#shared/cost/list-prices.ts';
import { keepAliveClient } from './measure.ts';

/** Under API Gateway's 10 MB body limit, with room for the envelope. */
const BODY_BYTES = 10 * 1024 * 1024 - 64 * 1024;
const LINES_PER_ORDER = 1_000;
const SKU = 'HEAVY-1';

export interface HeavyStagingFigures {
  readonly bodyBytes: number;
  readonly orders: number;
  readonly lines: number;
  readonly pieces: number;
  readonly stagingWriteUnits: number;
  readonly drainWriteUnits: number;
  readonly drainReadUnits: number;
  /** Drain invocations, the first and its continuations, and the longest: each must end within the worker's timeout. */
  readonly drainInvocations: number;
  readonly longestDrainSeconds: number;
  /** The bands job's invocations after the drain, and the longest. */
  readonly bandsInvocations: number;
  readonly longestBandsSeconds: number;
  readonly drainSeconds: number;
  readonly bandsSeconds: number;
  readonly cost: CostBreakdown;
}

/** The smallest order lines the contract takes, so that one call holds as many as it can. */
function heaviestCall(): { body: string; orders: number } {
  const orders: string[] = [];
  let bytes = '{"entity":"order","records":[]}'.length;
  for (let id = 0; ; id++) {
    const lines = Array.from({ length: LINES_PER_ORDER }, (_, index) => ({
      productSku: SKU,
      quantity: index + 1,
      costCents: 100,
      soldPriceCents: 150,
    }));
    const order = JSON.stringify({
      externalId: `H-${id}`,
      customerExternalId: 'C-1',
      currency: 'USD',
      soldAt: '2026-10-01T08:00:00Z',
      lines,
    });
    if (bytes + order.length + 1 > BODY_BYTES) break;
    orders.push(order);
    bytes += order.length + 1;
  }
  return { body: `{"entity":"order","records":[${orders.join(',')}]}`, orders: orders.length };
}

/** The costs the service counts for the workspace's staging calls and drain worker, and the worker's invocations. */
function listenToWorkspaceCosts(workspaceId: string) {
  const drainMemoryMb = workers.find((worker) => worker.id === 'drain')?.memoryMb ?? 1024;
  const costs = { stagingWrites: 0, drainWrites: 0, drainReads: 0, gbSeconds: 0 };
  // The worker's invocations for this workspace, with when each ended: those that end by `drained` are the drain's.
  const invocations: Array<{ endedAt: number; durationMs: number }> = [];
  const stop = listenToRequestCosts((cost) => {
    if (cost.workspaceId !== workspaceId) return;
    if (cost.route === 'stageRecords') costs.stagingWrites += cost.ledger.writeUnits;
    if (cost.route === 'drain') {
      costs.drainWrites += cost.ledger.writeUnits;
      costs.drainReads += cost.ledger.readUnits;
      costs.gbSeconds += (Math.ceil(cost.durationMs) / 1000) * (drainMemoryMb / 1024);
      invocations.push({ endedAt: performance.now(), durationMs: cost.durationMs });
    }
  });
  return { costs, invocations, stop };
}

/** The product and the customer the heavy call's orders name, staged first. */
async function stageCatalogue(client: ReturnType<typeof keepAliveClient>, path: string, headers: Record<string, string>): Promise<void> {
  const product = { sku: SKU, name: 'Heavy', category: 'Bench', costCents: 100, currentPriceCents: 160, currency: 'USD' };
  const customer = { externalId: 'C-1', name: 'Bench customer', segment: 'smb', currency: 'USD' };
  for (const [entity, record] of [
    ['product', product],
    ['customer', customer],
  ] as const) {
    const response = await client.send('POST', path, headers, JSON.stringify({ entity, records: [record] }));
    if (response.status !== 202) throw new Error(`staging answered ${response.status}: ${response.body}`);
  }
}

/** Reads the batch's status every 100 ms until it has drained; a failed batch is thrown. */
async function waitUntilDrained(status: () => Promise<{ status: string }>): Promise<void> {
  for (;;) {
    const current = await status();
    if (current.status === 'drained') break;
    if (current.status === 'failed') throw new Error(`the batch failed: ${JSON.stringify(current)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

export async function measureHeavyStaging(stack: LocalStack): Promise<HeavyStagingFigures> {
  const seller = await createWorkspaceWithKeys('Bench heavy staging');
  const headers = { authorization: `Bearer ${seller.keys.connector}`, 'content-type': 'application/json' };
  const client = keepAliveClient(stack.gatewayUrl);
  const { costs, invocations, stop } = listenToWorkspaceCosts(seller.workspaceId);
  try {
    // A status read the busy machine answers late (503) is read again.
    const status = async (): Promise<{ status: string; bandsRecomputedAt?: string }> => {
      const response = await client.send('GET', `/api/v1/ingest/batches/${batchId}`, headers);
      return response.status === 200
        ? (JSON.parse(response.body) as { status: string; bandsRecomputedAt?: string })
        : { status: 'unknown' };
    };
    const opened = await client.send('POST', '/api/v1/ingest/batches', headers);
    const batchId = (JSON.parse(opened.body) as { batchId: string }).batchId;
    await stageCatalogue(client, `/api/v1/ingest/batches/${batchId}/records`, headers);
    const call = heaviestCall();
    const writesBefore = costs.stagingWrites;
    const staged = await client.send('POST', `/api/v1/ingest/batches/${batchId}/records`, headers, call.body);
    if (staged.status !== 202) throw new Error(`the heavy call answered ${staged.status}: ${staged.body}`);
    const stagingWriteUnits = costs.stagingWrites - writesBefore;

    const committedAt = performance.now();
    const committed = await client.send('POST', `/api/v1/ingest/batches/${batchId}/commit`, headers);
    if (committed.status !== 202) throw new Error(`commit answered ${committed.status}`);
    await waitUntilDrained(status);
    const drainedAt = performance.now();
    while (!(await status()).bandsRecomputedAt) await new Promise((resolve) => setTimeout(resolve, 100));
    const bandsAt = performance.now();

    const drains = invocations.filter((invocation) => invocation.endedAt <= drainedAt);
    const bandsJobs = invocations.filter((invocation) => invocation.endedAt > drainedAt);
    const pieces = (await readStagedChunks({ workspaceId: seller.workspaceId, batchId })).filter((item) => item.entity === 'order').length;
    return {
      bodyBytes: Buffer.byteLength(call.body),
      orders: call.orders,
      lines: call.orders * LINES_PER_ORDER,
      pieces,
      stagingWriteUnits,
      drainWriteUnits: costs.drainWrites,
      drainReadUnits: costs.drainReads,
      drainInvocations: drains.length,
      longestDrainSeconds: Math.max(0, ...drains.map((invocation) => invocation.durationMs)) / 1000,
      bandsInvocations: bandsJobs.length,
      longestBandsSeconds: Math.max(0, ...bandsJobs.map((invocation) => invocation.durationMs)) / 1000,
      drainSeconds: (drainedAt - committedAt) / 1000,
      bandsSeconds: (bandsAt - drainedAt) / 1000,
      cost: costAtListPrices({
        readUnits: costs.drainReads,
        writeUnits: stagingWriteUnits + costs.drainWrites,
        gbSeconds: costs.gbSeconds,
        invocations: invocations.length + 1,
        meteredRequests: Math.ceil(Buffer.byteLength(call.body) / HTTP_API_METERING_BYTES),
      }),
    };
  } finally {
    stop();
    client.close();
  }
}
