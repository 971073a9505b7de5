// The cost ledger and its report against the local stack: requests of known cost add up to the report, background work is charged to its workspace, and bad ranges are refused.
import { execFile } from 'node:child_process';
import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { sweepOnce as sweep } from '../../functions/workers/sweep-webhook-outbox.ts';
import { projectRoot } from '#lib/stack/project.ts';
import { type Gateway, startGateway } from '#lib/local/gateway.ts';
import { loadHandler } from '#lib/local/handlers.ts';
import { costAtListPrices } from '#shared/cost/list-prices.ts';
import { listenToRequestCosts, type RequestCost } from '#platform/observability.ts';
import { fallbackRoute, routeById } from '#edge/routes.ts';
import { tableClient } from '#platform/table/client.ts';
import { newEvent } from '#shared/webhooks/events.ts';
import { outboxPut } from '#shared/webhooks/outbox.ts';
import { commitBatch, openBatchWith } from './ingest-support.ts';
import { drain, pricingHistory, workspaceWith } from './prices-support.ts';
import { call, newWorkspace, type TestWorkspace } from './support.ts';
import { startReceiver } from './webhook-receiver.ts';

const CALLS = 5;

/** `npm run admin -- cost report …` against the test run's local stack, as an operator runs it. */
async function costReport(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)(
      process.execPath,
      ['bin/admin.ts', 'cost', 'report', ...args, '--stack', inject('stackFile')],
      { cwd: projectRoot },
    );
    return { code: 0, stdout, stderr };
  } catch (error) {
    return error as { code: number; stdout: string; stderr: string };
  }
}

function usage(key: string, query = '') {
  return call(`/v1/usage${query}`, { key });
}

describe('the cost ledger', () => {
  let seller: TestWorkspace;
  let gateway: Gateway;

  beforeAll(async () => {
    seller = await newWorkspace('Costed Seller');
    await drain(seller, { product: pricingHistory().product });
    const priceLines = routeById('priceLines');
    // The price route's handler in this process, so that the cost line of each request can be read as it ends.
    gateway = await startGateway({
      host: '127.0.0.1',
      port: 0,
      routes: [{ ...priceLines, name: priceLines.id }],
      fallback: { ...fallbackRoute, name: fallbackRoute.id },
      load: loadHandler,
    });
  }, 60_000);
  afterAll(() => gateway.stop());

  it('reports in dollars exactly what the cost lines of its requests add up to', async () => {
    const lines: RequestCost[] = [];
    const stop = listenToRequestCosts((cost) => {
      if (cost.workspaceId === seller.workspaceId && cost.route === 'priceLines') lines.push(cost);
    });
    try {
      for (let index = 0; index < CALLS; index++) {
        const body = { lines: ['BOLT', 'NUT', 'WASHER'].map((productSku) => ({ productSku, quantity: 1 + index })) };
        const response = await fetch(`${gateway.url}/api/v1/prices`, {
          method: 'POST',
          headers: { authorization: `Bearer ${seller.keys.erp}`, 'content-type': 'application/json', 'idempotency-key': `cost-${index}` },
          body: JSON.stringify(body),
        });
        expect(response.status).toBe(200);
      }
      const refused = await fetch(`${gateway.url}/api/v1/prices`, {
        method: 'POST',
        headers: { authorization: `Bearer ${seller.keys.erp}`, 'content-type': 'application/json', 'idempotency-key': 'cost-bad' },
        body: JSON.stringify({ lines: [] }),
      });
      expect(refused.status).toBe(422);
    } finally {
      stop();
    }
    expect(lines).toHaveLength(CALLS + 1);

    const report = await usage(seller.keys.pwLive, '?by=route');
    expect(report.status).toBe(200);
    const line = report.json.breakdown.find((entry: { key: string }) => entry.key === 'priceLines');
    const sum = (of: (cost: RequestCost) => number) => lines.reduce((total, cost) => total + of(cost), 0);
    const readUnits = sum((cost) => cost.ledger.readUnits);
    const writeUnits = sum((cost) => cost.ledger.writeUnits);
    const gbSeconds = sum((cost) => Math.ceil(cost.durationMs)) * (routeById('priceLines').memoryMb / 1024 / 1000);
    // Locally the ledger flushes after every request: one write unit of its own each time.
    const accounting = line.accounting_write_units;
    expect(accounting).toBe(CALLS + 1);
    expect(line).toMatchObject({
      requests: CALLS + 1,
      requests_by_status: { '2xx': CALLS, '3xx': 0, '4xx': 1, '5xx': 0 },
      priced_lines: CALLS * 3,
      lambda_invocations: CALLS + 1,
      api_gateway_requests: CALLS + 1,
      sqs_requests: 0,
    });
    expect(line.read_units).toBeCloseTo(readUnits, 3);
    expect(line.write_units).toBeCloseTo(writeUnits + accounting, 3);
    expect(line.lambda_gb_seconds).toBeCloseTo(gbSeconds, 5);
    const expected = costAtListPrices({
      readUnits,
      writeUnits: writeUnits + accounting,
      gbSeconds,
      invocations: CALLS + 1,
      meteredRequests: CALLS + 1,
      sqsRequests: 0,
    });
    expect(line.cost.total).toBeCloseTo(expected.total, 8);
    expect(line.cost_per_request).toBeCloseTo(expected.total / (CALLS + 1), 8);
    expect(line.cost_per_million_priced_lines).toBeCloseTo((expected.total / (CALLS * 3)) * 1e6, 4);
  });

  it('charges the drain and the bands job of a batch to its workspace, with their SQS requests', async () => {
    // The bands job's counts are flushed as it ends, a moment after the batch says its bands are recomputed.
    let routes: Record<string, { requests: number; sqs_requests: number; write_units: number }> = {};
    for (let attempt = 0; attempt < 50 && !routes.bands; attempt++) {
      const report = await usage(seller.keys.pwLive, '?by=route');
      routes = Object.fromEntries(report.json.breakdown.map((entry: { key: string }) => [entry.key, entry]));
      if (!routes.bands) await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(routes.drain?.requests).toBeGreaterThan(0);
    expect(routes.drain?.write_units).toBeGreaterThan(0);
    expect(routes.drain?.sqs_requests).toBeGreaterThanOrEqual(3);
    expect(routes.bands?.requests).toBeGreaterThan(0);
    // The drain job it hands on, and the batch.committed event it hands to the webhooks queue.
    expect(routes.commitBatch?.sqs_requests).toBe(2);
  });

  it('charges the delivery of a webhook event to its workspace under the worker’s name, with its SQS requests', async () => {
    const subscriber = await newWorkspace('Webhook Costed Seller');
    const receiver = await startReceiver();
    try {
      const created = await call('/v1/webhook-endpoints', {
        method: 'POST',
        key: subscriber.keys.pwLive,
        body: { url: receiver.url, event_types: ['batch.committed'] },
      });
      expect(created.status, created.text).toBe(201);
      receiver.verifyWith(created.json.secret as string);
      const batchId = await openBatchWith(subscriber.keys.connector);
      await commitBatch(subscriber.keys.connector, batchId);
      await receiver.waitFor((requests) => requests.some((request) => request.event?.type === 'batch.committed'));
    } finally {
      await receiver.close();
    }
    // The attempt's counts are flushed as its batch of messages ends, a moment after the receiver answered.
    type Line = { requests: number; read_units: number; write_units: number; sqs_requests: number; lambda_gb_seconds: number };
    let line: Line | undefined;
    let report: Awaited<ReturnType<typeof usage>> | undefined;
    for (let attempt = 0; attempt < 100; attempt++) {
      report = await usage(subscriber.keys.pwLive, '?by=route');
      line = report.json.breakdown.find((entry: { key: string }) => entry.key === 'deliverWebhooks');
      // The fan-out and the attempt: two messages of the worker. On a busy machine the sweeper may hand the event on
      // a second time first, a duplicate fan-out that reads less: wait until the attempt's own counts are in too.
      if (line && line.requests >= 2 && line.read_units >= 4 && line.write_units >= 6 && line.sqs_requests >= 2) break;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(line).toBeDefined();
    expect(line?.requests).toBeGreaterThanOrEqual(2);
    // Fan-out: the event and the endpoints read, the event marked dispatched; attempt: three reads, the log's transaction.
    expect(line?.read_units).toBeGreaterThanOrEqual(4);
    expect(line?.write_units).toBeGreaterThanOrEqual(6);
    // The fan-out's send of the attempt, and each message's share of its batch's receive and delete.
    expect(line?.sqs_requests).toBeGreaterThanOrEqual(2);
    expect(line?.lambda_gb_seconds).toBeGreaterThan(0);
    expect(report?.json.routes).toContainEqual(expect.objectContaining({ route: 'deliverWebhooks', cost_per_request: expect.any(Number) }));
    // The commit's hand-off of the event to the queue is the commit's own SQS request.
    const commit = report?.json.breakdown.find((entry: { key: string }) => entry.key === 'commitBatch');
    expect(commit?.sqs_requests).toBe(2);
    const text = await costReport('--workspace', subscriber.workspaceId, '--by', 'route');
    expect(text.stdout).toMatch(/^deliverWebhooks /m);
  }, 60_000);

  it('charges a sweep of the outbox to the workspace whose lost event it sent', async () => {
    const lost = await newWorkspace('Swept Seller');
    // As if the process had stopped right after its commit, a minute ago: the event is in the outbox, and was never sent.
    const event = newEvent(
      'batch.committed',
      lost.workspaceId,
      {
        batchId: crypto.randomUUID(),
        connectorId: lost.connectorId,
        jobId: 'job_lost',
        recordCount: 0,
        committedAt: new Date().toISOString(),
      },
      new Date(Date.now() - 60_000),
    );
    await tableClient().send(new TransactWriteCommand({ TransactItems: [outboxPut(event)] }));
    // The sweeper, here or the local stack's own on its minute: either charges the sweep that sent the event.
    await sweep();
    let line: { requests: number; read_units: number; sqs_requests: number } | undefined;
    for (let attempt = 0; attempt < 100 && !line; attempt++) {
      const report = await usage(lost.keys.pwLive, '?by=route');
      line = report.json.breakdown.find((entry: { key: string }) => entry.key === 'sweepWebhookOutbox');
      if (!line) await new Promise((resolve) => setTimeout(resolve, 300));
    }
    expect(line?.requests).toBeGreaterThanOrEqual(1);
    expect(line?.read_units).toBeGreaterThan(0);
    expect(line?.sqs_requests).toBeGreaterThan(0);
  }, 60_000);

  it('prints the same report from the admin CLI, in dollars, as JSON or CSV, and refuses a bad day with its usage', async () => {
    const api = (await usage(seller.keys.pwLive, '?by=route')).json;
    const json = await costReport('--workspace', seller.workspaceId, '--by', 'route', '--json');
    expect(json.code, json.stderr).toBe(0);
    expect(JSON.parse(json.stdout).total.cost.total).toBeGreaterThanOrEqual(api.total.cost.total);
    const text = await costReport('--workspace', seller.workspaceId);
    expect(text.stdout).toMatch(/^Cost of workspace ws_\w+, \d{4}-\d{2}-\d{2} to \d{4}-\d{2}-\d{2} \(UTC\), at us-east-1 list prices/);
    expect(text.stdout).toMatch(/^total .*\$\d+\.\d{6}/m);
    const csv = await costReport('--workspace', seller.workspaceId, '--by', 'route', '--csv');
    expect(csv.stdout.split('\n')[0]).toMatch(/^route,requests,status_2xx,/);
    expect(csv.stdout).toMatch(/^priceLines,/m);
    const bad = await costReport('--workspace', seller.workspaceId, '--from', '2026-02-30');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--from: from must be a day/);
  });

  it('reports a day by day, and a workspace with no ledger as nothing', async () => {
    const stranger = await newWorkspace('Idle Seller');
    const report = await usage(stranger.keys.pwLive, '?from=2026-01-01&to=2026-01-31');
    expect(report.status).toBe(200);
    expect(report.json).toMatchObject({ from: '2026-01-01', to: '2026-01-31', by: 'day', breakdown: [], currency: 'USD' });
    expect(report.json.total.cost.total).toBe(0);
  });

  it.each([
    ['?from=2026-02-30', /from must be a day/],
    ['?to=yesterday', /to must be a day/],
    ['?from=2026-11-02&to=2026-11-01', /after to/],
    ['?from=2020-01-01&to=2026-01-01', /at most 400 days/],
    ['?by=week', /by is day or route/],
    ['?form=2026-11-01', /Unknown field form/],
  ])('is 400 bad_request for %s, and reads nothing', async (query, message) => {
    const response = await usage(seller.keys.pwLive, query);
    expect(response.status).toBe(400);
    expect(response.json.error.code).toBe('bad_request');
    expect(response.json.error.message).toMatch(message);
  });

  it('is 403 feature_not_enabled for a workspace without the overview, and 401 for another family of key', async () => {
    const without = await workspaceWith({ features: ['writebacks', 'storefront'] });
    expect((await usage(without.keys.pwLive)).status).toBe(403);
    expect((await usage(seller.keys.erp)).status).toBe(401);
  });
});
