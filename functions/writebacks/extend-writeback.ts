// POST /api/v1/writebacks/{id}/extend: a connector worker that needs longer keeps its lease on a task.
import * as v from 'valibot';
import { connectorOf } from '#shared/api-keys/authenticate.ts';
import { routeEndpoint } from '#edge/http/endpoint.ts';
import { writebackRoutes } from '#edge/routes/writebacks.ts';
import { readJsonBody, readPathParameter } from '#edge/http/request.ts';
import type { DocumentedReply } from '#edge/openapi/operations.ts';
import { taskView } from '#shared/writebacks/rules.ts';
import { extendLease } from '#shared/writebacks/claim.ts';
import { ExtendRequestSchema } from '#shared/writebacks/schema.ts';

export const handler = routeEndpoint(writebackRoutes, 'extendWriteback', async ({ event, principal, nowMs }) => {
  // Any id is looked for: one the service never minted is simply not leased by the caller.
  const taskId = readPathParameter(event, 'id', v.pipe(v.string(), v.minLength(1)));
  const { leaseSeconds, running } = readJsonBody(event, ExtendRequestSchema);
  const task = await extendLease(principal.workspaceId, connectorOf(principal), taskId, leaseSeconds, nowMs, running);
  return { statusCode: 200, body: { task: taskView(task) } } satisfies DocumentedReply<'extendWriteback'>;
});
