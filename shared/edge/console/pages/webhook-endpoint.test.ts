// Unit tests of the webhook endpoint forms and page: the API's schemas read the form, errors sit beside their fields, attempts show their answer and payload.
import { describe, expect, it } from 'vitest';
import { ApiError } from '#platform/errors.ts';
import type { WebhookEndpoint } from '#shared/webhooks/endpoint-schema.ts';
import { newEvent } from '#shared/webhooks/events.ts';
import type { ConsoleContext, ConsoleRole } from '#edge/console/page.ts';
import { endpointView, RESPONSE_EXCERPT_CHARS, responseExcerpt } from './webhook-endpoint.ts';
import { readCreate, readUpdate, refusalOf, valuesOf } from './webhook-forms.ts';
import { webhooksView } from './webhooks.ts';

const contextOf = (roles: readonly ConsoleRole[]): ConsoleContext => ({
  user: { userId: 'usr_1', email: 'ann@example.com', workspaceId: 'ws_1', roles },
  params: { endpointId: 'we_1' },
  query: new URLSearchParams(),
  csrfToken: 'session-token',
  nowMs: Date.parse('2026-03-01T00:00:00.000Z'),
});
const endpoint = {
  endpointId: 'we_1',
  workspaceId: 'ws_1',
  url: 'https://hooks.example.com/pricing',
  eventTypes: ['price.approved'],
  enabled: true,
  secret: 'sealed',
  secretCreatedAt: '2026-01-01T00:00:00.000Z',
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
  breakerFailures: 3,
  status: 'failing',
} as WebhookEndpoint;

describe('reading an endpoint form', () => {
  it('reads the URL, the checked events, the description and the switch as the API’s create takes them', () => {
    const read = readCreate(
      valuesOf({ url: ' https://hooks.example.com/x ', events: 'price.approved,batch.failed', description: 'ERP', enabled: 'yes' }),
    );
    expect(read).toEqual({
      request: { url: 'https://hooks.example.com/x', event_types: ['price.approved', 'batch.failed'], enabled: true, description: 'ERP' },
    });
  });

  it('puts each refusal of the API’s schema beside its field: no URL, no events, an unknown or a test event', () => {
    expect(readCreate(valuesOf({ url: '', events: '' }))).toEqual({ errors: { url: expect.any(String), events: expect.any(String) } });
    expect(readCreate(valuesOf({ url: 'https://h.example.com', events: 'webhook.test' }))).toEqual({
      errors: { events: expect.stringContaining('documented event types') },
    });
    expect(readUpdate(valuesOf({ url: 'https://h.example.com', events: 'price.approved', description: 'x'.repeat(257) }))).toEqual({
      errors: { description: expect.stringContaining('256') },
    });
  });

  it('turns an emptied description into its removal, and an unchecked switch into disabling', () => {
    expect(readUpdate(valuesOf({ url: 'https://h.example.com', events: 'price.approved', description: '' }))).toEqual({
      request: { url: 'https://h.example.com', event_types: ['price.approved'], enabled: false, description: null },
    });
  });

  it('puts the URL guard’s refusal beside the URL, and throws on what is not a refusal', () => {
    expect(refusalOf(new ApiError('invalid_request', 'Invalid url: private address.', { param: 'url' }))).toEqual({
      url: 'Invalid url: private address.',
    });
    expect(() => refusalOf(new Error('down'))).toThrow('down');
  });
});

describe('the webhooks pages', () => {
  it('offer an admin the create form, with the session’s token, and each endpoint a link to its page', () => {
    const text = webhooksView(contextOf(['admin']), [{ endpoint, deliveries: [] }]).body.text;
    expect(text).toContain('Create endpoint</button>');
    expect(text).toContain('name="_csrf" value="session-token"');
    expect(text).toContain('<a href="/console/settings/webhooks/we_1">https://hooks.example.com/pricing</a>');
    expect(webhooksView(contextOf(['pricing']), [{ endpoint, deliveries: [] }]).body.text).not.toContain('Create endpoint');
  });

  it('show a new endpoint’s secret once, and the URL refused beside its field, focused, with what was typed kept', () => {
    const created = webhooksView(contextOf(['admin']), [], { created: { endpoint, secret: 'whsec_abc' } }).body.text;
    expect(created).toContain('<p class="secret" data-testid="new-secret">whsec_abc</p>');
    const refused = webhooksView(contextOf(['admin']), [], {
      attempt: {
        values: { url: 'http://10.0.0.7/x', description: '', eventTypes: ['price.approved'], enabled: true },
        errors: { url: 'Invalid url: private address.' },
      },
    }).body.text;
    expect(refused).toContain('value="http://10.0.0.7/x"');
    expect(refused).toContain('aria-describedby="endpoint-url-error endpoint-url-hint"');
    expect(refused).toContain('aria-invalid="true" autofocus');
    expect(refused).toContain('id="endpoint-url-error">Invalid url: private address.</p>');
    expect(refused).toMatch(/value="price.approved"\s+checked/);
  });

  it('show an endpoint’s health, its edit and test forms, and an attempt’s status, bounded answer and payload', () => {
    const event = newEvent('webhook.test', 'ws_1', { endpointId: 'we_1', requestedAt: '2026-03-01T00:00:00.000Z' }, new Date());
    const text = endpointView({
      ctx: contextOf(['admin']),
      endpoint,
      deliveries: [],
      detail: {
        event,
        attempts: [
          {
            eventId: event.id,
            endpointId: 'we_1',
            seq: 1,
            attemptedAt: '2026-03-01T00:00:01.000Z',
            status: 503,
            latencyMs: 42,
            response: '<b>down</b>',
          },
          {
            eventId: event.id,
            endpointId: 'we_1',
            seq: 2,
            attemptedAt: '2026-03-01T00:00:02.000Z',
            latencyMs: 0,
            error: 'connection refused',
          },
        ],
      },
    }).body.text;
    expect(text).toContain('>failing</span> (3 failed attempts in a row)');
    expect(text).toContain('Save changes</button>');
    expect(text).toContain('Send a test event</button>');
    expect(text).toContain('HTTP <strong>503</strong>');
    expect(text).toContain('&lt;b&gt;down&lt;/b&gt;');
    expect(text).toContain('connection refused');
    expect(text).toContain(`&quot;type&quot;: &quot;webhook.test&quot;`);
  });

  it('cut a receiver’s answer to the excerpt a page shows', () => {
    expect(responseExcerpt('x'.repeat(RESPONSE_EXCERPT_CHARS + 50))).toHaveLength(RESPONSE_EXCERPT_CHARS + 1);
    expect(responseExcerpt(undefined)).toBe('');
  });
});
