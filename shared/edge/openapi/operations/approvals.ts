// The contract's words for approving a price on the overview surface, and a SKU's approval history.
import { ApprovalHistorySchema, ApprovalsCursorSchema, ApprovalsLimitSchema, DEFAULT_APPROVALS_PAGE, MAX_APPROVALS_PAGE } from '#shared/approvals/history.ts';
import { SECOND_APPROVAL_HOURS } from '#shared/approvals/rules.ts';
import { ApproveRequestSchema, ApprovalViewSchema } from '#shared/approvals/schema.ts';
import { idempotencyKeyErrors, operation, optionalIdempotencyKey } from './doc.ts';
import { APPROVAL_ID, CONNECTOR_ID, RECOMMENDATION_DECISION_ID, TASK_ID } from './examples.ts';
import { skuInPath } from './prices.ts';

export const approvalOperations = {
  approvePrice: operation({
    summary: 'Approve a price',
    description:
      'Approves a price for a SKU, the recommended one or any other within its floor and ceiling. A live (`pw_live_`) ' +
      'approval creates a write-back task for each connector that receives write-backs and cancels their older ' +
      'pending tasks for the SKU; a sandbox (`pw_test_`) approval is recorded and publishes nothing.\n\n' +
      'A price that moves more than the workspace’s confirmation threshold (`approvalConfirmPct`, by default its ' +
      '`maxChangePct`) from the product’s current price, either way, is refused with `confirmation_required` unless ' +
      'the body says `"confirm": true`; a product whose current price is 0 always needs it, and so does any price of ' +
      'a product with data `warnings` (see the recommendation). Floor and ceiling refuse whatever the confirmation.\n\n' +
      'When the workspace sets `secondApprovalPct`, a live approval that moves the price further than that is ' +
      '`waiting`: it publishes nothing until another person approves the same price within ' +
      `${SECOND_APPROVAL_HOURS} hours, and that second approval publishes it (answering the first approval's id, ` +
      '`published`). A key counts as the console user or operator who made it, and a console user the first approver ' +
      'made during the wait is not another person: such an approval waits anew instead. A newer approval of the SKU ' +
      'supersedes a waiting one; after its time it expires.\n\n' +
      'With an `Idempotency-Key`, a retry with the same key and body within 24 hours gets the first answer byte for byte, ' +
      'with `Idempotent-Replayed: true`, and approves and publishes nothing more.',
    tag: 'Approvals',
    parameters: [optionalIdempotencyKey('approve-bolt-10-rev2')],
    requestBody: {
      schema: ApproveRequestSchema,
      required: true,
      description: 'The SKU, the price (a decimal in the product’s currency) and, for a large move, `confirm`.',
      example: { sku: 'BOLT-10', price: 1.89 },
    },
    success: {
      status: 200,
      description: 'The approval, and the tasks it published; or the approval waiting for a second approver.',
      schema: ApprovalViewSchema,
      replayable: true,
      example: {
        approval_id: APPROVAL_ID,
        sku: 'BOLT-10',
        price: 1.89,
        currency: 'USD',
        approved_at: '2026-10-05T09:12:44.318Z',
        livemode: true,
        status: 'published',
        waiting_until: null,
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
      confirmation_required:
        'The price moves past the workspace’s confirmation threshold, or the product has data warnings, without `"confirm": ' +
        'true`; the message names both prices and the move in percent, or each warning by code and message. Nothing is recorded.',
    },
  }),

  listPriceApprovals: operation({
    summary: 'List a SKU’s approvals',
    description:
      'The SKU’s approvals, newest first: who approved (an API key or a console user), when, the price, the ' +
      'recommendation it was over and the move from the current price, the confirmation a large move needed, the ' +
      'second approver where one was needed, and for each connector the state of its write-back task now: ' +
      '`pending`, `leased`, `applied`, `failed` (with the connector’s error), `cancelled` (by a newer approval) or ' +
      '`expired` (leased, the lease run out unacknowledged; it is claimable again). A page holds at most `limit`; ' +
      '`next` is where the following page starts, passed back as `starting_after`, and null on the last page. Any ' +
      'other query parameter is refused.',
    tag: 'Approvals',
    parameters: [
      skuInPath,
      {
        name: 'limit',
        in: 'query',
        description: `How many approvals a page holds at most, 1 to ${MAX_APPROVALS_PAGE}; ${DEFAULT_APPROVALS_PAGE} if left out.`,
        required: false,
        schema: ApprovalsLimitSchema,
        example: 20,
      },
      {
        name: 'starting_after',
        in: 'query',
        description: 'The `next` of the page before, as it was answered; an opaque cursor.',
        required: false,
        schema: ApprovalsCursorSchema,
        example: 'MjAyNi0xMC0wNVQwOTowMDowNS4zMTBaI2Fwdl8zdlhxOE5jVDJMbUI3ZEtwMFJ3WjV5',
      },
    ],
    success: {
      status: 200,
      description: 'A page of approvals, newest first.',
      schema: ApprovalHistorySchema,
      example: {
        data: [
          {
            approval_id: APPROVAL_ID,
            status: 'published',
            approved_by: { type: 'api_key', id: 'key_5bN2qX8mT4vR1cL7wZ0pHd' },
            approved_at: '2026-10-05T09:12:44.318Z',
            price: 1.89,
            currency: 'USD',
            livemode: true,
            recommendation: { recommended_price: 1.68, current_price: 1.99, pricing_decision_id: RECOMMENDATION_DECISION_ID },
            change_pct: -5.03,
            confirmation: null,
            second_approval: null,
            tasks: [
              { connector_id: CONNECTOR_ID, writeback_id: TASK_ID, state: 'applied', error: null, finished_at: '2026-10-05T09:14:02.120Z' },
            ],
          },
        ],
        next: null,
      },
    },
    errors: {
      bad_request:
        `The SKU is longer than 255 characters, \`limit\` is not a whole number from 1 to ${MAX_APPROVALS_PAGE}, ` +
        '`starting_after` is not a cursor this route answered, or the query has another parameter.',
      not_found: 'No product has this SKU in the workspace.',
    },
  }),
};
