// POST /v1/prices/approve: a pricing manager approves a price, which live keys publish to every connector that takes write-backs.
import { approvalView, approvePrice } from '#shared/approvals/approve.ts';
import { type Approval, ApproveRequestSchema } from '#shared/approvals/schema.ts';
import { routeEndpoint } from '#edge/http/endpoint.ts';
import { keyStore } from '#edge/http/idempotent.ts';
import { overviewPriceRoutes } from '#edge/routes/prices.ts';
import { readJsonBody } from '#edge/http/request.ts';
import type { DocumentedReply } from '#edge/openapi/operations.ts';

export const handler = routeEndpoint(
  overviewPriceRoutes,
  'approvePrice',
  async ({ event, principal, nowMs, answerInWork }) => {
    const request = readJsonBody(event, ApproveRequestSchema);
    // With a key, the answer a retry replays is stored in the approval's own transaction: no crash can split them.
    const answer = answerInWork?.rider(200, (approval: Approval) => approvalView(approval));
    const approval = await approvePrice(principal, request, new Date(nowMs), answer);
    return { statusCode: 200, body: approvalView(approval) } satisfies DocumentedReply<'approvePrice'>;
  },
  // A retried approval with the same Idempotency-Key publishes once and gets the first answer.
  { keyStore: keyStore() },
);
