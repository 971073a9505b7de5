// PATCH /v1/webhook-endpoints/{endpointId}: changes a webhook endpoint's URL, subscriptions, description or switch.
import { routeEndpoint } from '#edge/http/endpoint.ts';
import { webhookRoutes } from '#edge/routes/webhooks.ts';
import { readJsonBody } from '#edge/http/request.ts';
import type { DocumentedReply } from '#edge/openapi/operations.ts';
import { assertLiveKey, endpointIdOf, endpointView, UpdateEndpointRequestSchema } from '#shared/webhooks/endpoint-schema.ts';
import { updateEndpoint } from '#shared/webhooks/endpoints.ts';
import { loopbackHttpAllowed } from '#shared/webhooks/url-guard.ts';

export const handler = routeEndpoint(webhookRoutes, 'updateWebhookEndpoint', async ({ event, principal, nowMs }) => {
  assertLiveKey(principal.family);
  const endpointId = endpointIdOf(event.pathParameters);
  const request = readJsonBody(event, UpdateEndpointRequestSchema);
  const endpoint = await updateEndpoint(
    principal.workspaceId,
    endpointId,
    { url: request.url, eventTypes: request.event_types, enabled: request.enabled, description: request.description },
    { allowLoopbackHttp: loopbackHttpAllowed() },
    nowMs,
  );
  return { statusCode: 200, body: endpointView(endpoint, nowMs) } satisfies DocumentedReply<'updateWebhookEndpoint'>;
});
