// Unit tests of the cost report: the range it reads, the dollars it computes from ledger rows, and its text and CSV.
import { describe, expect, it } from 'vitest';
import { ApiError } from '#platform/errors.ts';
import { type CostCounts, emptyCounts } from './counts.ts';
import { listPrices } from './list-prices.ts';
import { buildCostReport, COST_NOT_INCLUDED, formatCostReport, formatCostReportCsv, type LedgerRow, readReportRange } from './report.ts';

const NOW = Date.parse('2026-11-24T10:00:00Z');

function counts(values: Partial<CostCounts>): CostCounts {
  return { ...emptyCounts(), ...values };
}

/** One 100-line price call as the bench measures it: 59 RRU, 9 WRU, 30 ms at 1,024 MB. */
const priceCall = counts({
  requests: 1,
  status2xx: 1,
  readUnits: 59,
  writeUnits: 9,
  lambdaMbMs: 30 * 1024,
  invocations: 1,
  apiRequests: 1,
  pricedLines: 100,
});

function times(row: CostCounts, n: number): CostCounts {
  return Object.fromEntries(Object.entries(row).map(([counter, value]) => [counter, value * n])) as CostCounts;
}

const rows: LedgerRow[] = [
  { day: '2026-11-23', route: 'priceLines', counts: times(priceCall, 10) },
  { day: '2026-11-24', route: 'priceLines', counts: { ...times(priceCall, 5), ledgerWriteUnits: 1 } },
  {
    day: '2026-11-24',
    route: 'drain',
    counts: counts({ requests: 1, status5xx: 1, writeUnits: 100, sqsRequests: 3, lambdaMbMs: 2_000 * 1024, invocations: 1 }),
  },
  { day: '2026-11-25', route: 'priceLines', counts: times(priceCall, 7) },
];

describe('the range of a cost report', () => {
  it('is today alone, by day, when nothing is asked', () => {
    expect(readReportRange({}, NOW)).toEqual({ from: '2026-11-24', to: '2026-11-24', by: 'day' });
  });

  it('starts at the end day when only the end is given', () => {
    expect(readReportRange({ to: '2026-11-01', by: 'route' }, NOW)).toEqual({ from: '2026-11-01', to: '2026-11-01', by: 'route' });
  });

  it.each([
    [{ from: '2026-11-31' }, 'from'],
    [{ to: '24.11.2026' }, 'to'],
    [{ from: '2026-11-25', to: '2026-11-24' }, 'from'],
    [{ from: '2024-01-01', to: '2026-11-24' }, 'from'],
    [{ by: 'week' }, 'by'],
  ])('refuses %j, naming %s', (query, param) => {
    const error = (() => {
      try {
        readReportRange(query, NOW);
      } catch (thrown) {
        return thrown;
      }
    })();
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).param).toBe(param);
  });
});

describe('a cost report', () => {
  const report = buildCostReport('ws_1', { from: '2026-11-23', to: '2026-11-24', by: 'day' }, rows);

  it('sums only the days of its range', () => {
    expect(report.total.requests).toBe(16);
    expect(report.total.priced_lines).toBe(1_500);
    expect(report.breakdown.map((line) => line.key)).toEqual(['2026-11-23', '2026-11-24']);
  });

  it('prices each service at the list prices, the ledger’s own writes with the writes', () => {
    const { cost } = report.total;
    expect(cost.dynamodb_reads).toBeCloseTo((15 * 59 * listPrices.dynamoDbReadRequestUnitPerMillion) / 1e6, 9);
    expect(cost.dynamodb_writes).toBeCloseTo(((15 * 9 + 100 + 1) * listPrices.dynamoDbWriteRequestUnitPerMillion) / 1e6, 9);
    expect(cost.lambda_compute).toBeCloseTo((15 * 0.03 + 2) * listPrices.lambdaArmGbSecond, 9);
    expect(cost.lambda_requests).toBeCloseTo((16 * listPrices.lambdaRequestPerMillion) / 1e6, 9);
    expect(cost.api_gateway).toBeCloseTo((15 * listPrices.httpApiRequestPerMillion) / 1e6, 9);
    expect(cost.sqs).toBeCloseTo((3 * listPrices.sqsRequestPerMillion) / 1e6, 9);
    expect(cost.total).toBeCloseTo(
      cost.dynamodb_reads + cost.dynamodb_writes + cost.lambda_compute + cost.lambda_requests + cost.api_gateway + cost.sqs,
      9,
    );
    expect(report.total.accounting_write_units).toBe(1);
  });

  it('adds its breakdown up to its total, by day or by route', () => {
    const byRoute = buildCostReport('ws_1', { from: '2026-11-23', to: '2026-11-24', by: 'route' }, rows);
    for (const grouped of [report, byRoute]) {
      const sum = grouped.breakdown.reduce((total, line) => total + line.cost.total, 0);
      expect(sum).toBeCloseTo(grouped.total.cost.total, 9);
    }
    expect(byRoute.breakdown.map((line) => line.key)).toEqual(['drain', 'priceLines']);
  });

  it('gives the cost per request of each route and the cost per million priced lines', () => {
    const priceLines = buildCostReport('ws_1', { from: '2026-11-23', to: '2026-11-23', by: 'route' }, rows);
    const [line] = priceLines.breakdown;
    expect(priceLines.routes).toEqual([
      {
        route: 'priceLines',
        requests: 10,
        cost_per_request: line?.cost_per_request,
        cost_per_million_priced_lines: line?.cost_per_million_priced_lines,
      },
    ]);
    expect(line?.cost_per_million_priced_lines).toBeCloseTo(((line?.cost_per_request ?? 0) / 100) * 1e6, 4);
    expect(priceLines.total.requests_by_status).toEqual({ '2xx': 10, '3xx': 0, '4xx': 0, '5xx': 0 });
  });

  it('gives each service a share that adds up to the whole', () => {
    const shares = report.service_shares;
    expect(shares.dynamodb + shares.lambda + shares.api_gateway + shares.sqs).toBeCloseTo(100, 1);
    expect(shares.dynamodb).toBeGreaterThan(shares.sqs);
  });

  it('is empty, not failing, for days with no ledger', () => {
    const empty = buildCostReport('ws_1', { from: '2026-01-01', to: '2026-01-02', by: 'day' }, rows);
    expect(empty.total.cost.total).toBe(0);
    expect(empty.total.cost_per_request).toBeNull();
    expect(empty.breakdown).toEqual([]);
    expect(empty.service_shares).toEqual({ dynamodb: 0, lambda: 0, api_gateway: 0, sqs: 0 });
  });

  it('prints in dollars with the list prices’ region and date, and what it cannot see', () => {
    const text = formatCostReport(report);
    expect(text).toMatch(/us-east-1 list prices as of \d{4}-\d{2}-\d{2}/);
    expect(text).toMatch(/^2026-11-24 .*\$\d+\.\d{6}/m);
    expect(text).toMatch(/Not included: storage, CloudWatch, data transfer, the free tier/);
    // The console's cost page says the same sentence: the report's last line is the one both show.
    expect(text.split('\n').at(-1)).toBe(COST_NOT_INCLUDED);
  });

  it('writes one CSV line per breakdown line and one for the total, under a header', () => {
    const lines = formatCostReportCsv(report).split('\n');
    expect(lines).toHaveLength(4);
    expect(lines[0]).toMatch(/^day,requests,/);
    expect(lines[3]).toMatch(/^total,16,/);
    expect(lines.every((line) => line.split(',').length === lines[0]?.split(',').length)).toBe(true);
    expect(lines.join('\n')).not.toMatch(/\de-\d/);
    expect(lines[3]).toMatch(/,1500,/);
  });
});
