// Unit tests of the webhook endpoint forms and page: the API's schemas read the form, errors sit beside their fields, attempts show their answer and payload.
import { describe, expect, it } from 'vitest';
import { ApiError } from '#platform/errors.ts';
import type { WebhookEndpoint } from '#shared/webhooks/endpoint-schema.ts';
import { newEvent } from '#shared/webhooks/events.ts';
import type { ConsoleContext, ConsoleRole } from '#edge/console/page.ts';
import { endpointView, RESPONSE_EXCERPT_CHARS, responseExcerpt } from './webhook-endpoint.ts';
import { readCreate, readUpdate, refusalOf, valuesOf } from './webhook-forms.ts';
import { newEndpointReveal, webhooksView } from './webhooks.ts';

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

  it('show a new endpoint’s secret on its own page when the redirect left it there, and the URL refused beside its field', () => {
    const shown = endpointView({ ctx: { ...contextOf(['admin']), reveal: newEndpointReveal('whsec_abc') }, endpoint, deliveries: [] });
    expect(shown.body.text).toContain('<p class="secret" data-testid="new-secret">whsec_abc</p>');
    expect(endpointView({ ctx: contextOf(['admin']), endpoint, deliveries: [] }).body.text).not.toContain('whsec_abc');
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

  it('offer to reveal and to roll the secret, and to delete the endpoint, each only leading to its step', () => {
    const text = endpointView({ ctx: contextOf(['admin']), endpoint, deliveries: [] }).body.text;
    for (const action of ['reveal', 'roll', 'delete']) expect(text).toContain(`name="_action" value="${action}"`);
    expect(text).toContain('Reveal the secret</button>');
    expect(text).toContain('Roll the secret</button>');
    expect(text).toContain('Delete the endpoint</button>');
    expect(text).not.toContain('name="confirmed"');
  });

  it('ask to confirm a roll, saying how long the current secret keeps signing, and a deletion, saying it cannot be undone', () => {
    const rolling = endpointView({ ctx: contextOf(['admin']), endpoint, deliveries: [], confirming: 'roll' }).body.text.replace(
      /\s+/g,
      ' ',
    );
    expect(rolling).toContain('Roll the signing secret of https://hooks.example.com/pricing?');
    expect(rolling).toContain('keeps signing beside it for 24 hours, until about 2026-03-02 00:00 UTC');
    expect(rolling).toMatch(/name="_action" value="roll" \/>\s*<input type="hidden" name="confirmed" value="yes" \/>/);
    expect(rolling).toContain('Yes, roll the secret</button>');
    const deleting = endpointView({ ctx: contextOf(['admin']), endpoint, deliveries: [], confirming: 'delete' }).body.text.replace(
      /\s+/g,
      ' ',
    );
    expect(deleting).toContain('Delete the endpoint https://hooks.example.com/pricing?');
    expect(deleting).toContain('This cannot be undone.');
    expect(deleting).toMatch(/name="_action" value="delete" \/>\s*<input type="hidden" name="confirmed" value="yes" \/>/);
    expect(deleting).toContain('<a href="/console/settings/webhooks/we_1">Keep the endpoint</a>');
  });

  it('say when a pending delivery’s next attempt goes, "now" once it is due, and "—" for a delivery that has none', () => {
    const delivery = {
      eventId: 'evt_1',
      eventType: 'price.approved',
      eventTimestamp: '2026-02-28T23:59:00.000Z',
      endpointId: 'we_1',
      attempts: 2,
      lastStatus: 503,
    };
    const deliveries = [
      { ...delivery, eventId: 'evt_later', status: 'pending' as const, nextAttemptAt: '2026-03-01T00:05:00.000Z' },
      { ...delivery, eventId: 'evt_due', status: 'pending' as const, nextAttemptAt: '2026-02-28T23:59:30.000Z' },
      { ...delivery, eventId: 'evt_parked', status: 'parked' as const },
    ];
    const text = endpointView({ ctx: contextOf(['admin']), endpoint, deliveries }).body.text;
    const cells = [...text.matchAll(/<td data-label="Next attempt">([\s\S]*?)<\/td>/g)].map((match) => match[1]);
    expect(cells).toEqual(['<time datetime="2026-03-01T00:05:00.000Z">2026-03-01 00:05:00 UTC</time>', 'now', '—']);
  });

  it('cut a receiver’s answer to the excerpt a page shows', () => {
    expect(responseExcerpt('x'.repeat(RESPONSE_EXCERPT_CHARS + 50))).toHaveLength(RESPONSE_EXCERPT_CHARS + 1);
    expect(responseExcerpt(undefined)).toBe('');
  });
});
