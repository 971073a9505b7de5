// verifyWebhook against messages signed as the service signs them: genuine ones pass typed, forged, stale and altered ones are refused.
import { describe, expect, expectTypeOf, it } from 'vitest';
import { eventTypes, type WebhookEvent as ServiceEvent } from '../../shared/webhooks/events.ts';
import { newSigningSecret } from '../../shared/webhooks/secrets.ts';
import { signedHeaders } from '../../shared/webhooks/transport.ts';
import {
  type BatchDrainedEvent,
  verifyWebhook,
  type WebhookEvent,
  type WebhookEventType,
  webhookEventTypes,
  WebhookVerificationError,
  type WebhookVerificationFailure,
} from './webhooks.ts';

const SIGNED_AT = new Date('2026-11-24T10:15:03.000Z');

const drained = {
  type: 'batch.drained',
  id: 'evt_4Zq0M2cY7kQ1rB8sVt3nHd',
  timestamp: '2026-11-24T10:15:03.120Z',
  workspaceId: 'ws_test',
  data: {
    batchId: '0b1f7a52-58f4-4d7e-9f39-2f3c8c6b4f11',
    connectorId: 'con_1',
    recordCount: 2,
    drainedCount: 2,
    warnedProducts: 0,
    drainedAt: '2026-11-24T10:15:03.120Z',
  },
} satisfies BatchDrainedEvent;

function signed(secrets: readonly string[], event: object = drained, at = SIGNED_AT) {
  const body = JSON.stringify(event);
  return { body, headers: signedHeaders(event as ServiceEvent, body, secrets, at) };
}

function failure(run: () => unknown): WebhookVerificationFailure | undefined {
  try {
    run();
  } catch (error) {
    if (error instanceof WebhookVerificationError) return error.reason;
    throw error;
  }
  return undefined;
}

describe('verifyWebhook', () => {
  const secret = newSigningSecret();

  it('returns the event of a message the service signed, typed by its type', () => {
    const { body, headers } = signed([secret]);
    const event = verifyWebhook(body, headers, secret, { now: SIGNED_AT });
    expect(event).toEqual(drained);
    if (event.type === 'batch.drained') expectTypeOf(event.data.drainedCount).toEqualTypeOf<number>();
    expectTypeOf(event).toEqualTypeOf<WebhookEvent>();
  });

  it('reads the body as bytes, the headers from a fetch Headers or in any letter case, and the secret without its prefix', () => {
    const { body, headers } = signed([secret]);
    const upper = Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toUpperCase(), value]));
    expect(verifyWebhook(Buffer.from(body), new Headers(headers), secret, { now: SIGNED_AT }).id).toBe(drained.id);
    expect(verifyWebhook(new TextEncoder().encode(body), upper, secret.slice('whsec_'.length), { now: SIGNED_AT }).id).toBe(drained.id);
  });

  it('accepts a message signed with two secrets after a rotation, verified with either', () => {
    const previous = newSigningSecret();
    const { body, headers } = signed([secret, previous]);
    expect(headers['webhook-signature']?.split(' ')).toHaveLength(2);
    expect(verifyWebhook(body, headers, previous, { now: SIGNED_AT }).id).toBe(drained.id);
    expect(verifyWebhook(body, headers, secret, { now: SIGNED_AT }).id).toBe(drained.id);
    expect(verifyWebhook(body, signed([previous]).headers, [secret, previous], { now: SIGNED_AT }).id).toBe(drained.id);
  });

  it('refuses another secret, an altered body, an altered id and a signature of another version', () => {
    const { body, headers } = signed([secret]);
    const now = { now: SIGNED_AT };
    expect(failure(() => verifyWebhook(body, headers, newSigningSecret(), now))).toBe('no_matching_signature');
    expect(failure(() => verifyWebhook(body.replace('"drainedCount":2', '"drainedCount":3'), headers, secret, now))).toBe(
      'no_matching_signature',
    );
    expect(failure(() => verifyWebhook(body, { ...headers, 'webhook-id': 'evt_other' }, secret, now))).toBe('no_matching_signature');
    const v2 = { ...headers, 'webhook-signature': String(headers['webhook-signature']).replace('v1,', 'v2,') };
    expect(failure(() => verifyWebhook(body, v2, secret, now))).toBe('no_matching_signature');
    expect(failure(() => verifyWebhook(body, { ...headers, 'webhook-signature': 'v1,AAAA' }, secret, now))).toBe('no_matching_signature');
  });

  it('refuses a message signed outside the tolerance either way, and takes a tolerance of its own', () => {
    const { body, headers } = signed([secret]);
    const at = (seconds: number) => ({ now: new Date(SIGNED_AT.getTime() + seconds * 1000) });
    expect(verifyWebhook(body, headers, secret, at(300)).id).toBe(drained.id);
    expect(verifyWebhook(body, headers, secret, at(-300)).id).toBe(drained.id);
    expect(failure(() => verifyWebhook(body, headers, secret, at(301)))).toBe('timestamp_out_of_tolerance');
    expect(failure(() => verifyWebhook(body, headers, secret, at(-301)))).toBe('timestamp_out_of_tolerance');
    expect(failure(() => verifyWebhook(body, headers, secret, { ...at(301), toleranceSeconds: 600 }))).toBeUndefined();
    expect(failure(() => verifyWebhook(body, { ...headers, 'webhook-timestamp': '1e9' }, secret, at(0)))).toBe('invalid_timestamp');
  });

  it('refuses a message without one of the three headers', () => {
    const { body, headers } = signed([secret]);
    for (const name of ['webhook-id', 'webhook-timestamp', 'webhook-signature']) {
      const without = Object.fromEntries(Object.entries(headers).filter(([key]) => key !== name));
      expect(failure(() => verifyWebhook(body, without, secret, { now: SIGNED_AT }))).toBe('missing_header');
    }
  });

  it('refuses a genuine signature over a body that is not an event, or not the one its webhook-id names', () => {
    const notJson = 'not json';
    const headers = signedHeaders(drained as ServiceEvent, notJson, [secret], SIGNED_AT);
    expect(failure(() => verifyWebhook(notJson, headers, secret, { now: SIGNED_AT }))).toBe('invalid_payload');
    const body = JSON.stringify(drained);
    const otherId = signedHeaders({ ...drained, id: 'evt_someone_else' } as ServiceEvent, body, [secret], SIGNED_AT);
    expect(failure(() => verifyWebhook(body, otherId, secret, { now: SIGNED_AT }))).toBe('invalid_payload');
  });

  it('says plainly when the secret is not a whsec_ secret', () => {
    const { body, headers } = signed([secret]);
    expect(() => verifyWebhook(body, headers, 'not a secret!', { now: SIGNED_AT })).toThrow(TypeError);
  });
});

describe('the event types', () => {
  it('are named, each of them, as the service sends them', () => {
    expectTypeOf<Exclude<WebhookEventType, (typeof webhookEventTypes)[number] | 'webhook.test'>>().toBeNever();
    expect([...webhookEventTypes, 'webhook.test'].sort()).toEqual([...eventTypes].sort());
  });
});
