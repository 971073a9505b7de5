// DELETE /v1/webhook-endpoints/{endpointId}: removes a webhook endpoint; nothing more is sent to it.
import { routeEndpoint } from '#edge/http/endpoint.ts';
import { webhookRoutes } from '#edge/routes/webhooks.ts';
import type { DocumentedReply } from '#edge/openapi/operations.ts';
import { assertLiveKey, endpointIdOf } from '#shared/webhooks/endpoint-schema.ts';
import { deleteEndpoint } from '#shared/webhooks/endpoints.ts';

export const handler = routeEndpoint(webhookRoutes, 'deleteWebhookEndpoint', async ({ event, principal }) => {
  assertLiveKey(principal.family);
  const endpointId = endpointIdOf(event.pathParameters);
  await deleteEndpoint(principal.workspaceId, endpointId);
  return { statusCode: 200, body: { id: endpointId, deleted: true } } satisfies DocumentedReply<'deleteWebhookEndpoint'>;
});
