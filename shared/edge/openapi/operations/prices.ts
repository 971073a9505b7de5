// The contract's words for the prices: the API's price call, and the overview's price of one product, its approval and their history.
import { PriceRequestSchema } from '#shared/prices/request.ts';
import { PriceResponseSchema } from '#shared/prices/schema.ts';
import { IdentifierSchema } from '#shared/records/identifier.ts';
import { OverviewPriceSchema } from '#shared/recommendations/schema.ts';
import { IdempotencyKeySchema, IncludeSchema } from '#edge/openapi/inputs.ts';
import { DATA_WARNINGS, operation } from './doc.ts';

/** The SKU in the path of the overview's reads of one product. */
export const skuInPath = {
  name: 'sku',
  in: 'path',
  description: 'The product’s SKU, 1 to 255 characters.',
  required: true,
  schema: IdentifierSchema,
  example: 'BOLT-10',
} as const;

export const priceOperations = {
  priceLines: operation({
    summary: 'Price lines',
    description:
      'Prices up to 100 lines in one idempotent call. Each line comes back in its place: priced (`ok: true`), with ' +
      'its decision id and, for an erp key, the reasons, the explanation and the guardrails that moved it; or refused ' +
      '(`ok: false`) with a per-line code, while the call is still a 200. A retry with the same `Idempotency-Key` ' +
      'and body gets the stored answer byte for byte, with `Idempotent-Replayed: true`, for 24 hours; replays do not ' +
      'count towards the monthly lines. A storefront key gets lines without `reason`, `reasonSummary`, ' +
      '`explanation` and `warnings`, and is always held to MAP. The body nests at most 64 levels deep.\n\n' +
      `A line whose product’s data looks wrong is still priced, and carries \`warnings\`: ${DATA_WARNINGS}`,
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
      idempotency_key_reused: 'The `Idempotency-Key` was used with another body, or by another API key of the workspace (a stored answer replays to the key that made it alone).',
      idempotency_key_in_flight: 'The first request with this `Idempotency-Key` is still running; retry after `Retry-After` (1 second).',
      monthly_volume_exceeded:
        "The call would take the workspace's priced lines for the month past its quota: nothing in it is priced. " +
        'The quota is never exceeded; near its end, lines set aside for calls on other servers can refuse a call a ' +
        'little before the last line is spent. `Retry-After` is the seconds to the next month (UTC).',
    },
  }),

  getPrice: operation({
    summary: 'Read a SKU’s recommended price',
    description:
      'The current recommendation for one SKU: one price for all its buyers, MAP held, kept current as batches ' +
      'drain. Where the engine’s win model covers the product’s recent buyers, the single price it expects to earn ' +
      'the most margin over them, or the current price when it expects no change to earn more (the rationale says ' +
      'keep, and names any guardrail that moved it); elsewhere the price the method gives with no customer at ' +
      'quantity 1. Amounts are decimals with the currency’s minor digits. `include=rationale` adds ' +
      'the rationale and the guardrails, `include=drivers` the drivers, `include=impact` the expected effect of ' +
      'moving from the current price to the recommended one, per quote, by the engine’s own win model (`estimated`; ' +
      '`too_thin` with a reason where no credible win model covers the product; `not_estimated` for a ' +
      'recommendation stored before impacts were computed). The impact is stored with the recommendation: asking ' +
      'for it reads nothing more. Any other query parameter is refused.\n\n' +
      `\`warnings\` is there when the product’s data looks wrong, and approving it then needs \`"confirm": true\`: ${DATA_WARNINGS}`,
    tag: 'Recommendations',
    parameters: [
      skuInPath,
      {
        name: 'include',
        in: 'query',
        description: 'What to add, comma-separated: `rationale`, `drivers`, `impact`.',
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
        impact: {
          status: 'estimated',
          quantity: 40,
          current: { price: 1.99, margin: 0.397, win_probability: 0.41, expected_revenue: 32.64, expected_margin: 12.96 },
          recommended: { price: 1.68, margin: 0.2857, win_probability: 0.7, expected_revenue: 47.04, expected_margin: 13.44 },
          expected_margin_change: 0.48,
          expected_revenue_change: 14.4,
          evidence: {
            closed_quotes: 412,
            segments: [
              { segment: 'contractor', share: 0.7 },
              { segment: 'industrial', share: 0.3 },
            ],
          },
          per_month: { expected_margin_change: 6.17, quote_lines: 38, days: 90, as_of: '2026-10-05' },
        },
      },
    },
    errors: {
      bad_request: 'The SKU is longer than 255 characters, `include` names something else or has an empty part, or the query has another parameter.',
      not_found: 'No product has this SKU, or the product has no cost, so no recommendation.',
    },
  }),
};
