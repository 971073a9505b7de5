// Unit tests of when a failed write-back may be sent again: the rule that keeps a second try from publishing a replaced price.
import { describe, expect, it } from 'vitest';
import { resendRefusal } from './resend.ts';
import type { Task } from '#shared/writebacks/schema.ts';

const failed: Task = {
  taskId: 'wb_1',
  workspaceId: 'ws_1',
  connectorId: 'con_1',
  channel: 'ERP',
  approvalId: 'apv_2',
  productSku: 'PUMP',
  priceCents: 1530,
  currency: 'USD',
  reasonSummary: 'r',
  pricingDecisionId: 'pd_1',
  status: 'failed',
  createdAt: '2026-12-01T10:00:00.000Z',
  error: 'locked',
};
const latest = { approvalId: 'apv_2', taskIds: ['wb_1', 'wb_9'] };

describe('sending a failed write-back again', () => {
  it('is allowed for a failed task of the newest approval, with nothing else open for its SKU on its connector', () => {
    expect(resendRefusal('PUMP', failed, latest, [])).toBeUndefined();
  });

  it('is refused for a task of another SKU, or none', () => {
    expect(resendRefusal('VALVE', failed, latest, [])).toBe('No such write-back task of VALVE.');
    expect(resendRefusal('PUMP', undefined, latest, [])).toBe('No such write-back task of PUMP.');
  });

  it('is refused for a task that did not fail, or was sent again already', () => {
    expect(resendRefusal('PUMP', { ...failed, status: 'applied' }, latest, [])).toMatch(/wb_1 is applied/);
    expect(resendRefusal('PUMP', { ...failed, resentAs: 'wb_3' }, latest, [])).toMatch(/sent again already, as wb_3/);
  });

  it('is refused once a newer approval carries the price, or one waits for its second approver', () => {
    expect(resendRefusal('PUMP', failed, { approvalId: 'apv_3', taskIds: ['wb_4'] }, [])).toMatch(/approved again since/);
    expect(resendRefusal('PUMP', failed, { ...latest, waiting: { approvalId: 'apv_3' } }, [])).toMatch(/waits for a second approver/);
  });

  it('is refused while the connector still holds another write-back of the SKU', () => {
    expect(resendRefusal('PUMP', failed, latest, ['wb_0'])).toMatch(/still holds a write-back of PUMP \(wb_0\)/);
  });
});
