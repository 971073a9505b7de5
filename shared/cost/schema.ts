// The cost report's shape: what `cost report --json` prints and `GET /v1/usage` answers, one schema for both.
import * as v from 'valibot';

const Dollars = v.number();

export const ServiceCostsSchema = v.object({
  dynamodb_reads: Dollars,
  dynamodb_writes: Dollars,
  lambda_compute: Dollars,
  lambda_requests: Dollars,
  api_gateway: Dollars,
  sqs: Dollars,
  total: Dollars,
});
export type ServiceCosts = v.InferOutput<typeof ServiceCostsSchema>;

export const CostLineSchema = v.object({
  /** The day (YYYY-MM-DD) or the route or worker the line is for; `total` for the whole range. */
  key: v.string(),
  requests: v.number(),
  requests_by_status: v.object({ '2xx': v.number(), '3xx': v.number(), '4xx': v.number(), '5xx': v.number() }),
  priced_lines: v.number(),
  read_units: v.number(),
  write_units: v.number(),
  /** Of `write_units`, what the ledger's own flushes cost. */
  accounting_write_units: v.number(),
  lambda_gb_seconds: v.number(),
  lambda_invocations: v.number(),
  api_gateway_requests: v.number(),
  sqs_requests: v.number(),
  cost: ServiceCostsSchema,
  cost_per_request: v.nullable(Dollars),
  cost_per_million_priced_lines: v.nullable(Dollars),
});
export type CostLine = v.InferOutput<typeof CostLineSchema>;

export const CostReportSchema = v.object({
  workspace_id: v.string(),
  from: v.string(),
  to: v.string(),
  by: v.picklist(['day', 'route']),
  currency: v.literal('USD'),
  list_prices: v.object({ region: v.string(), as_of: v.string() }),
  total: CostLineSchema,
  breakdown: v.array(CostLineSchema),
  /** Each route's and worker's cost per request, whatever `by` is. */
  routes: v.array(
    v.object({
      route: v.string(),
      requests: v.number(),
      cost_per_request: v.nullable(Dollars),
      /** The route's own cost over the lines it priced: for `priceLines`, what `npm run bench` measures. */
      cost_per_million_priced_lines: v.nullable(Dollars),
    }),
  ),
  /** Each service's share of the total, in percent. */
  service_shares: v.object({
    dynamodb: v.number(),
    lambda: v.number(),
    api_gateway: v.number(),
    sqs: v.number(),
  }),
});
export type CostReport = v.InferOutput<typeof CostReportSchema>;
