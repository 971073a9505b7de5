// The local gateway: the payload 2.0 events it builds and how it answers as API Gateway does.
import { APIGatewayProxyEventV2Schema } from '@aws-lambda-powertools/parser/schemas/api-gatewayv2';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type Gateway, startGateway } from '../../lib/local/gateway.ts';
import { call } from './support.ts';

describe('the local gateway', () => {
  let gateway: Gateway;
  const seen: APIGatewayProxyEventV2[] = [];
  const echo = async (event: APIGatewayProxyEventV2) => {
    seen.push(event);
    return { statusCode: 200, headers: { 'content-type': 'application/json', 'X-Custom': 'yes' }, body: '{"ok":true}' };
  };
  const fn = { memoryMb: 128, timeoutSeconds: 1 };

  beforeAll(async () => {
    gateway = await startGateway({
      host: '127.0.0.1',
      port: 0,
      routes: [
        { method: 'POST', path: '/api/v1/ingest/batches/{batchId}/records', entry: 'echo', name: 'echo', ...fn },
        { method: 'GET', path: '/v1/prices/{sku}', entry: 'echo', name: 'echo', ...fn },
        { method: 'GET', path: '/slow', entry: 'slow', name: 'slow', ...fn },
        { method: 'GET', path: '/broken', entry: 'broken', name: 'broken', ...fn },
      ],
      fallback: { entry: 'echo', name: 'fallback', ...fn },
      load: async (entry) => {
        if (entry === 'slow') return () => new Promise((resolve) => setTimeout(resolve, 3_000));
        if (entry === 'broken') return () => Promise.reject(new Error('boom'));
        return echo;
      },
    });
  });
  afterAll(() => gateway.stop());

  function lastEvent(): APIGatewayProxyEventV2 {
    const event = seen.at(-1);
    if (!event) throw new Error('no event reached the handler');
    return event;
  }

  it('builds events that parse with the Powertools API Gateway v2 schema', async () => {
    await call('/api/v1/ingest/batches/0b6f1c8e-3a53-4d2e-9f55-0d6b0f1a2b3c/records?dryRun=1&tag=a&tag=b', {
      method: 'POST',
      baseUrl: gateway.url,
      body: { entity: 'product' },
      headers: { 'X-Mixed-Case': 'Value', cookie: 'a=1; b=2' },
    });
    await call('/v1/prices/SKU-1', { baseUrl: gateway.url });
    await call('/unknown/path', { method: 'PUT', baseUrl: gateway.url });
    for (const event of seen.slice(-3)) expect(() => APIGatewayProxyEventV2Schema.parse(event)).not.toThrow();
  });

  it('fills route key, raw path and query, path parameters, lowercased headers, cookies and the body', async () => {
    await call('/api/v1/ingest/batches/0b6f1c8e-3a53-4d2e-9f55-0d6b0f1a2b3c/records?dryRun=1&tag=a&tag=b', {
      method: 'POST',
      baseUrl: gateway.url,
      body: { entity: 'product' },
      headers: { 'X-Mixed-Case': 'Value', cookie: 'a=1; b=2' },
    });
    const event = lastEvent();
    expect(event).toMatchObject({
      version: '2.0',
      routeKey: 'POST /api/v1/ingest/batches/{batchId}/records',
      rawPath: '/api/v1/ingest/batches/0b6f1c8e-3a53-4d2e-9f55-0d6b0f1a2b3c/records',
      rawQueryString: 'dryRun=1&tag=a&tag=b',
      queryStringParameters: { dryRun: '1', tag: 'a,b' },
      pathParameters: { batchId: '0b6f1c8e-3a53-4d2e-9f55-0d6b0f1a2b3c' },
      cookies: ['a=1', 'b=2'],
      body: '{"entity":"product"}',
      isBase64Encoded: false,
      requestContext: { routeKey: 'POST /api/v1/ingest/batches/{batchId}/records', stage: '$default', http: { method: 'POST' } },
    });
    expect(event.headers['x-mixed-case']).toBe('Value');
    expect(event.requestContext.requestId).toMatch(/^[A-Za-z0-9+/]{14}[A-Za-z0-9+/=]{2}$/);
  });

  it('sends what no route claims to the $default route', async () => {
    await call('/api/v2/anything', { method: 'DELETE', baseUrl: gateway.url });
    expect(lastEvent()).toMatchObject({ routeKey: '$default', rawPath: '/api/v2/anything' });
    expect(lastEvent().pathParameters).toBeUndefined();
  });

  it('base64-encodes a binary body', async () => {
    await call('/v1/prices/SKU-1', { method: 'GET', baseUrl: gateway.url });
    const bytes = Buffer.from([0, 255, 1, 254]);
    await fetch(`${gateway.url}/unknown`, { method: 'POST', body: bytes, headers: { 'content-type': 'application/octet-stream' } });
    expect(lastEvent()).toMatchObject({ isBase64Encoded: true, body: bytes.toString('base64') });
  });

  it("returns the handler's status, headers and body", async () => {
    const response = await call('/v1/prices/SKU-9', { baseUrl: gateway.url });
    expect(response.status).toBe(200);
    expect(response.headers.get('x-custom')).toBe('yes');
    expect(response.json).toEqual({ ok: true });
  });

  it('answers a function that outlives its timeout as API Gateway does, with 503', async () => {
    const response = await call('/slow', { baseUrl: gateway.url });
    expect(response.status).toBe(503);
    expect(response.json).toEqual({ message: 'Service Unavailable' });
  });

  it('answers a function that throws with 500 and none of its error', async () => {
    const logged = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const response = await call('/broken', { baseUrl: gateway.url });
    expect(logged).toHaveBeenCalled();
    logged.mockRestore();
    expect(response.status).toBe(500);
    expect(response.text).not.toContain('boom');
  });
});
