// The authentication matrix on the first endpoint, through the local gateway.
import { beforeAll, describe, expect, it } from 'vitest';
import { revokeApiKey } from '#shared/api-keys/repository.ts';
import { buildEvent } from '#lib/local/gateway.ts';
import { createLambdaContext } from '#lib/local/lambda-context.ts';
import { randomBase62 } from '#platform/ids.ts';
import { listenToRequestCosts } from '#platform/observability.ts';
import { updateWorkspace } from '#shared/workspaces/repository.ts';
import { call, newWorkspace, type TestWorkspace } from './support.ts';

function openBatch(headers: Record<string, string>) {
  return call('/api/v1/ingest/batches', { method: 'POST', headers });
}

describe('authentication and authorization on the first endpoint', () => {
  let workspace: TestWorkspace;
  beforeAll(async () => {
    workspace = await newWorkspace();
  });

  it.each([
    ['a missing Authorization header', {}],
    ['a scheme other than Bearer', { authorization: 'Basic dXNlcjpwYXNz' }],
    ['a key of no known family', { authorization: 'Bearer sk_live_0123456789abcdefghijklmnopqrstuvwxyz' }],
    ['a key too short to be one', { authorization: 'Bearer svc_live_short' }],
    ['a well-formed key that was never issued', { authorization: `Bearer svc_live_${randomBase62(40)}` }],
  ])('answers %s with 401 unauthorized', async (_case, headers) => {
    const response = await openBatch(headers);
    expect(response.status).toBe(401);
    expect(response.json.error.code).toBe('unauthorized');
  });

  it('answers a revoked key with 401 unauthorized', async () => {
    const fresh = await newWorkspace();
    await revokeApiKey(fresh.keyIds.connector);
    const response = await openBatch({ authorization: `Bearer ${fresh.keys.connector}` });
    expect(response.status).toBe(401);
    expect(response.json.error.message).toMatch(/revoked/);
  });

  it.each(['pwLive', 'pwTest'] as const)('answers an overview key (%s) on /api/v1 with 401, as a key of the wrong family', async (kind) => {
    const response = await openBatch({ authorization: `Bearer ${workspace.keys[kind]}` });
    expect(response.status).toBe(401);
    expect(response.json.error.code).toBe('unauthorized');
  });

  it.each(['erp', 'storefront'] as const)('answers a key without the connector scope (%s) with 403 forbidden', async (kind) => {
    const response = await openBatch({ authorization: `Bearer ${workspace.keys[kind]}` });
    expect(response.status).toBe(403);
    expect(response.json.error.code).toBe('forbidden');
  });

  it('answers a key of an inactive workspace with 402 subscription_inactive', async () => {
    const inactive = await newWorkspace();
    await updateWorkspace(inactive.workspaceId, { status: 'inactive' });
    const response = await openBatch({ authorization: `Bearer ${inactive.keys.connector}` });
    expect(response.status).toBe(402);
    expect(response.json.error.code).toBe('subscription_inactive');
  });

  it('checks the scope before the workspace status', async () => {
    const inactive = await newWorkspace();
    await updateWorkspace(inactive.workspaceId, { status: 'inactive' });
    const response = await openBatch({ authorization: `Bearer ${inactive.keys.erp}` });
    expect(response.status).toBe(403);
  });

  it('accepts the scheme name in any case', async () => {
    const response = await openBatch({ authorization: `bearer ${workspace.keys.connector}` });
    expect(response.status).toBe(201);
  });
});

describe('unknown keys', () => {
  it('are looked up once, not on every request that repeats one within a few seconds', async () => {
    // The handler runs in this process, so that its requests' costs can be heard.
    const { handler } = await import('../../functions/ingest/open-batch.ts');
    const authorization = `Bearer svc_live_${randomBase62(40)}`;
    const reads: number[] = [];
    const stop = listenToRequestCosts((cost) => reads.push(cost.ledger.readUnits));
    try {
      for (let attempt = 0; attempt < 5; attempt++) {
        const event = buildEvent(
          { method: 'POST', url: '/api/v1/ingest/batches', headers: { authorization }, body: Buffer.alloc(0), sourceIp: '127.0.0.1' },
          'POST /api/v1/ingest/batches',
          undefined,
        );
        const result = await handler(event, createLambdaContext({ name: 'openBatch', memoryMb: 256, timeoutSeconds: 10 }));
        expect(result.statusCode).toBe(401);
      }
    } finally {
      stop();
    }
    expect(reads).toEqual([0.5, 0, 0, 0, 0]);
  });
});
