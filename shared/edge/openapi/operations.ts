// What the contract documents say of each route beyond the route table: summary, prose, inputs, answers, error codes and examples, keyed by route id.
import * as v from 'valibot';
import { ApproveRequestSchema, ApprovalViewSchema } from '#shared/approvals/schema.ts';
import { CostReportSchema } from '#shared/cost/schema.ts';
import { AdherenceReportSchema } from '#shared/adherence/schema.ts';
import { BatchIdSchema, BatchStatusViewSchema, CommittedBatchSchema, OpenedBatchSchema, StagedRecordsSchema } from '#shared/batches/schema.ts';
import type { ErrorCode } from '#platform/errors.ts';
import { NoBodySchema } from '#edge/http/request.ts';
import { PriceRequestSchema } from '#shared/prices/request.ts';
import { PriceResponseSchema } from '#shared/prices/schema.ts';
import { IdentifierSchema } from '#shared/records/identifier.ts';
import { OverviewPriceSchema } from '#shared/recommendations/schema.ts';
import {
  AckCountsSchema,
  AckRequestSchema,
  ClaimRequestSchema,
  ClaimResponseSchema,
  ExtendRequestSchema,
  ExtendResponseSchema,
} from '#shared/writebacks/schema.ts';
import {
  CreatedEndpointSchema,
  CreateEndpointRequestSchema,
  DeletedEndpointSchema,
  EndpointIdSchema,
  EndpointListSchema,
  type EndpointView,
  EndpointViewSchema,
  MAX_ENDPOINTS_PER_WORKSPACE,
  RotatedSecretSchema,
  UpdateEndpointRequestSchema,
} from '#shared/webhooks/endpoint-schema.ts';
import { ADHERENCE_EXAMPLE } from '#shared/adherence/example.ts';
import {
  DEFAULT_DELIVERIES_PAGE,
  DeliveriesCursorSchema,
  DeliveriesLimitSchema,
  DeliveryListSchema,
  DeliveryStatusSchema,
  type DeliveryView,
  DeliveryViewSchema,
  EventIdSchema,
  MAX_DELIVERIES_PAGE,
} from '#shared/webhooks/delivery-schema.ts';
import { AdherenceGroupingSchema, AdherencePeriodSchema, IdempotencyKeySchema, IncludeSchema, ReportDaySchema, ReportGroupingSchema, StageRequestSchema, TaskIdParameterSchema } from './inputs.ts';

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

export const OPENAPI_VERSION = '3.1.0';

/** What the two contract routes serve: an OpenAPI document, described no further than its frame. */
export const OpenApiDocumentSchema = v.looseObject({
  openapi: v.literal(OPENAPI_VERSION),
  info: v.looseObject({ title: v.string(), version: v.string() }),
  paths: v.looseObject({}),
});

export type SuccessStatus = 200 | 201 | 202;

export interface ParameterDoc {
  readonly name: string;
  readonly in: 'path' | 'query' | 'header';
  readonly description: string;
  readonly required: boolean;
  readonly schema: v.GenericSchema;
  readonly example: unknown;
}

export interface OperationDoc<
  TRequest extends v.GenericSchema = v.GenericSchema,
  TResponse extends v.GenericSchema = v.GenericSchema,
  TStatus extends SuccessStatus = SuccessStatus,
> {
  readonly summary: string;
  /** What it does; the key it needs and the errors it can answer are added from the route and `errors`. */
  readonly description: string;
  readonly tag: string;
  readonly parameters?: readonly ParameterDoc[];
  readonly requestBody?: {
    readonly schema: TRequest;
    /** False where the handler takes no body, an empty one, or `{}` alike. */
    readonly required: boolean;
    readonly description: string;
    readonly example?: v.InferInput<TRequest>;
  };
  readonly success: {
    readonly status: TStatus;
    readonly description: string;
    readonly schema: TResponse;
    readonly example: v.InferOutput<TResponse>;
    /** A replay of a stored answer carries `Idempotent-Replayed: true`. */
    readonly replayable?: boolean;
  };
  /**
   * The codes its input and its domain can answer, in its surface's own dialect (the overview's `bad_request`), each
   * with when. The key checks', the rate's and the fault's follow from the route's auth.
   */
  readonly errors: Readonly<Partial<Record<ErrorCode, string>>>;
}

/** Ties each example to its schema's type, so that an example that drifts from its schema fails the typecheck. */
function operation<
  const TResponse extends v.GenericSchema,
  const TStatus extends SuccessStatus,
  const TRequest extends v.GenericSchema = v.GenericSchema,
>(doc: OperationDoc<TRequest, TResponse, TStatus>): OperationDoc<TRequest, TResponse, TStatus> {
  return doc;
}

// Examples: one connector's day, as the README walks through it.
const CONNECTOR_ID = 'con_ygFmMntTST85In8bmiY37I';
const BATCH_ID = '101ba56e-5a0c-4d4f-9f43-3b1a8c2e7d90';
const TASK_ID = 'wb_7Qm2LxVb9TgK4rNc1ZsP8d';
const RECOMMENDATION_DECISION_ID = 'pd_3vXq8NcT2LmB7dKp0RwZ5y';

const exampleTask = {
  id: TASK_ID,
  productSku: 'BOLT-10',
  productExternalId: 'ERP-881',
  priceCents: 189,
  currency: 'USD',
  leaseUntil: '2026-10-05T09:31:00.000Z',
  target: { connectorId: CONNECTOR_ID, channel: 'Demo Seller ERP' },
  exchangeRateToBase: 1,
  reasonSummary: 'Approved at 1.89 over the recommended 1.68 (segment target 28.57% · final 28.57%)',
  pricingDecisionId: RECOMMENDATION_DECISION_ID,
};

const batchIdParameter: ParameterDoc = {
  name: 'batchId',
  in: 'path',
  description: 'The batch, as opening it answered. Not a UUID: 422 `invalid_request` with `param: "batchId"`.',
  required: true,
  schema: BatchIdSchema,
  example: BATCH_ID,
};

const noBody = (what: string) => ({ schema: NoBodySchema, required: false, description: `${what} takes no body: none, an empty one, or \`{}\`.` });

const exampleEndpoint = {
  id: 'we_5kQmT2vXb8NcL4pR7dWz0y',
  url: 'https://erp.example.com/hooks/pricing',
  description: 'ERP',
  event_types: ['batch.drained', 'price.approved'],
  enabled: true,
  status: 'healthy',
  failing_since: null,
  previous_secret_expires_at: null,
  created_at: '2026-10-05T09:30:00.000Z',
  updated_at: '2026-10-05T09:30:00.000Z',
} satisfies EndpointView;

const endpointIdParameter: ParameterDoc = {
  name: 'endpointId',
  in: 'path',
  description: 'The endpoint’s id, `we_…`. An id of another workspace’s endpoint is answered as an unknown one.',
  required: true,
  schema: EndpointIdSchema,
  example: exampleEndpoint.id,
};

const exampleDelivery = {
  event_id: 'evt_4Zq0M2cY7kQ1rB8sVt3nHd',
  event_type: 'batch.drained',
  event_timestamp: '2026-10-05T09:00:05.310Z',
  status: 'pending',
  attempts: 2,
  last_attempt_at: '2026-10-05T09:00:10.402Z',
  last_status: 503,
  last_error: null,
  next_attempt_at: '2026-10-05T09:05:10.431Z',
} satisfies DeliveryView;

const ingestErrors = {
  batch_not_found: 'No batch with this id belongs to the calling connector: another connector’s or workspace’s is as unknown.',
} as const;

export const operations = {
  priceLines: operation({
    summary: 'Price lines',
    description:
      'Prices up to 100 lines in one idempotent call. Each line comes back in its place: priced (`ok: true`), with ' +
      'its decision id and, for an erp key, the reasons, the explanation and the guardrails that moved it; or refused ' +
      '(`ok: false`) with a per-line code, while the call is still a 200. A retry with the same `Idempotency-Key` ' +
      'and body gets the stored answer byte for byte, with `Idempotent-Replayed: true`, for 24 hours; replays do not ' +
      'count towards the monthly lines. A storefront key gets lines without `reason`, `reasonSummary` and ' +
      '`explanation`, and is always held to MAP. The body nests at most 64 levels deep.',
    tag: 'Prices',
    parameters: [
      {
        name: 'Idempotency-Key',
        in: 'header',
        description: 'One key per logical request, the same on its retries: 1 to 255 printable ASCII characters.',
        required: true,
        schema: IdempotencyKeySchema,
        example: 'quote-4711-rev1',
      },
    ],
    requestBody: {
      schema: PriceRequestSchema,
      required: true,
      description: 'A line names a product (`productSku` or `productExternalId`), a quantity, and optionally a customer.',
      example: {
        lines: [
          { productSku: 'BOLT-10', customerExternalId: 'C-100', quantity: 800 },
          { productExternalId: 'ERP-881', quantity: 10 },
          { productSku: 'NOPE', quantity: 1 },
        ],
      },
    },
    success: {
      status: 200,
      description: 'One result per requested line, in order.',
      schema: PriceResponseSchema,
      replayable: true,
      example: {
        lines: [
          {
            priceCents: 175,
            currency: 'USD',
            pricingDecisionId: 'pd_OKQLcgQwMtU6PeGLzUBfOUS4Sh7x000',
            reason: [
              {
                param: 'segment_target',
                marginDeltaBps: 0,
                label: 'Target margin 31.43% from this SKU in the segment (n_eff 1.0), shrunk toward broader history',
                scope: 'segment',
              },
              {
                param: 'customer_history',
                marginDeltaBps: 18,
                label: 'Customer pays 3.7 points more than the segment on this SKU (n_eff 1.0)',
                scope: 'customer',
              },
              {
                param: 'quantity',
                marginDeltaBps: -18,
                label: 'Deal is 1.6× the median quantity of 500: a break of up to 0.34 points, not below the floor 23.04%',
                scope: 'segment',
              },
            ],
            reasonSummary: 'segment target 31.43% · customer history +0.18 · quantity −0.18 · final 31.43%',
            explanation: {
              short: "Priced at the segment target; its adjustments cancel out (the largest: the customer's own history).",
              drivers: [
                {
                  param: 'customer_history',
                  label: 'Customer pays 3.7 points more than the segment on this SKU (n_eff 1.0)',
                  points: 0.18,
                  direction: 'up',
                },
                {
                  param: 'quantity',
                  label: 'Deal is 1.6× the median quantity of 500: a break of up to 0.34 points, not below the floor 23.04%',
                  points: -0.18,
                  direction: 'down',
                },
              ],
              stance: 'negotiable',
              marginPct: 31.43,
              targetMarginPct: 31.7,
              confidence: 'low',
            },
            guardrailsApplied: [],
            confidence: 'low',
            confidenceScore: 0.04,
            ok: true,
          },
          {
            priceCents: 168,
            currency: 'USD',
            pricingDecisionId: 'pd_OKQLcgQwMtU6PeGLzUBfOUS4Sh7x001',
            reason: [
              {
                param: 'segment_target',
                marginDeltaBps: 0,
                label: 'Target margin 28.57% from this SKU in the segment (n_eff 1.0), shrunk toward broader history',
                scope: 'segment',
              },
            ],
            reasonSummary: 'segment target 28.57% · final 28.57%',
            explanation: {
              short: 'Priced at the segment target; no adjustments.',
              drivers: [],
              stance: 'negotiable',
              marginPct: 28.57,
              targetMarginPct: 28.9,
              confidence: 'low',
            },
            guardrailsApplied: [],
            confidence: 'low',
            confidenceScore: 0.04,
            ok: true,
          },
          {
            ok: false,
            error: {
              code: 'unknown_product',
              message: 'No product with this identifier is known to the workspace.',
              param: 'lines[2].productSku',
            },
          },
        ],
      },
    },
    errors: {
      invalid_json: 'The body is not JSON.',
      invalid_request:
        'The body or the `Idempotency-Key` header is malformed, or past a bound (1 to 100 lines, identifiers of 1 to ' +
        '255 characters, quantities up to 1,000,000,000); `param` names the first place.',
      idempotency_key_reused: 'The `Idempotency-Key` was used with another body, or by a key of the other audience (erp or storefront).',
      idempotency_key_in_flight: 'The first request with this `Idempotency-Key` is still running; retry after `Retry-After` (1 second).',
      monthly_volume_exceeded:
        "The call would take the workspace's priced lines for the month past its quota: nothing in it is priced. " +
        '`Retry-After` is the seconds to the next month (UTC).',
    },
  }),

  openBatch: operation({
    summary: 'Open an ingest batch',
    description:
      'Opens a batch for the calling connector. Records are staged into it, then it is committed; a batch not ' +
      'committed within 24 hours fails.',
    tag: 'Ingest',
    requestBody: noBody('Opening a batch'),
    success: {
      status: 201,
      description: 'The new batch, which belongs to the connector of the key.',
      schema: OpenedBatchSchema,
      example: { batchId: BATCH_ID, connectorId: CONNECTOR_ID },
    },
    errors: {
      invalid_json: 'The body is not JSON.',
      invalid_request: 'The body is anything but nothing or `{}`; `param` names its first field.',
    },
  }),

  stageRecords: operation({
    summary: 'Stage records into a batch',
    description:
      'Stages up to 1,000 records of one entity kind. The call is all or nothing: the first bad field is named in ' +
      '`param` (`records[17].lines[0].costCents`) and nothing is staged. Kinds are staged in rank order: product, ' +
      'customer, quote, order. Records past the batch’s caps (records, and quote and order lines) are not staged but ' +
      'counted in the batch’s `skippedOverCap`. A record is at most 256 KB of JSON, and a body nests at most 64 levels.',
    tag: 'Ingest',
    parameters: [batchIdParameter],
    requestBody: {
      schema: StageRequestSchema,
      required: true,
      description: 'One entity kind and its records.',
      example: {
        entity: 'product',
        records: [
          {
            sku: 'BOLT-10',
            externalId: 'ERP-881',
            name: 'Hex bolt M10',
            category: 'Fasteners',
            costCents: 120,
            currentPriceCents: 199,
            currency: 'USD',
          },
        ],
      },
    },
    success: {
      status: 202,
      description: 'The records accepted; the batch drains them once committed.',
      schema: StagedRecordsSchema,
      example: { staged: 1 },
    },
    errors: {
      invalid_json: 'The body is not JSON.',
      invalid_request:
        'The batch id, the body or a record is malformed or past a bound, or the call’s records are too large to stage ' +
        'together; `param` names the first place.',
      entity_not_supported: '`entity` is not one of product, customer, quote, order.',
      ...ingestErrors,
      batch_entity_order_violation: 'The batch already holds a kind ranked after this one.',
      batch_already_committed: 'The batch is not open: committed, draining, drained, failed, or past its 24 hours.',
    },
  }),

  batchStatus: operation({
    summary: 'Read a batch’s status',
    description:
      'Where a batch stands: its state, its kinds in rank order and its counts, with the moments it was committed, ' +
      'drained and had its bands recomputed once they are known. `error` is present only when it failed. Reading an ' +
      'open batch past its 24 hours records it as failed.',
    tag: 'Ingest',
    parameters: [batchIdParameter],
    success: {
      status: 200,
      description: 'The batch as it stands.',
      schema: BatchStatusViewSchema,
      example: {
        status: 'drained',
        entities: ['product', 'customer', 'quote', 'order'],
        recordCount: 4,
        skippedOverCap: 0,
        createdAt: '2026-10-05T09:00:00.000Z',
        committedAt: '2026-10-05T09:00:04.120Z',
        drainedAt: '2026-10-05T09:00:05.310Z',
        drainedCount: 4,
        bandsRecomputedAt: '2026-10-05T09:00:06.002Z',
      },
    },
    errors: {
      invalid_request: 'The batch id is not a UUID (`param: "batchId"`).',
      ...ingestErrors,
    },
  }),

  commitBatch: operation({
    summary: 'Commit a batch',
    description:
      'Hands an open batch to the drain, which writes it into the workspace’s canonical data; its status then moves ' +
      'through committed and draining to drained. An empty batch commits and drains with no records.',
    tag: 'Ingest',
    parameters: [batchIdParameter],
    requestBody: noBody('Committing a batch'),
    success: {
      status: 202,
      description: 'The drain job the batch was handed to.',
      schema: CommittedBatchSchema,
      example: { jobId: 'job_5TqW8zR1mN3cX7vB2kL9pD' },
    },
    errors: {
      invalid_json: 'The body is not JSON.',
      invalid_request: 'The batch id is not a UUID, or the body is anything but nothing or `{}`; `param` names it.',
      ...ingestErrors,
      batch_already_committed: 'The batch is not open: already committed, or past its 24 hours.',
    },
  }),

  claimWritebacks: operation({
    summary: 'Claim write-back tasks',
    description:
      'Leases up to `limit` of the calling connector’s claimable tasks, oldest first, for `leaseSeconds`: pending ' +
      'tasks, and tasks whose lease ran out. No other claim gets them before `leaseUntil`. The body may be left out ' +
      '(10 tasks for 300 seconds); none claimable is `{"tasks": []}`.',
    tag: 'Write-backs',
    requestBody: {
      schema: ClaimRequestSchema,
      required: false,
      description: 'How many tasks, for how long.',
      example: { limit: 10, leaseSeconds: 60 },
    },
    success: {
      status: 200,
      description: 'The tasks leased, oldest first.',
      schema: ClaimResponseSchema,
      example: { tasks: [exampleTask] },
    },
    errors: {
      invalid_json: 'The body is not JSON.',
      invalid_request: '`limit` or `leaseSeconds` is not an integer in its range, or the body has another field; `param` names it.',
    },
  }),

  ackWritebacks: operation({
    summary: 'Acknowledge write-back tasks',
    description:
      'Reports each leased task as applied (`ok: true`: the product’s current price becomes the task’s) or failed ' +
      '(`ok: false`, with the connector’s `error` kept; a failed task is not retried). Each result is counted once: ' +
      '`applied`, `failed`, `expired` (its lease ran out: nothing changes, and the task can be claimed again) or ' +
      '`ignored` (an unknown id, another connector’s task, a task not leased, an id repeated in the call). The same ' +
      'ack sent again counts the same and changes nothing.',
    tag: 'Write-backs',
    requestBody: {
      schema: AckRequestSchema,
      required: true,
      description: '1 to 500 results.',
      example: {
        results: [
          { id: TASK_ID, ok: true },
          { id: 'wb_2Hd8KqP0sVn5Yt3MfJ6wRc', ok: false, error: 'SAP rejected the price: the material is locked.' },
        ],
      },
    },
    success: {
      status: 200,
      description: 'How each result was counted.',
      schema: AckCountsSchema,
      example: { applied: 1, failed: 1, expired: 0, ignored: 0 },
    },
    errors: {
      invalid_json: 'The body is not JSON.',
      invalid_request: 'The body is malformed or past a bound (1 to 500 results, `error` of at most 1,000 characters); `param` names it.',
    },
  }),

  extendWriteback: operation({
    summary: 'Extend a write-back lease',
    description:
      'Moves the end of the caller’s live lease on a task to `leaseSeconds` from now, for a worker that needs longer. ' +
      'The body may be left out (300 seconds).',
    tag: 'Write-backs',
    parameters: [
      {
        name: 'id',
        in: 'path',
        description: 'The task’s id, as the claim answered it.',
        required: true,
        schema: TaskIdParameterSchema,
        example: TASK_ID,
      },
    ],
    requestBody: {
      schema: ExtendRequestSchema,
      required: false,
      description: 'The new lease, from now.',
      example: { leaseSeconds: 300 },
    },
    success: {
      status: 200,
      description: 'The task with its new `leaseUntil`.',
      schema: ExtendResponseSchema,
      example: { task: { ...exampleTask, leaseUntil: '2026-10-05T09:35:00.000Z' } },
    },
    errors: {
      invalid_json: 'The body is not JSON.',
      invalid_request: '`leaseSeconds` is not an integer from 1 to 3600, or the body has another field; `param` names it.',
      writeback_lease_expired: 'The caller holds no live lease on the task: the lease ran out, it is not leased, or the id is unknown.',
    },
  }),

  getPrice: operation({
    summary: 'Read a SKU’s recommended price',
    description:
      'The current recommendation for one SKU: the price the method gives with no customer at quantity 1, MAP held, ' +
      'kept current as batches drain. Amounts are decimals with the currency’s minor digits. `include=rationale` adds ' +
      'the rationale and the guardrails, `include=drivers` the drivers; any other query parameter is refused.',
    tag: 'Recommendations',
    parameters: [
      {
        name: 'sku',
        in: 'path',
        description: 'The product’s SKU, 1 to 255 characters.',
        required: true,
        schema: IdentifierSchema,
        example: 'BOLT-10',
      },
      {
        name: 'include',
        in: 'query',
        description: 'What to add, comma-separated: `rationale`, `drivers`.',
        required: false,
        schema: IncludeSchema,
        example: ['rationale', 'drivers'],
      },
    ],
    success: {
      status: 200,
      description: 'The recommendation, with the parts `include` asks for.',
      schema: OverviewPriceSchema,
      example: {
        sku: 'BOLT-10',
        currency: 'USD',
        recommended_price: 1.68,
        current_price: 1.99,
        change_pct: -15.58,
        updated_at: '2026-10-05T09:00:06.002Z',
        rationale: 'Priced at the segment target; no adjustments. (segment target 28.57% · final 28.57%)',
        guardrails: { floor: 1.2, ceiling: null },
        drivers: [],
      },
    },
    errors: {
      bad_request: 'The SKU is longer than 255 characters, `include` names something else or has an empty part, or the query has another parameter.',
      not_found: 'No product has this SKU, or the product has no cost, so no recommendation.',
    },
  }),

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

  approvePrice: operation({
    summary: 'Approve a price',
    description:
      'Approves a price for a SKU, the recommended one or any other within its floor and ceiling. A live (`pw_live_`) ' +
      'approval creates a write-back task for each connector that receives write-backs and cancels their older ' +
      'pending tasks for the SKU; a sandbox (`pw_test_`) approval is recorded and publishes nothing.',
    tag: 'Approvals',
    requestBody: {
      schema: ApproveRequestSchema,
      required: true,
      description: 'The SKU and the price, a decimal in the product’s currency.',
      example: { sku: 'BOLT-10', price: 1.89 },
    },
    success: {
      status: 200,
      description: 'The approval, and the tasks it published.',
      schema: ApprovalViewSchema,
      example: {
        sku: 'BOLT-10',
        price: 1.89,
        currency: 'USD',
        approved_at: '2026-10-05T09:12:44.318Z',
        livemode: true,
        published_to: [{ connector_id: CONNECTOR_ID, writeback_id: TASK_ID }],
      },
    },
    errors: {
      bad_request:
        'The body is not JSON or is malformed, or the price has more decimals than its currency, or is past the largest ' +
        'amount a JSON number holds to the minor unit (70,368,744,177,663.99 in a two-decimal currency).',
      not_found: 'No product has this SKU, or the product has no cost, so no recommendation.',
      guardrail_violation: 'The price is below the floor (the largest of floor price, MAP and the minimum-margin price) or above the ceiling.',
    },
  }),

  createWebhookEndpoint: operation({
    summary: 'Register a webhook endpoint',
    description:
      'Registers an HTTPS endpoint to receive the events it subscribes to, signed by the Standard Webhooks rules. The ' +
      'URL is refused unless every address its host resolves to is public (no loopback, private, carrier-grade NAT, ' +
      'link-local or metadata address); the check is made again before each delivery. The answer carries the ' +
      'signing secret, `whsec_…`, this once: store it, it is never shown again. A workspace has at most ' +
      `${MAX_ENDPOINTS_PER_WORKSPACE} endpoints. Sandbox (\`pw_test_\`) keys may read endpoints but not change them.`,
    tag: 'Webhooks',
    requestBody: {
      schema: CreateEndpointRequestSchema,
      required: true,
      description: 'The URL, at most 2,048 characters; the event types, each once; and optionally a description and `enabled`.',
      example: { url: 'https://erp.example.com/hooks/pricing', event_types: ['batch.drained', 'price.approved'], description: 'ERP' },
    },
    success: {
      status: 201,
      description: 'The endpoint, and its signing secret, shown this once.',
      schema: CreatedEndpointSchema,
      example: { ...exampleEndpoint, secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw3zJ4m1FKV8g=' },
    },
    errors: {
      bad_request:
        'The body is not JSON or is malformed; the URL is not `https://`, is longer than 2,048 characters, carries a ' +
        'user name, does not resolve, or resolves to an address that is not public; an event type is unknown or ' +
        `repeated; or the workspace already has ${MAX_ENDPOINTS_PER_WORKSPACE} endpoints.`,
      forbidden: 'The key is a sandbox (`pw_test_`) key.',
    },
  }),

  listWebhookEndpoints: operation({
    summary: 'List the webhook endpoints',
    description:
      'Every webhook endpoint of the workspace, with its status: `healthy`; `failing` since a delivery was parked after ' +
      'its last retry (`failing_since`); or `disabled`, by its owner or by the service after five days of failing. ' +
      'Secrets are never shown.',
    tag: 'Webhooks',
    success: {
      status: 200,
      description: 'The endpoints, in id order.',
      schema: EndpointListSchema,
      example: { data: [exampleEndpoint] },
    },
    errors: {},
  }),

  getWebhookEndpoint: operation({
    summary: 'Read a webhook endpoint',
    description: 'One webhook endpoint of the workspace, with its status. Secrets are never shown.',
    tag: 'Webhooks',
    parameters: [endpointIdParameter],
    success: { status: 200, description: 'The endpoint.', schema: EndpointViewSchema, example: exampleEndpoint },
    errors: { not_found: 'No endpoint of this workspace has this id.' },
  }),

  updateWebhookEndpoint: operation({
    summary: 'Change a webhook endpoint',
    description:
      'Changes the URL (checked as at registration), the event types, the description (`null` removes it) or ' +
      '`enabled`. Re-enabling an endpoint, one the service disabled included, starts it afresh as `healthy`. A refused ' +
      'change changes nothing.',
    tag: 'Webhooks',
    parameters: [endpointIdParameter],
    requestBody: {
      schema: UpdateEndpointRequestSchema,
      required: true,
      description: 'The fields to change, at least one.',
      example: { event_types: ['batch.drained', 'batch.failed', 'price.approved'], enabled: true },
    },
    success: { status: 200, description: 'The endpoint as changed.', schema: EndpointViewSchema, example: exampleEndpoint },
    errors: {
      bad_request: 'The body is not JSON, is malformed or changes nothing, or the new URL or event types are refused as at registration.',
      forbidden: 'The key is a sandbox (`pw_test_`) key.',
      not_found: 'No endpoint of this workspace has this id.',
    },
  }),

  deleteWebhookEndpoint: operation({
    summary: 'Delete a webhook endpoint',
    description: 'Removes the endpoint: nothing more is sent to it, and its place under the limit is free again.',
    tag: 'Webhooks',
    parameters: [endpointIdParameter],
    success: {
      status: 200,
      description: 'The endpoint is gone.',
      schema: DeletedEndpointSchema,
      example: { id: exampleEndpoint.id, deleted: true },
    },
    errors: { forbidden: 'The key is a sandbox (`pw_test_`) key.', not_found: 'No endpoint of this workspace has this id.' },
  }),

  rotateWebhookSecret: operation({
    summary: 'Rotate a webhook endpoint’s signing secret',
    description:
      'Mints a new signing secret, shown this once. For 24 hours the one it replaces signs too: each message carries ' +
      'both signatures in `webhook-signature`, so a receiver may switch to the new secret at any time in that window. ' +
      'A second rotation within the 24 hours retires the oldest secret at once.',
    tag: 'Webhooks',
    parameters: [endpointIdParameter],
    requestBody: noBody('Rotating'),
    success: {
      status: 200,
      description: 'The new secret, and until when the previous one still signs.',
      schema: RotatedSecretSchema,
      example: {
        id: exampleEndpoint.id,
        secret: 'whsec_3Zb0u4XfZ0Wn7LxQ9uE1JpWb4m4lQ2mYVdXyZkq5n8A=',
        previous_secret_expires_at: '2026-10-06T09:30:00.000Z',
      },
    },
    errors: {
      bad_request: 'The request has a body other than none, an empty one, or `{}`.',
      forbidden: 'The key is a sandbox (`pw_test_`) key.',
      not_found: 'No endpoint of this workspace has this id.',
    },
  }),

  listWebhookDeliveries: operation({
    summary: 'List a webhook endpoint’s deliveries',
    description:
      'The events sent to the endpoint in the last 30 days, newest first, each with its state (`pending` while ' +
      'retries remain, `delivered` after a `2xx`, `parked` after the last retry failed), its attempts, the last ' +
      'status or error, and when the next attempt is due. A page holds at most `limit`; `next` is where the following ' +
      'page starts, passed back as `starting_after`, and null on the last page. With `status`, a page may hold fewer ' +
      'than `limit` and still have a `next`. Any other query parameter is refused.',
    tag: 'Webhooks',
    parameters: [
      endpointIdParameter,
      {
        name: 'limit',
        in: 'query',
        description: `How many deliveries a page holds at most, 1 to ${MAX_DELIVERIES_PAGE}; ${DEFAULT_DELIVERIES_PAGE} if left out.`,
        required: false,
        schema: DeliveriesLimitSchema,
        example: 20,
      },
      {
        name: 'starting_after',
        in: 'query',
        description: 'The `next` of the page before, as it was answered; an opaque cursor.',
        required: false,
        schema: DeliveriesCursorSchema,
        example: 'MjAyNi0xMC0wNVQwOTowMDowNS4zMTBaI2V2dF80WnEwTTJjWTdrUTFyQjhzVnQzbkhk',
      },
      {
        name: 'status',
        in: 'query',
        description: 'Only the deliveries in this state.',
        required: false,
        schema: DeliveryStatusSchema,
        example: 'parked',
      },
    ],
    success: {
      status: 200,
      description: 'A page of deliveries, newest event first.',
      schema: DeliveryListSchema,
      example: { data: [exampleDelivery], next: null },
    },
    errors: {
      bad_request:
        `\`limit\` is not a whole number from 1 to ${MAX_DELIVERIES_PAGE}, \`status\` is not pending, delivered or parked, ` +
        '`starting_after` is not a cursor this route answered, or the query has another parameter.',
      not_found: 'No endpoint of this workspace has this id.',
    },
  }),

  redeliverWebhookEvent: operation({
    summary: 'Redeliver a webhook event',
    description:
      'Sends an event of the workspace’s last 30 days to the endpoint again, with the same `webhook-id`, as a new run ' +
      'of the retry schedule: a parked delivery, a delivered one, or an event the endpoint was never sent. The attempt ' +
      'is queued, and made within seconds; its attempts continue the delivery’s count. Sandbox (`pw_test_`) keys may ' +
      'list deliveries but not redeliver.',
    tag: 'Webhooks',
    parameters: [
      endpointIdParameter,
      {
        name: 'eventId',
        in: 'path',
        description: 'The event’s id, `evt_…`, as its delivery or its `webhook-id` header shows it.',
        required: true,
        schema: EventIdSchema,
        example: exampleDelivery.event_id,
      },
    ],
    requestBody: noBody('Redelivering'),
    success: {
      status: 202,
      description: 'The delivery as queued: pending, its next attempt due now.',
      schema: DeliveryViewSchema,
      example: {
        ...exampleDelivery,
        status: 'pending',
        attempts: 12,
        last_attempt_at: null,
        last_status: null,
        next_attempt_at: '2026-10-08T09:00:00.000Z',
      },
    },
    errors: {
      bad_request: 'The request has a body other than none, an empty one, or `{}`.',
      forbidden: 'The key is a sandbox (`pw_test_`) key.',
      not_found: 'No endpoint of this workspace has this id, or no event of this workspace in the last 30 days has this id.',
    },
  }),

  openapiV1: operation({
    summary: 'This document',
    description: 'The OpenAPI document of `/api/v1`, the one you are reading.',
    tag: 'Contract',
    success: {
      status: 200,
      description: 'The OpenAPI document.',
      schema: OpenApiDocumentSchema,
      example: { openapi: OPENAPI_VERSION, info: { title: 'Pricing service API', version: '1.0.0' }, paths: {} },
    },
    errors: {},
  }),

  openapiOverview: operation({
    summary: 'This document',
    description: 'The OpenAPI document of the overview surface, `/v1`, the one you are reading.',
    tag: 'Contract',
    success: {
      status: 200,
      description: 'The OpenAPI document.',
      schema: OpenApiDocumentSchema,
      example: { openapi: OPENAPI_VERSION, info: { title: 'Pricing service overview API', version: '1.0.0' }, paths: {} },
    },
    errors: {},
  }),
};

/** Routes of the table the documents leave out, and why. */
export const undocumentedRoutes: Readonly<Record<string, string>> = {
  apiReference: 'an HTML page that renders the documents',
  apiReferenceAsset: 'a static asset of that page',
};

export type OperationId = keyof typeof operations;

/** The body an operation answers on success, as its document says. */
export type ResponseOf<TId extends OperationId> = v.InferOutput<(typeof operations)[TId]['success']['schema']>;

/** A handler's success, held to its document: `return { statusCode: 201, body } satisfies DocumentedReply<'openBatch'>`. */
export interface DocumentedReply<TId extends OperationId> {
  readonly statusCode: (typeof operations)[TId]['success']['status'];
  readonly body: ResponseOf<TId>;
  readonly headers?: Readonly<Record<string, string>>;
}

/**
 * Compiles only when every value of `TActual` is valid for `TDocumented` and, at any depth, `TActual` names no field
 * the document lacks (a strict object refuses it): for answers built from types the schemas do not define.
 */
export type Conforms<TActual extends TDocumented & NoFieldBeyond<TActual, TDocumented>, TDocumented> = TActual;

type NoFieldBeyond<TActual, TDocumented> = [ExtraFields<TActual, TDocumented>] extends [never]
  ? unknown
  : { readonly fieldsTheDocumentLacks: ExtraFields<TActual, TDocumented> };

/** The members of the documented union that a value of TActual can be. */
type Matching<TActual, TDocumented> = TDocumented extends unknown ? (TActual extends TDocumented ? TDocumented : never) : never;

type ExtraFields<TActual, TDocumented> = TActual extends readonly (infer TItem)[]
  ? TDocumented extends readonly (infer TDocumentedItem)[]
    ? ExtraFields<TItem, TDocumentedItem>
    : never
  : TActual extends object
    ? {
        [K in keyof TActual]-?: K extends keyof Matching<TActual, TDocumented>
          ? ExtraFields<NonNullable<TActual[K]>, NonNullable<Matching<TActual, TDocumented>[K]>>
          : K;
      }[keyof TActual]
    : never;
