// GET /api/v1/ingest/batches: a connector's own batches, newest first, a page at a time, optionally of one status.
import { connectorOf } from '#shared/api-keys/authenticate.ts';
import { listBatches, readBatchListing } from '#shared/batches/listing.ts';
import { BatchesQuerySchema } from '#shared/batches/schema.ts';
import { parseInput } from '#platform/input.ts';
import { routeEndpoint } from '#edge/http/endpoint.ts';
import { ingestRoutes } from '#edge/routes/ingest.ts';
import type { DocumentedReply } from '#edge/openapi/operations.ts';

export const handler = routeEndpoint(ingestRoutes, 'listBatches', async ({ event, principal, nowMs }) => {
  const listing = readBatchListing(parseInput(BatchesQuerySchema, event.queryStringParameters));
  const owner = { workspaceId: principal.workspaceId, connectorId: connectorOf(principal) };
  const page = await listBatches(owner, listing, new Date(nowMs));
  return { statusCode: 200, body: { data: page.entries, next: page.next ?? null } } satisfies DocumentedReply<'listBatches'>;
});
