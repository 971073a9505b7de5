// POST /v1/webhook-endpoints/{endpointId}/rotate-secret: a new signing secret, shown once; the old one signs too for 24 h.
import { routeEndpoint } from '#edge/http/endpoint.ts';
import { webhookRoutes } from '#edge/routes/webhooks.ts';
import { NoBodySchema, readJsonBody } from '#edge/http/request.ts';
import type { DocumentedReply } from '#edge/openapi/operations.ts';
import { assertLiveKey, endpointIdOf } from '#shared/webhooks/endpoint-schema.ts';
import { rotateSecret } from '#shared/webhooks/endpoints.ts';

export const handler = routeEndpoint(webhookRoutes, 'rotateWebhookSecret', async ({ event, principal, nowMs }) => {
  assertLiveKey(principal.family);
  const endpointId = endpointIdOf(event.pathParameters);
  readJsonBody(event, NoBodySchema);
  const { endpoint, secret } = await rotateSecret(principal.workspaceId, endpointId, nowMs);
  return {
    statusCode: 200,
    body: { id: endpoint.endpointId, secret, previous_secret_expires_at: endpoint.previousSecretExpiresAt ?? '' },
  } satisfies DocumentedReply<'rotateWebhookSecret'>;
});
