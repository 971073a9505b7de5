// The console's cost: what the workspace cost in dollars at list prices, per day with a chart and per named route, from the cost report GET /v1/usage answers, and as CSV.
import { dayOf } from '#shared/cost/counts.ts';
import {
  buildCostReport,
  COST_NOT_INCLUDED,
  formatCostReportCsv,
  type ReportGrouping,
  type ReportRange,
  readReportRange,
} from '#shared/cost/report.ts';
import { readCostLedger } from '#shared/cost/repository.ts';
import type { CostLine, CostReport } from '#shared/cost/schema.ts';
import { ApiError, quoted } from '#platform/errors.ts';
import { barChart } from '#edge/console/charts.ts';
import { alert, costDollars, facts } from '#edge/console/formats.ts';
import { type Html, html } from '#edge/console/html.ts';
import type { ConsolePage, PageDownload, PageView } from '#edge/console/page.ts';
import { routeName } from '#edge/console/route-names.ts';

const PATH = '/console/cost';
/** What the page shows before anyone picks a range: the last 30 days, today included. */
export const DEFAULT_DAYS = 30;
const DAY_MS = 86_400_000;

/** The range the query asks for, or the default one with the reason the query's was refused. */
export function costRange(query: URLSearchParams, nowMs: number): { range: ReportRange; error?: string } {
  const fallback: ReportRange = { from: dayOf(nowMs - (DEFAULT_DAYS - 1) * DAY_MS), to: dayOf(nowMs), by: 'day' };
  const from = query.get('from') || undefined;
  const to = query.get('to') || undefined;
  if (from === undefined && to === undefined) return { range: fallback };
  try {
    const range = readReportRange({ ...(from ? { from } : {}), ...(to ? { to } : {}) }, nowMs);
    return { range };
  } catch (error) {
    if (error instanceof ApiError) return { range: fallback, error: error.message };
    throw error;
  }
}

/**
 * Whether the query asks for the range's report as CSV (`format=csv`), and grouped how: by route unless `by=day`. A
 * format or grouping the page does not offer is refused with the reason, as a bad range is, not quietly ignored.
 */
export function csvAsked(query: URLSearchParams): { by?: ReportGrouping; error?: string } {
  const format = query.get('format') || undefined;
  if (format === undefined) return {};
  if (format !== 'csv') return { error: `format is csv; ${quoted(format)} is not.` };
  const by = query.get('by') || 'route';
  if (by !== 'route' && by !== 'day') return { error: `by is route or day; ${quoted(by)} is neither.` };
  return { by };
}

/** The report as the admin CLI's `cost report --csv` writes it, ids and all, so that the two read alike; named for its days. */
export function costCsv(report: CostReport): PageDownload {
  return {
    filename: `cost-${report.from}-to-${report.to}-by-${report.by}.csv`,
    contentType: 'text/csv; charset=utf-8',
    body: `${formatCostReportCsv(report)}\n`,
  };
}

function csvPath(report: CostReport, by: ReportGrouping): string {
  return `${PATH}?${new URLSearchParams({ from: report.from, to: report.to, format: 'csv', by }).toString()}`;
}

/** Every day of the range, those without a ledger item at $0, so that the chart's bars stand where their days are. */
export function dailyTotals(report: CostReport): { day: string; total: number }[] {
  const byDay = new Map(report.breakdown.map((line) => [line.key, line.cost.total]));
  const days: { day: string; total: number }[] = [];
  for (let ms = Date.parse(`${report.from}T00:00:00Z`); ms <= Date.parse(`${report.to}T00:00:00Z`); ms += DAY_MS) {
    const day = dayOf(ms);
    days.push({ day, total: byDay.get(day) ?? 0 });
  }
  return days;
}

/** A ledger key by the name a person reads, its id under it for matching the CLI's and the API's reports. */
function routeLabel(key: string): Html {
  const name = routeName(key);
  return name === key ? html`${key}` : html`${name}<br /><code class="id">${key}</code>`;
}

function routeRow(
  line: Pick<CostLine, 'requests' | 'read_units' | 'write_units' | 'lambda_gb_seconds' | 'cost' | 'cost_per_request'>,
  label: Html | string,
): Html {
  return html`<tr>
    <th scope="row">${label}</th>
    <td class="number">${line.requests}</td>
    <td class="number">${line.read_units}</td>
    <td class="number">${line.write_units}</td>
    <td class="number">${line.lambda_gb_seconds}</td>
    <td class="number">${costDollars(line.cost.total)}</td>
    <td class="number">${line.cost_per_request === null ? '—' : costDollars(line.cost_per_request)}</td>
  </tr>`;
}

/** The form that picks the days, filled in with the range shown. */
function rangeForm(report: CostReport): Html {
  return html`<form class="filters" method="get" action="${PATH}" aria-label="Choose the days">
    <div class="field">
      <label for="cost-from">From (UTC day)</label
      ><input id="cost-from" name="from" type="text" inputmode="numeric" placeholder="YYYY-MM-DD" value="${report.from}" />
    </div>
    <div class="field">
      <label for="cost-to">To (UTC day)</label
      ><input id="cost-to" name="to" type="text" inputmode="numeric" placeholder="YYYY-MM-DD" value="${report.to}" />
    </div>
    <button type="submit">Show</button>
  </form>`;
}

/** The range's totals, the prices they are at and what they leave out, and the range as CSV. */
function totals(byDay: CostReport): Html {
  return html`${facts(`${byDay.from} to ${byDay.to}`, [
      ['Total', costDollars(byDay.total.cost.total)],
      ['Requests', String(byDay.total.requests)],
      ['Priced lines', String(byDay.total.priced_lines)],
      ['DynamoDB share', `${byDay.service_shares.dynamodb}%`],
      ['Lambda share', `${byDay.service_shares.lambda}%`],
    ])}
    <p class="hint">At ${byDay.list_prices.region} list prices as of ${byDay.list_prices.as_of}, in US dollars.</p>
    <p class="hint">${COST_NOT_INCLUDED}</p>
    <p class="actions">
      <a href="${csvPath(byDay, 'route')}">Download CSV per route</a> ·
      <a href="${csvPath(byDay, 'day')}">Download CSV per day</a>
    </p>`;
}

/** A bar per day of the range, the days without cost at $0. */
function dayChart(byDay: CostReport): Html {
  const days = dailyTotals(byDay);
  return barChart({
    id: 'cost-per-day',
    title: `Dollars per day, ${byDay.from} to ${byDay.to}`,
    description: `The workspace's cost at list prices on each UTC day; ${days.filter((day) => day.total > 0).length} of ${days.length} days had any, ${costDollars(byDay.total.cost.total)} in all.`,
    points: days.map((day) => ({ label: day.day.slice(5), value: day.total })),
    format: costDollars,
    labelHeading: 'Day (MM-DD)',
    valueHeading: 'Dollars',
  });
}

/** A row per route and worker charged in the range. */
function routeTable(byRoute: CostReport): Html {
  if (byRoute.breakdown.length === 0) return html`<p>Nothing was charged in these days.</p>`;
  return html`<div class="table-wrap" tabindex="0" role="region" aria-label="Cost per route and worker">
    <table class="data">
      <caption>
        Cost per route and worker, ${byRoute.from} to ${byRoute.to}
      </caption>
      <thead>
        <tr>
          <th scope="col">Route or worker</th>
          <th scope="col" class="number">Requests</th>
          <th scope="col" class="number">Read units</th>
          <th scope="col" class="number">Write units</th>
          <th scope="col" class="number">Lambda GB-s</th>
          <th scope="col" class="number">Dollars</th>
          <th scope="col" class="number">Per request</th>
        </tr>
      </thead>
      <tbody>
        ${byRoute.breakdown.map((line) => routeRow(line, routeLabel(line.key)))}
      </tbody>
      <tfoot>
        ${routeRow(byRoute.total, 'Total')}
      </tfoot>
    </table>
  </div>`;
}

/** The page's body: pure, so that its figures and chart are unit-tested. */
export function costView(byDay: CostReport, byRoute: CostReport, error?: string): PageView {
  const body = html`<h1>Cost</h1>
    ${rangeForm(byDay)} ${alert('error', error)} ${totals(byDay)}
    <h2>Per day</h2>
    ${dayChart(byDay)}
    <h2>Per route</h2>
    ${routeTable(byRoute)}`;
  return { title: 'Cost', body };
}

export const costPage: ConsolePage = {
  path: PATH,
  nav: 'Cost',
  async download(ctx) {
    const { range, error } = costRange(ctx.query, ctx.nowMs);
    const { by } = csvAsked(ctx.query);
    // A range that does not read gets the page, which says why, rather than the file of the default range.
    if (!by || error) return undefined;
    const rows = await readCostLedger(ctx.user.workspaceId, range.from, range.to);
    return costCsv(buildCostReport(ctx.user.workspaceId, { ...range, by }, rows));
  },
  async read(ctx) {
    const { range, error } = costRange(ctx.query, ctx.nowMs);
    const rows = await readCostLedger(ctx.user.workspaceId, range.from, range.to);
    const byDay = buildCostReport(ctx.user.workspaceId, { ...range, by: 'day' }, rows);
    const byRoute = buildCostReport(ctx.user.workspaceId, { ...range, by: 'route' }, rows);
    return costView(byDay, byRoute, error ?? csvAsked(ctx.query).error);
  },
};
