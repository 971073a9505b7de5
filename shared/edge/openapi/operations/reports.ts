// The contract's words for the reports: a workspace's usage and cost, and its adherence to the recommendations.
import { CostReportSchema } from '#shared/cost/schema.ts';
import { AdherenceReportSchema } from '#shared/adherence/schema.ts';
import { ADHERENCE_EXAMPLE } from '#shared/adherence/example.ts';
import { AdherenceGroupingSchema, AdherencePeriodSchema, ReportDaySchema, ReportGroupingSchema } from '#edge/openapi/inputs.ts';
import { operation } from './doc.ts';

/** One line of the usage report's example: three 100-line price calls. */
const exampleUsageLine = {
  requests: 3,
  requests_by_status: { '2xx': 3, '3xx': 0, '4xx': 0, '5xx': 0 },
  priced_lines: 300,
  read_units: 177,
  write_units: 28,
  accounting_write_units: 1,
  lambda_gb_seconds: 0.09,
  lambda_invocations: 3,
  api_gateway_requests: 3,
  sqs_requests: 0,
  cost: {
    dynamodb_reads: 2.2125e-05,
    dynamodb_writes: 1.75e-05,
    lambda_compute: 1.2e-06,
    lambda_requests: 6e-07,
    api_gateway: 3e-06,
    sqs: 0,
    total: 4.4425e-05,
  },
  cost_per_request: 1.4808e-05,
  cost_per_million_priced_lines: 0.148083,
};

export const reportOperations = {
  getUsage: operation({
    summary: 'Read what the workspace cost',
    description:
      'What the workspace cost, in US dollars at the list prices of one region (named in the answer with their date), ' +
      'over a range of UTC days: the total, a breakdown by day or by route (and background work: `drain`, `bands`, ' +
      '`deliverWebhooks`, `sweepWebhookOutbox`), the cost ' +
      'per request of each route, the cost per million priced lines and the share of each AWS service. It counts ' +
      'DynamoDB request units, Lambda GB-seconds and requests, API Gateway and SQS requests, as the service charged ' +
      'them to the workspace; it cannot see storage, CloudWatch, data transfer or the free tier. Counts reach it ' +
      'within about a minute. `from` and `to` default to today; any other query parameter is refused.',
    tag: 'Usage',
    parameters: [
      { name: 'from', in: 'query', description: 'The first day, YYYY-MM-DD (UTC); defaults to `to`.', required: false, schema: ReportDaySchema, example: '2026-11-01' },
      { name: 'to', in: 'query', description: 'The last day, YYYY-MM-DD (UTC), at most 400 days after `from`; defaults to today.', required: false, schema: ReportDaySchema, example: '2026-11-01' },
      { name: 'by', in: 'query', description: 'The breakdown: `day` (the default) or `route`.', required: false, schema: ReportGroupingSchema, example: 'route' },
    ],
    success: {
      status: 200,
      description: 'The report.',
      schema: CostReportSchema,
      example: {
        workspace_id: 'ws_4kq9Vb2LmT8xNc1ZsP7d3R',
        from: '2026-11-01',
        to: '2026-11-01',
        by: 'route',
        currency: 'USD',
        list_prices: { region: 'us-east-1', as_of: '2026-11-22' },
        total: { key: 'total', ...exampleUsageLine },
        breakdown: [{ key: 'priceLines', ...exampleUsageLine }],
        routes: [{ route: 'priceLines', requests: 3, cost_per_request: 1.4808e-05, cost_per_million_priced_lines: 0.14808 }],
        service_shares: { dynamodb: 89.2, lambda: 4.05, api_gateway: 6.75, sqs: 0 },
      },
    },
    errors: {
      bad_request: '`from` or `to` is not a day as YYYY-MM-DD, `from` is after `to`, the range is longer than 400 days, `by` is neither `day` nor `route`, or the query has another parameter.',
    },
  }),

  getAdherence: operation({
    summary: 'Read guidance adherence',
    description:
      'Whether sellers followed the price guidance, and what each choice earned, over whole UTC months. Each quote ' +
      'line a connector ingests is joined, when its batch drains, to the decision its `pricingDecisionId` names: ' +
      'within the workspace’s band of the guided price (±2% by default), above it, or below it. A line with an id the ' +
      'service does not know, or no longer keeps (400 days), is unattributed; a line without one is unguided. An order ' +
      'naming the quote counts it won, at the order’s prices. The report gives, overall, by the guidance’s confidence ' +
      'and by `segment`, `category` or salesperson `reason`: the share of guided lines; of those, the shares within, ' +
      'above and below the band; the win rate and realised margin, per band too; and the leakage, what won lines below ' +
      'the band gave away against their guided price, in minor units of the base currency. Groups under ' +
      '`thin_evidence_lines` lines are flagged, not hidden. `from` and `to` are days or months, widened to whole ' +
      'months; by default the twelve months to this one. Any other query parameter is refused.',
    tag: 'Analytics',
    parameters: [
      { name: 'from', in: 'query', description: 'The first month, YYYY-MM, or a day in it, YYYY-MM-DD (UTC); defaults to 11 months before `to`.', required: false, schema: AdherencePeriodSchema, example: '2026-01' },
      { name: 'to', in: 'query', description: 'The last month, YYYY-MM, or a day in it (UTC), at most 36 months after `from`; defaults to this month.', required: false, schema: AdherencePeriodSchema, example: '2026-11' },
      { name: 'by', in: 'query', description: 'The grouping besides overall and confidence: `segment`, `category` or `reason`.', required: false, schema: AdherenceGroupingSchema, example: 'segment' },
    ],
    success: {
      status: 200,
      description: 'The report.',
      schema: AdherenceReportSchema,
      example: ADHERENCE_EXAMPLE,
    },
    errors: {
      bad_request: '`from` or `to` is not a month or a day, `from` is after `to`, the period is longer than 36 months, `by` is not `segment`, `category` or `reason`, or the query has another parameter.',
    },
  }),
};
