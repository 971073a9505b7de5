// GET /v1/webhook-endpoints/{endpointId}: one webhook endpoint of the workspace.
import { routeEndpoint } from '#edge/http/endpoint.ts';
import { webhookRoutes } from '#edge/routes/webhooks.ts';
import type { DocumentedReply } from '#edge/openapi/operations.ts';
import { endpointIdOf, endpointView } from '#shared/webhooks/endpoint-schema.ts';
import { requireEndpoint } from '#shared/webhooks/endpoints.ts';

export const handler = routeEndpoint(webhookRoutes, 'getWebhookEndpoint', async ({ event, principal, nowMs }) => {
  const endpoint = await requireEndpoint(principal.workspaceId, endpointIdOf(event.pathParameters));
  return { statusCode: 200, body: endpointView(endpoint, nowMs) } satisfies DocumentedReply<'getWebhookEndpoint'>;
});
