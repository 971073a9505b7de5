// The console's adherence: whether sellers followed the price guidance and what it earned, from the report GET /v1/analytics/adherence answers.
import { readAdherenceReport } from '#shared/adherence/repository.ts';
import { reportPeriod } from '#shared/adherence/report.ts';
import type { AdherenceGroup, AdherenceReport } from '#shared/adherence/schema.ts';
import { alert } from '#edge/console/formats.ts';
import { type Html, html } from '#edge/console/html.ts';
import type { ConsolePage, PageView } from '#edge/console/page.ts';

const PATH = '/console/adherence';
const groupings = ['segment', 'category', 'reason'] as const;
type Grouping = (typeof groupings)[number];

/** The period and grouping the query asks for; a period that does not read falls back to the default, with why. */
export function adherenceQuery(
  query: URLSearchParams,
  now: Date,
): { period: { fromMonth: string; toMonth: string }; by: Grouping | undefined; error?: string } {
  const byText = query.get('by') ?? '';
  const by = (groupings as readonly string[]).includes(byText) ? (byText as Grouping) : undefined;
  const period = reportPeriod(query.get('from') || undefined, query.get('to') || undefined, now);
  if (typeof period !== 'string') return { period, by };
  const fallback = reportPeriod(undefined, undefined, now) as { fromMonth: string; toMonth: string };
  return { period: fallback, by, error: `The period was not read: ${period}. Showing the last twelve months.` };
}

const share = (value: number | null): string => (value === null ? '—' : `${(value * 100).toFixed(1)}%`);

function groupRow(group: AdherenceGroup, label: string): Html {
  return html`<tr>
    <th scope="row">${label}</th>
    <td class="number">${group.lines}</td>
    <td class="number">${share(group.guided_share)}</td>
    <td class="number">${share(group.within_share)}</td>
    <td class="number">${share(group.above_share)}</td>
    <td class="number">${share(group.below_share)}</td>
    <td class="number">${share(group.bands.within.win_rate)}</td>
    <td class="number">${share(group.win_rate)}</td>
    <td class="number">${group.margin_pct === null ? '—' : `${group.margin_pct.toFixed(1)}%`}</td>
    <td class="number">${(group.leakage_cents / 100).toFixed(2)}</td>
    <td>${group.thin_evidence ? 'thin' : ''}</td>
  </tr>`;
}

/** The page's body: pure, so that its rows and escaping are unit-tested. */
export function adherenceView(report: AdherenceReport, error?: string): PageView {
  const groups = [
    groupRow(report.overall, 'Overall'),
    ...report.by_confidence.map((group) => groupRow(group, `Confidence: ${group.value}`)),
    ...report.groups.map((group) => groupRow(group, `${group.dimension[0]?.toUpperCase()}${group.dimension.slice(1)}: ${group.value}`)),
  ];
  const body = html`<h1>Adherence</h1>
    <form class="filters" method="get" action="${PATH}" aria-label="Choose the months">
      <div class="field">
        <label for="adherence-from">From (YYYY-MM)</label
        ><input id="adherence-from" name="from" type="text" inputmode="numeric" value="${report.from_month}" />
      </div>
      <div class="field">
        <label for="adherence-to">To (YYYY-MM)</label
        ><input id="adherence-to" name="to" type="text" inputmode="numeric" value="${report.to_month}" />
      </div>
      <div class="field">
        <label for="adherence-by">Group by</label>
        <select id="adherence-by" name="by">
          <option value="">No grouping</option>
          ${groupings.map((by) => html`<option value="${by}" ${report.by === by ? html` selected` : ''}>${by}</option>`)}
        </select>
      </div>
      <button type="submit">Show</button>
    </form>
    ${alert('error', error)}
    <p class="summary">
      Quote lines from ${report.from_month} to ${report.to_month} (UTC months). Within ±${report.band_pct}% of the guided price counts as
      following it; groups under ${report.thin_evidence_lines} lines are thin evidence. Leakage is in the workspace's base currency.
    </p>
    <div class="table-wrap" tabindex="0" role="region" aria-label="${`Guidance adherence${report.by ? ` by ${report.by}` : ''}`}">
      <table class="data">
        <caption>
          Guidance adherence${report.by ? ` by ${report.by}` : ''}
        </caption>
        <thead>
          <tr>
            <th scope="col">Group</th>
            <th scope="col" class="number">Lines</th>
            <th scope="col" class="number">Guided</th>
            <th scope="col" class="number">Within</th>
            <th scope="col" class="number">Above</th>
            <th scope="col" class="number">Below</th>
            <th scope="col" class="number">Win rate within</th>
            <th scope="col" class="number">Win rate</th>
            <th scope="col" class="number">Margin</th>
            <th scope="col" class="number">Leakage</th>
            <th scope="col">Evidence</th>
          </tr>
        </thead>
        <tbody>
          ${groups}
        </tbody>
      </table>
    </div>`;
  return { title: 'Adherence', body };
}

export const adherencePage: ConsolePage = {
  path: PATH,
  nav: 'Adherence',
  async read(ctx) {
    const { period, by, error } = adherenceQuery(ctx.query, new Date(ctx.nowMs));
    const report = await readAdherenceReport(ctx.user.workspaceId, period, by);
    return adherenceView(report, error);
  },
};
