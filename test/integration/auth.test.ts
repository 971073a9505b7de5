// The authentication matrix on the first endpoint, through the local gateway.
import { beforeAll, describe, expect, it } from 'vitest';
import { revokeApiKey } from '../../shared/api-keys/repository.ts';
import { randomBase62 } from '../../shared/ids.ts';
import { updateWorkspace } from '../../shared/workspaces/repository.ts';
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
