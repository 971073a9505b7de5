// The webhook endpoint forms of the console: their fields with errors beside them, reading a post through the API's own schemas, and the secret's and deletion's forms with their confirmation steps.
import * as v from 'valibot';
import { ApiError } from '#platform/errors.ts';
import {
  CreateEndpointRequestSchema,
  MAX_DESCRIPTION_LENGTH,
  subscribableEventTypes,
  UpdateEndpointRequestSchema,
  type WebhookEndpoint,
} from '#shared/webhooks/endpoint-schema.ts';
import { eventDescriptions } from '#shared/webhooks/event-descriptions.ts';
import type { EventType } from '#shared/webhooks/events.ts';
import { PREVIOUS_SECRET_ACCEPTED_MS } from '#shared/webhooks/secrets.ts';
import { MAX_WEBHOOK_URL_LENGTH } from '#shared/webhooks/url-guard.ts';
import { type FieldErrors, sentence, textField } from '#edge/console/form-fields.ts';
import { moment } from '#edge/console/formats.ts';
import { type Html, html } from '#edge/console/html.ts';
import type { ConsoleContext } from '#edge/console/page.ts';

export const WEBHOOKS_PATH = '/console/settings/webhooks';

export function endpointPath(endpointId: string): string {
  return `${WEBHOOKS_PATH}/${encodeURIComponent(endpointId)}`;
}

/** What the form shows: the endpoint's values, or what was sent with a refused post. */
export interface EndpointFormValues {
  readonly url: string;
  readonly description: string;
  readonly eventTypes: readonly string[];
  readonly enabled: boolean;
}

/** The API's field names, as the schemas' issues name them, to the form's. */
const fieldOfParam: Readonly<Record<string, string>> = {
  url: 'url',
  event_types: 'events',
  description: 'description',
  enabled: 'enabled',
};

export function valuesOf(form: Readonly<Record<string, string>>): EndpointFormValues {
  return {
    url: (form.url ?? '').trim(),
    description: (form.description ?? '').trim(),
    eventTypes: (form.events ?? '')
      .split(',')
      .map((type) => type.trim())
      .filter(Boolean),
    enabled: form.enabled === 'yes',
  };
}

function issuesByField(issues: readonly v.BaseIssue<unknown>[]): FieldErrors {
  const errors: Record<string, string> = {};
  for (const issue of issues) {
    const param = String(issue.path?.[0]?.key ?? '');
    const field = fieldOfParam[param] ?? 'form';
    errors[field] ??= sentence(issue.message);
  }
  return errors;
}

/** A create, as POST /v1/webhook-endpoints would take it: the same schema, so that the console refuses what the API refuses. */
export function readCreate(
  values: EndpointFormValues,
): { request: v.InferOutput<typeof CreateEndpointRequestSchema> } | { errors: FieldErrors } {
  const checked = v.safeParse(CreateEndpointRequestSchema, {
    url: values.url,
    event_types: values.eventTypes,
    enabled: values.enabled,
    ...(values.description ? { description: values.description } : {}),
  });
  return checked.success ? { request: checked.output } : { errors: issuesByField(checked.issues) };
}

/** An edit of every field at once, as PATCH /v1/webhook-endpoints/{id} would take it; an emptied description is removed. */
export function readUpdate(
  values: EndpointFormValues,
): { request: v.InferOutput<typeof UpdateEndpointRequestSchema> } | { errors: FieldErrors } {
  const checked = v.safeParse(UpdateEndpointRequestSchema, {
    url: values.url,
    event_types: values.eventTypes,
    enabled: values.enabled,
    description: values.description || null,
  });
  return checked.success ? { request: checked.output } : { errors: issuesByField(checked.issues) };
}

/** A refusal of the domain (the URL guard, the cap) as errors beside the field it names; other errors are thrown on. */
export function refusalOf(error: unknown): FieldErrors {
  if (error instanceof ApiError && error.status < 500) {
    const field = fieldOfParam[error.param ?? ''] ?? 'form';
    return { [field]: sentence(error.message) };
  }
  throw error;
}

function eventsFieldset(values: EndpointFormValues, error: string | undefined): Html {
  return html`<fieldset class="event-types" ${error ? html`aria-describedby="events-error"` : ''}>
    <legend>Events to send</legend>
    ${error ? html`<p class="error field-error" role="alert" id="events-error">${error}</p>` : ''}
    ${subscribableEventTypes.map(
      (type, index) =>
        html`<label class="choice" title="${eventDescriptions[type as EventType]}"
          ><input
            type="checkbox"
            name="events"
            value="${type}"
            ${values.eventTypes.includes(type) ? html` checked` : ''}
            ${error && index === 0 ? html` autofocus` : ''}
          />
          <code>${type}</code></label
        >`,
    )}
  </fieldset>`;
}

/** The URL, description, events and switch of an endpoint, each error beside its field. */
export function endpointFields(values: EndpointFormValues, errors: FieldErrors): Html {
  return html`${textField({
      id: 'endpoint-url',
      name: 'url',
      label: 'URL',
      type: 'url',
      value: values.url,
      error: errors.url,
      hint: 'An https address on the public internet: private, loopback and link-local addresses are refused.',
      required: true,
      maxLength: MAX_WEBHOOK_URL_LENGTH,
      autocomplete: 'off',
    })}
    ${textField({
      id: 'endpoint-description',
      name: 'description',
      label: 'Description (optional)',
      value: values.description,
      error: errors.description,
      maxLength: MAX_DESCRIPTION_LENGTH,
      autocomplete: 'off',
    })}
    ${eventsFieldset(values, errors.events)}
    <label class="choice"
      ><input type="checkbox" name="enabled" value="yes" ${values.enabled ? html` checked` : ''} /> Enabled: send events to this
      endpoint</label
    >
    ${errors.form ? html`<p class="error" role="alert">${errors.form}</p>` : ''}`;
}

/** The previous secret's hours, in the words the page and its confirmation use. */
export const PREVIOUS_SECRET_HOURS = PREVIOUS_SECRET_ACCEPTED_MS / 3_600_000;

/** To the minute, in UTC: when a secret stops signing. */
export function minute(iso: string): string {
  return `${iso.slice(0, 16).replace('T', ' ')} UTC`;
}

/** Whether the secret the last roll replaced still signs beside the current one. */
function previousSecretSigns(endpoint: WebhookEndpoint, nowMs: number): endpoint is WebhookEndpoint & { previousSecretExpiresAt: string } {
  return (
    endpoint.previousSecret !== undefined &&
    endpoint.previousSecretExpiresAt !== undefined &&
    Date.parse(endpoint.previousSecretExpiresAt) > nowMs
  );
}

/** A form of one button posting an action of this endpoint's page, optionally the confirmed step of it. */
export function actionForm(
  ctx: ConsoleContext,
  endpoint: WebhookEndpoint,
  action: string,
  button: Html,
  options: { readonly confirmed?: boolean; readonly inline?: boolean; readonly after?: Html } = {},
): Html {
  return html`<form method="post" action="${endpointPath(endpoint.endpointId)}" ${options.inline ? html`class="inline"` : ''}>
    <input type="hidden" name="_csrf" value="${ctx.csrfToken}" />
    <input type="hidden" name="_action" value="${action}" />
    ${options.confirmed ? html`<input type="hidden" name="confirmed" value="yes" />` : ''} ${button} ${options.after ?? ''}
  </form>`;
}

/** What signs the endpoint's deliveries, and the forms that reveal the secret and roll it. */
export function secretSection(ctx: ConsoleContext, endpoint: WebhookEndpoint): Html {
  const previous = previousSecretSigns(endpoint, ctx.nowMs)
    ? `The secret it replaced signs beside it until ${minute(endpoint.previousSecretExpiresAt)}.`
    : '';
  return html`<section aria-labelledby="secret-heading">
    <h2 id="secret-heading">Signing secret</h2>
    <p>
      Each delivery is signed with the endpoint's secret (Standard Webhooks), made ${moment(endpoint.secretCreatedAt)}. ${previous}
      Revealing shows it on this page once; rolling makes a new one, the current one signing beside it for ${PREVIOUS_SECRET_HOURS} hours.
    </p>
    ${actionForm(ctx, endpoint, 'reveal', html`<button type="submit" class="secondary">Reveal the secret</button>`, { inline: true })}
    ${actionForm(ctx, endpoint, 'roll', html`<button type="submit" class="secondary">Roll the secret</button>`, { inline: true })}
  </section>`;
}

/** The step before a roll: receivers must move to the new secret within the hours the current one keeps signing. */
export function rollConfirmation(ctx: ConsoleContext, endpoint: WebhookEndpoint): Html {
  const until = minute(new Date(ctx.nowMs + PREVIOUS_SECRET_ACCEPTED_MS).toISOString());
  const oldest = previousSecretSigns(endpoint, ctx.nowMs)
    ? 'The secret the last roll replaced stops signing at once: two at most are live.'
    : '';
  return html`<section class="confirm-revoke" aria-labelledby="roll-heading">
    <h2 id="roll-heading" class="endpoint-url">Roll the signing secret of ${endpoint.url}?</h2>
    <p>
      A new secret signs every delivery from now on, and is shown once. The current secret keeps signing beside it for
      ${PREVIOUS_SECRET_HOURS} hours, until about ${until}, so that the receiver can switch without losing an event; after that only the new
      one signs. ${oldest}
    </p>
    ${actionForm(ctx, endpoint, 'roll', html`<button type="submit" class="danger">Yes, roll the secret</button>`, {
      confirmed: true,
      after: html`<a href="${endpointPath(endpoint.endpointId)}">Keep the current secret</a>`,
    })}
  </section>`;
}

/** The step before a deletion, which cannot be undone and ends the retries of what is pending. */
export function deleteConfirmation(ctx: ConsoleContext, endpoint: WebhookEndpoint): Html {
  return html`<section class="confirm-revoke" aria-labelledby="delete-heading">
    <h2 id="delete-heading" class="endpoint-url">Delete the endpoint ${endpoint.url}?</h2>
    <p>
      Nothing more is sent to it (${endpoint.endpointId}): no new event, and no retry of a pending delivery. Its secret is gone with it, and
      its place under the workspace's endpoints is given back. This cannot be undone.
    </p>
    ${actionForm(ctx, endpoint, 'delete', html`<button type="submit" class="danger">Yes, delete the endpoint</button>`, {
      confirmed: true,
      after: html`<a href="${endpointPath(endpoint.endpointId)}">Keep the endpoint</a>`,
    })}
  </section>`;
}
