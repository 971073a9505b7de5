// The contract's words for the prices: the API's price call, and the overview's price of one product and its approval.
import { ApproveRequestSchema, ApprovalViewSchema } from '#shared/approvals/schema.ts';
import { PriceRequestSchema } from '#shared/prices/request.ts';
import { PriceResponseSchema } from '#shared/prices/schema.ts';
import { IdentifierSchema } from '#shared/records/identifier.ts';
import { OverviewPriceSchema } from '#shared/recommendations/schema.ts';
import { IdempotencyKeySchema, IncludeSchema } from '#edge/openapi/inputs.ts';
import { idempotencyKeyErrors, operation, optionalIdempotencyKey } from './doc.ts';
import { CONNECTOR_ID, TASK_ID } from './examples.ts';

export const priceOperations = {
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

  approvePrice: operation({
    summary: 'Approve a price',
    description:
      'Approves a price for a SKU, the recommended one or any other within its floor and ceiling. A live (`pw_live_`) ' +
      'approval creates a write-back task for each connector that receives write-backs and cancels their older ' +
      'pending tasks for the SKU; a sandbox (`pw_test_`) approval is recorded and publishes nothing. With an ' +
      '`Idempotency-Key`, a retry with the same key and body within 24 hours gets the first answer byte for byte, with ' +
      '`Idempotent-Replayed: true`, and approves and publishes nothing more.',
    tag: 'Approvals',
    parameters: [optionalIdempotencyKey('approve-bolt-10-rev2')],
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
      replayable: true,
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
        'amount a JSON number holds to the minor unit (70,368,744,177,663.99 in a two-decimal currency); or the ' +
        '`Idempotency-Key` header is empty, longer than 255 characters or not printable ASCII.',
      not_found: 'No product has this SKU, or the product has no cost, so no recommendation.',
      guardrail_violation: 'The price is below the floor (the largest of floor price, MAP and the minimum-margin price) or above the ceiling.',
      ...idempotencyKeyErrors,
    },
  }),
};
