import { describe, expect, it } from 'vitest';
import { expectShown } from '#test/support/markup.ts';
import type { AdherenceGroup } from '#shared/adherence/schema.ts';
import type { Approval } from '#shared/approvals/schema.ts';
import type { Batch } from '#shared/batches/schema.ts';
import type { Task } from '#shared/writebacks/schema.ts';
import type { MorningWork } from '#edge/console/sections/morning.ts';
import { ago } from '#edge/console/sections/morning.ts';
import { landingView } from './home.ts';

const NOW = Date.parse('2026-11-27T08:00:00.000Z');
const user = { userId: 'usr_me', email: 'me@example.com', workspaceId: 'ws_1', roles: ['pricing'] as const };

const figures = { lines: 0, won: 0, decided: 0, win_rate: null, margin_pct: null, revenue_cents: 0, leakage_cents: 0 };
const overall = {
  ...figures,
  lines: 420,
  win_rate: 0.41,
  leakage_cents: 123_456,
  guided_lines: 300,
  unattributed_lines: 0,
  guided_share: 0.714,
  within_share: 0.8,
  above_share: 0.1,
  below_share: 0.1,
  thin_evidence: false,
} as unknown as AdherenceGroup;

function waitingApproval(sku: string, approverId: string): Approval {
  return {
    approvalId: `apv_${sku}`,
    workspaceId: 'ws_1',
    sku,
    priceCents: 61_056,
    currency: 'EUR',
    approvedAt: '2026-11-27T07:00:00.000Z',
    livemode: true,
    keyId: approverId,
    approver: { type: 'console_user', id: approverId, email: `${approverId}@example.com` },
    status: 'waiting',
    recommendedPriceCents: 61_056,
    pricingDecisionId: 'pd',
    secondApproval: { thresholdPct: 20, waitingUntil: '2026-11-30T07:00:00.000Z' },
    publishedTo: [],
  };
}

function work(extra: Partial<MorningWork> = {}): MorningWork {
  return {
    nowMs: NOW,
    userId: 'usr_me',
    waiting: { count: 2, complete: true, approvals: [waitingApproval('PUMP', 'usr_other'), waitingApproval('VALVE <x>', 'usr_me')] },
    topImpact: [
      {
        sku: 'LAMP-1',
        currency: 'USD',
        currentPriceCents: 1999,
        recommendedPriceCents: 2150,
        changePct: 7.55,
        expectedMarginChangeCents: 82,
      },
      { sku: 'OLD', currency: 'USD', currentPriceCents: 100, recommendedPriceCents: 110, changePct: 10 },
    ],
    failed: {
      tasks: [
        { productSku: 'LAMP-1', priceCents: 2150, currency: 'USD', error: 'HTTP 500 from the shop', connectorName: 'Shopify' } as Task & {
          connectorName: string;
        },
      ],
      connectorsRead: 5,
      connectors: 7,
    },
    batches: [
      {
        connectorName: 'ERP',
        latest: { status: 'open', createdAt: '2026-11-27T07:50:00.000Z' } as Batch,
        recomputed: { status: 'drained', createdAt: '2026-11-27T05:00:00.000Z', bandsRecomputedAt: '2026-11-27T05:30:00.000Z' } as Batch,
      },
    ],
    cost: { from: '2026-11-01', to: '2026-11-27', dollars: 3.14159, requests: 12_345 },
    adherence: { overall, currency: 'EUR', fromMonth: '2025-12', toMonth: '2026-11' },
    ...extra,
  };
}

const page = (extra: Partial<MorningWork> = {}) => landingView(work(extra), user).body.text;

describe('the landing page', () => {
  it("lists the approvals waiting for a second approver, each linked to its product, and says which are the user's own", () => {
    const markup = page();
    expectShown(markup, '2 approvals wait for a second approver.');
    expectShown(markup, '<a href="/console/recommendations/PUMP">PUMP</a> at 610.56 EUR, by usr_other@example.com');
    expectShown(
      markup,
      '<a href="/console/recommendations/VALVE%20%3Cx%3E">VALVE &lt;x&gt;</a> at 610.56 EUR, by you (someone else must second it)',
    );
    expectShown(markup, '<a href="/console/recommendations?state=waiting">Review the waiting approvals</a>');
  });

  it('says "or more" when more approvals wait than the panel shows', () => {
    expectShown(page({ waiting: { count: 5, complete: false, approvals: [] } }), '5 or more approvals wait for a second approver.');
  });

  it('shows the recommendations by expected impact with their signed margin per quote, linked to the sorted list', () => {
    const markup = page();
    expectShown(markup, '<a href="/console/recommendations/LAMP-1">LAMP-1</a><strong>+0.82 USD</strong> a quote');
    expectShown(markup, '19.99 USD → 21.50 USD, +7.55%');
    // A row without an estimate is no impact to rank.
    expect(markup).not.toContain('/console/recommendations/OLD');
    expectShown(
      markup,
      '<a href="/console/recommendations?sort=impact-desc&amp;state=unreviewed">Everything not yet approved, by expected impact</a>',
    );
  });

  it('says when no recommendation has an impact yet', () => {
    expectShown(page({ topImpact: [] }), 'No recommendation has an expected impact yet');
  });

  it('lists only the changes expected to gain margin, and says so when none is', () => {
    const losing = {
      sku: 'DEAR',
      currency: 'USD',
      currentPriceCents: 1000,
      recommendedPriceCents: 1200,
      changePct: 20,
      expectedMarginChangeCents: -35,
    };
    const level = { ...losing, sku: 'SAME', expectedMarginChangeCents: 0 };
    const gaining = work().topImpact[0];
    const markup = page({ topImpact: [...(gaining ? [gaining] : []), level, losing] });
    expectShown(markup, '<a href="/console/recommendations/LAMP-1">LAMP-1</a>');
    expect(markup).not.toContain('/console/recommendations/DEAR');
    expect(markup).not.toContain('/console/recommendations/SAME');
    expectShown(page({ topImpact: [level, losing] }), 'No recommendation not yet approved is expected to gain margin per quote.');
  });

  it('leaves out a product held by data warnings, whatever gain a row of it says', () => {
    const gaining = work().topImpact[0];
    const held = {
      ...gaining,
      sku: 'TYPO',
      expectedMarginChangeCents: 90_000,
      warnings: ['cost_jump'],
    } as MorningWork['topImpact'][number];
    const markup = page({ topImpact: [held, ...(gaining ? [gaining] : [])] });
    expect(markup).not.toContain('/console/recommendations/TYPO');
    expectShown(markup, '<a href="/console/recommendations/LAMP-1">LAMP-1</a>');
  });

  it('lists failed write-backs with their error and connector, and says how many connectors it did not read', () => {
    const markup = page();
    expectShown(markup, '1 failed write-back among the recent tasks.');
    expectShown(markup, 'to Shopify:<span class="error-text">HTTP 500 from the shop</span>');
    expectShown(markup, '2 more connectors not read here.');
    expectShown(markup, '<a href="/console/writebacks">See every write-back and its error</a>');
  });

  it("says how fresh prices are and what each connector's last batch is doing", () => {
    const markup = page();
    expectShown(markup, 'Prices last recomputed 2 hours ago');
    expectShown(markup, 'ERP: last batch <span class="status status-open">open</span>, opened 10 minutes ago');
    expectShown(page({ batches: [] }), 'No connector yet');
  });

  it("gives this month's cost in dollars, linked to the cost page over the same days", () => {
    const markup = page();
    expectShown(markup, '<strong>$3.14</strong> from <time>2026-11-01</time> to <time>2026-11-27</time> (UTC), 12345 requests.');
    // Under a cent, the amount keeps the digits that say something was spent.
    expectShown(page({ cost: { from: '2026-11-01', to: '2026-11-27', dollars: 0.00042, requests: 40 } }), '<strong>$0.00042</strong>');
    expectShown(markup, 'href="/console/cost?from=2026-11-01&amp;to=2026-11-27"');
  });

  it('sums up adherence with the leakage in the base currency', () => {
    const markup = page();
    expectShown(markup, '71.4% of 420 quote lines were guided; 80.0% of those within the band.');
    expectShown(markup, 'Leakage below the band 1,234.56 EUR');
    expectShown(markup, '<a href="/console/adherence">');
  });

  it('says why nothing reads as guided when no quote carried a decision id', () => {
    const unguided = { ...overall, guided_lines: 0, guided_share: 0 } as AdherenceGroup;
    const markup = page({ adherence: { overall: unguided, currency: 'EUR', fromMonth: '2025-12', toMonth: '2026-11' } });
    expectShown(markup, 'No quote carried a pricing decision id yet');
  });

  it('names an approval made with an API key by its key', () => {
    const byKey = { ...waitingApproval('PUMP', 'key_1'), approver: { type: 'api_key' as const, id: 'key_1' } };
    expectShown(page({ waiting: { count: 1, complete: true, approvals: [byKey] } }), 'at 610.56 EUR, by API key key_1;');
  });

  it('writes how long ago in the largest whole unit', () => {
    expect(ago('2026-11-27T07:59:30.000Z', NOW)).toBe('just now');
    expect(ago('2026-11-27T07:59:00.000Z', NOW)).toBe('1 minute ago');
    expect(ago('2026-11-26T06:00:00.000Z', NOW)).toBe('26 hours ago');
    expect(ago('2026-11-20T08:00:00.000Z', NOW)).toBe('7 days ago');
  });
});
