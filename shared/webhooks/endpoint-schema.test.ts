import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import {
  CreateEndpointRequestSchema,
  endpointView,
  statusOf,
  UpdateEndpointRequestSchema,
  type WebhookEndpointRecord,
} from './endpoint-schema.ts';

const record: WebhookEndpointRecord = {
  endpointId: 'we_0123456789abcdefghijKL',
  workspaceId: 'ws_A',
  url: 'https://hooks.example.com/in',
  eventTypes: ['price.approved'],
  enabled: true,
  secret: 'v1.sealed',
  secretCreatedAt: '2026-11-24T10:00:00.000Z',
  createdAt: '2026-11-24T10:00:00.000Z',
  updatedAt: '2026-11-24T10:00:00.000Z',
};

describe('endpoint status', () => {
  it('is healthy, failing while a streak of parked deliveries lasts, and disabled when switched off', () => {
    expect(statusOf(record)).toBe('healthy');
    expect(statusOf({ ...record, failingSince: '2026-11-20T00:00:00.000Z' })).toBe('failing');
    expect(statusOf({ ...record, enabled: false, failingSince: '2026-11-20T00:00:00.000Z' })).toBe('disabled');
  });

  it('is failing from the third failed attempt in a row, before any delivery is parked, and healthy again once the count is cleared', () => {
    expect(statusOf({ ...record, breakerFailures: 2 })).toBe('healthy');
    expect(statusOf({ ...record, breakerFailures: 3 })).toBe('failing');
    expect(endpointView({ ...record, breakerFailures: 3 }, 0)).toMatchObject({
      status: 'failing',
      consecutive_failures: 3,
      failing_since: null,
    });
    expect(statusOf({ ...record, breakerFailures: undefined })).toBe('healthy');
    expect(statusOf({ ...record, enabled: false, breakerFailures: 9 })).toBe('disabled');
  });
});

describe('the endpoint view', () => {
  it('never shows a secret, sealed or not', () => {
    const view = endpointView({ ...record, previousSecret: 'v1.old', previousSecretExpiresAt: '2026-11-25T10:00:00.000Z' }, 0);
    expect(JSON.stringify(view)).not.toContain('v1.');
    expect(view).toMatchObject({ id: record.endpointId, status: 'healthy', previous_secret_expires_at: '2026-11-25T10:00:00.000Z' });
  });

  it('shows no previous secret once its 24 hours are over', () => {
    const at = Date.parse('2026-11-25T10:00:00.000Z');
    expect(endpointView({ ...record, previousSecret: 'v1.old', previousSecretExpiresAt: '2026-11-25T10:00:00.000Z' }, at)).toMatchObject({
      previous_secret_expires_at: null,
    });
  });
});

describe('the request bodies', () => {
  it('take a URL and documented event types, each once', () => {
    expect(v.is(CreateEndpointRequestSchema, { url: 'https://a.example/', event_types: ['batch.drained', 'price.approved'] })).toBe(true);
    expect(v.is(CreateEndpointRequestSchema, { url: 'https://a.example/', event_types: [] })).toBe(false);
    expect(v.is(CreateEndpointRequestSchema, { url: 'https://a.example/', event_types: ['*'] })).toBe(false);
    expect(v.is(CreateEndpointRequestSchema, { url: 'https://a.example/', event_types: ['batch.drained', 'batch.drained'] })).toBe(false);
    expect(v.is(CreateEndpointRequestSchema, { url: 'https://a.example/', event_types: ['price.approved'], secret: 'whsec_x' })).toBe(
      false,
    );
  });

  it('refuse an update that changes nothing', () => {
    expect(v.is(UpdateEndpointRequestSchema, {})).toBe(false);
    expect(v.is(UpdateEndpointRequestSchema, { enabled: false })).toBe(true);
    expect(v.is(UpdateEndpointRequestSchema, { description: null })).toBe(true);
  });
});
