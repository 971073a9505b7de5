// POST /api/v1/ingest/batches: a connector opens an ingest batch.
import { connectorOf } from '#shared/api-keys/authenticate.ts';
import { openBatch } from '#shared/batches/repository.ts';
import { routeEndpoint } from '#edge/http/endpoint.ts';
import { ingestRoutes } from '#edge/routes/ingest.ts';
import { NoBodySchema, readJsonBody } from '#edge/http/request.ts';
import type { DocumentedReply } from '#edge/openapi/operations.ts';

export const handler = routeEndpoint(ingestRoutes, 'openBatch', async ({ event, principal }) => {
  readJsonBody(event, NoBodySchema);
  const batch = await openBatch({ workspaceId: principal.workspaceId, connectorId: connectorOf(principal) });
  return { statusCode: 201, body: { batchId: batch.batchId, connectorId: batch.connectorId } } satisfies DocumentedReply<'openBatch'>;
});
