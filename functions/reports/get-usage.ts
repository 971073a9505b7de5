// GET /v1/usage: the overview reads what the workspace cost, in dollars, by day or by route, from its cost ledger.
import { readCostLedger } from '#shared/cost/repository.ts';
import { buildCostReport, readReportRange, UsageQuerySchema } from '#shared/cost/report.ts';
import { routeEndpoint } from '#edge/http/endpoint.ts';
import { reportRoutes } from '#edge/routes/reports.ts';
import { parseInput } from '#platform/input.ts';
import type { DocumentedReply } from '#edge/openapi/operations.ts';

export const handler = routeEndpoint(reportRoutes, 'getUsage', async ({ event, principal, nowMs }) => {
  const range = readReportRange(parseInput(UsageQuerySchema, event.queryStringParameters) ?? {}, nowMs);
  const rows = await readCostLedger(principal.workspaceId, range.from, range.to);
  return { statusCode: 200, body: buildCostReport(principal.workspaceId, range, rows) } satisfies DocumentedReply<'getUsage'>;
});
