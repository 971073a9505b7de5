// Unit tests of the webhooks page's view: each endpoint with its recent deliveries, and the redeliver form for admins only.
import { describe, expect, it } from 'vitest';
import type { DeliverySummary } from '#shared/webhooks/delivery-schema.ts';
import type { WebhookEndpoint } from '#shared/webhooks/endpoint-schema.ts';
import type { ConsoleContext, ConsoleRole } from '#edge/console/page.ts';
import { webhooksView } from './webhooks.ts';

const contextOf = (roles: readonly ConsoleRole[]): ConsoleContext => ({
  user: { userId: 'usr_1', email: 'ann@example.com', workspaceId: 'ws_1', roles },
  params: {},
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
  status: 'failing',
} as WebhookEndpoint;
const delivery: DeliverySummary = {
  eventId: 'evt_1',
  eventType: 'price.approved',
  eventTimestamp: '2026-02-28T10:00:00.000Z',
  endpointId: 'we_1',
  status: 'parked',
  attempts: 8,
  lastStatus: 500,
};

describe('the webhooks page', () => {
  it('shows each endpoint with its deliveries, and a redeliver button for each to an admin', () => {
    const text = webhooksView(contextOf(['admin']), [{ endpoint, deliveries: [delivery] }]).body.text;
    expect(text).toContain('https://hooks.example.com/pricing');
    expect(text).toContain('evt_1');
    expect(text).toContain('>Redeliver</button>');
    expect(text).toContain('name="_csrf" value="session-token"');
  });

  it('shows the other roles the deliveries without the form', () => {
    const text = webhooksView(contextOf(['finance']), [{ endpoint, deliveries: [delivery] }]).body.text;
    expect(text).toContain('evt_1');
    expect(text).not.toContain('<form');
  });

  it('says an endpoint is failing with how many attempts in a row failed, before any delivery is parked', () => {
    const refused = { ...endpoint, breakerFailures: 3 } as WebhookEndpoint;
    const text = webhooksView(contextOf(['finance']), [{ endpoint: refused, deliveries: [] }]).body.text;
    expect(text).toContain('>failing</span> (3 failed attempts in a row)');
  });

  it('shows a pending delivery’s next attempt in UTC beside its last answer', () => {
    const pending: DeliverySummary = { ...delivery, status: 'pending', attempts: 1, nextAttemptAt: '2026-03-01T00:30:00.000Z' };
    const text = webhooksView(contextOf(['finance']), [{ endpoint, deliveries: [pending, delivery] }]).body.text;
    expect(text).toContain('<th scope="col">Next attempt</th>');
    expect(text).toContain('<td data-label="Next attempt"><time datetime="2026-03-01T00:30:00.000Z">2026-03-01 00:30:00 UTC</time></td>');
    expect(text).toContain('<td data-label="Next attempt">—</td>');
  });
});
