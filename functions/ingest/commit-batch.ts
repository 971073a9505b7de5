// POST /api/v1/ingest/batches/{batchId}/commit: a connector hands its batch to the drain.
import { connectorOf } from '#shared/api-keys/authenticate.ts';
import { sendDrainMessage } from '#shared/batches/drain-queue.ts';
import { commitBatch } from '#shared/batches/repository.ts';
import { BatchIdSchema } from '#shared/batches/schema.ts';
import { routeEndpoint } from '#edge/http/endpoint.ts';
import { ingestRoutes } from '#edge/routes/ingest.ts';
import { NoBodySchema, readJsonBody, readPathParameter } from '#edge/http/request.ts';
import type { DocumentedReply } from '#edge/openapi/operations.ts';

export const handler = routeEndpoint(ingestRoutes, 'commitBatch', async ({ event, principal }) => {
  const batchId = readPathParameter(event, 'batchId', BatchIdSchema);
  readJsonBody(event, NoBodySchema);
  const owner = { workspaceId: principal.workspaceId, connectorId: connectorOf(principal) };
  const { jobId } = await commitBatch(owner, batchId, (job) => sendDrainMessage(job));
  return { statusCode: 202, body: { jobId } } satisfies DocumentedReply<'commitBatch'>;
});
