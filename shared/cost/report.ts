// The cost report: a workspace's ledger items of a range of days, in dollars at the list prices, by day or by route; and its text and CSV forms.
import * as v from 'valibot';
import { ApiError, quoted } from '#platform/errors.ts';
import { type CostCounts, costCounters, dayOf, emptyCounts } from './counts.ts';
import { costAtListPrices, LIST_PRICES_AS_OF, LIST_PRICES_REGION } from './list-prices.ts';
import type { CostLine, CostReport, ServiceCosts } from './schema.ts';

/** One ledger item as stored: a workspace's counts for a route or worker on a UTC day. */
export interface LedgerRow {
  readonly day: string;
  readonly route: string;
  readonly counts: CostCounts;
}

export type ReportGrouping = 'day' | 'route';

export interface ReportRange {
  readonly from: string;
  readonly to: string;
  readonly by: ReportGrouping;
}

/** Ledger items live 400 days; a longer range would only read nothing. */
export const MAX_REPORT_DAYS = 400;

/** The query of GET /v1/usage: these three and nothing else, so that a misspelt `form=` is refused, not ignored. */
export const UsageQuerySchema = v.optional(
  v.strictObject({
    from: v.optional(v.string()),
    to: v.optional(v.string()),
    by: v.optional(v.string()),
  }),
);

function day(value: string | undefined, param: string, fallback: string): string {
  if (value === undefined) return fallback;
  const parsed = /^\d{4}-\d{2}-\d{2}$/.test(value) ? Date.parse(`${value}T00:00:00Z`) : NaN;
  if (Number.isNaN(parsed) || dayOf(parsed) !== value) {
    throw new ApiError('invalid_request', `${param} must be a day as YYYY-MM-DD (UTC); ${quoted(value)} is not one.`, { param });
  }
  return value;
}

/**
 * The range asked for, checked: days as YYYY-MM-DD, `from` no later than `to`, at most 400 days. `to` defaults to
 * today (UTC) and `from` to `to`: the report of one day.
 */
export function readReportRange(query: { from?: string; to?: string; by?: string }, nowMs: number): ReportRange {
  const to = day(query.to, 'to', dayOf(nowMs));
  const from = day(query.from, 'from', to);
  if (from > to) throw new ApiError('invalid_request', `from (${from}) is after to (${to}).`, { param: 'from' });
  const days = (Date.parse(to) - Date.parse(from)) / 86_400_000 + 1;
  if (days > MAX_REPORT_DAYS) {
    throw new ApiError('invalid_request', `A report covers at most ${MAX_REPORT_DAYS} days; ${from} to ${to} is ${days}.`, {
      param: 'from',
    });
  }
  const by = query.by ?? 'day';
  if (by !== 'day' && by !== 'route')
    throw new ApiError('invalid_request', `by is day or route; ${quoted(by)} is neither.`, { param: 'by' });
  return { from, to, by };
}

/** Rounded to a billionth of a dollar: enough for one request's cost, and free of float noise from summing. */
function dollars(value: number): number {
  return Math.round(value * 1e9) / 1e9;
}

function quantity(value: number): number {
  return Math.round(value * 1000) / 1000;
}

function serviceCosts(counts: CostCounts): ServiceCosts {
  const cost = costAtListPrices({
    readUnits: counts.readUnits,
    writeUnits: counts.writeUnits + counts.ledgerWriteUnits,
    gbSeconds: counts.lambdaMbMs / 1024 / 1000,
    invocations: counts.invocations,
    meteredRequests: counts.apiRequests,
    sqsRequests: counts.sqsRequests,
  });
  return {
    dynamodb_reads: dollars(cost.dynamoDbReads),
    dynamodb_writes: dollars(cost.dynamoDbWrites),
    lambda_compute: dollars(cost.lambdaCompute),
    lambda_requests: dollars(cost.lambdaRequests),
    api_gateway: dollars(cost.apiGateway),
    sqs: dollars(cost.sqs),
    total: dollars(cost.total),
  };
}

function sum(rows: readonly LedgerRow[]): CostCounts {
  const total = emptyCounts();
  for (const row of rows) for (const counter of costCounters) total[counter] += row.counts[counter];
  return total;
}

export function costLine(key: string, counts: CostCounts): CostLine {
  const cost = serviceCosts(counts);
  return {
    key,
    requests: counts.requests,
    requests_by_status: { '2xx': counts.status2xx, '3xx': counts.status3xx, '4xx': counts.status4xx, '5xx': counts.status5xx },
    priced_lines: counts.pricedLines,
    read_units: quantity(counts.readUnits),
    write_units: quantity(counts.writeUnits + counts.ledgerWriteUnits),
    accounting_write_units: counts.ledgerWriteUnits,
    lambda_gb_seconds: Math.round((counts.lambdaMbMs / 1024 / 1000) * 1e6) / 1e6,
    lambda_invocations: counts.invocations,
    api_gateway_requests: counts.apiRequests,
    // A worker charges each message its share of its batch's receive and delete: a fraction, summed here.
    sqs_requests: quantity(counts.sqsRequests),
    cost,
    cost_per_request: counts.requests > 0 ? dollars(cost.total / counts.requests) : null,
    cost_per_million_priced_lines: counts.pricedLines > 0 ? Math.round((cost.total / counts.pricedLines) * 1e6 * 1e6) / 1e6 : null,
  };
}

function grouped(rows: readonly LedgerRow[], keyOf: (row: LedgerRow) => string): CostLine[] {
  const groups = new Map<string, LedgerRow[]>();
  for (const row of rows) groups.set(keyOf(row), [...(groups.get(keyOf(row)) ?? []), row]);
  return [...groups.keys()].sort().map((key) => costLine(key, sum(groups.get(key) ?? [])));
}

function share(part: number, total: number): number {
  return total > 0 ? Math.round((part / total) * 10_000) / 100 : 0;
}

/** The report of a workspace's ledger rows in a range: the total, the breakdown asked for, each route's cost per request, each service's share. */
export function buildCostReport(workspaceId: string, range: ReportRange, rows: readonly LedgerRow[]): CostReport {
  const inRange = rows.filter((row) => row.day >= range.from && row.day <= range.to);
  const total = costLine('total', sum(inRange));
  const byRoute = grouped(inRange, (row) => row.route);
  const { cost } = total;
  return {
    workspace_id: workspaceId,
    from: range.from,
    to: range.to,
    by: range.by,
    currency: 'USD',
    list_prices: { region: LIST_PRICES_REGION, as_of: LIST_PRICES_AS_OF },
    total,
    breakdown: range.by === 'route' ? byRoute : grouped(inRange, (row) => row.day),
    routes: byRoute.map((line) => ({
      route: line.key,
      requests: line.requests,
      cost_per_request: line.cost_per_request,
      cost_per_million_priced_lines: line.cost_per_million_priced_lines,
    })),
    service_shares: {
      dynamodb: share(cost.dynamodb_reads + cost.dynamodb_writes, cost.total),
      lambda: share(cost.lambda_compute + cost.lambda_requests, cost.total),
      api_gateway: share(cost.api_gateway, cost.total),
      sqs: share(cost.sqs, cost.total),
    },
  };
}

/** What no report can price, said under every report's totals, the CLI's and the console's alike. */
export const COST_NOT_INCLUDED = 'Not included: storage, CloudWatch, data transfer, the free tier (docs/cost.md).';

function usd(value: number | null, digits = 6): string {
  return value === null ? '—' : `$${value.toFixed(digits)}`;
}

/** The report as a person reads it in a terminal. */
export function formatCostReport(report: CostReport): string {
  const header = `${report.by.padEnd(20)} ${'requests'.padStart(9)} ${'lines'.padStart(9)} ${'RRU'.padStart(10)} ${'WRU'.padStart(10)} ${'GB-s'.padStart(9)} ${'DynamoDB'.padStart(11)} ${'Lambda'.padStart(11)} ${'API GW'.padStart(11)} ${'SQS'.padStart(11)} ${'total'.padStart(11)} ${'per request'.padStart(11)}`;
  const row = (line: CostLine) =>
    `${line.key.padEnd(20)} ${String(line.requests).padStart(9)} ${String(line.priced_lines).padStart(9)} ${line.read_units.toFixed(1).padStart(10)} ${line.write_units.toFixed(1).padStart(10)} ${line.lambda_gb_seconds.toFixed(3).padStart(9)} ${usd(line.cost.dynamodb_reads + line.cost.dynamodb_writes).padStart(11)} ${usd(line.cost.lambda_compute + line.cost.lambda_requests).padStart(11)} ${usd(line.cost.api_gateway).padStart(11)} ${usd(line.cost.sqs).padStart(11)} ${usd(line.cost.total).padStart(11)} ${usd(line.cost_per_request, 8).padStart(11)}`;
  const shares = report.service_shares;
  const { total } = report;
  return [
    `Cost of workspace ${report.workspace_id}, ${report.from} to ${report.to} (UTC), at ${report.list_prices.region} list prices as of ${report.list_prices.as_of}, in USD`,
    '',
    header,
    ...report.breakdown.map(row),
    row(total),
    '',
    `Requests by status: 2xx ${total.requests_by_status['2xx']}, 3xx ${total.requests_by_status['3xx']}, 4xx ${total.requests_by_status['4xx']}, 5xx ${total.requests_by_status['5xx']}; SQS requests ${total.sqs_requests}; API Gateway requests ${total.api_gateway_requests}; accounting's own writes ${total.accounting_write_units} WRU`,
    `Per 1M priced lines: ${usd(total.cost_per_million_priced_lines, 4)} for everything the workspace cost, over its ${total.priced_lines} priced lines; ${usd(report.routes.find((route) => route.route === 'priceLines')?.cost_per_million_priced_lines ?? null, 4)} for price serving alone`,
    `Share by service: DynamoDB ${shares.dynamodb}%, Lambda ${shares.lambda}%, API Gateway ${shares.api_gateway}%, SQS ${shares.sqs}%`,
    `Cost per request: ${report.routes.map((route) => `${route.route} ${usd(route.cost_per_request, 8)}`).join(', ') || 'no requests'}`,
    COST_NOT_INCLUDED,
  ].join('\n');
}

function csvField(value: string | number | null): string {
  if (value === null) return '';
  // Dollars of a request are millionths: written out in full, never as 4e-7, for any spreadsheet to read.
  const text = typeof value === 'number' ? value.toFixed(9).replace(/\.?0+$/, '') : value;
  return /[",\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** The breakdown and the total as CSV, one line each, for a spreadsheet. */
export function formatCostReportCsv(report: CostReport): string {
  const columns = [
    report.by,
    'requests',
    'status_2xx',
    'status_3xx',
    'status_4xx',
    'status_5xx',
    'priced_lines',
    'read_units',
    'write_units',
    'accounting_write_units',
    'lambda_gb_seconds',
    'lambda_invocations',
    'api_gateway_requests',
    'sqs_requests',
    'dynamodb_reads_usd',
    'dynamodb_writes_usd',
    'lambda_compute_usd',
    'lambda_requests_usd',
    'api_gateway_usd',
    'sqs_usd',
    'total_usd',
    'cost_per_request_usd',
    'cost_per_million_priced_lines_usd',
  ];
  const row = (line: CostLine) =>
    [
      line.key,
      line.requests,
      line.requests_by_status['2xx'],
      line.requests_by_status['3xx'],
      line.requests_by_status['4xx'],
      line.requests_by_status['5xx'],
      line.priced_lines,
      line.read_units,
      line.write_units,
      line.accounting_write_units,
      line.lambda_gb_seconds,
      line.lambda_invocations,
      line.api_gateway_requests,
      line.sqs_requests,
      line.cost.dynamodb_reads,
      line.cost.dynamodb_writes,
      line.cost.lambda_compute,
      line.cost.lambda_requests,
      line.cost.api_gateway,
      line.cost.sqs,
      line.cost.total,
      line.cost_per_request,
      line.cost_per_million_priced_lines,
    ]
      .map(csvField)
      .join(',');
  return [columns.join(','), ...report.breakdown.map(row), row(report.total)].join('\n');
}
