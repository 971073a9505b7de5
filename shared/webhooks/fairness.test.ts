// Unit tests of fair delivery's decisions: the in-flight bounds, the circuit breaker's transitions and the redelivery rate limit.
import { afterEach, describe, expect, it } from 'vitest';
import { environmentNames } from '#platform/config.ts';
import { afterAttempt, BREAKER_COOL_OFF_MS, BREAKER_THRESHOLD, breakerCoolOffMs, circuitOf, gate } from './breaker.ts';
import { endpointView, type WebhookEndpointRecord } from './endpoint-schema.ts';
import { admit, type Leases, MAX_IN_FLIGHT_PER_ENDPOINT, MAX_IN_FLIGHT_PER_WORKSPACE } from './in-flight.ts';
import { admitRedelivery, MAX_REDELIVERIES_PER_WINDOW, REDELIVERY_WINDOW_MS } from './redelivery-limit.ts';

const NOW = Date.parse('2026-11-27T01:00:00.000Z');

function leases(...held: Array<[endpointId: string, until: number]>): Leases {
  return Object.fromEntries(held.map(([endpointId, until], index) => [`lease-${index}`, { endpointId, until }]));
}

describe('the in-flight bounds', () => {
  it('let an attempt go while its endpoint and its workspace are under their bounds', () => {
    expect(admit({}, 'we_a', NOW).busy).toBeUndefined();
    expect(admit(leases(['we_a', NOW + 1_000]), 'we_a', NOW).busy).toBeUndefined();
  });

  it('hold back an attempt at an endpoint that has its bound in flight, while another endpoint of the workspace still goes', () => {
    const full = leases(...Array.from({ length: MAX_IN_FLIGHT_PER_ENDPOINT }, () => ['we_a', NOW + 1_000] as [string, number]));
    expect(admit(full, 'we_a', NOW).busy).toBe('endpoint');
    expect(admit(full, 'we_b', NOW).busy).toBeUndefined();
  });

  it('hold back every endpoint of a workspace that has its bound in flight', () => {
    const full = leases(
      ...Array.from({ length: MAX_IN_FLIGHT_PER_WORKSPACE }, (_, index) => [`we_${index}`, NOW + 1_000] as [string, number]),
    );
    expect(admit(full, 'we_new', NOW).busy).toBe('workspace');
  });

  it('free the slot of a lease past its expiry, as of a worker that crashed and never gave it back', () => {
    const crashed = leases(
      ...Array.from({ length: MAX_IN_FLIGHT_PER_WORKSPACE }, (_, index) => [`we_${index}`, NOW - 1] as [string, number]),
    );
    const { live, busy } = admit(crashed, 'we_0', NOW);
    expect(busy).toBeUndefined();
    expect(live).toEqual({});
  });
});

describe('the circuit breaker', () => {
  afterEach(() => {
    delete process.env[environmentNames.webhookRetryScale];
    delete process.env[environmentNames.webhookBreakerCoolOffMs];
  });

  it('stays closed below the threshold of failures in a row, and opens for the cool-off at it', () => {
    let breaker = {};
    for (let failure = 1; failure < BREAKER_THRESHOLD; failure++) {
      breaker = afterAttempt(breaker, false, NOW, 60_000);
      expect(circuitOf(breaker, NOW)).toBe('closed');
      expect(gate(breaker, NOW)).toEqual({ go: 'send' });
    }
    breaker = afterAttempt(breaker, false, NOW, 60_000);
    expect(circuitOf(breaker, NOW)).toBe('open');
    expect(gate(breaker, NOW + 1)).toEqual({ deferUntil: NOW + 60_000 });
  });

  it('is half-open after the cool-off: one probe goes, and a second attempt waits while the probe’s claim lives', () => {
    const open = { breakerFailures: BREAKER_THRESHOLD, breakerOpenUntil: NOW };
    expect(circuitOf(open, NOW)).toBe('half_open');
    expect(gate(open, NOW)).toEqual({ go: 'probe' });
    expect(gate({ ...open, breakerProbeUntil: NOW + 5_000 }, NOW + 1)).toEqual({ deferUntil: NOW + 5_000 });
    // A probe whose worker died lets another probe go once its claim lapses.
    expect(gate({ ...open, breakerProbeUntil: NOW + 5_000 }, NOW + 5_000)).toEqual({ go: 'probe' });
  });

  it('closes and forgets the streak on a probe’s 2xx, and opens again on its failure', () => {
    const halfOpen = { breakerFailures: BREAKER_THRESHOLD, breakerOpenUntil: NOW - 1 };
    expect(afterAttempt(halfOpen, true, NOW, 60_000)).toEqual({});
    const reopened = afterAttempt(halfOpen, false, NOW, 60_000);
    expect(reopened).toEqual({ breakerFailures: BREAKER_THRESHOLD + 1, breakerOpenUntil: NOW + 60_000 });
    expect(circuitOf(reopened, NOW)).toBe('open');
  });

  it('cools off a minute as deployed, scaled only where the environment says so', () => {
    expect(breakerCoolOffMs()).toBe(BREAKER_COOL_OFF_MS);
    expect(BREAKER_COOL_OFF_MS).toBe(60_000);
    process.env[environmentNames.webhookRetryScale] = '0.5';
    expect(breakerCoolOffMs()).toBe(30_000);
    process.env[environmentNames.webhookBreakerCoolOffMs] = '2000';
    expect(breakerCoolOffMs()).toBe(2_000);
  });

  it('shows in the endpoint as the API answers it: its state, its failures in a row, and until when it is open', () => {
    const record = {
      endpointId: 'we_5kQmT2vXb8NcL4pR7dWz0y',
      workspaceId: 'ws_1',
      url: 'https://erp.example.com/hooks',
      eventTypes: ['batch.drained'],
      enabled: true,
      secret: 'sealed',
      secretCreatedAt: new Date(NOW).toISOString(),
      createdAt: new Date(NOW).toISOString(),
      updatedAt: new Date(NOW).toISOString(),
    } satisfies WebhookEndpointRecord;
    expect(endpointView(record, NOW)).toMatchObject({ circuit: 'closed', consecutive_failures: 0, circuit_open_until: null });
    const open = { ...record, breakerFailures: 5, breakerOpenUntil: NOW + 60_000 };
    expect(endpointView(open, NOW)).toMatchObject({
      circuit: 'open',
      consecutive_failures: 5,
      circuit_open_until: new Date(NOW + 60_000).toISOString(),
    });
    expect(endpointView(open, NOW + 60_000)).toMatchObject({ circuit: 'half_open', circuit_open_until: null });
  });
});

describe('the redelivery rate limit', () => {
  it(`admits ${MAX_REDELIVERIES_PER_WINDOW} redeliveries in a minute and refuses the next, saying when one more fits`, () => {
    let askedAt: number[] = [];
    for (let index = 0; index < MAX_REDELIVERIES_PER_WINDOW; index++) {
      const outcome = admitRedelivery(askedAt, NOW + index * 1_000);
      expect(outcome.admitted).toBe(true);
      askedAt = outcome.kept;
    }
    const refused = admitRedelivery(askedAt, NOW + 30_000);
    expect(refused.admitted).toBe(false);
    expect(refused.kept).toEqual(askedAt);
    // The first of the window leaves it a minute after it was asked: 30 s from now.
    expect(refused.retryAfterSeconds).toBe(30);
  });

  it('forgets redeliveries older than the window', () => {
    const old = Array.from({ length: MAX_REDELIVERIES_PER_WINDOW }, () => NOW - REDELIVERY_WINDOW_MS);
    const outcome = admitRedelivery(old, NOW);
    expect(outcome).toMatchObject({ admitted: true, kept: [NOW] });
  });
});
