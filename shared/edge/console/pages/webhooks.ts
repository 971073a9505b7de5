// Settings → webhook endpoints: each endpoint with its health and recent deliveries (a pending one with its next attempt), creating one (its secret shown once on its page), and redelivering an event; changes need the admin role.
import { listDeliveries } from '#shared/webhooks/attempt-log.ts';
import { redeliver } from '#shared/webhooks/delivery.ts';
import type { DeliverySummary } from '#shared/webhooks/delivery-schema.ts';
import { createEndpoint, listEndpoints } from '#shared/webhooks/endpoints.ts';
import { FAILING_AFTER_ATTEMPTS, type WebhookEndpoint } from '#shared/webhooks/endpoint-schema.ts';
import { loopbackHttpAllowed } from '#shared/webhooks/url-guard.ts';
import type { FieldErrors } from '#edge/console/form-fields.ts';
import { type Html, html } from '#edge/console/html.ts';
import type { ConsoleContext, ConsolePage, PageView, Reveal } from '#edge/console/page.ts';
import { endpointFields, type EndpointFormValues, endpointPath, readCreate, refusalOf, valuesOf, WEBHOOKS_PATH } from './webhook-forms.ts';

export { WEBHOOKS_PATH } from './webhook-forms.ts';
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

/**
 * When a delivery's next attempt goes: a pending one's due time in UTC, or "now" once due (or queued with no time,
 * which goes at once); "—" for one delivered or parked, which has none.
 */
export function nextAttemptWords(delivery: DeliverySummary, nowMs: number): Html {
  if (delivery.status !== 'pending') return html`—`;
  if (!delivery.nextAttemptAt || Date.parse(delivery.nextAttemptAt) <= nowMs) return html`now`;
  return html`<time datetime="${delivery.nextAttemptAt}">${delivery.nextAttemptAt.slice(0, 19).replace('T', ' ')} UTC</time>`;
}

/** Why the endpoint shows the status it does, in words: the count of failed attempts a reader can act on. */
export function healthWords(endpoint: WebhookEndpoint): string {
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
    <h2 id="${headingId}" class="endpoint-url"><a href="${endpointPath(endpoint.endpointId)}">${endpoint.url}</a></h2>
    <p>
      <span class="${statusClass[endpoint.status] ?? ''}">${endpoint.status}</span>${healthWords(endpoint)} ·
      <code>${endpoint.endpointId}</code> · ${endpoint.eventTypes.join(', ')}${endpoint.description ? ` · ${endpoint.description}` : ''}
    </p>
    ${
      deliveries.length === 0
        ? html`<p>No deliveries yet.</p>`
        : html`<table class="cards">
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
                <th scope="col">Next attempt</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              ${deliveries.map(
                (delivery) =>
                  html`<tr>
                    <th scope="row">
                      <a href="${endpointPath(endpoint.endpointId)}?event=${delivery.eventId}"><code>${delivery.eventId}</code></a
                      ><br /><span class="muted">${delivery.eventTimestamp.slice(0, 19).replace('T', ' ')} UTC</span>
                    </th>
                    <td data-label="Type">${delivery.eventType}</td>
                    <td data-label="Status">${delivery.status}</td>
                    <td data-label="Attempts" class="number">${delivery.attempts}</td>
                    <td data-label="Last answer">${delivery.lastStatus ?? ''}${delivery.lastError ? ` ${delivery.lastError}` : ''}</td>
                    <td data-label="Next attempt">${nextAttemptWords(delivery, ctx.nowMs)}</td>
                    <td class="actions">${redeliverForm(ctx, delivery)}</td>
                  </tr>`,
              )}
            </tbody>
          </table>`
    }
  </section>`;
}

/** A create refused: what was sent, and the errors by field. */
export interface CreateOutcome {
  readonly attempt?: { readonly values: EndpointFormValues; readonly errors: FieldErrors };
}

const blankEndpoint: EndpointFormValues = { url: '', description: '', eventTypes: [], enabled: true };

function createForm(ctx: ConsoleContext, attempt: CreateOutcome['attempt']): Html {
  if (!ctx.user.roles.includes('admin')) return html`<p class="muted">Creating and changing endpoints needs the admin role.</p>`;
  return html`<form method="post" action="${WEBHOOKS_PATH}" class="endpoint-form">
    <fieldset>
      <legend>New endpoint</legend>
      <input type="hidden" name="_csrf" value="${ctx.csrfToken}" />
      <input type="hidden" name="_action" value="create" />
      ${endpointFields(attempt?.values ?? blankEndpoint, attempt?.errors ?? {})}
      <div class="actions"><button type="submit">Create endpoint</button></div>
    </fieldset>
  </form>`;
}

/** A new endpoint's signing secret, for its own page to show once after the create's redirect. */
export function newEndpointReveal(secret: string): Reveal {
  return {
    kind: 'new-secret',
    heading: "The new endpoint's signing secret",
    advice:
      "Copy it into the receiver now, to verify each delivery's signature: it is shown this once. An admin can reveal it again on this page, or roll it.",
    secret,
  };
}

export function webhooksView(
  ctx: ConsoleContext,
  endpoints: ReadonlyArray<{ endpoint: WebhookEndpoint; deliveries: readonly DeliverySummary[] }>,
  outcome: CreateOutcome = {},
): PageView {
  const body = html`<h1>Webhook endpoints</h1>
    <p>
      Where the workspace's events are sent, how healthy each endpoint is, and how each recent delivery went. An endpoint is failing after
      ${FAILING_AFTER_ATTEMPTS} failed attempts in a row. Open one to edit it, send it a test event, or read each attempt's answer and
      payload. Endpoints can also be managed through the overview API (<code>/v1/webhook-endpoints</code>) or the admin CLI.
    </p>
    ${endpoints.length === 0 ? html`<p>No webhook endpoints yet.</p>` : endpoints.map(({ endpoint, deliveries }) => endpointSection(ctx, endpoint, deliveries))}
    <h2>Create an endpoint</h2>
    ${createForm(ctx, outcome.attempt)}`;
  return { title: 'Webhook endpoints', body };
}

async function listView(ctx: ConsoleContext, outcome: CreateOutcome = {}): Promise<PageView> {
  const endpoints = await listEndpoints(ctx.user.workspaceId);
  const withDeliveries = await Promise.all(
    endpoints.map(async (endpoint) => ({
      endpoint,
      deliveries: (await listDeliveries(ctx.user.workspaceId, endpoint.endpointId, { limit: RECENT_DELIVERIES })).deliveries,
    })),
  );
  return webhooksView(ctx, withDeliveries, outcome);
}

export const webhooksPage: ConsolePage = {
  path: WEBHOOKS_PATH,
  nav: 'Webhooks',
  read: (ctx) => listView(ctx),
  actions: {
    create: {
      role: 'admin',
      async run(ctx, form) {
        const values = valuesOf(form);
        const read = readCreate(values);
        const refused = async (errors: FieldErrors) => ({
          kind: 'render' as const,
          status: 422 as const,
          view: await listView(ctx, { attempt: { values, errors } }),
        });
        if ('errors' in read) return refused(read.errors);
        const { request } = read;
        try {
          // The API's own create: the URL guard, the cap and the secret are the domain's, not this page's.
          const created = await createEndpoint(
            ctx.user.workspaceId,
            { url: request.url, eventTypes: request.event_types, enabled: request.enabled, description: request.description },
            { allowLoopbackHttp: loopbackHttpAllowed() },
            ctx.nowMs,
          );
          return {
            kind: 'redirect',
            location: endpointPath(created.endpoint.endpointId),
            notice: 'Created the endpoint: send it a test event to see a delivery.',
            reveal: newEndpointReveal(created.secret),
          };
        } catch (error) {
          return refused(refusalOf(error));
        }
      },
    },
    redeliver: {
      role: 'admin',
      async run(ctx, form) {
        const queued = await redeliver(ctx.user.workspaceId, form.endpointId ?? '', form.eventId ?? '', ctx.nowMs);
        return { kind: 'redirect', location: WEBHOOKS_PATH, notice: `Queued ${queued.eventType} ${queued.eventId} for delivery again.` };
      },
    },
  },
};
