// The typed client (client/) through the local gateway: a connector's ingest, an ERP's prices, an approval and its write-back.
import { afterEach, describe, expect, inject, it } from 'vitest';
import { type BatchStatus, createPricingClient, PricingApiError } from '../../client/src/index.ts';
import { CONTRACT_VIOLATION_HEADER } from '#lib/local/gateway.ts';
import { pricingHistory } from './prices-support.ts';
import { failOnContractViolation, newWorkspace } from './support.ts';

const violations: string[] = [];

afterEach(() => {
  const found = violations.splice(0);
  for (const violation of found) failOnContractViolation(violation);
});

/** A client on the shared gateway; the gateway's contract verdicts are collected rather than thrown, which the client would retry. */
function clientFor(key: string) {
  return createPricingClient({
    baseUrl: inject('stack').gatewayUrl,
    key,
    fetch: async (input, init) => {
      const response = await fetch(input, init);
      const violation = response.headers.get(CONTRACT_VIOLATION_HEADER);
      if (violation) violations.push(violation);
      return response;
    },
  });
}

describe('the typed client', () => {
  it('ingests, prices, approves and writes back a price through every wrapped method', async () => {
    const workspace = await newWorkspace('Client Seller');
    const connector = clientFor(workspace.keys.connector);
    const erp = clientFor(workspace.keys.erp);
    const manager = clientFor(workspace.keys.pwLive);
    const history = pricingHistory();

    const { batchId, connectorId } = await connector.openBatch();
    expect(connectorId).toBe(workspace.connectorId);
    expect(await connector.stageRecords(batchId, 'product', history.product)).toEqual({ staged: history.product.length });
    expect(await connector.stageRecords(batchId, 'customer', history.customer)).toEqual({ staged: history.customer.length });
    const quote = {
      externalId: 'Q-CLIENT',
      customerExternalId: 'C-1',
      outcome: 'won' as const,
      createdAt: '2026-10-01T09:30:00Z',
      decidedAt: '2026-10-03T12:00:00Z',
      lines: [{ productSku: 'BOLT', quantity: 10, costCents: 1000, quotedPriceCents: 1400, pricingDecisionId: null }],
    };
    expect(await connector.stageRecords(batchId, 'quote', [quote])).toEqual({ staged: 1 });
    expect(await connector.stageRecords(batchId, 'order', history.order)).toEqual({ staged: history.order.length });
    expect((await connector.batchStatus(batchId)).status).toBe('open');
    expect((await connector.commitBatch(batchId)).jobId).toMatch(/^job_/);

    const drained = await connector.waitForBatch(batchId, { pollMs: 100, timeoutMs: 20_000 });
    expect(drained.status, JSON.stringify(drained)).toBe('drained');
    const banded = await connector.waitForBatch(batchId, {
      until: (status: BatchStatus) => status.bandsRecomputedAt !== undefined,
      pollMs: 100,
      timeoutMs: 20_000,
    });
    expect(banded).toMatchObject({ status: 'drained', entities: ['product', 'customer', 'quote', 'order'] });

    const priced = await erp.priceLines([
      { productSku: 'BOLT', customerExternalId: 'C-LOYAL', quantity: 12 },
      { productSku: 'NOPE', quantity: 1 },
    ]);
    expect(priced.lines[0]).toMatchObject({ ok: true, currency: 'USD', pricingDecisionId: expect.stringMatching(/^pd_/) });
    expect(priced.lines[1]).toMatchObject({ ok: false, error: { code: 'unknown_product', param: 'lines[1].productSku' } });

    const recommendation = await manager.getPrice('BOLT', { include: ['rationale', 'drivers'] });
    expect(recommendation).toMatchObject({ sku: 'BOLT', currency: 'USD', current_price: 14.5, rationale: expect.any(String) });
    const approval = await manager.approvePrice('BOLT', recommendation.recommended_price);
    expect(approval).toMatchObject({ sku: 'BOLT', price: recommendation.recommended_price, livemode: true });
    expect(approval.published_to).toEqual([{ connector_id: workspace.connectorId, writeback_id: expect.any(String) }]);

    const { tasks } = await connector.claimWritebacks({ limit: 5, leaseSeconds: 60 });
    expect(tasks.map((task) => task.id)).toEqual([approval.published_to[0]?.writeback_id]);
    const [task] = tasks;
    if (!task) throw new Error('no task was claimed');
    expect(task).toMatchObject({ productSku: 'BOLT', priceCents: Math.round(recommendation.recommended_price * 100) });
    const extended = await connector.extendWriteback(task.id, { leaseSeconds: 300 });
    expect(Date.parse(extended.task.leaseUntil)).toBeGreaterThan(Date.parse(task.leaseUntil));
    expect(await connector.ackWritebacks([{ id: task.id, ok: true }])).toEqual({ applied: 1, failed: 0, expired: 0, ignored: 0 });
    expect((await manager.getPrice('BOLT')).current_price).toBe(recommendation.recommended_price);
  });

  it("throws a PricingApiError naming the bad field of a refused stage call, with the answer's request id", async () => {
    const workspace = await newWorkspace('Client Seller');
    const connector = clientFor(workspace.keys.connector);
    const { batchId } = await connector.openBatch();
    const error = await connector
      .stageRecords(batchId, 'product', [{ sku: 'BOLT', name: 'Hex bolt', category: 'Fasteners', costCents: -1, currentPriceCents: 100 }])
      .catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(PricingApiError);
    expect(error).toMatchObject({ status: 422, code: 'invalid_request', param: 'records[0].costCents', requestId: expect.any(String) });
  });

  it("throws a PricingApiError with the overview's code and request_id for an approval below the floor", async () => {
    const workspace = await newWorkspace('Client Seller');
    const connector = clientFor(workspace.keys.connector);
    const { batchId } = await connector.openBatch();
    await connector.stageRecords(batchId, 'product', pricingHistory().product);
    await connector.commitBatch(batchId);
    await connector.waitForBatch(batchId, { until: (status) => status.bandsRecomputedAt !== undefined, pollMs: 100, timeoutMs: 20_000 });
    const error = await clientFor(workspace.keys.pwLive)
      .approvePrice('BOLT', 0.01)
      .catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(PricingApiError);
    expect(error).toMatchObject({ status: 422, code: 'guardrail_violation', requestId: expect.any(String) });
  });
});
