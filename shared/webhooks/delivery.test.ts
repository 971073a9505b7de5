// Unit tests of webhook delivery's pure parts: the written retry schedule, the Standard Webhooks headers, and the event catalogue's checks.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { afterEach, describe, expect, it } from 'vitest';
import { environmentNames } from '#platform/config.ts';
import { DELIVERY_TIMEOUT_MS, deliveryTimeoutMs, postToTarget, signedHeaders } from './transport.ts';
import { RETRY_SCHEDULE_MS, retrySchedule } from './retry-schedule.ts';
import { eventTypes, newEvent } from './events.ts';

const HOUR = 3_600_000;
const secret = (seed: string) => `whsec_${Buffer.from(seed.padEnd(32, '.')).toString('base64')}`;

afterEach(() => {
  delete process.env[environmentNames.webhookRetryScale];
  delete process.env[environmentNames.webhookTimeoutMs];
});

describe('the retry schedule', () => {
  it('makes twelve attempts over about three days, never waiting longer between two than SQS chains can reach in 12 h', () => {
    expect(RETRY_SCHEDULE_MS).toHaveLength(11);
    const total = RETRY_SCHEDULE_MS.reduce((sum, wait) => sum + wait, 0);
    expect(total).toBeGreaterThan(66 * HOUR);
    expect(total).toBeLessThan(78 * HOUR);
    expect(Math.max(...RETRY_SCHEDULE_MS)).toBeLessThanOrEqual(12 * HOUR);
    expect([...RETRY_SCHEDULE_MS].sort((a, b) => a - b)).toEqual(RETRY_SCHEDULE_MS);
  });

  it('is scaled down for local tests only when the environment says so, and times receivers out at 5 s by default', () => {
    expect(retrySchedule()).toEqual(RETRY_SCHEDULE_MS);
    expect(deliveryTimeoutMs()).toBe(DELIVERY_TIMEOUT_MS);
    expect(DELIVERY_TIMEOUT_MS).toBe(5_000);
    process.env[environmentNames.webhookRetryScale] = '0.001';
    process.env[environmentNames.webhookTimeoutMs] = '250';
    expect(retrySchedule()[0]).toBe(5);
    expect(deliveryTimeoutMs()).toBe(250);
    process.env[environmentNames.webhookRetryScale] = 'nonsense';
    expect(retrySchedule()).toEqual(RETRY_SCHEDULE_MS);
  });
});

describe('the signed headers', () => {
  const event = newEvent(
    'batch.committed',
    'ws_1',
    { batchId: crypto.randomUUID(), connectorId: 'con_1', jobId: 'job_1', recordCount: 1, committedAt: new Date().toISOString() },
    new Date(),
  );
  const body = JSON.stringify(event);

  it('carry the event id as webhook-id and verify with the standardwebhooks package', () => {
    const headers = signedHeaders(event, body, [secret('current')], new Date());
    expect(headers['webhook-id']).toBe(event.id);
    expect(new Webhook(secret('current')).verify(body, headers)).toEqual(event);
    expect(() => new Webhook(secret('other')).verify(body, headers)).toThrow();
  });

  it('carry one signature per live secret after a rotation, and verify with either', () => {
    const headers = signedHeaders(event, body, [secret('new'), secret('old')], new Date());
    expect(String(headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect(new Webhook(secret('new')).verify(body, headers)).toEqual(event);
    expect(new Webhook(secret('old')).verify(body, headers)).toEqual(event);
  });

  it('do not verify a body changed after signing', () => {
    const headers = signedHeaders(event, body, [secret('current')], new Date());
    expect(() => new Webhook(secret('current')).verify(body.replace('"recordCount":1', '"recordCount":2'), headers)).toThrow();
  });
});

describe('a post', () => {
  const servers: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const close of servers.splice(0)) await close();
  });

  type Respond = (status: number, text: string, ends?: boolean) => void;
  async function receiver(answer: (respond: Respond) => void): Promise<string> {
    const server = createServer((request, response) => {
      request.resume();
      answer((status, text, ends = true) => {
        response.writeHead(status).write(text);
        if (ends) response.end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    servers.push(async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    });
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
  }

  const target = (url: string) => ({
    url,
    hostname: '127.0.0.1',
    address: '127.0.0.1',
    family: 4 as const,
    port: Number(new URL(url).port),
  });

  it('keeps the first 1 KB of the answer with its status', async () => {
    const url = await receiver((respond) => respond(503, 'x'.repeat(5_000)));
    const outcome = await postToTarget(target(url), {}, '{}', 2_000);
    expect(outcome.status).toBe(503);
    expect(outcome.response).toHaveLength(1_024);
  });

  it('counts a 2xx whose body never ends as answered, keeping what of the body came', async () => {
    const url = await receiver((respond) => respond(200, 'accepted', false));
    // The deadline is far beyond the body's grace: the outcome comes from the status line, not from the deadline.
    const outcome = await postToTarget(target(url), {}, '{}', 60_000);
    expect(outcome).toMatchObject({ status: 200, response: 'accepted' });
    expect(outcome.error).toBeUndefined();
  });

  it('gives up on a receiver that does not answer in time, with no status', async () => {
    const url = await receiver(() => undefined);
    const outcome = await postToTarget(target(url), {}, '{}', 200);
    expect(outcome.status).toBeUndefined();
    expect(outcome.error).toBe('no answer within 200 ms');
  });
});

describe('the event catalogue', () => {
  it('refuses to record an event whose data the catalogue does not describe', () => {
    expect(() => newEvent('batch.drained', 'ws_1', { batchId: 'not a uuid' } as never, new Date())).toThrow();
    expect(eventTypes).toContain('writeback.pending');
  });
});
