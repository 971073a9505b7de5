// Documented answers no other test asks for on every route: a workspace not active, a second's requests spent, a body over 10 MB.
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { tableName } from '#platform/config.ts';
import type { RouteAuth } from '#shared/api-keys/authenticate.ts';
import { type HttpRoute, routeKey, routes } from '#edge/routes.ts';
import { tableClient } from '#platform/table/client.ts';
import { keys } from '#platform/table/keys.ts';
import { MAX_RATE_SHARDS } from '#shared/workspaces/rate.ts';
import { updateWorkspace } from '#shared/workspaces/repository.ts';
import { CONTRACT_VIOLATION_HEADER } from '#lib/local/gateway.ts';
import { send } from './hostile-input-support.ts';
import { overTenMegabytes } from './hostile-input-values.ts';
import { call, failOnContractViolation, newWorkspace, type TestWorkspace } from './support.ts';

/** The open routes the documents describe; the reference pages under /docs are for people, outside the contract. */
const documentedOpenRoutes = (routes as readonly HttpRoute[]).filter((route) => route.auth === 'none' && !route.path.startsWith('/docs'));

interface KeyedRoute {
  readonly method: string;
  readonly path: string;
  readonly auth: RouteAuth;
}

/** Every route that takes a key; the open routes answer whoever asks. */
const keyed: ReadonlyArray<readonly [string, KeyedRoute]> = (routes as readonly HttpRoute[]).flatMap((route) =>
  route.auth === 'none' ? [] : [[routeKey(route), { method: route.method, path: route.path, auth: route.auth }] as const],
);

/** A key the route accepts: a connector's, an ERP's or the overview's. */
function keyFor(route: KeyedRoute, workspace: TestWorkspace): string {
  if (route.auth.family !== 'svc_live') return workspace.keys.pwLive;
  return route.auth.scopes.includes('connector') ? workspace.keys.connector : workspace.keys.erp;
}

/** Both answers come before the route reads its path or body, so any id in the path and no body will do. */
function callRoute(route: KeyedRoute, key: string) {
  return call(route.path.replace(/\{[^}]+\}/g, '00000000-0000-4000-8000-000000000000'), { method: route.method, key });
}

/**
 * Spends the workspace's current window on both surfaces: every shard of each rate holds a window that opens far in
 * the future and is full, which no clock reaches during the test.
 */
async function spendEveryWindow(workspaceId: string): Promise<void> {
  const farFuture = 4_102_444_800; // 2100-01-01, in seconds.
  for (const meter of ['api', 'overview'] as const) {
    for (let shard = 0; shard < MAX_RATE_SHARDS; shard++) {
      await tableClient().send(
        new PutCommand({
          TableName: tableName(),
          Item: { ...keys.rateShard(workspaceId, meter, shard), second: farFuture, count: Number.MAX_SAFE_INTEGER },
        }),
      );
    }
  }
}

describe('answers every keyed route documents', () => {
  it.each(keyed)('answers %s with 402 subscription_inactive for a key of an inactive workspace', async (_name, route) => {
    const workspace = await newWorkspace();
    await updateWorkspace(workspace.workspaceId, { status: 'inactive' });
    const response = await callRoute(route, keyFor(route, workspace));
    expect(response.status).toBe(402);
    expect(response.json.error.code).toBe('subscription_inactive');
  });

  it.each(keyed)(
    'answers %s with 429 rate_limited and Retry-After when the workspace has spent its requests for the second',
    async (_name, route) => {
      const workspace = await newWorkspace();
      await spendEveryWindow(workspace.workspaceId);
      const response = await callRoute(route, keyFor(route, workspace));
      expect(response.status).toBe(429);
      expect(response.json.error.code).toBe('rate_limited');
      expect(response.headers.get('retry-after')).toBe('1');
    },
  );

  // The hostile-input suite sends one to each keyed route and to a path no route serves outside /v1/.
  it.each([
    ...documentedOpenRoutes.map((route) => [routeKey(route), route.method, route.path] as const),
    ['a path under /v1/ that no route serves', 'POST', '/v1/nothing'] as const,
  ])('answers %s with API Gateway’s 413 when the body is over 10 MB', async (_name, method, path) => {
    // fetch sends no body with a GET; the raw socket sends what it is given.
    const response = await send(
      { endpoint: path, label: 'a body over 10 MB', method, target: path, authorization: null, body: overTenMegabytes() },
      { workspaceId: '', key: '' },
    );
    failOnContractViolation(response.headers[CONTRACT_VIOLATION_HEADER]);
    expect(response.status).toBe(413);
    expect(response.json).toEqual({ message: 'Request Entity Too Large' });
    // Every answer carries the request's id, the gateway's own 413 too.
    expect(response.headers['x-request-id']).toMatch(/.{8,}/);
  });
});
