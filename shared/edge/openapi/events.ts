// The documents' webhooks: the events the service POSTs to registered endpoints, their signature headers and the rules of delivery.
import { BODY_GRACE_MS, DELIVERY_TIMEOUT_MS } from '#shared/webhooks/transport.ts';
import { RETRY_SCHEDULE_MS } from '#shared/webhooks/retry-schedule.ts';
import { eventDescriptions } from '#shared/webhooks/event-descriptions.ts';
import { eventTypes, TEST_EVENT_TYPE } from '#shared/webhooks/events.ts';
import { eventComponentName, ref } from './components.ts';
import { code } from './keys.ts';

function waitText(ms: number): string {
  if (ms < 60_000) return `${ms / 1000} s`;
  if (ms < 3_600_000) return `${ms / 60_000} min`;
  return `${ms / 3_600_000} h`;
}

const webhookHeaders = [
  {
    name: 'webhook-id',
    in: 'header',
    required: true,
    description: 'The event’s `id`: the same on every attempt and redelivery, so that a receiver can drop duplicates.',
    schema: { type: 'string', pattern: '^evt_' },
  },
  {
    name: 'webhook-timestamp',
    in: 'header',
    required: true,
    description: 'When this attempt was signed, in seconds since the epoch. Refuse messages more than 5 minutes off your clock.',
    schema: { type: 'string', pattern: '^[0-9]+$' },
  },
  {
    name: 'webhook-signature',
    in: 'header',
    required: true,
    description:
      'Space-separated `v1,<base64 HMAC-SHA256>` signatures of `<webhook-id>.<webhook-timestamp>.<body>` with the ' +
      'endpoint’s `whsec_` secret; for 24 hours after a rotation, one with each secret. Any Standard Webhooks library ' +
      'verifies it.',
    schema: { type: 'string', pattern: '^v1,' },
  },
];

/**
 * The events, as OpenAPI 3.1 `webhooks`: what the service POSTs to a registered endpoint, with its headers and the
 * rules of delivery. Both documents carry them: connectors receive them, the overview registers where they go.
 */
export function webhooksObject(): Record<string, unknown> {
  const schedule = ['at once', ...RETRY_SCHEDULE_MS.map((wait) => `+${waitText(wait)}`)].join(', ');
  return Object.fromEntries(
    eventTypes.map((type) => [
      type,
      {
        post: {
          operationId: `${eventComponentName(type).charAt(0).toLowerCase()}${eventComponentName(type).slice(1)}`,
          summary: `The ${code(type)} event`,
          description:
            type === TEST_EVENT_TYPE
              ? `${eventDescriptions[type]}\n\nOne attempt; a failure parks the delivery at once, and counts towards the endpoint's health as any failed attempt does.`
              : `${eventDescriptions[type]}\n\nSent to every enabled endpoint of the workspace subscribed to ` +
                `${code(type)}, at least once. Attempts: ${schedule}; after the last the delivery is parked (redeliver it ` +
                'with the admin CLI) and the endpoint marked failing; one failing for 5 days is disabled.',
          tags: ['Webhook events'],
          // The service is the caller here: the receiver authenticates the message by its signature, not by a key.
          security: [],
          parameters: webhookHeaders,
          requestBody: {
            required: true,
            content: { 'application/json': { schema: ref('schemas', eventComponentName(type)) } },
          },
          responses: {
            '200': {
              description: `Any 2xx status line within ${DELIVERY_TIMEOUT_MS / 1000} seconds counts as delivered, whether or not the body ever ends; the body is read for at most ${BODY_GRACE_MS / 1000} second and its first 1 KB, which the attempt log keeps. Anything else, a redirect included, is retried.`,
            },
          },
        },
      },
    ]),
  );
}
