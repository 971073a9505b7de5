// POST /api/v1/writebacks/ack: a connector worker reports each leased task as applied or failed.
import { connectorOf } from '#shared/api-keys/authenticate.ts';
import { routeEndpoint } from '#edge/http/endpoint.ts';
import { writebackRoutes } from '#edge/routes/writebacks.ts';
import { readJsonBody } from '#edge/http/request.ts';
import type { DocumentedReply } from '#edge/openapi/operations.ts';
import { acknowledgeTasks } from '#shared/writebacks/ack.ts';
import { AckRequestSchema } from '#shared/writebacks/schema.ts';

export const handler = routeEndpoint(writebackRoutes, 'ackWritebacks', async ({ event, principal, nowMs }) => {
  const { results } = readJsonBody(event, AckRequestSchema);
  const counts = await acknowledgeTasks(principal.workspace, connectorOf(principal), results, nowMs);
  return { statusCode: 200, body: counts } satisfies DocumentedReply<'ackWritebacks'>;
});
