import { describe, expect, it } from 'vitest';
import { expectShown } from '#test/support/markup.ts';
import { buildReport } from '#shared/adherence/report.ts';
import { emptyCounts } from '#shared/cost/counts.ts';
import { buildCostReport, COST_NOT_INCLUDED, type LedgerRow } from '#shared/cost/report.ts';
import { downloadAnswer, securityHeaders } from '#edge/console/responses.ts';
import { adherenceQuery, adherenceView } from './adherence.ts';
import { costCsv, costRange, costView, csvAsked, dailyTotals } from './cost.ts';

const nowMs = Date.parse('2026-11-26T08:00:00Z');

function row(day: string, route: string, requests: number): LedgerRow {
  return { day, route, counts: { ...emptyCounts(), requests, invocations: requests, apiRequests: requests, readUnits: requests * 2 } };
}

describe('the cost page', () => {
  const rows = [
    row('2026-11-24', 'priceLines', 100),
    row('2026-11-26', 'priceLines', 50),
    row('2026-11-26', '<getPrice>', 5),
    row('2026-11-26', 'bands', 2),
  ];
  const range = { from: '2026-11-24', to: '2026-11-26' };
  const byDay = buildCostReport('ws_1', { ...range, by: 'day' }, rows);
  const byRoute = buildCostReport('ws_1', { ...range, by: 'route' }, rows);

  it('has a bar for every day of the range, a day without cost at $0', () => {
    expect(dailyTotals(byDay).map((day) => day.day)).toEqual(['2026-11-24', '2026-11-25', '2026-11-26']);
    expect(dailyTotals(byDay)[1]?.total).toBe(0);
    expect(costView(byDay, byRoute).body.text.match(/<rect\s/g)).toHaveLength(3);
  });

  it('shows a row per route by its method and path, with its requests and dollars, an unknown key as stored and escaped', () => {
    const markup = costView(byDay, byRoute).body.text;
    expectShown(markup, '<th scope="row">POST /api/v1/prices<br><code class="id">priceLines</code></th><td class="number">150</td>');
    expectShown(markup, '<th scope="row">Bands job<br><code class="id">bands</code></th>');
    expectShown(markup, '<th scope="row">&lt;getPrice&gt;</th>');
    expectShown(markup, 'role="img"');
  });

  it('says under its totals what the report leaves out, in the words of the CLI’s report', () => {
    const markup = costView(byDay, byRoute).body.text;
    expectShown(markup, `</dl><p class="hint">At us-east-1 list prices`, `<p class="hint">${COST_NOT_INCLUDED}</p>`);
  });

  it('links to the range shown as CSV, per route and per day', () => {
    const markup = costView(byDay, byRoute).body.text;
    expectShown(
      markup,
      '<a href="/console/cost?from=2026-11-24&amp;to=2026-11-26&amp;format=csv&amp;by=route">Download CSV per route</a>',
      '<a href="/console/cost?from=2026-11-24&amp;to=2026-11-26&amp;format=csv&amp;by=day">Download CSV per day</a>',
    );
  });

  it('downloads the report as the CLI writes its CSV, ids in the first column, named for its days and grouping', () => {
    const file = costCsv(byRoute);
    expect(file.filename).toBe('cost-2026-11-24-to-2026-11-26-by-route.csv');
    expect(file.contentType).toBe('text/csv; charset=utf-8');
    const lines = file.body.split('\n');
    expect(lines[0]).toMatch(/^route,requests,/);
    expect(lines.slice(1, -2).map((line) => line.split(',')[0])).toEqual(['<getPrice>', 'bands', 'priceLines']);
    expect(lines.at(-2)).toMatch(/^total,157,/);
    expect(lines.at(-1)).toBe('');
    expect(costCsv(byDay).filename).toBe('cost-2026-11-24-to-2026-11-26-by-day.csv');
  });

  it('serves the CSV as an attachment under the console’s policy and headers, never cached', () => {
    const answer = downloadAnswer(costCsv(byRoute), 'req_1');
    expect(answer.statusCode).toBe(200);
    expect(answer.headers).toMatchObject({
      ...securityHeaders,
      'cache-control': 'no-store',
      'content-type': 'text/csv; charset=utf-8',
      'content-disposition': 'attachment; filename="cost-2026-11-24-to-2026-11-26-by-route.csv"',
    });
    expect(answer.body).toBe(costCsv(byRoute).body);
    const named = (filename: string) => () => downloadAnswer({ ...costCsv(byRoute), filename }, 'req_1');
    for (const filename of ['a"b.csv', 'a\r\nSet-Cookie: x.csv', '../cost.csv', 'coût.csv']) {
      expect(named(filename), filename).toThrow(/not a plain file name/);
    }
  });

  it('answers CSV only when the query asks for it, by route unless by day, and says why another format or grouping is refused', () => {
    expect(csvAsked(new URLSearchParams('from=2026-11-01'))).toEqual({});
    expect(csvAsked(new URLSearchParams('format=csv'))).toEqual({ by: 'route' });
    expect(csvAsked(new URLSearchParams('format=csv&by=day'))).toEqual({ by: 'day' });
    expect(csvAsked(new URLSearchParams('format=xlsx')).error).toBe('format is csv; "xlsx" is not.');
    expect(csvAsked(new URLSearchParams('format=csv&by=week')).error).toBe('by is route or day; "week" is neither.');
  });

  it('ends the table with a total row, and writes every amount in cents, or two significant digits under a cent', () => {
    const markup = costView(byDay, byRoute).body.text;
    expectShown(markup, '<tfoot><tr><th scope="row">Total</th><td class="number">157</td>');
    const amounts = [...markup.matchAll(/\$(\d[\d.]*)/g)].map((match) => match[1] ?? '');
    expect(amounts.length).toBeGreaterThan(0);
    for (const amount of amounts) {
      // At least a cent: two decimals. Under a cent: two significant digits.
      expect(amount, amount).toMatch(Number(amount) >= 0.01 ? /^\d+\.\d\d$/ : /^0(\.0*[1-9]\d?)?$/);
    }
  });

  it('defaults to the last 30 days, and falls back to them with the reason when the range does not read', () => {
    expect(costRange(new URLSearchParams(), nowMs).range).toEqual({ from: '2026-10-28', to: '2026-11-26', by: 'day' });
    expect(costRange(new URLSearchParams('from=2026-11-01&to=2026-11-02'), nowMs).range).toMatchObject({
      from: '2026-11-01',
      to: '2026-11-02',
    });
    const refused = costRange(new URLSearchParams('from=2026-13-01'), nowMs);
    expect(refused.error).toMatch(/from must be a day/);
    expect(refused.range.from).toBe('2026-10-28');
  });
});

describe('the adherence page', () => {
  it('shows the overall row and the groups asked for, escaped', () => {
    const report = buildReport({
      workspaceId: 'ws_1',
      fromMonth: '2026-01',
      toMonth: '2026-11',
      bandPct: 5,
      overall: [],
      confidence: [],
      by: 'segment',
      groups: [],
    });
    const markup = adherenceView(report, 'USD', 'The period was <bad>.').body.text;
    expectShown(markup, '<th scope="row">Overall</th>');
    expectShown(markup, 'Within ±5% of the guided price');
    expectShown(markup, '&lt;bad&gt;');
    expectShown(markup, '<option value="segment" selected>');
  });

  it('shows leakage with its currency, and says in words why Guided is 0.0% when no quote carried a decision id', () => {
    const empty = buildReport({ workspaceId: 'ws_1', fromMonth: '2026-01', toMonth: '2026-11', bandPct: 5, overall: [], confidence: [] });
    const unguided = { ...empty.overall, lines: 40, leakage_cents: 123_456, guided_share: 0 };
    const report = { ...empty, overall: unguided };
    const markup = adherenceView(report, 'EUR').body.text;
    expectShown(markup, '<td class="number">0.0%</td>');
    expectShown(markup, '1,234.56 EUR');
    expectShown(markup, 'No quote carried a pricing decision id yet: guided share is measured from quotes that quote one.');
    const unknownIds = adherenceView({ ...report, overall: { ...unguided, unattributed_lines: 7 } }, 'EUR').body.text;
    expectShown(unknownIds, 'None of the pricing decision ids quoted is one the service knows (7 lines)');
    const guided = adherenceView({ ...report, overall: { ...unguided, guided_lines: 40, guided_share: 1 } }, 'EUR').body.text;
    expect(guided).not.toContain('pricing decision id');
  });

  it('reads the period and grouping from the query, falling back to the last twelve months', () => {
    const now = new Date(nowMs);
    expect(adherenceQuery(new URLSearchParams('from=2026-03&to=2026-05&by=category'), now)).toEqual({
      period: { fromMonth: '2026-03', toMonth: '2026-05' },
      by: 'category',
    });
    const fallback = adherenceQuery(new URLSearchParams('from=soon&by=colour'), now);
    expect(fallback.period).toEqual({ fromMonth: '2025-12', toMonth: '2026-11' });
    expect(fallback.by).toBeUndefined();
    expect(fallback.error).toMatch(/from must be/);
  });
});
