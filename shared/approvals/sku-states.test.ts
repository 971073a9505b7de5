import { describe, expect, it } from 'vitest';
import type { Task } from '#shared/writebacks/schema.ts';
import type { LatestApproval } from './latest.ts';
import { skuApprovalState } from './sku-states.ts';

const NOW = Date.parse('2026-11-27T12:00:00.000Z');

function latest(taskIds: string[], waitingUntil?: string): LatestApproval {
  return {
    version: 1,
    approvalId: 'apv_1',
    approvedAt: '2026-11-27T10:00:00.000Z',
    taskIds,
    ...(waitingUntil
      ? { waiting: { approvalId: 'apv_1', approvedAt: '2026-11-27T10:00:00.000Z', priceCents: 100, approverId: 'key_1', waitingUntil } }
      : {}),
  };
}

function task(taskId: string, status: Task['status'], leaseUntilMs?: number): Task {
  return { taskId, status, ...(leaseUntilMs === undefined ? {} : { leaseUntilMs }) } as Task;
}

describe('a SKU’s approval state', () => {
  it('is unreviewed with no live approval, and approved when the approval published to no connector', () => {
    expect(skuApprovalState(undefined, [], NOW)).toBe('unreviewed');
    expect(skuApprovalState(latest([]), [], NOW)).toBe('approved');
  });

  it('is waiting while a second approver may still come, and what was published before once the wait ran out', () => {
    expect(skuApprovalState(latest(['t1'], '2026-11-28T10:00:00.000Z'), [task('t1', 'applied')], NOW)).toBe('waiting');
    expect(skuApprovalState(latest(['t1'], '2026-11-27T11:00:00.000Z'), [task('t1', 'applied')], NOW)).toBe('applied');
  });

  it('is failed when any connector failed, pending while any task is open, and applied when every task is', () => {
    expect(skuApprovalState(latest(['t1', 't2']), [task('t1', 'applied'), task('t2', 'failed')], NOW)).toBe('failed');
    expect(skuApprovalState(latest(['t1', 't2']), [task('t1', 'applied'), task('t2', 'leased', NOW - 1)], NOW)).toBe('pending');
    expect(skuApprovalState(latest(['t1', 't2']), [task('t1', 'applied'), task('t2', 'pending')], NOW)).toBe('pending');
    expect(skuApprovalState(latest(['t1', 't2']), [task('t1', 'applied'), task('t2', 'applied')], NOW)).toBe('applied');
  });
});
