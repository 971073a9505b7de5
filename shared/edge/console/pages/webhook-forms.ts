// The webhook endpoint forms of the console: their fields with errors beside them, and reading a post through the API's own schemas.
import * as v from 'valibot';
import { ApiError } from '#platform/errors.ts';
import {
  CreateEndpointRequestSchema,
  MAX_DESCRIPTION_LENGTH,
  subscribableEventTypes,
  UpdateEndpointRequestSchema,
} from '#shared/webhooks/endpoint-schema.ts';
import { eventDescriptions } from '#shared/webhooks/event-descriptions.ts';
import type { EventType } from '#shared/webhooks/events.ts';
import { MAX_WEBHOOK_URL_LENGTH } from '#shared/webhooks/url-guard.ts';
import { type FieldErrors, sentence, textField } from '#edge/console/form-fields.ts';
import { type Html, html } from '#edge/console/html.ts';

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
