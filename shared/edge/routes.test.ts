// Unit tests of the route table's own consistency: entries, surfaces, open routes, files, access patterns and queue timeouts.
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { queues, VISIBILITY_TO_TIMEOUT_RATIO, visibilityTimeoutSeconds } from '#platform/queues.ts';
import { consoleRoutes, fallbackRoute, type HttpRoute, routeKey, routes, workers } from './routes.ts';
import { accessPatterns } from '#platform/table/access-patterns.ts';
import { answerForMethod, methodsAt, servingRouteKey } from './routes/rows.ts';

const root = resolve(import.meta.dirname, '../..');

describe('the route table', () => {
  it('points every route, worker and the fallback at a handler module that exists', () => {
    for (const row of [...routes, ...workers, fallbackRoute]) expect(existsSync(resolve(root, row.entry)), row.entry).toBe(true);
  });

  it('gives every route a distinct id and route key', () => {
    expect(new Set(routes.map((route) => route.id)).size).toBe(routes.length);
    expect(new Set(routes.map(routeKey)).size).toBe(routes.length);
  });

  it('keeps /api/v1 routes for svc_live keys in the v1 envelope and /v1 routes for pw keys in the overview envelope', () => {
    for (const route of routes) {
      if (route.auth === 'none') continue;
      const v1 = route.path.startsWith('/api/v1/');
      expect(route.surface).toBe(v1 ? 'v1' : 'overview');
      expect(route.auth.family === 'svc_live').toBe(v1);
      if (v1) expect(route.auth.scopes.length).toBeGreaterThan(0);
    }
  });

  it('answers an open route in the envelope of the surface its path is under, as the fallback route does', () => {
    for (const route of routes.filter((candidate) => candidate.auth === 'none')) {
      expect(route.surface, route.id).toBe(route.path.startsWith('/v1/') ? 'overview' : 'v1');
    }
  });

  it('opens to every caller only the two OpenAPI documents and the reference page, each a GET that touches nothing', () => {
    const open = routes.filter((route) => route.auth === 'none');
    expect(open.map((route) => `${routeKey(route)} (${route.id})`).sort()).toEqual([
      'GET /api/v1/openapi.json (openapiV1)',
      'GET /docs (apiReference)',
      'GET /docs/{asset} (apiReferenceAsset)',
      'GET /v1/openapi.json (openapiOverview)',
    ]);
    for (const route of open) expect(route.access, route.id).toEqual({});
  });

  it('names only files that exist in the project, each read under a path inside the function package', () => {
    for (const route of routes) {
      const files: Readonly<Record<string, string>> = ('files' in route && route.files) || {};
      for (const [packagePath, projectPath] of Object.entries(files)) {
        expect(existsSync(resolve(root, projectPath)), projectPath).toBe(true);
        expect(packagePath, route.id).toMatch(/^[\w-]+(\/[\w.-]+)+$/);
        expect(packagePath, route.id).not.toMatch(/(^|\/)\.\.?(\/|$)|^index\.mjs$/);
      }
    }
  });

  it('writes down the DynamoDB access of every route and worker that touches the table', () => {
    for (const route of [...routes, ...workers].filter((candidate) => candidate.access.table)) {
      expect(
        accessPatterns.some((pattern) => pattern.usedBy.includes(route.id)),
        route.id,
      ).toBe(true);
    }
  });

  it('lets only keyed POST routes that write take an Idempotency-Key, and only routes that may read the data key store answers sealed', () => {
    for (const route of routes as readonly HttpRoute[]) {
      if (!route.idempotency) continue;
      expect(route.method, route.id).toBe('POST');
      expect(route.auth, route.id).not.toBe('none');
      expect(route.access.table, route.id).toBe('readWrite');
      if (route.idempotency === 'sealed') expect(route.access.webhookSecrets, route.id).toBe(true);
    }
  });

  it('keeps each queue visible for at least six times its consumer timeout', () => {
    for (const queue of Object.values(queues)) {
      expect(visibilityTimeoutSeconds(queue)).toBeGreaterThanOrEqual(VISIBILITY_TO_TIMEOUT_RATIO * queue.consumerTimeoutSeconds);
      expect(queue.maxReceiveCount).toBe(5);
    }
  });
});

describe('the console’s routes', () => {
  it('point at handler modules that exist, under /console, with ids and route keys no other route has', () => {
    for (const route of consoleRoutes) {
      expect(existsSync(resolve(root, route.entry)), route.entry).toBe(true);
      expect(route.path === '/console' || route.path.startsWith('/console/'), route.id).toBe(true);
    }
    const all = [...routes, ...consoleRoutes];
    expect(new Set(all.map((route) => route.id)).size).toBe(all.length);
    expect(new Set(all.map(routeKey)).size).toBe(all.length);
  });

  it('put a greedy parameter last, and list each route before any greedy route that would claim its paths', () => {
    consoleRoutes.forEach((route, index) => {
      expect(route.path.slice(0, -1).includes('+}'), route.id).toBe(false);
      const claimedBy = consoleRoutes.slice(0, index).find((earlier) => {
        const prefix = /^(.*)\/\{\w+\+\}$/.exec(earlier.path)?.[1];
        return earlier.method === route.method && prefix !== undefined && route.path.startsWith(`${prefix}/`);
      });
      expect(claimedBy?.id, route.id).toBeUndefined();
    });
  });

  it('let the routes open to every caller (the stylesheet, the sign-in form) touch nothing', () => {
    for (const route of consoleRoutes.filter((candidate) => candidate.auth === 'none' && candidate.method === 'GET')) {
      expect(route.access, route.id).toEqual({});
    }
  });
});

describe('the methods a path serves', () => {
  const all = [...routes, ...consoleRoutes];

  it('lists every method the table serves at a path, HEAD beside GET, whatever its parameters hold, and none at a path it does not serve', () => {
    expect(methodsAt(all, '/api/v1/ingest/batches')).toEqual(['GET', 'HEAD', 'POST']);
    expect(methodsAt(all, '/api/v1/ingest/batches/0f0e3c1a-4f7e-4c57-9d3e-2f9a3c1b7e55/cancel')).toEqual(['POST']);
    expect(methodsAt(all, '/v1/webhook-endpoints/we_x')).toEqual(['GET', 'HEAD', 'PATCH', 'DELETE']);
    expect(methodsAt(all, '/console/settings/a/b/c')).toEqual(['GET', 'HEAD', 'POST']);
    expect(methodsAt(all, '/api/v1/ingest/batches/x/y/cancel')).toEqual([]);
    expect(methodsAt(all, '/api/v1/nothing')).toEqual([]);
  });
});

describe('HEAD', () => {
  it('is served by the GET row: a HEAD route key is read as its GET, any other as it is', () => {
    expect(servingRouteKey('HEAD /v1/prices/{sku}')).toBe('GET /v1/prices/{sku}');
    expect(servingRouteKey('GET /docs')).toBe('GET /docs');
    expect(servingRouteKey('POST /v1/prices/approve')).toBe('POST /v1/prices/approve');
  });

  it('is answered with the GET’s status and headers and no body', () => {
    const answer = { statusCode: 200, headers: { 'x-request-id': 'r1' }, body: 'abc', isBase64Encoded: true };
    expect(answerForMethod('HEAD', answer)).toEqual({
      statusCode: 200,
      headers: { 'x-request-id': 'r1' },
      body: '',
      isBase64Encoded: false,
    });
    expect(answerForMethod('GET', answer)).toBe(answer);
  });
});
