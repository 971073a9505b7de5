// Request ids, the error envelope, faults, and the cost line and metrics that end each request.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type Gateway, startGateway } from '#lib/local/gateway.ts';
import { loadHandler } from '#lib/local/handlers.ts';
import { openEndpoint } from '#edge/http/endpoint.ts';
import { logger } from '#platform/observability.ts';
import { fallbackRoute, routeById } from '#edge/routes.ts';
import { call, newWorkspace, type TestWorkspace } from './support.ts';

describe('the error envelope and request ids', () => {
  let workspace: TestWorkspace;
  beforeAll(async () => {
    workspace = await newWorkspace();
  });

  it('puts x-request-id on a success', async () => {
    const response = await call('/api/v1/ingest/batches', { method: 'POST', key: workspace.keys.connector });
    expect(response.status).toBe(201);
    expect(response.headers.get('x-request-id')).toMatch(/.{8,}/);
  });

  it('puts the same request id in the header and the body of an error', async () => {
    const response = await call('/api/v1/ingest/batches', { method: 'POST' });
    expect(Object.keys(response.json)).toEqual(['error']);
    expect(response.json.error).toEqual({
      code: 'unauthorized',
      message: expect.any(String),
      requestId: response.headers.get('x-request-id'),
    });
  });

  it.each([
    ['GET', '/api/v1/nothing-here'],
    ['GET', '/api/v1/ingest/batches/extra/path/here'],
    ['DELETE', '/api/v1/ingest'],
    ['POST', '/'],
  ])('answers %s %s, which no route serves, with 404 invalid_request', async (method, path) => {
    const response = await call(path, { method, key: workspace.keys.connector });
    expect(response.status).toBe(404);
    expect(response.json.error).toMatchObject({ code: 'invalid_request', requestId: response.headers.get('x-request-id') });
  });

  it.each([
    ['GET', '/v1/prices'],
    ['DELETE', '/v1/prices/BOLT/history'],
    ['GET', '/v1/prices/approve/now'],
  ])('answers %s %s, under the overview but served by no route, with 404 not_found in the overview envelope', async (method, path) => {
    const response = await call(path, { method, key: workspace.keys.pwLive });
    expect(response.status).toBe(404);
    expect(response.json).toEqual({
      error: { code: 'not_found', message: expect.any(String), request_id: response.headers.get('x-request-id') },
    });
  });
});

describe('a method a served path does not take', () => {
  it.each([
    ['DELETE', '/api/v1/ingest/batches', 'GET, HEAD, POST'],
    ['GET', '/api/v1/prices', 'POST'],
  ])('answers %s %s with 405 invalid_request and Allow: %s', async (method, path, allow) => {
    const response = await call(path, { method });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe(allow);
    expect(response.json.error).toMatchObject({ code: 'invalid_request', requestId: response.headers.get('x-request-id') });
  });

  it('answers DELETE /v1/prices/BOLT with 405 bad_request in the overview envelope and Allow: GET, HEAD', async () => {
    const response = await call('/v1/prices/BOLT', { method: 'DELETE' });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('GET, HEAD');
    expect(response.json).toEqual({
      error: { code: 'bad_request', message: expect.any(String), request_id: response.headers.get('x-request-id') },
    });
  });
});

describe('HEAD', () => {
  let workspace: TestWorkspace;
  beforeAll(async () => {
    workspace = await newWorkspace();
  });

  it.each([
    ['the open documents', '/api/v1/openapi.json', undefined],
    ['the reference page', '/docs', undefined],
    ['the console’s sign-in page', '/console/sign-in', undefined],
    ['a keyed route of /api/v1', '/api/v1/ingest/batches?limit=1', 'connector'],
    ['a keyed route of /v1', '/v1/usage', 'pwLive'],
  ] as const)('answers wherever GET does, on %s: the GET’s status and headers, no body', async (_name, path, key) => {
    const options = key ? { key: workspace.keys[key] } : {};
    const get = await call(path, options);
    const head = await call(path, { ...options, method: 'HEAD' });
    expect(get.status).toBe(200);
    expect(head.status).toBe(200);
    expect(head.text).toBe('');
    expect(head.headers.get('content-type')).toBe(get.headers.get('content-type'));
    expect(head.headers.get('x-request-id')).toMatch(/.{8,}/);
  });

  it('is refused as GET is: 401 without a key, in the envelope’s status and with x-request-id', async () => {
    const head = await call('/v1/usage', { method: 'HEAD' });
    expect(head.status).toBe(401);
    expect(head.text).toBe('');
    expect(head.headers.get('x-request-id')).toMatch(/.{8,}/);
  });

  it('is 405 with Allow where the path serves no GET', async () => {
    const head = await call('/api/v1/prices', { method: 'HEAD' });
    expect(head.status).toBe(405);
    expect(head.headers.get('allow')).toBe('POST');
  });
});

describe('faults and the cost of each request', () => {
  let gateway: Gateway;
  const faulty = openEndpoint('faulty', async () => {
    throw new Error('connection to 10.0.0.7 refused: table pricing-secret');
  });

  beforeAll(async () => {
    const openBatch = routeById('openBatch');
    // Handlers in this process, so that their log lines can be read.
    gateway = await startGateway({
      host: '127.0.0.1',
      port: 0,
      routes: [
        { ...openBatch, name: openBatch.id },
        { method: 'GET', path: '/faulty', entry: 'faulty', name: 'faulty', memoryMb: 128, timeoutSeconds: 3 },
      ],
      fallback: { ...fallbackRoute, name: fallbackRoute.id },
      load: (entry) => (entry === 'faulty' ? Promise.resolve(faulty) : loadHandler(entry)),
    });
  });
  afterAll(() => gateway.stop());

  function captureStdout() {
    const lines: string[] = [];
    const spy = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
      lines.push(...String(chunk).split('\n').filter(Boolean));
      return true;
    });
    return { lines, restore: () => spy.mockRestore() };
  }

  it('answers an unexpected fault with 500 internal_error that reveals nothing of it', async () => {
    const errors = vi.spyOn(logger, 'error').mockImplementation(() => undefined);
    const response = await call('/faulty', { baseUrl: gateway.url });
    errors.mockRestore();
    expect(response.status).toBe(500);
    expect(response.json.error.code).toBe('internal_error');
    expect(response.text).not.toMatch(/10\.0\.0\.7|pricing-secret|refused|Error/);
  });

  it('ends each request with one log line of its route, workspace, key id, capacity units and duration, and never logs the key', async () => {
    const workspace = await newWorkspace();
    logger.setLogLevel('INFO');
    const output = captureStdout();
    try {
      const response = await call('/api/v1/ingest/batches', { method: 'POST', key: workspace.keys.connector, baseUrl: gateway.url });
      expect(response.status).toBe(201);
    } finally {
      output.restore();
      logger.setLogLevel('WARN');
    }
    const records = output.lines.map((line) => JSON.parse(line));
    const completed = records.filter((record) => record.message === 'request completed');
    expect(completed).toHaveLength(1);
    // 1 for the batch and 1 for its entry in the console's listing index; 2 for the rate window, whose first request
    // in a second is refused by the counter's condition and then starts the window; 1 for the key's first use.
    expect(completed[0]).toMatchObject({
      route: 'openBatch',
      workspaceId: workspace.workspaceId,
      keyId: workspace.keyIds.connector,
      status: 201,
      writeUnits: 5,
    });
    expect(completed[0].readUnits).toBeGreaterThanOrEqual(0);
    expect(completed[0].durationMs).toBeGreaterThan(0);
    expect(output.lines.join('\n')).not.toContain(workspace.keys.connector);
    expect(output.lines.join('\n').toLowerCase()).not.toContain('bearer');
  });

  it('emits ReadRequestUnits, WriteRequestUnits and OverLatencyBudget as EMF metrics per route', async () => {
    const workspace = await newWorkspace();
    process.env.POWERTOOLS_METRICS_DISABLED = 'false';
    const output = captureStdout();
    try {
      await call('/api/v1/ingest/batches', { method: 'POST', key: workspace.keys.connector, baseUrl: gateway.url });
    } finally {
      output.restore();
      process.env.POWERTOOLS_METRICS_DISABLED = 'true';
    }
    const emf = output.lines.map((line) => JSON.parse(line)).find((record) => record._aws?.CloudWatchMetrics);
    expect(emf).toBeDefined();
    const [directive] = emf._aws.CloudWatchMetrics;
    expect(directive.Dimensions).toEqual([expect.arrayContaining(['route'])]);
    expect(directive.Metrics.map((metric: { Name: string }) => metric.Name).sort()).toEqual([
      'OverLatencyBudget',
      'ReadRequestUnits',
      'WriteRequestUnits',
    ]);
    // As the log line above: a key never used before, so its first use is written too.
    expect(emf).toMatchObject({ route: 'openBatch', WriteRequestUnits: 5 });
    // Whichever side of the budget a busy machine put it, the request counted 0 or 1 against it.
    expect([0, 1]).toContain(emf.OverLatencyBudget);
  });
});
