// POST /v1/webhook-endpoints/{endpointId}/deliveries/{eventId}/redeliver: sends an event to the endpoint again, with the same webhook-id.
import { routeEndpoint } from '#edge/http/endpoint.ts';
import { webhookRoutes } from '#edge/routes/webhooks.ts';
import { NoBodySchema, readJsonBody } from '#edge/http/request.ts';
import type { DocumentedReply } from '#edge/openapi/operations.ts';
import { redeliver } from '#shared/webhooks/delivery.ts';
import { deliveryView, eventIdOf } from '#shared/webhooks/delivery-schema.ts';
import { assertLiveKey, endpointIdOf } from '#shared/webhooks/endpoint-schema.ts';

export const handler = routeEndpoint(webhookRoutes, 'redeliverWebhookEvent', async ({ event, principal, nowMs }) => {
  assertLiveKey(principal.family);
  const endpointId = endpointIdOf(event.pathParameters);
  const eventId = eventIdOf(event.pathParameters);
  readJsonBody(event, NoBodySchema);
  const queued = await redeliver(principal.workspaceId, endpointId, eventId, nowMs);
  return { statusCode: 202, body: deliveryView(queued) } satisfies DocumentedReply<'redeliverWebhookEvent'>;
});
