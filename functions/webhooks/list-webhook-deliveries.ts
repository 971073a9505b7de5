// GET /v1/webhook-endpoints/{endpointId}/deliveries: the endpoint's deliveries, newest event first, a page at a time.
import { parseInput } from '#platform/input.ts';
import { routeEndpoint } from '#edge/http/endpoint.ts';
import { webhookRoutes } from '#edge/routes/webhooks.ts';
import type { DocumentedReply } from '#edge/openapi/operations.ts';
import { listDeliveries } from '#shared/webhooks/attempt-log.ts';
import { DeliveriesQuerySchema, deliveryView, readDeliveryListing } from '#shared/webhooks/delivery-schema.ts';
import { endpointIdOf } from '#shared/webhooks/endpoint-schema.ts';
import { requireEndpoint } from '#shared/webhooks/endpoints.ts';

export const handler = routeEndpoint(webhookRoutes, 'listWebhookDeliveries', async ({ event, principal }) => {
  const endpointId = endpointIdOf(event.pathParameters);
  const listing = readDeliveryListing(parseInput(DeliveriesQuerySchema, event.queryStringParameters));
  // The endpoint is read too, so that another workspace's or a deleted one answers 404 rather than an empty list.
  const [, page] = await Promise.all([
    requireEndpoint(principal.workspaceId, endpointId),
    listDeliveries(principal.workspaceId, endpointId, listing),
  ]);
  return {
    statusCode: 200,
    body: { data: page.deliveries.map(deliveryView), next: page.next ?? null },
  } satisfies DocumentedReply<'listWebhookDeliveries'>;
});
