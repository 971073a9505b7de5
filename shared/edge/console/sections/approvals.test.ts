// Unit tests of the product page's approvals: the history table, the notice after an approval, and the confirmation step.
import { describe, expect, it } from 'vitest';
import type { ApprovalHistoryEntry } from '#shared/approvals/history.ts';
import { ConfirmationRequired } from '#shared/approvals/rules.ts';
import { expectShown } from '#test/support/markup.ts';
import { approvalHistoryTable, approvalNotice, confirmationStep } from './approvals.ts';

const entry: ApprovalHistoryEntry = {
  approval_id: 'apv_1',
  status: 'published',
  approved_by: { type: 'console_user', id: 'usr_1', email: 'ann@example.com' },
  approved_at: '2026-11-27T01:00:00.000Z',
  price: 6105.6,
  currency: 'USD',
  livemode: true,
  recommendation: { recommended_price: 610.56, current_price: 610.56, pricing_decision_id: 'pd_1' },
  change_pct: 900,
  confirmation: { threshold_pct: 25, change_pct: 900 },
  second_approval: {
    threshold_pct: 100,
    waiting_until: '2026-11-28T01:00:00.000Z',
    approved_by: { type: 'api_key', id: 'key_2' },
    approved_at: '2026-11-27T01:05:00.000Z',
  },
  tasks: [
    { connector_id: 'con_1', writeback_id: 'wb_1', state: 'failed', error: '<b>ERP down</b>', finished_at: '2026-11-27T01:06:00.000Z' },
  ],
};

describe('the approval history table', () => {
  it('names who approved, the price and its change, the confirmation, the second approver and each task, escaping a connector error', () => {
    const text = String(approvalHistoryTable([entry], 'PUMP'));
    expect(text).toContain('ann@example.com');
    expect(text).toContain('6,105.60 USD');
    expect(text).toContain('+900.00%');
    expect(text).toContain('confirmed (past 25%)');
    expect(text).toContain('API key key_2');
    expect(text).toMatch(/con_1<\/code>:\s*failed/);
    expect(text).toContain('&lt;b&gt;ERP down&lt;/b&gt;');
    expect(text).not.toContain('<b>ERP down');
  });

  it('names keys and connectors by their names, with the id beside each to match the API', () => {
    const names = { keys: new Map([['key_2', 'Nightly repricing job']]), connectors: new Map([['con_1', 'SAP Business One']]) };
    const text = String(approvalHistoryTable([entry], 'PUMP', names));
    expect(text).toContain('API key “Nightly repricing job” <code>key_2</code>');
    expect(text).toMatch(/SAP Business One <code>con_1<\/code>:\s*failed/);
  });

  it('labels a sandbox approval as never published, not as the published price', () => {
    const sandbox: ApprovalHistoryEntry = { ...entry, livemode: false, tasks: [], second_approval: null };
    const text = String(approvalHistoryTable([sandbox], 'PUMP'));
    expect(text).toContain('<strong>Sandbox</strong>: a test key’s approval, never published; the live price is unchanged');
    expect(text).not.toMatch(/<td>published/);
  });

  it('says when no price has been approved yet', () => {
    expect(String(approvalHistoryTable([], 'PUMP'))).toContain('No price of PUMP has been approved yet.');
  });
});

describe('after an approval', () => {
  const approval = {
    approvalId: 'apv_1',
    workspaceId: 'ws_1',
    sku: 'PUMP',
    priceCents: 610_560,
    currency: 'USD',
    approvedAt: '2026-11-27T01:00:00.000Z',
    livemode: true,
    keyId: 'usr_1',
    recommendedPriceCents: 61_056,
    pricingDecisionId: 'pd_1',
    publishedTo: [],
  };

  it('a waiting one says it needs a second approver by when, and that nothing is published', () => {
    const notice = approvalNotice({
      ...approval,
      status: 'waiting',
      secondApproval: { thresholdPct: 100, waitingUntil: '2026-11-28T01:00:00.000Z' },
    });
    expect(notice).toBe(
      'Approved 6,105.60 USD for PUMP: the change needs a second approver, who must approve the same price by 2026-11-28 01:00 UTC. Nothing is published until then.',
    );
  });

  it('a published one counts its write-backs', () => {
    expect(approvalNotice({ ...approval, status: 'published', publishedTo: [{ connectorId: 'con_1', writebackId: 'wb_1' }] })).toBe(
      'Approved 6,105.60 USD for PUMP: 1 pending write-back.',
    );
  });
});

describe('the confirmation step', () => {
  it('follows a confirmation_required refusal alone, with a form that confirms the same price', () => {
    const pending = {
      sku: 'PUMP',
      currency: 'USD',
      priceCents: 610_560,
      currentPriceCents: 61_056,
      changePct: 900,
      thresholdPct: 25,
      large: true,
      warnings: [],
    };
    const outcome = confirmationStep(new ConfirmationRequired(pending), {
      action: '/console/recommendations/PUMP',
      entered: '6105.60',
      csrfToken: 'tok',
    });
    expect(outcome).toMatchObject({ kind: 'render', status: 422 });
    const body = outcome?.kind === 'render' ? String(outcome.view.body) : '';
    expect(body).toContain('name="confirm" value="yes"');
    expect(body).toContain('name="price" value="6105.60"');
    expect(body).toContain('name="_csrf" value="tok"');
    expect(body).toContain('610.56 USD');
    expect(confirmationStep(new Error('other'), { action: '/', entered: '1', csrfToken: 'tok' })).toBeUndefined();
  });

  it('names each data warning of a held product, and asks to confirm the data even when the move is small', () => {
    const warning = { code: 'cost_jump' as const, message: 'cost 20.20 USD is 10 times the cost it was in line at, 2.02 USD.' };
    const pending = {
      sku: 'BOLT',
      currency: 'USD',
      priceCents: 300,
      currentPriceCents: 290,
      changePct: 3.45,
      thresholdPct: 25,
      large: false,
      warnings: [warning],
    };
    const outcome = confirmationStep(new ConfirmationRequired(pending), {
      action: '/console/recommendations/BOLT',
      entered: '3.00',
      csrfToken: 'tok',
    });
    const body = outcome?.kind === 'render' ? String(outcome.view.body) : '';
    expect(body).toContain('Check the data of BOLT');
    expect(body).toContain('cost_jump');
    expect(body).toContain('cost 20.20 USD is 10 times the cost it was in line at, 2.02 USD.');
    expect(body).not.toContain('further from its current price');
    expect(body).toContain('name="confirm" value="yes"');
  });

  it('puts beside the price to approve the recommended one with its margin, and what the typed price is worth by the win model', () => {
    const pending = {
      sku: 'PUMP',
      currency: 'USD',
      priceCents: 90_000,
      currentPriceCents: 61_056,
      changePct: 47.4,
      thresholdPct: 25,
      large: true,
      warnings: [],
    };
    const side = { priceCents: 0, margin: 0, winProbability: 0, expectedRevenueCents: 0, expectedMarginCents: 0 };
    const impact = {
      status: 'estimated' as const,
      quantity: 2,
      current: side,
      recommended: side,
      expectedMarginChangeCents: -1_250,
      expectedRevenueChangeCents: -9_000,
      evidence: { closedQuotes: 120, segments: [] },
      perMonth: { expectedMarginChangeCents: -15_218, quoteLines: 36, days: 90, asOf: '2026-11-30' },
    };
    const outcome = confirmationStep(new ConfirmationRequired(pending), {
      action: '/console/recommendations/PUMP',
      entered: '900.00',
      csrfToken: 'tok',
      worth: { recommended: { priceCents: 64_000, margin: 0.52 }, atPrice: { margin: 0.6667, impact } },
    });
    const body = outcome?.kind === 'render' ? String(outcome.view.body) : '';
    expectShown(body, '<dt>Recommended price</dt><dd>640.00 USD (margin 52.0%)</dd>');
    expectShown(body, '<dt>Margin at this price</dt><dd>66.7%</dd>');
    expectShown(
      body,
      '<dt>Expected impact at this price</dt><dd>−12.50 USD of margin per quote; −152.18 USD a month at its recent quote rate</dd>',
    );
  });
});
