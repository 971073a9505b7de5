// Unit tests of bulk approval's pages: the list's checkboxes, impact column and quick sorts, the confirmation step's form and totals, and the results, each SKU's own.
import { describe, expect, it } from 'vitest';
import { expectShown } from '#test/support/markup.ts';
import type { BulkLine, BulkReview } from '#shared/approvals/bulk.ts';
import type { BulkResult } from '#shared/approvals/bulk-round.ts';
import { type CataloguePage, type CatalogueRow, readCatalogueQuery } from '#shared/recommendations/catalogue.ts';
import { bulkResultsView } from './bulk-results.ts';
import { bulkConfirmationView, carriedLine, expectedImpact, pickedSkus, seenLines } from './bulk-approval.ts';
import { catalogueView } from './recommendation-list.ts';
import { listLink } from './recommendation-paths.ts';

function row(sku: string, extra: Partial<CatalogueRow> = {}): CatalogueRow {
  return { sku, currency: 'USD', currentPriceCents: 2000, recommendedPriceCents: 2100, changePct: 5, confidence: 'medium', ...extra };
}

function listMarkup(rows: CatalogueRow[], search = '', canApprove = true): string {
  const params = new URLSearchParams(search);
  const page: CataloguePage = { rows, shown: 0, categories: [] };
  return catalogueView(page, readCatalogueQuery(params), params, new Map(), { canApprove, csrfToken: 'tok' }).body.text;
}

function line(sku: string, overrides: Partial<BulkLine> = {}): BulkLine {
  return {
    sku,
    currency: 'USD',
    currentPriceCents: 2000,
    recommendedPriceCents: 2100,
    pricingDecisionId: `pd_${sku}`,
    changePct: 5,
    large: false,
    waits: false,
    ...overrides,
  };
}

function review(lines: BulkLine[], skipped: BulkReview['skipped'] = []): BulkReview {
  return { lines, skipped, confirmPct: 10 };
}

describe("the list's selection for bulk approval", () => {
  it('ticks again the rows a cancelled review step names, and no other', () => {
    const markup = listMarkup([row('A'), row('B'), row('C')], 'picked=A&picked=C&picked=NOT-SHOWN');
    expect(markup).toMatch(/name="pick.0" value="A" aria-label="Select A"\s+checked/);
    expect(markup).toMatch(/name="pick.1" value="B" aria-label="Select B"\s*\/>/);
    expect(markup).toMatch(/name="pick.2" value="C" aria-label="Select C"\s+checked/);
    // The selection is not carried into the list's other links.
    expect(markup).not.toContain('picked=');
  });

  it('offers a checkbox per priced product to the pricing role, inside a form with the CSRF token', () => {
    const markup = listMarkup([row('A'), row('B', { recommendedPriceCents: undefined, changePct: null })]);
    expectShown(markup, '<input type="hidden" name="_csrf" value="tok">', '<input type="hidden" name="_action" value="review">');
    expectShown(markup, '<input type="checkbox" name="pick.0" value="A" aria-label="Select A">');
    expect(markup).not.toContain('name="pick.1"');
    expectShown(markup, 'Review selected for approval', 'Select all shown');
  });

  it('offers no selection to a user without the pricing role', () => {
    const markup = listMarkup([row('A')], '', false);
    expect(markup).not.toContain('type="checkbox"');
    expect(markup).not.toContain('method="post"');
  });

  it('checks every priced row when all shown are selected, and keeps the filter in the links and the way back', () => {
    const markup = listMarkup([row('A'), row('B')], 'state=unreviewed&select=all');
    expectShown(markup, 'value="A" aria-label="Select A" checked>', 'value="B" aria-label="Select B" checked>');
    expectShown(markup, 'href="/console/recommendations?state=unreviewed">Clear selection</a>');
    expectShown(markup, '<input type="hidden" name="back" value="state=unreviewed&amp;select=all">');
  });

  it('shows the expected impact per quote with its currency, and "too thin" for a priced product without one', () => {
    const markup = listMarkup([row('A', { expectedMarginChangeCents: 1234 }), row('B'), row('C', { expectedMarginChangeCents: -50 })]);
    expectShown(markup, '<td class="number impact" data-label="Expected impact / quote">+12.34 USD</td>');
    expectShown(markup, '<td class="number impact" data-label="Expected impact / quote">too thin</td>');
    expectShown(markup, '−0.50 USD');
  });

  it('puts the largest change and the largest expected impact one click away, marking the current sort', () => {
    const markup = listMarkup([row('A')], 'category=Pumps&sort=size-desc');
    expectShown(markup, '<strong aria-current="true">Largest change first</strong>');
    expectShown(markup, 'href="/console/recommendations?category=Pumps&amp;sort=impact-desc">Largest expected impact first</a>');
  });
});

describe('the carried lines of a confirmation', () => {
  it('come back as they were written, whatever characters the SKU has', () => {
    const shown = line('A,B "x"/<y>', { large: true });
    const back = seenLines({ 'line.0': carriedLine(shown), 'line.1': carriedLine(line('C')) });
    expect(back).toEqual([
      {
        sku: 'A,B "x"/<y>',
        pricingDecisionId: 'pd_A,B "x"/<y>',
        recommendedPriceCents: 2100,
        currency: 'USD',
        large: true,
        confirmed: false,
      },
      { sku: 'C', pricingDecisionId: 'pd_C', recommendedPriceCents: 2100, currency: 'USD', large: false, confirmed: false },
    ]);
  });

  it('are confirmed each by its own large-change box, and a box of a small or unticked line confirms nothing', () => {
    const form = {
      'line.0': carriedLine(line('A', { large: true })),
      'line.2': carriedLine(line('C', { large: true })),
      'line.3': carriedLine(line('D')),
      'confirm.2': 'yes',
      'confirm.1': 'yes',
      'confirm.3': 'yes',
    };
    expect(seenLines(form)?.map((seen) => [seen.sku, seen.confirmed])).toEqual([
      ['A', false],
      ['C', true],
      ['D', false],
    ]);
  });

  it('are refused whole when any of them is not one the console wrote', () => {
    const good = carriedLine(line('A'));
    expect(seenLines({ 'line.0': good, 'line.1': 'not-base64-json' })).toBeUndefined();
    const negative = Buffer.from(JSON.stringify(['A', 'pd', -5, 'USD', false])).toString('base64url');
    expect(seenLines({ 'line.0': negative })).toBeUndefined();
  });

  it('reads the picked SKUs in the order shown, each once', () => {
    expect(pickedSkus({ 'pick.10': 'K', 'pick.2': 'B', 'pick.3': 'B', _action: 'review', other: 'X' })).toEqual(['B', 'K']);
  });
});

describe('the confirmation step', () => {
  it('shows the summed expected impact per currency, each line, and what was left out', () => {
    const lines = [
      line('A', { expectedMarginChangeCents: 500 }),
      line('B', { expectedMarginChangeCents: 250 }),
      line('C'),
      line('D', { currency: 'EUR', expectedMarginChangeCents: -100 }),
    ];
    const view = bulkConfirmationView({
      review: review(lines, [{ sku: 'Z', reason: 'Not priced.' }]),
      bulkId: 'bulk_x',
      csrfToken: 't',
      back: '',
    });
    expectShown(view.body, '<strong>+7.50 USD</strong> per quote of each of 2 products; too thin to say for 1 product');
    expectShown(view.body, '<strong>−1.00 EUR</strong> per quote of each of 1 product');
    expectShown(view.body, '<a href="/console/recommendations/Z">Z</a>: Not priced.');
    expectShown(view.body, 'Approve the ticked products', '<input type="hidden" name="bulkId" value="bulk_x">');
    expect(view.body.text).not.toContain('confirmLarge');
  });

  it('sums the month at the recent quote rates beside the quote, and shows each line’s month', () => {
    const lines = [
      line('A', { expectedMarginChangeCents: 500, expectedMarginChangePerMonthCents: 15_219 }),
      line('B', { expectedMarginChangeCents: 250 }),
    ];
    const view = bulkConfirmationView({ review: review(lines), bulkId: 'bulk_x', csrfToken: 't', back: '' });
    expectShown(
      view.body,
      '<strong>+7.50 USD</strong> per quote of each of 2 products; about <strong>+152.19 USD a month</strong> at the recent quote rates of 1 product',
    );
    expectShown(view.body, '+5.00 USD <br><span class="hint">+152.19 USD a month</span>');
  });

  it('says the impact is too thin to say when no selected product of a currency has one', () => {
    const view = bulkConfirmationView({ review: review([line('A'), line('B')]), bulkId: 'bulk_x', csrfToken: 't', back: '' });
    expectShown(view.body, '<li>USD: too thin to say for 2 products</li>');
    expect(view.body.text).not.toContain('per quote of each');
  });

  it('ticks each line to approve, and asks each large change for a box of its own', () => {
    const view = bulkConfirmationView({
      review: review([line('A', { large: true, waits: true }), line('B')]),
      bulkId: 'bulk_x',
      csrfToken: 't',
      back: 'state=unreviewed',
    });
    expectShown(view.body, `name="line.0" value="${carriedLine(line('A', { large: true, waits: true }))}" aria-label="Approve A" checked`);
    expectShown(view.body, `name="line.1" value="${carriedLine(line('B'))}" aria-label="Approve B" checked`);
    expectShown(view.body, 'Waits for a second approver.', 'name="confirm.0" type="checkbox" value="yes"');
    expectShown(view.body, '<label for="confirm-0">Confirm the large change of A (past 10%)</label>');
    expect(view.body.text).not.toContain('name="confirm.1"');
    expect(view.body.text).not.toContain('required');
  });

  it('leaves unticked and marks a line whose earlier approval still waits or is still being written back', () => {
    const lines = [
      line('A', { earlier: 'waiting' }),
      line('B', { earlier: 'pending' }),
      line('C'),
      line('D', { earlier: 'seconds', waits: true }),
    ];
    const view = bulkConfirmationView({ review: review(lines), bulkId: 'bulk_x', csrfToken: 't', back: '' });
    expectShown(view.body, 'aria-label="Approve A">', 'An earlier approval waits for a second approver: this one would replace it.');
    expectShown(view.body, 'aria-label="Approve B">', 'Its last approval is still being written back: this one would replace it.');
    expectShown(view.body, 'aria-label="Approve C" checked');
    // A second approver's line, at the price that waits: ticked, since seconding it is what they came to do.
    expectShown(view.body, 'aria-label="Approve D" checked', 'Seconds the approval of this price that waits for a second approver.');
    expect(view.body.text).not.toContain('Waits for a second approver.');
    expectShown(view.body, '2: an earlier approval of each is still under way; tick it to replace that approval');
  });

  it('cancels back to the same page of the list with the selection kept, what was left out included', () => {
    const view = bulkConfirmationView({
      review: review([line('A&B'), line('C')], [{ sku: 'Z', reason: 'Not priced.' }]),
      bulkId: 'bulk_x',
      csrfToken: 't',
      back: 'state=unreviewed&after=cur_1&select=all&notice=x',
    });
    expectShown(
      view.body,
      'href="/console/recommendations?state=unreviewed&amp;after=cur_1&amp;picked=A%26B&amp;picked=C&amp;picked=Z">Cancel: back to the list, the selection kept</a>',
    );
  });
});

describe('the results of a bulk approval', () => {
  const approved = { outcome: 'approved', priceCents: 2100, currency: 'USD', status: 'published', writebacks: 1, seconded: false } as const;

  it('show each SKU, the refusals with their reason, and say when a resent confirmation published nothing again', () => {
    const results: BulkResult[] = [
      { sku: 'A', ...approved, replayed: false },
      { sku: 'B', ...approved, replayed: true },
      { sku: 'C', outcome: 'refused', reason: 'The recommendation moved since it was shown.' },
    ];
    const markup = bulkResultsView({ results, repeated: false, back: 'state=unreviewed', csrfToken: 't' }).body.text;
    expectShown(markup, 'Bulk approval: 2 of 3 approved', '1 product refused');
    expectShown(markup, '<td class="status status-applied">Approved: 1 pending write-back.</td>');
    expectShown(markup, 'nothing was published twice');
    expectShown(markup, '<td class="status status-failed">Not approved: The recommendation moved since it was shown.</td>');
  });

  it('keep the lines refused or not attempted ticked in a form that reviews them again', () => {
    const results: BulkResult[] = [
      { sku: 'A', ...approved, replayed: false },
      { sku: 'B', outcome: 'refused', reason: 'Moved.' },
      { sku: 'C', outcome: 'not_attempted', reason: 'The round ran out of time before this product: select it again.' },
    ];
    const markup = bulkResultsView({ results, repeated: false, back: 'state=unreviewed', csrfToken: 't' }).body.text;
    expectShown(markup, '1 product refused and 1 product not attempted');
    expectShown(markup, 'Not attempted: The round ran out of time before this product');
    expectShown(markup, 'name="_action" value="review"');
    expectShown(markup, 'name="pick.0" type="checkbox" value="B" checked', 'name="pick.1" type="checkbox" value="C" checked');
    expect(markup).not.toContain('value="A" checked');
    expectShown(markup, 'Review the 2 ticked again');
  });

  it('say when they are those of an earlier send of the same confirmation', () => {
    const markup = bulkResultsView({ results: [{ sku: 'A', ...approved, replayed: false }], repeated: true, back: '', csrfToken: 't' }).body
      .text;
    expectShown(markup, 'This confirmation was sent before: these are the results of that send. Nothing was approved again.');
  });

  it('say a waiting approval waits for a second approver', () => {
    const waiting: BulkResult = {
      sku: 'A',
      ...approved,
      status: 'waiting',
      waitingUntil: '2026-11-28T07:00:00.000Z',
      writebacks: 0,
      replayed: false,
    };
    const markup = bulkResultsView({ results: [waiting], repeated: false, back: '', csrfToken: 't' }).body.text;
    expectShown(markup, 'Waiting for a second approver until <time datetime="2026-11-28T07:00:00.000Z">2026-11-28 07:00:00 UTC</time>');
  });
});

describe('a link back to the list', () => {
  it('keeps the filter and drops anything else', () => {
    expect(listLink('state=failed&q=lamp&select=all&after=xyz&evil=1')).toBe('/console/recommendations?state=failed&q=lamp');
    expect(listLink('')).toBe('/console/recommendations');
    expect(expectedImpact(0, 'USD')).toBe('0.00 USD');
  });
});
