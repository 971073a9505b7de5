// The contract checks themselves: what they call a violation, and how one reaches the test whose request caused it.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Gateway, type GatewayExchange, startGateway } from '#lib/local/gateway.ts';
import { Contract } from './contract.ts';
import { call } from './support.ts';

const requestId = { required: true, schema: { type: 'string', minLength: 8 } };

/** A document of one operation, enough to see each kind of violation. */
const document = {
  openapi: '3.1.0',
  info: { title: 'fixture', version: '1' },
  paths: {
    '/api/v1/things/{id}': {
      get: {
        responses: {
          '200': {
            description: 'The thing.',
            headers: { 'x-request-id': requestId },
            content: {
              'application/json': {
                schema: { type: 'object', required: ['id'], properties: { id: { type: 'string' } }, additionalProperties: false },
              },
            },
          },
          '429': {
            description: 'Throttled.',
            headers: { 'x-request-id': requestId, 'Retry-After': { required: true, schema: { type: 'integer', minimum: 1 } } },
            content: { 'application/json': { schema: { type: 'object' } } },
          },
        },
      },
    },
  },
};

describe('the contract checks', () => {
  let root: string;
  let contract: Contract;
  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), 'pricing-contract-'));
    mkdirSync(join(root, 'openapi'));
    writeFileSync(join(root, 'openapi', 'api-v1.json'), JSON.stringify(document));
    contract = new Contract(root);
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  function answer(overrides: Partial<GatewayExchange> & { json?: unknown }): { violation: string } | undefined {
    const { json, ...rest } = overrides;
    return contract.check({
      method: 'GET',
      path: '/api/v1/things/a1',
      routeKey: 'GET /api/v1/things/{id}',
      status: 200,
      headers: { 'content-type': 'application/json', 'x-request-id': 'abcdefghijk' },
      body: Buffer.from(JSON.stringify(json ?? { id: 'a1' })),
      ...rest,
    });
  }

  it('passes an answer of a documented status, with its headers, whose body matches the schema', () => {
    expect(answer({})).toBeUndefined();
  });

  it('names an undocumented status, and the statuses the operation documents', () => {
    expect(answer({ status: 404 })?.violation).toMatch(/status 404 is not documented \(documented: 200, 429\)/);
  });

  it('names where a body departs from its schema', () => {
    expect(answer({ json: { id: 7, extra: true } })?.violation).toMatch(
      /must NOT have additional properties \(extra\).*\/id must be string/,
    );
  });

  it('names a missing required header, and reads a documented integer header as a number', () => {
    const headers = { 'content-type': 'application/json', 'retry-after': '0' };
    expect(answer({ status: 429, headers, json: {} })?.violation).toMatch(/x-request-id is missing; header Retry-After: "0" must be >= 1/);
    expect(answer({ status: 429, headers: { ...headers, 'x-request-id': 'abcdefghijk', 'retry-after': '3' }, json: {} })).toBeUndefined();
  });

  it('names a route that the document does not have, and an undocumented content type', () => {
    expect(answer({ routeKey: 'GET /api/v1/other' })?.violation).toMatch(/route GET \/api\/v1\/other is not an operation/);
    expect(answer({ headers: { 'content-type': 'text/html', 'x-request-id': 'abcdefghijk' } })?.violation).toMatch(
      /"text\/html" is not documented/,
    );
  });

  it('leaves the documentation pages unchecked', () => {
    expect(answer({ path: '/docs/app.js', routeKey: 'GET /docs/{asset}', status: 200 })).toBeUndefined();
  });

  it('fails a full run for a documented status no test reached, but not a partial one', () => {
    const fresh = new Contract(root);
    fresh.check({
      method: 'GET',
      path: '/api/v1/things/a1',
      routeKey: 'GET /api/v1/things/{id}',
      status: 200,
      headers: { 'content-type': 'application/json', 'x-request-id': 'abcdefghijk' },
      body: Buffer.from('{"id":"a1"}'),
    });
    const gap = 'coverage: api-v1 GET /api/v1/things/{id} 429: documented, never answered';
    expect(fresh.report({ enforceCoverage: true }).failures).toContain(gap);
    expect(fresh.report({ enforceCoverage: false }).failures).not.toContain(gap);
  });
});

describe('a violation found by the gateway hook', () => {
  let gateway: Gateway;
  beforeAll(async () => {
    gateway = await startGateway({
      host: '127.0.0.1',
      port: 0,
      routes: [{ method: 'GET', path: '/judged', entry: 'judged', name: 'judged', memoryMb: 128, timeoutSeconds: 3 }],
      fallback: { entry: 'judged', name: 'fallback', memoryMb: 128, timeoutSeconds: 3 },
      load: async () => async () => ({ statusCode: 418, body: '{}' }),
      onExchange: (exchange) => (exchange.status === 418 ? { violation: `status ${exchange.status} is not documented` } : undefined),
    });
  });
  afterAll(() => gateway.stop());

  it('fails the call of the test whose request it was, with the reason', async () => {
    await expect(call('/judged', { baseUrl: gateway.url })).rejects.toThrow(/breaks the OpenAPI contract: status 418 is not documented/);
  });
});
