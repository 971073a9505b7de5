// POST /api/v1/ingest/batches/{batchId}/records: a connector stages one call's records of one entity kind.
import { connectorOf } from '#shared/api-keys/authenticate.ts';
import { stageRecords } from '#shared/batches/staging.ts';
import { BatchIdSchema } from '#shared/batches/schema.ts';
import { routeEndpoint } from '#edge/http/endpoint.ts';
import { ingestRoutes } from '#edge/routes/ingest.ts';
import { readJsonBody, readPathParameter } from '#edge/http/request.ts';
import type { DocumentedReply } from '#edge/openapi/operations.ts';
import { readStageRequest } from '#shared/records/stage-request.ts';
import * as v from 'valibot';

export const handler = routeEndpoint(ingestRoutes, 'stageRecords', async ({ event, principal }) => {
  const batchId = readPathParameter(event, 'batchId', BatchIdSchema);
  const { entity, records } = readStageRequest(readJsonBody(event, v.unknown()));
  const owner = { workspaceId: principal.workspaceId, connectorId: connectorOf(principal) };
  const caps = { records: principal.workspace.batchRecordCap, lines: principal.workspace.batchLineCap };
  const { staged } = await stageRecords(owner, batchId, entity, records, caps);
  return { statusCode: 202, body: { staged } } satisfies DocumentedReply<'stageRecords'>;
});
