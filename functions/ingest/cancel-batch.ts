// POST /api/v1/ingest/batches/{batchId}/cancel: a connector cancels its open batch, and what it staged is discarded.
import { connectorOf } from '#shared/api-keys/authenticate.ts';
import { cancelBatch } from '#shared/batches/cancel.ts';
import { statusView } from '#shared/batches/rules.ts';
import { BatchIdSchema } from '#shared/batches/schema.ts';
import { routeEndpoint } from '#edge/http/endpoint.ts';
import { ingestRoutes } from '#edge/routes/ingest.ts';
import { NoBodySchema, readJsonBody, readPathParameter } from '#edge/http/request.ts';
import type { DocumentedReply } from '#edge/openapi/operations.ts';

export const handler = routeEndpoint(ingestRoutes, 'cancelBatch', async ({ event, principal }) => {
  const batchId = readPathParameter(event, 'batchId', BatchIdSchema);
  readJsonBody(event, NoBodySchema);
  const batch = await cancelBatch({ workspaceId: principal.workspaceId, connectorId: connectorOf(principal) }, batchId);
  return { statusCode: 200, body: statusView(batch) } satisfies DocumentedReply<'cancelBatch'>;
});
