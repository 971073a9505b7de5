// Unit tests of the write-back rules: leases, what an ack does, the claim window and order, and the task a connector sees.
import { describe, expect, it } from 'vitest';
import {
  attemptOrder,
  CLAIM_SLICES,
  CLAIM_WINDOW_MAX,
  type AckVerdict,
  claimWindow,
  countedAs,
  isLeaseLive,
  judgeAck,
  taskView,
} from './rules.ts';
import type { Task } from './schema.ts';

const NOW = Date.UTC(2026, 2, 1, 12, 0, 0, 123);

function task(overrides: Partial<Task> = {}): Task {
  return {
    taskId: 'wb_0000000000000000000001',
    workspaceId: 'ws_1',
    connectorId: 'con_1',
    channel: 'Shopify',
    approvalId: 'apv_1',
    productSku: 'SKU-1',
    priceCents: 1999,
    currency: 'USD',
    reasonSummary: 'segment target 40.00% · final 40.00%',
    pricingDecisionId: 'pd_1',
    status: 'pending',
    createdAt: '2026-03-01T11:00:00.000Z',
    ...overrides,
  };
}

const leased = (leaseUntilMs: number) => task({ status: 'leased', leaseUntilMs, leases: 1 });

describe('a live lease', () => {
  it('is a leased task whose lease ends after now', () => {
    expect(isLeaseLive(leased(NOW + 1), NOW)).toBe(true);
  });

  it('has run out when its end is now or earlier', () => {
    expect(isLeaseLive(leased(NOW), NOW)).toBe(false);
    expect(isLeaseLive(leased(NOW - 1), NOW)).toBe(false);
  });

  it('is never held by a task that is not leased, whatever its lease end', () => {
    for (const status of ['pending', 'applied', 'failed', 'cancelled'] as const) {
      expect(isLeaseLive(task({ status, leaseUntilMs: NOW + 60_000 }), NOW)).toBe(false);
    }
  });

  it('is not held by a leased task without a lease end', () => {
    expect(isLeaseLive({ status: 'leased' }, NOW)).toBe(false);
  });
});

describe('judging an ack', () => {
  const judge = (subject: Task | undefined, ok: boolean, connectorId = 'con_1') => judgeAck(subject, { ok }, connectorId, NOW);

  it('ignores an ack of a task that does not exist', () => {
    expect(judge(undefined, true)).toBe('ignored');
    expect(judge(undefined, false)).toBe('ignored');
  });

  it("ignores an ack of another connector's task, even under a live lease", () => {
    expect(judge(leased(NOW + 60_000), true, 'con_2')).toBe('ignored');
    expect(judge(leased(NOW + 60_000), false, 'con_2')).toBe('ignored');
    expect(judge(task({ status: 'applied' }), true, 'con_2')).toBe('ignored');
  });

  it('applies a task under a live lease acked ok', () => {
    expect(judge(leased(NOW + 1), true)).toBe('apply');
  });

  it('fails a task under a live lease acked not ok', () => {
    expect(judge(leased(NOW + 1), false)).toBe('fail');
  });

  it('counts an ack of a lease that has run out as expired, whether ok or not', () => {
    expect(judge(leased(NOW - 1), true)).toBe('expired');
    expect(judge(leased(NOW - 1), false)).toBe('expired');
  });

  it('counts an ack as expired when the lease ends at exactly the moment it arrives', () => {
    expect(judge(leased(NOW), true)).toBe('expired');
    expect(judge(leased(NOW), false)).toBe('expired');
  });

  it('counts the same ok ack again for an applied task as applied', () => {
    expect(judge(task({ status: 'applied', leaseUntilMs: NOW - 1 }), true)).toBe('applied');
  });

  it('counts the same failing ack again for a failed task as failed', () => {
    expect(judge(task({ status: 'failed', leaseUntilMs: NOW - 1 }), false)).toBe('failed');
  });

  it('ignores an ack that contradicts how the task already finished', () => {
    expect(judge(task({ status: 'applied' }), false)).toBe('ignored');
    expect(judge(task({ status: 'failed' }), true)).toBe('ignored');
  });

  it('ignores an ack of a pending task, which no claim has leased', () => {
    expect(judge(task({ status: 'pending' }), true)).toBe('ignored');
    expect(judge(task({ status: 'pending' }), false)).toBe('ignored');
  });

  it('ignores an ack of a cancelled task', () => {
    expect(judge(task({ status: 'cancelled', supersededBy: 'apv_2' }), true)).toBe('ignored');
    expect(judge(task({ status: 'cancelled', supersededBy: 'apv_2' }), false)).toBe('ignored');
  });
});

describe('counting a verdict', () => {
  it('counts apply and a repeated applied ack alike, as applied', () => {
    expect(countedAs('apply')).toBe('applied');
    expect(countedAs('applied')).toBe('applied');
  });

  it('counts fail and a repeated failed ack alike, as failed', () => {
    expect(countedAs('fail')).toBe('failed');
    expect(countedAs('failed')).toBe('failed');
  });

  it('counts expired and ignored as themselves', () => {
    expect(countedAs('expired')).toBe('expired');
    expect(countedAs('ignored')).toBe('ignored');
  });

  it('counts every verdict as one of the four counts of the ack response', () => {
    const verdicts: AckVerdict[] = ['apply', 'fail', 'applied', 'failed', 'expired', 'ignored'];
    for (const verdict of verdicts) expect(['applied', 'failed', 'expired', 'ignored']).toContain(countedAs(verdict));
  });
});

describe('the claim window', () => {
  it('reads ten slices of the limit', () => {
    expect(CLAIM_SLICES).toBe(10);
    expect(claimWindow(1)).toBe(10);
    expect(claimWindow(7)).toBe(70);
  });

  it('reads a slice for each claim running beside it, once more claims run than there are slices', () => {
    expect(claimWindow(10, 1)).toBe(100);
    expect(claimWindow(10, 10)).toBe(100);
    expect(claimWindow(10, 50)).toBe(500);
    expect(claimWindow(1, 50)).toBe(50);
  });

  it('reads at most 1,000 tasks, however large the limit or the number of claims', () => {
    expect(CLAIM_WINDOW_MAX).toBe(1000);
    expect(claimWindow(100)).toBe(1000);
    expect(claimWindow(100, 50)).toBe(1000);
  });
});

describe('the order a claim tries tasks in', () => {
  const candidates = Array.from({ length: 10 }, (_, index) => `t${index}`);

  it('keeps the oldest first for a claim that runs alone (ticket 0)', () => {
    expect(attemptOrder(candidates, 3, 0)).toEqual(candidates);
  });

  it('starts each successive ticket at the next slice of limit tasks, the tasks before it last', () => {
    expect(attemptOrder(candidates, 3, 1)).toEqual(['t3', 't4', 't5', 't6', 't7', 't8', 't9', 't0', 't1', 't2']);
    expect(attemptOrder(candidates, 3, 2)).toEqual(['t6', 't7', 't8', 't9', 't0', 't1', 't2', 't3', 't4', 't5']);
  });

  it('wraps round modulo the number of whole slices', () => {
    // 10 candidates hold 3 whole slices of 3: ticket 3 starts where ticket 0 does, ticket 4 where ticket 1 does.
    expect(attemptOrder(candidates, 3, 3)).toEqual(attemptOrder(candidates, 3, 0));
    expect(attemptOrder(candidates, 3, 4)).toEqual(attemptOrder(candidates, 3, 1));
    expect(attemptOrder(candidates, 3, 5)[0]).toBe('t6');
  });

  it('keeps the oldest first whatever the ticket when there are fewer candidates than the limit', () => {
    const few = ['t0', 't1', 't2'];
    for (const ticket of [0, 1, 2, 7]) expect(attemptOrder(few, 5, ticket)).toEqual(few);
  });

  it('keeps the oldest first whatever the ticket when the candidates make exactly one slice', () => {
    const one = ['t0', 't1', 't2', 't3'];
    for (const ticket of [0, 1, 5]) expect(attemptOrder(one, 4, ticket)).toEqual(one);
  });

  it('answers no tasks for no candidates', () => {
    expect(attemptOrder([], 3, 2)).toEqual([]);
  });

  it('tries every candidate exactly once, whatever the limit and ticket', () => {
    for (const length of [0, 1, 5, 9, 10, 23]) {
      const all = Array.from({ length }, (_, index) => index);
      for (const limit of [1, 2, 3, 4, 10, 25]) {
        for (let ticket = 0; ticket < 12; ticket++) {
          const order = attemptOrder(all, limit, ticket);
          expect(order).toHaveLength(length);
          expect([...order].sort((a, b) => a - b)).toEqual(all);
        }
      }
    }
  });

  it('does not change the candidates it is given', () => {
    const given = [...candidates];
    attemptOrder(given, 3, 2);
    expect(given).toEqual(candidates);
  });
});

describe('the task a connector sees', () => {
  it('shows the task with its lease end as an ISO date with milliseconds, and its target', () => {
    const view = taskView(
      task({
        status: 'leased',
        leaseUntilMs: NOW,
        leases: 2,
        productExternalId: 'gid://shopify/Product/1',
        exchangeRateToBase: 0.0067,
        sequence: 7,
        waitsFor: 'wb_0000000000000000000000',
      }),
    );
    expect(view).toEqual({
      id: 'wb_0000000000000000000001',
      productSku: 'SKU-1',
      productExternalId: 'gid://shopify/Product/1',
      priceCents: 1999,
      currency: 'USD',
      leaseUntil: '2026-03-01T12:00:00.123Z',
      target: { connectorId: 'con_1', channel: 'Shopify' },
      exchangeRateToBase: 0.0067,
      reasonSummary: 'segment target 40.00% · final 40.00%',
      pricingDecisionId: 'pd_1',
      approvalId: 'apv_1',
      sequence: 7,
    });
  });

  it('shows sequence 0 for a task published before tasks had one', () => {
    expect(taskView(task({ status: 'leased', leaseUntilMs: NOW })).sequence).toBe(0);
  });

  it('leaves out the external id and the exchange rate when the task has none', () => {
    const view = taskView(task({ status: 'leased', leaseUntilMs: NOW }));
    expect(view).not.toHaveProperty('productExternalId');
    expect(view).not.toHaveProperty('exchangeRateToBase');
  });

  it('shows none of the stored fields a connector has no use for', () => {
    const view = taskView(task({ status: 'leased', leaseUntilMs: NOW, leases: 3, error: 'x', finishedAt: 'y' }));
    for (const field of [
      'workspaceId',
      'status',
      'leases',
      'leaseUntilMs',
      'createdAt',
      'error',
      'finishedAt',
      'taskId',
      'waitsFor',
      'overtaken',
    ]) {
      expect(view).not.toHaveProperty(field);
    }
  });
});
