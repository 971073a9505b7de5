// Settings → webhook endpoints: each endpoint with its recent deliveries, and redelivering an event; redelivery needs the admin role.
import { listDeliveries } from '#shared/webhooks/attempt-log.ts';
import { redeliver } from '#shared/webhooks/delivery.ts';
import type { DeliverySummary } from '#shared/webhooks/delivery-schema.ts';
import { listEndpoints } from '#shared/webhooks/endpoints.ts';
import type { WebhookEndpoint } from '#shared/webhooks/endpoint-schema.ts';
import { type Html, html } from '#edge/console/html.ts';
import type { ConsoleContext, ConsolePage, PageView } from '#edge/console/page.ts';

export const WEBHOOKS_PATH = '/console/settings/webhooks';
/** Deliveries shown per endpoint: the newest, which is what someone looking into a failure wants. */
const RECENT_DELIVERIES = 10;

const statusClass: Readonly<Record<string, string>> = { healthy: 'status-ok', failing: 'status-warn', disabled: 'status-bad' };

function redeliverForm(ctx: ConsoleContext, delivery: DeliverySummary): Html {
  if (!ctx.user.roles.includes('admin')) return html``;
  return html`<form class="inline" method="post" action="${WEBHOOKS_PATH}">
    <input type="hidden" name="_csrf" value="${ctx.csrfToken}" />
    <input type="hidden" name="_action" value="redeliver" />
    <input type="hidden" name="endpointId" value="${delivery.endpointId}" />
    <input type="hidden" name="eventId" value="${delivery.eventId}" />
    <button type="submit" class="secondary" aria-label="Redeliver ${delivery.eventType} ${delivery.eventId}">Redeliver</button>
  </form>`;
}

/** Why the endpoint shows the status it does, in words: the count of failed attempts a reader can act on. */
function healthWords(endpoint: WebhookEndpoint): string {
  if (endpoint.status !== 'failing') return '';
  const failures = endpoint.breakerFailures ?? 0;
  const words = [
    ...(failures > 0 ? [`${failures} failed attempt${failures === 1 ? '' : 's'} in a row`] : []),
    ...(endpoint.failingSince ? [`a delivery parked; failing since ${endpoint.failingSince.slice(0, 16).replace('T', ' ')} UTC`] : []),
  ];
  return words.length === 0 ? '' : ` (${words.join('; ')})`;
}

function endpointSection(ctx: ConsoleContext, endpoint: WebhookEndpoint, deliveries: readonly DeliverySummary[]): Html {
  const headingId = `endpoint-${endpoint.endpointId}`;
  return html`<section aria-labelledby="${headingId}">
    <h2 id="${headingId}">${endpoint.url}</h2>
    <p>
      <span class="${statusClass[endpoint.status] ?? ''}">${endpoint.status}</span>${healthWords(endpoint)} ·
      <code>${endpoint.endpointId}</code> · ${endpoint.eventTypes.join(', ')}${endpoint.description ? ` · ${endpoint.description}` : ''}
    </p>
    ${
      deliveries.length === 0
        ? html`<p>No deliveries yet.</p>`
        : html`<table>
            <caption class="muted">
              The ${RECENT_DELIVERIES} most recent deliveries to ${endpoint.url}
            </caption>
            <thead>
              <tr>
                <th scope="col">Event</th>
                <th scope="col">Type</th>
                <th scope="col">Status</th>
                <th scope="col">Attempts</th>
                <th scope="col">Last answer</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              ${deliveries.map(
                (delivery) =>
                  html`<tr>
                    <th scope="row">
                      <code>${delivery.eventId}</code><br /><span class="muted"
                        >${delivery.eventTimestamp.slice(0, 19).replace('T', ' ')} UTC</span
                      >
                    </th>
                    <td>${delivery.eventType}</td>
                    <td>${delivery.status}</td>
                    <td class="number">${delivery.attempts}</td>
                    <td>${delivery.lastStatus ?? ''}${delivery.lastError ? ` ${delivery.lastError}` : ''}</td>
                    <td>${redeliverForm(ctx, delivery)}</td>
                  </tr>`,
              )}
            </tbody>
          </table>`
    }
  </section>`;
}

export function webhooksView(
  ctx: ConsoleContext,
  endpoints: ReadonlyArray<{ endpoint: WebhookEndpoint; deliveries: readonly DeliverySummary[] }>,
): PageView {
  const body = html`<h1>Webhook endpoints</h1>
    <p>
      Where the workspace's events are sent, and how each recent delivery went. Endpoints are created and changed through the overview API
      (<code>/v1/webhook-endpoints</code>) or the admin CLI.
    </p>
    ${endpoints.length === 0 ? html`<p>No webhook endpoints yet.</p>` : endpoints.map(({ endpoint, deliveries }) => endpointSection(ctx, endpoint, deliveries))}`;
  return { title: 'Webhook endpoints', body };
}

export const webhooksPage: ConsolePage = {
  path: WEBHOOKS_PATH,
  nav: 'Webhooks',
  async read(ctx) {
    const endpoints = await listEndpoints(ctx.user.workspaceId);
    const withDeliveries = await Promise.all(
      endpoints.map(async (endpoint) => ({
        endpoint,
        deliveries: (await listDeliveries(ctx.user.workspaceId, endpoint.endpointId, { limit: RECENT_DELIVERIES })).deliveries,
      })),
    );
    return webhooksView(ctx, withDeliveries);
  },
  actions: {
    redeliver: {
      role: 'admin',
      async run(ctx, form) {
        const queued = await redeliver(ctx.user.workspaceId, form.endpointId ?? '', form.eventId ?? '', ctx.nowMs);
        return { kind: 'redirect', location: WEBHOOKS_PATH, notice: `Queued ${queued.eventType} ${queued.eventId} for delivery again.` };
      },
    },
  },
};
