// The local gateway: the payload 2.0 events it builds and how it answers as API Gateway does.
import { request } from 'node:http';
import { APIGatewayProxyEventV2Schema } from '@aws-lambda-powertools/parser/schemas/api-gatewayv2';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type Gateway, startGateway } from '#lib/local/gateway.ts';
import { call, newWorkspace } from './support.ts';

/** fetch drops a header named `__proto__`; node:http sends any header it is given. */
function getWithHeaders(url: string, headers: ReadonlyArray<readonly [string, string]>): Promise<number | undefined> {
  return new Promise((resolve, reject) => {
    const req = request(url, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode));
    });
    for (const [name, value] of headers) req.setHeader(name, value);
    req.on('error', reject);
    req.end();
  });
}

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
        { method: 'GET', path: '/console/{path+}', entry: 'echo', name: 'echo', ...fn },
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

  it('gives a greedy parameter the rest of the path, slashes and all, as API Gateway does', async () => {
    await fetch(`${gateway.url}/console/settings/api-keys`);
    expect(lastEvent()).toMatchObject({ routeKey: 'GET /console/{path+}', pathParameters: { path: 'settings/api-keys' } });
    await fetch(`${gateway.url}/console`);
    expect(lastEvent().routeKey).toBe('$default');
  });

  it('sends what no route claims to the $default route', async () => {
    await call('/api/v2/anything', { method: 'DELETE', baseUrl: gateway.url });
    expect(lastEvent()).toMatchObject({ routeKey: '$default', rawPath: '/api/v2/anything' });
    expect(lastEvent().pathParameters).toBeUndefined();
  });

  it('takes a path that starts with // as a path, not a host', async () => {
    await call('//evil.example/api/v1/ingest/batches?x=1', { method: 'POST', baseUrl: gateway.url });
    expect(lastEvent()).toMatchObject({ routeKey: '$default', rawPath: '//evil.example/api/v1/ingest/batches', rawQueryString: 'x=1' });
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

  it('routes a path with a malformed percent-escape and hands the segment on as it came', async () => {
    const response = await call('/v1/prices/%E0%A4%A', { baseUrl: gateway.url });
    expect(response.status).toBe(200);
    expect(lastEvent()).toMatchObject({ routeKey: 'GET /v1/prices/{sku}', pathParameters: { sku: '%E0%A4%A' } });
    await call('/v1/prices/caf%C3%A9', { baseUrl: gateway.url });
    expect(lastEvent().pathParameters).toEqual({ sku: 'café' });
  });

  it('delivers query parameters and headers named __proto__, constructor or hasOwnProperty as own keys, as JSON would', async () => {
    const status = await getWithHeaders(`${gateway.url}/v1/prices/SKU-1?__proto__=x&constructor=y&hasOwnProperty=z&constructor=w`, [
      ['__proto__', 'h1'],
      ['constructor', 'h2'],
      ['toString', 'h3'],
    ]);
    expect(status).toBe(200);
    const { queryStringParameters: query, headers } = lastEvent();
    expect(Object.entries(query ?? {})).toEqual([
      ['__proto__', 'x'],
      ['constructor', 'y,w'],
      ['hasOwnProperty', 'z'],
    ]);
    expect(Object.getPrototypeOf(query)).toBe(Object.prototype);
    expect(Object.hasOwn(headers, '__proto__') && headers.__proto__).toBe('h1');
    expect(Object.hasOwn(headers, 'constructor') && headers.constructor).toBe('h2');
    expect(Object.hasOwn(headers, 'tostring') && headers.tostring).toBe('h3');
    // What the handler gets is what API Gateway's JSON would parse to.
    expect(JSON.parse(JSON.stringify(lastEvent()))).toEqual(lastEvent());
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

describe("the local gateway in front of the service's handlers", () => {
  it('answers a malformed percent-escape in a path with a 4xx in the envelope of each surface, with a request id', async () => {
    const workspace = await newWorkspace();

    // The segment as it came is a SKU like any other, and no product has it.
    const overview = await call('/v1/prices/%E0%A4%A', { key: workspace.keys.pwLive });
    expect(overview.status).toBe(404);
    expect(overview.json).toEqual({
      error: { code: 'not_found', message: expect.stringContaining('%E0%A4%A'), request_id: overview.headers.get('x-request-id') },
    });
    expect(overview.json.error.request_id).toEqual(expect.any(String));

    const v1 = await call('/api/v1/ingest/batches/%E0%A4%A', { key: workspace.keys.connector });
    expect(v1.status).toBe(422);
    expect(v1.json).toEqual({
      error: { code: 'invalid_request', message: expect.any(String), param: 'batchId', requestId: v1.headers.get('x-request-id') },
    });
    expect(v1.json.error.requestId).toEqual(expect.any(String));
  });

  it('refuses ?__proto__=x and ?constructor=x on GET /v1/prices/{sku} with 400 bad_request, as any unknown query parameter', async () => {
    const workspace = await newWorkspace();
    for (const name of ['__proto__', 'constructor', 'hasOwnProperty']) {
      const response = await call(`/v1/prices/SKU-1?${name}=x`, { key: workspace.keys.pwLive });
      expect(response.status, name).toBe(400);
      expect(response.json.error).toMatchObject({ code: 'bad_request', request_id: response.headers.get('x-request-id') });
    }
  });

  it('answers a path that starts with // with 404 in the v1 envelope, as no route claims it', async () => {
    const workspace = await newWorkspace();
    const response = await call('//evil.example/api/v1/ingest/batches', { method: 'POST', key: workspace.keys.connector });
    expect(response.status).toBe(404);
    expect(response.json.error).toMatchObject({ code: 'invalid_request', requestId: response.headers.get('x-request-id') });
    expect(response.json.error.message).toContain('//evil.example/api/v1/ingest/batches');
  });
});
