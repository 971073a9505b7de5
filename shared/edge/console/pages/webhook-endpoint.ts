// Settings → one webhook endpoint, for admins: edit it, send it a test event, read each attempt's status, answer and payload and each pending delivery's next attempt, reveal or roll its signing secret, and delete it.
import { ApiError } from '#platform/errors.ts';
import { listAttempts, listDeliveries } from '#shared/webhooks/attempt-log.ts';
import type { DeliveryAttempt, DeliverySummary } from '#shared/webhooks/delivery-schema.ts';
import { EventIdSchema } from '#shared/webhooks/delivery-schema.ts';
import { EndpointIdSchema, type WebhookEndpoint } from '#shared/webhooks/endpoint-schema.ts';
import { deleteEndpoint, getEndpoint, rotateSecret, updateEndpoint } from '#shared/webhooks/endpoints.ts';
import { dataKey, openSecret } from '#shared/webhooks/secrets.ts';
import type { WebhookEvent } from '#shared/webhooks/events.ts';
import { readEvent } from '#shared/webhooks/outbox.ts';
import { sendTestEvent } from '#shared/webhooks/test-event.ts';
import { loopbackHttpAllowed } from '#shared/webhooks/url-guard.ts';
import * as v from 'valibot';
import type { FieldErrors } from '#edge/console/form-fields.ts';
import { moment } from '#edge/console/formats.ts';
import { type Html, html } from '#edge/console/html.ts';
import { type ConsoleContext, type ConsolePage, type PageView, revealSection } from '#edge/console/page.ts';
import {
  actionForm,
  deleteConfirmation,
  endpointFields,
  type EndpointFormValues,
  endpointPath,
  minute,
  PREVIOUS_SECRET_HOURS,
  readUpdate,
  refusalOf,
  rollConfirmation,
  secretSection,
  valuesOf,
  WEBHOOKS_PATH,
} from './webhook-forms.ts';
import { healthWords, nextAttemptWords } from './webhooks.ts';

/** Deliveries listed on the endpoint's page: the newest, where a test just sent shows first. */
const RECENT_DELIVERIES = 20;
/** The most of a receiver's answer shown: the log keeps its first 1 KB, and a page shows no more than that. */
export const RESPONSE_EXCERPT_CHARS = 1024;

const statusClass: Readonly<Record<string, string>> = { healthy: 'status-ok', failing: 'status-warn', disabled: 'status-bad' };

function valuesOfEndpoint(endpoint: WebhookEndpoint): EndpointFormValues {
  return { url: endpoint.url, description: endpoint.description ?? '', eventTypes: endpoint.eventTypes, enabled: endpoint.enabled };
}

function editForm(ctx: ConsoleContext, endpoint: WebhookEndpoint, values: EndpointFormValues, errors: FieldErrors): Html {
  return html`<form method="post" action="${endpointPath(endpoint.endpointId)}" class="endpoint-form">
    <fieldset>
      <legend>Edit the endpoint</legend>
      <input type="hidden" name="_csrf" value="${ctx.csrfToken}" />
      <input type="hidden" name="_action" value="update" />
      ${endpointFields(values, errors)}
      <div class="actions"><button type="submit">Save changes</button></div>
    </fieldset>
  </form>`;
}

function testForm(ctx: ConsoleContext, endpoint: WebhookEndpoint, error: string | undefined): Html {
  return html`<form method="post" action="${endpointPath(endpoint.endpointId)}" class="inline">
    <input type="hidden" name="_csrf" value="${ctx.csrfToken}" />
    <input type="hidden" name="_action" value="test" />
    <button type="submit" class="secondary" ${error ? html`aria-describedby="test-error"` : ''}>Send a test event</button>
    ${error ? html`<p class="error field-error" role="alert" id="test-error">${error}</p>` : ''}
  </form>`;
}

function deliveriesTable(ctx: ConsoleContext, endpoint: WebhookEndpoint, deliveries: readonly DeliverySummary[]): Html {
  if (deliveries.length === 0) return html`<p>No deliveries yet: send a test event to see one.</p>`;
  return html`<table class="cards deliveries">
    <caption class="muted">
      The ${RECENT_DELIVERIES} most recent deliveries, newest first
    </caption>
    <thead>
      <tr>
        <th scope="col">Event</th>
        <th scope="col">Type</th>
        <th scope="col">Status</th>
        <th scope="col">Attempts</th>
        <th scope="col">Last answer</th>
        <th scope="col">Next attempt</th>
      </tr>
    </thead>
    <tbody>
      ${deliveries.map(
        (delivery) =>
          html`<tr>
            <th scope="row">
              <a href="${endpointPath(endpoint.endpointId)}?event=${delivery.eventId}"><code>${delivery.eventId}</code></a
              ><br /><span class="muted">${moment(delivery.eventTimestamp)}</span>
            </th>
            <td data-label="Type"><code>${delivery.eventType}</code></td>
            <td data-label="Status">${delivery.status}</td>
            <td data-label="Attempts" class="number">${delivery.attempts}</td>
            <td data-label="Last answer">${delivery.lastStatus ?? '—'}${delivery.lastError ? ` ${delivery.lastError}` : ''}</td>
            <td data-label="Next attempt">${nextAttemptWords(delivery, ctx.nowMs)}</td>
          </tr>`,
      )}
    </tbody>
  </table>`;
}

/** The receiver's answer as kept, cut to the excerpt a page shows. */
export function responseExcerpt(response: string | undefined): string {
  if (!response) return '';
  return response.length > RESPONSE_EXCERPT_CHARS ? `${response.slice(0, RESPONSE_EXCERPT_CHARS)}…` : response;
}

function attemptItem(attempt: DeliveryAttempt): Html {
  const excerpt = responseExcerpt(attempt.response);
  return html`<li class="attempt">
    <h4>Attempt ${attempt.seq} · ${moment(attempt.attemptedAt)}</h4>
    <p>
      ${attempt.status !== undefined ? html`HTTP <strong>${attempt.status}</strong>` : html`<strong>No answer</strong>`} in
      ${attempt.latencyMs} ms${attempt.error ? ` · ${attempt.error}` : ''}
    </p>
    ${
      excerpt
        ? html`<p class="muted">Response body (first ${RESPONSE_EXCERPT_CHARS} characters at most):</p>
            <pre class="payload">${excerpt}</pre>`
        : html`<p class="muted">No response body.</p>`
    }
  </li>`;
}

interface EventDetail {
  readonly event: WebhookEvent;
  readonly attempts: readonly DeliveryAttempt[];
}

function eventSection(detail: EventDetail): Html {
  return html`<section aria-labelledby="event-heading" class="event-detail">
    <h2 id="event-heading" tabindex="-1">Event <code>${detail.event.id}</code> · <code>${detail.event.type}</code></h2>
    <h3>Attempts</h3>
    ${
      detail.attempts.length === 0
        ? html`<p>No attempt logged yet: it is queued.</p>`
        : html`<ol class="attempts">
            ${detail.attempts.map(attemptItem)}
          </ol>`
    }
    <h3>Payload</h3>
    <pre class="payload" tabindex="0" aria-label="Payload of ${detail.event.id}">${JSON.stringify(detail.event, null, 2)}</pre>
  </section>`;
}

interface EndpointViewInput {
  readonly ctx: ConsoleContext;
  readonly endpoint: WebhookEndpoint;
  readonly deliveries: readonly DeliverySummary[];
  readonly detail?: EventDetail;
  readonly attempt?: { readonly values: EndpointFormValues; readonly errors: FieldErrors };
  readonly testError?: string;
  /** A step waiting for its confirmation: rolling the secret, or deleting the endpoint. */
  readonly confirming?: 'roll' | 'delete';
}

/** The page's body: pure, so that what it shows is unit-tested. */
export function endpointView({ ctx, endpoint, deliveries, detail, attempt, testError, confirming }: EndpointViewInput): PageView {
  const body = html`<p><a href="${WEBHOOKS_PATH}">← Webhook endpoints</a></p>
    <h1 class="endpoint-url">${endpoint.url}</h1>
    <p>
      <span class="${statusClass[endpoint.status] ?? ''}">${endpoint.status}</span>${healthWords(endpoint)} ·
      <code>${endpoint.endpointId}</code>
      · created ${moment(endpoint.createdAt)}
    </p>
    ${confirming === 'roll' ? rollConfirmation(ctx, endpoint) : ''} ${confirming === 'delete' ? deleteConfirmation(ctx, endpoint) : ''}
    ${revealSection(ctx.reveal)} ${testForm(ctx, endpoint, testError)} ${detail ? eventSection(detail) : ''}
    <h2>Deliveries</h2>
    ${deliveriesTable(ctx, endpoint, deliveries)} ${secretSection(ctx, endpoint)}
    ${editForm(ctx, endpoint, attempt?.values ?? valuesOfEndpoint(endpoint), attempt?.errors ?? {})}
    <h2>Delete the endpoint</h2>
    <p>Stops every delivery to it, at once and for good.</p>
    ${actionForm(ctx, endpoint, 'delete', html`<button type="submit" class="danger">Delete the endpoint</button>`)}`;
  return { title: `Webhook endpoint ${endpoint.url}`, body };
}

/** Only admins see an endpoint's page: it shows receivers' answers and every payload. */
function requireAdmin(ctx: ConsoleContext): void {
  if (!ctx.user.roles.includes('admin')) throw new ApiError('forbidden', 'This needs the admin role.');
}

async function endpointOf(ctx: ConsoleContext): Promise<WebhookEndpoint> {
  const endpointId = ctx.params.endpointId ?? '';
  const endpoint = v.is(EndpointIdSchema, endpointId) ? await getEndpoint(ctx.user.workspaceId, endpointId) : undefined;
  if (!endpoint) throw new ApiError('not_found', 'No webhook endpoint with this id in this workspace.');
  return endpoint;
}

async function eventDetail(ctx: ConsoleContext, endpointId: string): Promise<EventDetail | undefined> {
  const eventId = ctx.query.get('event');
  if (!eventId) return undefined;
  const stored = v.is(EventIdSchema, eventId) ? await readEvent(ctx.user.workspaceId, eventId) : undefined;
  if (!stored) throw new ApiError('not_found', 'No webhook event with this id in this workspace in the last 30 days.');
  return { event: stored.event, attempts: await listAttempts(ctx.user.workspaceId, endpointId, eventId) };
}

async function view(ctx: ConsoleContext, extra: Pick<EndpointViewInput, 'attempt' | 'testError' | 'confirming'> = {}): Promise<PageView> {
  requireAdmin(ctx);
  const endpoint = await endpointOf(ctx);
  const [page, detail] = await Promise.all([
    listDeliveries(ctx.user.workspaceId, endpoint.endpointId, { limit: RECENT_DELIVERIES }),
    eventDetail(ctx, endpoint.endpointId),
  ]);
  return endpointView({ ctx, endpoint, deliveries: page.deliveries, detail, ...extra });
}

export const webhookEndpointPage: ConsolePage = {
  path: `${WEBHOOKS_PATH}/{endpointId}`,
  read: (ctx) => view(ctx),
  actions: {
    update: {
      role: 'admin',
      async run(ctx, form) {
        const endpoint = await endpointOf(ctx);
        const values = valuesOf(form);
        const read = readUpdate(values);
        const refused = async (errors: FieldErrors) => ({
          kind: 'render' as const,
          status: 422 as const,
          view: await view(ctx, { attempt: { values, errors } }),
        });
        if ('errors' in read) return refused(read.errors);
        const { request } = read;
        try {
          // The API's own update: the URL checked again by the guard, a re-enable clearing the failing streak.
          await updateEndpoint(
            ctx.user.workspaceId,
            endpoint.endpointId,
            { url: request.url, eventTypes: request.event_types, enabled: request.enabled, description: request.description },
            { allowLoopbackHttp: loopbackHttpAllowed() },
            ctx.nowMs,
          );
        } catch (error) {
          return refused(refusalOf(error));
        }
        return { kind: 'redirect', location: endpointPath(endpoint.endpointId), notice: 'Saved the endpoint.' };
      },
    },
    test: {
      role: 'admin',
      async run(ctx) {
        const endpoint = await endpointOf(ctx);
        try {
          const event = await sendTestEvent(ctx.user.workspaceId, endpoint.endpointId, ctx.nowMs);
          return {
            kind: 'redirect',
            location: `${endpointPath(endpoint.endpointId)}?event=${event.id}`,
            notice: `Sent test event ${event.id}: its attempt shows below once made.`,
          };
        } catch (error) {
          if (error instanceof ApiError && error.code === 'invalid_request') {
            return { kind: 'render', status: 422, view: await view(ctx, { testError: error.message }) };
          }
          throw error;
        }
      },
    },
    reveal: {
      role: 'admin',
      async run(ctx) {
        const endpoint = await endpointOf(ctx);
        // Opened here, where the data key is granted, and sealed again under the session's own key for one view.
        const secret = openSecret(await dataKey(), endpoint.secret, endpoint);
        return {
          kind: 'redirect',
          location: endpointPath(endpoint.endpointId),
          reveal: {
            kind: 'current-secret',
            heading: "The endpoint's current signing secret",
            advice:
              "The receiver verifies each delivery's signature with it. Shown this once: reload, and it is gone; reveal it again when needed.",
            secret,
          },
        };
      },
    },
    roll: {
      role: 'admin',
      async run(ctx, form) {
        const endpoint = await endpointOf(ctx);
        if (form.confirmed !== 'yes') return { kind: 'show', view: await view(ctx, { confirming: 'roll' }) };
        const rolled = await rotateSecret(ctx.user.workspaceId, endpoint.endpointId, ctx.nowMs);
        const expiresAt = rolled.endpoint.previousSecretExpiresAt;
        const until = expiresAt ? minute(expiresAt) : `${PREVIOUS_SECRET_HOURS} hours from now`;
        return {
          kind: 'redirect',
          location: endpointPath(endpoint.endpointId),
          reveal: {
            kind: 'new-secret',
            heading: 'New signing secret',
            advice: `It signs every delivery from now on, and is shown this once. The previous secret signs beside it until ${until}: switch the receiver to this one before then.`,
            secret: rolled.secret,
          },
        };
      },
    },
    delete: {
      role: 'admin',
      async run(ctx, form) {
        const endpoint = await endpointOf(ctx);
        if (form.confirmed !== 'yes') return { kind: 'show', view: await view(ctx, { confirming: 'delete' }) };
        await deleteEndpoint(ctx.user.workspaceId, endpoint.endpointId);
        return {
          kind: 'redirect',
          location: WEBHOOKS_PATH,
          // Named by its id: a URL may be 2,048 characters of one token, which a notice on a phone cannot wrap.
          notice: `Deleted the endpoint ${endpoint.endpointId}: nothing more is sent to it.`,
        };
      },
    },
  },
};
