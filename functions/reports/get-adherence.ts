// GET /v1/analytics/adherence: the overview reads whether sellers followed the price guidance, and what it earned.
import { readAdherenceReport } from '#shared/adherence/repository.ts';
import { reportPeriod } from '#shared/adherence/report.ts';
import { AdherenceQuerySchema } from '#shared/adherence/schema.ts';
import { ApiError } from '#platform/errors.ts';
import { routeEndpoint } from '#edge/http/endpoint.ts';
import { reportRoutes } from '#edge/routes/reports.ts';
import { parseInput } from '#platform/input.ts';
import type { DocumentedReply } from '#edge/openapi/operations.ts';

const groupings = ['segment', 'category', 'reason'] as const;

export const handler = routeEndpoint(reportRoutes, 'getAdherence', async ({ event, principal, nowMs }) => {
  const query = parseInput(AdherenceQuerySchema, event.queryStringParameters) ?? {};
  const by = query.by as (typeof groupings)[number] | undefined;
  if (by !== undefined && !groupings.includes(by)) {
    throw new ApiError('invalid_request', `by must be one of ${groupings.join(', ')}.`, { param: 'by' });
  }
  const period = reportPeriod(query.from, query.to, new Date(nowMs));
  if (typeof period === 'string') throw new ApiError('invalid_request', `${period}.`, { param: period.startsWith('to') ? 'to' : 'from' });
  const report = await readAdherenceReport(principal.workspaceId, period, by);
  return { statusCode: 200, body: report } satisfies DocumentedReply<'getAdherence'>;
});
