// The console's adherence: whether sellers followed the price guidance and what it earned, from the report GET /v1/analytics/adherence answers.
import { readAdherenceReport } from '#shared/adherence/repository.ts';
import { getWorkspace } from '#shared/workspaces/repository.ts';
import { reportPeriod } from '#shared/adherence/report.ts';
import type { AdherenceGroup, AdherenceReport } from '#shared/adherence/schema.ts';
import { alert, money } from '#edge/console/formats.ts';
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

function groupRow(group: AdherenceGroup, label: string, currency: string): Html {
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
    <td class="number">${money(group.leakage_cents, currency)}</td>
    <td>${group.thin_evidence ? 'thin' : ''}</td>
  </tr>`;
}

/**
 * Why "Guided" reads 0.0% when it does: not sellers ignoring the guidance, but quotes that name no decision (or only
 * ones the service does not know), which the share cannot be measured from.
 */
export function unguidedWords(overall: AdherenceGroup): string | undefined {
  if (overall.lines === 0 || overall.guided_lines > 0) return undefined;
  if (overall.unattributed_lines > 0) {
    return `None of the pricing decision ids quoted is one the service knows (${overall.unattributed_lines} lines): guided share is measured from quotes that quote a known one.`;
  }
  return 'No quote carried a pricing decision id yet: guided share is measured from quotes that quote one.';
}

function groupRows(report: AdherenceReport, currency: string): Html[] {
  return [
    groupRow(report.overall, 'Overall', currency),
    ...report.by_confidence.map((group) => groupRow(group, `Confidence: ${group.value}`, currency)),
    ...report.groups.map((group) =>
      groupRow(group, `${group.dimension[0]?.toUpperCase()}${group.dimension.slice(1)}: ${group.value}`, currency),
    ),
  ];
}

/** The page's body: pure, so that its rows and escaping are unit-tested. Amounts are in the workspace's base currency. */
export function adherenceView(report: AdherenceReport, currency: string, error?: string): PageView {
  const groups = groupRows(report, currency);
  const unguided = unguidedWords(report.overall);
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
      following it; groups under ${report.thin_evidence_lines} lines are thin evidence. Leakage is in the workspace's base currency
      (${currency}).
    </p>
    ${unguided ? html`<p class="unguided-note">${unguided}</p>` : ''}
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
    const [report, workspace] = await Promise.all([
      readAdherenceReport(ctx.user.workspaceId, period, by),
      getWorkspace(ctx.user.workspaceId),
    ]);
    return adherenceView(report, workspace?.baseCurrency ?? 'USD', error);
  },
};
