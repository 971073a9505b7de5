// GET /v1/webhook-endpoints: the workspace's webhook endpoints, with their status, and never their secrets.
import { routeEndpoint } from '#edge/http/endpoint.ts';
import { webhookRoutes } from '#edge/routes/webhooks.ts';
import type { DocumentedReply } from '#edge/openapi/operations.ts';
import { endpointView } from '#shared/webhooks/endpoint-schema.ts';
import { listEndpoints } from '#shared/webhooks/endpoints.ts';

export const handler = routeEndpoint(webhookRoutes, 'listWebhookEndpoints', async ({ principal, nowMs }) => {
  const endpoints = await listEndpoints(principal.workspaceId);
  return {
    statusCode: 200,
    body: { data: endpoints.map((endpoint) => endpointView(endpoint, nowMs)) },
  } satisfies DocumentedReply<'listWebhookEndpoints'>;
});
