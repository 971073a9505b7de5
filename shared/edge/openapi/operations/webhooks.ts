// The contract's words for webhooks: a workspace's endpoints, their secrets and their deliveries.
import { CreatedEndpointSchema, CreateEndpointRequestSchema, DeletedEndpointSchema, EndpointIdSchema, EndpointListSchema, type EndpointView, EndpointViewSchema, MAX_ENDPOINTS_PER_WORKSPACE, RotatedSecretSchema, UpdateEndpointRequestSchema } from '#shared/webhooks/endpoint-schema.ts';
import { DEFAULT_DELIVERIES_PAGE, DeliveriesCursorSchema, DeliveriesLimitSchema, DeliveryListSchema, DeliveryStatusSchema, type DeliveryView, DeliveryViewSchema, EventIdSchema, MAX_DELIVERIES_PAGE } from '#shared/webhooks/delivery-schema.ts';
import { MAX_REDELIVERIES_PER_WINDOW } from '#shared/webhooks/redelivery-limit.ts';
import { BREAKER_COOL_OFF_MS, BREAKER_THRESHOLD } from '#shared/webhooks/breaker.ts';
import { idempotencyKeyErrors, noBody, operation, optionalIdempotencyKey, type ParameterDoc } from './doc.ts';

const exampleEndpoint = {
  id: 'we_5kQmT2vXb8NcL4pR7dWz0y',
  url: 'https://erp.example.com/hooks/pricing',
  description: 'ERP',
  event_types: ['batch.drained', 'price.approved'],
  enabled: true,
  status: 'healthy',
  failing_since: null,
  circuit: 'closed',
  consecutive_failures: 0,
  circuit_open_until: null,
  previous_secret_expires_at: null,
  created_at: '2026-10-05T09:30:00.000Z',
  updated_at: '2026-10-05T09:30:00.000Z',
} satisfies EndpointView;

const endpointIdParameter: ParameterDoc = {
  name: 'endpointId',
  in: 'path',
  description: 'The endpoint’s id, `we_…`. An id of another workspace’s endpoint is answered as an unknown one.',
  required: true,
  schema: EndpointIdSchema,
  example: exampleEndpoint.id,
};

const exampleDelivery = {
  event_id: 'evt_4Zq0M2cY7kQ1rB8sVt3nHd',
  event_type: 'batch.drained',
  event_timestamp: '2026-10-05T09:00:05.310Z',
  status: 'pending',
  attempts: 2,
  last_attempt_at: '2026-10-05T09:00:10.402Z',
  last_status: 503,
  last_error: null,
  next_attempt_at: '2026-10-05T09:05:10.431Z',
} satisfies DeliveryView;

export const webhookOperations = {
  createWebhookEndpoint: operation({
    summary: 'Register a webhook endpoint',
    description:
      'Registers an HTTPS endpoint to receive the events it subscribes to, signed by the Standard Webhooks rules. The ' +
      'URL is refused unless every address its host resolves to is public (no loopback, private, carrier-grade NAT, ' +
      'link-local or metadata address); the check is made again before each delivery. The answer carries the ' +
      'signing secret, `whsec_…`, this once: store it, it is never shown again. A workspace has at most ' +
      `${MAX_ENDPOINTS_PER_WORKSPACE} endpoints. Sandbox (\`pw_test_\`) keys may read endpoints but not change them. ` +
      'With an `Idempotency-Key`, a retry with the same key and body within 24 hours gets the first answer byte for ' +
      'byte, its secret included, with `Idempotent-Replayed: true`, and registers nothing more; the stored answer is ' +
      'kept sealed, as the secret is, and only for those 24 hours.',
    tag: 'Webhooks',
    parameters: [optionalIdempotencyKey('register-erp-hooks-1')],
    requestBody: {
      schema: CreateEndpointRequestSchema,
      required: true,
      description: 'The URL, at most 2,048 characters; the event types, each once; and optionally a description and `enabled`.',
      example: { url: 'https://erp.example.com/hooks/pricing', event_types: ['batch.drained', 'price.approved'], description: 'ERP' },
    },
    success: {
      status: 201,
      description: 'The endpoint, and its signing secret, shown this once.',
      schema: CreatedEndpointSchema,
      replayable: true,
      example: { ...exampleEndpoint, secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw3zJ4m1FKV8g=' },
    },
    errors: {
      bad_request:
        'The body is not JSON or is malformed; the URL is not `https://`, is longer than 2,048 characters, carries a ' +
        'user name, does not resolve, or resolves to an address that is not public; an event type is unknown or ' +
        `repeated; or the workspace already has ${MAX_ENDPOINTS_PER_WORKSPACE} endpoints; or the \`Idempotency-Key\` header ` +
        'is empty, longer than 255 characters or not printable ASCII.',
      forbidden: 'The key is a sandbox (`pw_test_`) key.',
      ...idempotencyKeyErrors,
    },
  }),

  listWebhookEndpoints: operation({
    summary: 'List the webhook endpoints',
    description:
      'Every webhook endpoint of the workspace, with its status: `healthy`; `failing` after three failed attempts in a ' +
      'row (`consecutive_failures`, cleared by any 2xx) or once a delivery was parked after its last retry ' +
      '(`failing_since`); or `disabled`, by its owner or by the service after five days of failing. ' +
      'Secrets are never shown.',
    tag: 'Webhooks',
    success: {
      status: 200,
      description: 'The endpoints, in id order.',
      schema: EndpointListSchema,
      example: { data: [exampleEndpoint] },
    },
    errors: {},
  }),

  getWebhookEndpoint: operation({
    summary: 'Read a webhook endpoint',
    description:
      'One webhook endpoint of the workspace, with its status and its circuit breaker. After ' +
      `${BREAKER_THRESHOLD} failed attempts in a row (no answer in time, a connection error, or a status other than 2xx) ` +
      `the circuit is \`open\`: for ${BREAKER_COOL_OFF_MS / 1000} s the endpoint’s deliveries wait, neither failed nor ` +
      'counted as attempts. Then it is `half_open`: one attempt is let through, and its 2xx closes the circuit and sends ' +
      'the waiting deliveries, while its failure opens it again. Secrets are never shown.',
    tag: 'Webhooks',
    parameters: [endpointIdParameter],
    success: { status: 200, description: 'The endpoint.', schema: EndpointViewSchema, example: exampleEndpoint },
    errors: { not_found: 'No endpoint of this workspace has this id.' },
  }),

  updateWebhookEndpoint: operation({
    summary: 'Change a webhook endpoint',
    description:
      'Changes the URL (checked as at registration), the event types, the description (`null` removes it) or ' +
      '`enabled`. Re-enabling an endpoint, one the service disabled included, starts it afresh as `healthy`. A refused ' +
      'change changes nothing.',
    tag: 'Webhooks',
    parameters: [endpointIdParameter],
    requestBody: {
      schema: UpdateEndpointRequestSchema,
      required: true,
      description: 'The fields to change, at least one.',
      example: { event_types: ['batch.drained', 'batch.failed', 'price.approved'], enabled: true },
    },
    success: { status: 200, description: 'The endpoint as changed.', schema: EndpointViewSchema, example: exampleEndpoint },
    errors: {
      bad_request: 'The body is not JSON, is malformed or changes nothing, or the new URL or event types are refused as at registration.',
      forbidden: 'The key is a sandbox (`pw_test_`) key.',
      not_found: 'No endpoint of this workspace has this id.',
    },
  }),

  deleteWebhookEndpoint: operation({
    summary: 'Delete a webhook endpoint',
    description: 'Removes the endpoint: nothing more is sent to it, and its place under the limit is free again.',
    tag: 'Webhooks',
    parameters: [endpointIdParameter],
    success: {
      status: 200,
      description: 'The endpoint is gone.',
      schema: DeletedEndpointSchema,
      example: { id: exampleEndpoint.id, deleted: true },
    },
    errors: { forbidden: 'The key is a sandbox (`pw_test_`) key.', not_found: 'No endpoint of this workspace has this id.' },
  }),

  rotateWebhookSecret: operation({
    summary: 'Rotate a webhook endpoint’s signing secret',
    description:
      'Mints a new signing secret, shown this once. For 24 hours the one it replaces signs too: each message carries ' +
      'both signatures in `webhook-signature`, so a receiver may switch to the new secret at any time in that window. ' +
      'A second rotation within the 24 hours retires the oldest secret at once.',
    tag: 'Webhooks',
    parameters: [endpointIdParameter],
    requestBody: noBody('Rotating'),
    success: {
      status: 200,
      description: 'The new secret, and until when the previous one still signs.',
      schema: RotatedSecretSchema,
      example: {
        id: exampleEndpoint.id,
        secret: 'whsec_3Zb0u4XfZ0Wn7LxQ9uE1JpWb4m4lQ2mYVdXyZkq5n8A=',
        previous_secret_expires_at: '2026-10-06T09:30:00.000Z',
      },
    },
    errors: {
      bad_request: 'The request has a body other than none, an empty one, or `{}`.',
      forbidden: 'The key is a sandbox (`pw_test_`) key.',
      not_found: 'No endpoint of this workspace has this id.',
    },
  }),

  listWebhookDeliveries: operation({
    summary: 'List a webhook endpoint’s deliveries',
    description:
      'The events sent to the endpoint in the last 30 days, newest first, each with its state (`pending` while ' +
      'retries remain, `delivered` after a `2xx`, `parked` after the last retry failed), its attempts, the last ' +
      'status or error, and when the next attempt is due. A page holds at most `limit`; `next` is where the following ' +
      'page starts, passed back as `starting_after`, and null on the last page. With `status`, a page may hold fewer ' +
      'than `limit` and still have a `next`. Any other query parameter is refused.',
    tag: 'Webhooks',
    parameters: [
      endpointIdParameter,
      {
        name: 'limit',
        in: 'query',
        description: `How many deliveries a page holds at most, 1 to ${MAX_DELIVERIES_PAGE}; ${DEFAULT_DELIVERIES_PAGE} if left out.`,
        required: false,
        schema: DeliveriesLimitSchema,
        example: 20,
      },
      {
        name: 'starting_after',
        in: 'query',
        description: 'The `next` of the page before, as it was answered; an opaque cursor.',
        required: false,
        schema: DeliveriesCursorSchema,
        example: 'MjAyNi0xMC0wNVQwOTowMDowNS4zMTBaI2V2dF80WnEwTTJjWTdrUTFyQjhzVnQzbkhk',
      },
      {
        name: 'status',
        in: 'query',
        description: 'Only the deliveries in this state.',
        required: false,
        schema: DeliveryStatusSchema,
        example: 'parked',
      },
    ],
    success: {
      status: 200,
      description: 'A page of deliveries, newest event first.',
      schema: DeliveryListSchema,
      example: { data: [exampleDelivery], next: null },
    },
    errors: {
      bad_request:
        `\`limit\` is not a whole number from 1 to ${MAX_DELIVERIES_PAGE}, \`status\` is not pending, delivered or parked, ` +
        '`starting_after` is not a cursor this route answered, or the query has another parameter.',
      not_found: 'No endpoint of this workspace has this id.',
    },
  }),

  redeliverWebhookEvent: operation({
    summary: 'Redeliver a webhook event',
    description:
      'Sends an event of the workspace’s last 30 days to the endpoint again, with the same `webhook-id`, as a new run ' +
      'of the retry schedule: a parked delivery, a delivered one, or an event the endpoint was never sent. The attempt ' +
      'is queued, and made within seconds unless the endpoint’s circuit is open; its attempts continue the delivery’s ' +
      `count. An endpoint may be asked for at most ${MAX_REDELIVERIES_PER_WINDOW} redeliveries in any minute; past ` +
      'that the answer is 429 and nothing is queued. Sandbox (`pw_test_`) keys may list deliveries but not redeliver.',
    tag: 'Webhooks',
    parameters: [
      endpointIdParameter,
      {
        name: 'eventId',
        in: 'path',
        description: 'The event’s id, `evt_…`, as its delivery or its `webhook-id` header shows it.',
        required: true,
        schema: EventIdSchema,
        example: exampleDelivery.event_id,
      },
    ],
    requestBody: noBody('Redelivering'),
    success: {
      status: 202,
      description: 'The delivery as queued: pending, its next attempt due now.',
      schema: DeliveryViewSchema,
      example: {
        ...exampleDelivery,
        status: 'pending',
        attempts: 12,
        last_attempt_at: null,
        last_status: null,
        next_attempt_at: '2026-10-08T09:00:00.000Z',
      },
    },
    errors: {
      bad_request: 'The request has a body other than none, an empty one, or `{}`.',
      forbidden: 'The key is a sandbox (`pw_test_`) key.',
      not_found: 'No endpoint of this workspace has this id, or no event of this workspace in the last 30 days has this id.',
      rate_limited: `The endpoint was asked for ${MAX_REDELIVERIES_PER_WINDOW} redeliveries in the last minute; \`Retry-After\` says when one more fits.`,
    },
  }),
};
