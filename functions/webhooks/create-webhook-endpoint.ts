// POST /v1/webhook-endpoints: registers a webhook endpoint and shows its signing secret, this once.
import { routeEndpoint } from '#edge/http/endpoint.ts';
import { keyStore } from '#edge/http/idempotent.ts';
import { webhookRoutes } from '#edge/routes/webhooks.ts';
import { readJsonBody } from '#edge/http/request.ts';
import type { DocumentedReply } from '#edge/openapi/operations.ts';
import { sealedAnswers } from '#shared/idempotency/sealed.ts';
import { assertLiveKey, CreateEndpointRequestSchema, endpointView } from '#shared/webhooks/endpoint-schema.ts';
import { createEndpoint, type WithSecret } from '#shared/webhooks/endpoints.ts';
import { loopbackHttpAllowed } from '#shared/webhooks/url-guard.ts';

export const handler = routeEndpoint(
  webhookRoutes,
  'createWebhookEndpoint',
  async ({ event, principal, nowMs, answerInWork }) => {
    assertLiveKey(principal.family);
    const request = readJsonBody(event, CreateEndpointRequestSchema);
    const view = (created: WithSecret) => ({ ...endpointView(created.endpoint, nowMs), secret: created.secret });
    const created = await createEndpoint(
      principal.workspaceId,
      { url: request.url, eventTypes: request.event_types, enabled: request.enabled, description: request.description },
      { allowLoopbackHttp: loopbackHttpAllowed() },
      nowMs,
      // With a key, the answer a retry replays is stored in the endpoint's own transaction: no crash can split them.
      answerInWork?.rider(201, view),
    );
    return { statusCode: 201, body: view(created) } satisfies DocumentedReply<'createWebhookEndpoint'>;
  },
  // Its answer shows the secret: the copy a retry replays is stored sealed.
  { keyStore: keyStore(sealedAnswers('createWebhookEndpoint')) },
);
