// GET /api/v1/ingest/batches/{batchId}: where a connector's batch stands.
import { connectorOf } from '#shared/api-keys/authenticate.ts';
import { readOwnBatch } from '#shared/batches/repository.ts';
import { statusView } from '#shared/batches/rules.ts';
import { BatchIdSchema } from '#shared/batches/schema.ts';
import { routeEndpoint } from '#edge/http/endpoint.ts';
import { ingestRoutes } from '#edge/routes/ingest.ts';
import { readPathParameter } from '#edge/http/request.ts';
import type { DocumentedReply } from '#edge/openapi/operations.ts';

export const handler = routeEndpoint(ingestRoutes, 'batchStatus', async ({ event, principal }) => {
  const batchId = readPathParameter(event, 'batchId', BatchIdSchema);
  const batch = await readOwnBatch({ workspaceId: principal.workspaceId, connectorId: connectorOf(principal) }, batchId);
  return { statusCode: 200, body: statusView(batch) } satisfies DocumentedReply<'batchStatus'>;
});
