// POST /api/v1/writebacks/claim: a connector worker leases its connector's oldest claimable write-back tasks.
import { connectorOf } from '#shared/api-keys/authenticate.ts';
import { routeEndpoint } from '#edge/http/endpoint.ts';
import { writebackRoutes } from '#edge/routes/writebacks.ts';
import { readJsonBody } from '#edge/http/request.ts';
import type { DocumentedReply } from '#edge/openapi/operations.ts';
import { taskView } from '#shared/writebacks/rules.ts';
import { claimTasks } from '#shared/writebacks/claim.ts';
import { ClaimRequestSchema } from '#shared/writebacks/schema.ts';

export const handler = routeEndpoint(writebackRoutes, 'claimWritebacks', async ({ event, principal, nowMs, remainingMs }) => {
  const request = readJsonBody(event, ClaimRequestSchema);
  const tasks = await claimTasks(principal.workspaceId, connectorOf(principal), request, nowMs, remainingMs);
  return { statusCode: 200, body: { tasks: tasks.map(taskView) } } satisfies DocumentedReply<'claimWritebacks'>;
});
