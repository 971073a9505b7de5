import { describe, expect, it } from 'vitest';
import { expectShown } from '#test/support/markup.ts';
import type { Batch } from '#shared/batches/schema.ts';
import type { Task } from '#shared/writebacks/schema.ts';
import { batchesView } from './batches.ts';
import { writebacksView } from './writebacks.ts';

const HOSTILE = '<img src=x onerror=alert(1)>';
const connector = { connectorId: 'con_1', name: HOSTILE, receivesWritebacks: true };

function batch(extra: Partial<Batch>): Batch {
  return {
    batchId: '9b2f6d8e-0000-4000-8000-000000000001',
    workspaceId: 'ws_1',
    connectorId: 'con_1',
    status: 'draining',
    entities: ['product', 'order'],
    recordCount: 200,
    lineCount: 0,
    skippedOverCap: 0,
    createdAt: '2026-11-26T07:00:00.000Z',
    chunkSeq: 2,
    drainedCount: 50,
    ...extra,
  };
}

function task(extra: Partial<Task>): Task {
  return {
    taskId: 'wb_0000000000000000000001',
    workspaceId: 'ws_1',
    connectorId: 'con_1',
    channel: 'erp',
    approvalId: 'apv_1',
    productSku: 'LAMP-1',
    priceCents: 2150,
    currency: 'USD',
    reasonSummary: 's',
    pricingDecisionId: 'pd_1',
    status: 'pending',
    createdAt: '2026-11-26T07:00:00.000Z',
    leases: 0,
    ...extra,
  };
}

describe('the batches page', () => {
  const nowMs = Date.parse('2026-11-26T08:00:00Z');

  it("shows each connector's batches with their status, progress and error", () => {
    const markup = batchesView(
      [
        {
          connector,
          batches: [batch({}), batch({ batchId: 'b2', status: 'failed', error: 'The batch was not committed within 24 hours.' })],
        },
      ],
      nowMs,
    ).body.text;
    expectShown(markup, '<span class="status status-draining">draining</span>');
    expectShown(markup, '<progress max="200" value="50" aria-label="50 of 200 drained"></progress> 50 of 200 drained');
    expectShown(markup, '<td>product, order</td>');
    expectShown(markup, '<td>The batch was not committed within 24 hours.</td>');
    expectShown(markup, '&lt;img src=x onerror=alert(1)&gt;');
    expect(markup).not.toContain('<img');
  });

  it('counts a drained batch as wholly drained, and says when its prices are still updating', () => {
    const markup = batchesView([{ connector, batches: [batch({ status: 'drained', drainedCount: 200 })] }], nowMs).body.text;
    expectShown(markup, '200 of 200 drained');
    expectShown(markup, '(prices updating)');
  });

  it('says how many products a batch left with data warnings, and nothing when it left none', () => {
    const markup = batchesView([{ connector, batches: [batch({ status: 'drained', drainedCount: 200, warnedProducts: 2 })] }], nowMs).body
      .text;
    expectShown(markup, '<span class="check-data">2 products to check</span> (data warnings)');
    const none = batchesView([{ connector, batches: [batch({ status: 'drained', drainedCount: 200, warnedProducts: 0 })] }], nowMs).body
      .text;
    expect(none).not.toContain('to check');
  });

  it("writes today's moments as their time alone, and others with their day", () => {
    const markup = batchesView([{ connector, batches: [batch({ committedAt: '2026-11-25T23:59:59.000Z' })] }], nowMs).body.text;
    expectShown(
      markup,
      '<time datetime="2026-11-26T07:00:00.000Z">07:00:00</time>',
      '<time datetime="2026-11-25T23:59:59.000Z">2026-11-25 23:59:59</time>',
    );
  });

  it('says so when there are no connectors, or a connector has no batches', () => {
    expect(batchesView([], nowMs).body.text).toContain('No connectors yet');
    expect(batchesView([{ connector, batches: [] }], nowMs).body.text).toContain('No batches yet.');
  });
});

describe('the write-backs page', () => {
  const nowMs = Date.parse('2026-11-26T08:00:00Z');

  it("shows each connector's tasks with their status and counts, a lease run out as such", () => {
    const markup = writebacksView(
      [
        {
          connector,
          tasks: [
            task({}),
            task({ taskId: 'wb_2', status: 'leased', leaseUntilMs: nowMs - 1 }),
            task({ taskId: 'wb_3', status: 'leased', leaseUntilMs: nowMs + 60_000 }),
            task({ taskId: 'wb_4', status: 'failed', error: HOSTILE, finishedAt: '2026-11-26T07:30:00.000Z' }),
          ],
        },
      ],
      nowMs,
    ).body.text;
    expectShown(markup, '<tr data-task-id="wb_0000000000000000000001">');
    expectShown(markup, '<td class="number">21.50 USD</td>');
    expectShown(markup, '<li><span class="status status-pending">pending</span> 1</li>');
    expectShown(markup, '<li><span class="status status-leased">leased</span> 1</li>');
    expectShown(markup, '<li><span class="status status-lease-expired">lease expired</span> 1</li>');
    expectShown(markup, '<li><span class="status status-failed">failed</span> 1</li>');
    expect(markup).not.toContain('<img');
  });

  it("links each task's SKU to its product page, where its approvals and price are", () => {
    const markup = writebacksView([{ connector, tasks: [task({ productSku: 'CLIP 2/A' })] }], nowMs).body.text;
    expectShown(markup, '<td><a href="/console/recommendations/CLIP%202%2FA">CLIP 2/A</a></td>');
  });

  it('says when a connector takes no write-backs', () => {
    const markup = writebacksView([{ connector: { ...connector, receivesWritebacks: false }, tasks: [] }], nowMs).body.text;
    expectShown(markup, 'does not receive write-backs');
  });
});
