// GET /v1/prices/{sku}/approvals: a SKU's approval history, newest first, with what became of each connector's task.
import { approvalHistoryView, ApprovalsQuerySchema, readApprovalHistory, readApprovalsListing } from '#shared/approvals/history.ts';
import { routeEndpoint } from '#edge/http/endpoint.ts';
import { overviewPriceRoutes } from '#edge/routes/prices.ts';
import { readPathParameter } from '#edge/http/request.ts';
import { parseInput } from '#platform/input.ts';
import type { DocumentedReply } from '#edge/openapi/operations.ts';
import { IdentifierSchema } from '#shared/records/identifier.ts';

export const handler = routeEndpoint(overviewPriceRoutes, 'listPriceApprovals', async ({ event, principal, nowMs }) => {
  // The SKU becomes part of the key read; past the identifier bound it would be a key DynamoDB refuses.
  const sku = readPathParameter(event, 'sku', IdentifierSchema);
  const listing = readApprovalsListing(parseInput(ApprovalsQuerySchema, event.queryStringParameters));
  const page = await readApprovalHistory(principal.workspaceId, sku, listing);
  return { statusCode: 200, body: approvalHistoryView(page, nowMs) } satisfies DocumentedReply<'listPriceApprovals'>;
});
