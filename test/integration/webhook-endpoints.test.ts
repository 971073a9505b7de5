// Webhook endpoints through the gateway: registering, listing, changing, rotating and deleting them, and what is refused.
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildEvent } from '#lib/local/gateway.ts';
import { createLambdaContext } from '#lib/local/lambda-context.ts';
import { captureLogs } from '#test/support/log-lines.ts';
import { MAX_ENDPOINTS_PER_WORKSPACE } from '#shared/webhooks/endpoint-schema.ts';
import {
  createEndpoint,
  FAILING_DISABLES_AFTER_MS,
  getEndpoint,
  markEndpointFailure,
  markEndpointSuccess,
} from '#shared/webhooks/endpoints.ts';
import { PREVIOUS_SECRET_ACCEPTED_MS, signingSecrets } from '#shared/webhooks/secrets.ts';
import { allowLoopbackEnvironmentName } from '#shared/webhooks/url-guard.ts';
import { workspaceItems } from './hostile-input-support.ts';
import { updateWorkspace } from '#shared/workspaces/repository.ts';
import { type ApiResponse, call, newWorkspace, type TestWorkspace } from './support.ts';

const ENDPOINTS = '/v1/webhook-endpoints';
/** A loopback receiver URL, which the integration stack's local-mode switch allows; nothing needs to listen there. */
const receiver = (path = 'hooks') => `http://127.0.0.1:9/${path}`;
const UNKNOWN = 'we_0000000000000000000000';

async function stored(workspaceId: string, endpointId: string) {
  const endpoint = await getEndpoint(workspaceId, endpointId);
  if (!endpoint) throw new Error(`endpoint ${endpointId} is not stored`);
  return endpoint;
}

function create(workspace: TestWorkspace, body: unknown, key = workspace.keys.pwLive): Promise<ApiResponse> {
  return call(ENDPOINTS, { method: 'POST', key, body });
}

async function created(workspace: TestWorkspace, body: Record<string, unknown> = {}): Promise<{ id: string; secret: string }> {
  const response = await create(workspace, { url: receiver(), event_types: ['price.approved'], ...body });
  expect(response.status, response.text).toBe(201);
  return response.json;
}

function expectBadRequest(response: ApiResponse, mentions: string | RegExp): void {
  expect(response.status, response.text).toBe(400);
  expect(response.json.error.code).toBe('bad_request');
  expect(response.json.error.message).toMatch(mentions);
}

describe('registering a webhook endpoint', () => {
  let workspace: TestWorkspace;
  beforeAll(async () => {
    workspace = await newWorkspace('Webhook Seller');
  });

  it('answers 201 with the endpoint and its whsec_ secret, which no later read shows again', async () => {
    const response = await create(workspace, {
      url: receiver('in'),
      event_types: ['batch.drained', 'price.approved', 'writeback.pending'],
      description: 'ERP receiver',
    });
    expect(response.status, response.text).toBe(201);
    const body = response.json;
    expect(body).toMatchObject({
      url: receiver('in'),
      event_types: ['batch.drained', 'price.approved', 'writeback.pending'],
      description: 'ERP receiver',
      enabled: true,
      status: 'healthy',
      failing_since: null,
      previous_secret_expires_at: null,
    });
    expect(body.id).toMatch(/^we_/);
    expect(body.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);

    const read = await call(`${ENDPOINTS}/${body.id}`, { key: workspace.keys.pwLive });
    expect(read.status).toBe(200);
    const { secret: _secret, ...view } = body;
    expect(read.json).toEqual(view);
    const listed = await call(ENDPOINTS, { key: workspace.keys.pwLive });
    expect(listed.status).toBe(200);
    expect(listed.json.data).toContainEqual(view);
    for (const text of [read.text, listed.text]) expect(text).not.toContain(body.secret);

    // Stored sealed: nothing in the table holds the plaintext.
    const items = await workspaceItems(workspace.workspaceId);
    expect(JSON.stringify([...items.values()])).not.toContain(body.secret.slice('whsec_'.length));
    expect(await signingSecrets(await stored(workspace.workspaceId, body.id), Date.now())).toEqual([body.secret]);
  });

  it('may create an endpoint switched off', async () => {
    const body = await created(workspace, { enabled: false });
    expect(body).toMatchObject({ enabled: false, status: 'disabled' });
  });

  it.each([
    ['plain http to a public name', 'http://hooks.example.com/in', /https:\/\//],
    ['https to loopback', 'https://127.0.0.1/in', /loopback/],
    ['loopback spelled as a decimal number', 'https://2130706433/in', /loopback/],
    ['loopback in hex', 'https://0x7f.0.0.1/in', /loopback/],
    ['localhost over https', 'https://localhost/in', /loopback/],
    ['the cloud metadata address', 'https://169.254.169.254/latest/meta-data/', /link-local/],
    ['the EC2 IPv6 metadata address', 'https://[fd00:ec2::254]/', /unique-local/],
    ['IPv6 loopback', 'https://[::1]/in', /loopback/],
    ['IPv4-mapped loopback', 'https://[::ffff:127.0.0.1]/in', /loopback/],
    ['a private address', 'https://10.0.0.8/in', /private/],
    ['a carrier-grade NAT address', 'https://100.64.1.1/in', /carrier-grade/],
    ['http to a private address, which the local switch does not allow', 'http://192.168.1.1/in', /https:\/\//],
    ['credentials in the URL', 'https://user:pass@hooks.example.com/in', /user name/],
    ['a name that does not resolve', 'https://nowhere.invalid/in', /resolve/],
    ['a URL over 2,048 characters', `https://hooks.example.com/${'a'.repeat(2_050)}`, /url/],
  ])('refuses %s with 400, naming the url, and changes nothing', async (_label, url, reason) => {
    const before = await workspaceItems(workspace.workspaceId);
    const response = await create(workspace, { url, event_types: ['price.approved'] });
    expectBadRequest(response, reason);
    expect(response.json.error.message).toMatch(/url/);
    expect(await workspaceItems(workspace.workspaceId)).toEqual(before);
  });

  it.each([
    ['no event types', { url: receiver(), event_types: [] }, /event_types/],
    ['the wildcard', { url: receiver(), event_types: ['*'] }, /event_types\[0\]/],
    ['an unknown event type', { url: receiver(), event_types: ['price.changed'] }, /event_types\[0\]/],
    ['an event type twice', { url: receiver(), event_types: ['batch.failed', 'batch.failed'] }, /each event type once/],
    ['no URL', { event_types: ['price.approved'] }, /url is required/],
    ['a secret of the caller’s choosing', { url: receiver(), event_types: ['price.approved'], secret: 'whsec_AAAA' }, /secret/],
    [
      'a description over 256 characters',
      { url: receiver(), event_types: ['price.approved'], description: 'd'.repeat(257) },
      /description/,
    ],
  ])('refuses a body with %s with 400, and changes nothing', async (_label, body, reason) => {
    const before = await workspaceItems(workspace.workspaceId);
    expectBadRequest(await create(workspace, body), reason);
    expect(await workspaceItems(workspace.workspaceId)).toEqual(before);
  });

  it('lets a sandbox key read endpoints but not change them', async () => {
    const { id } = await created(workspace);
    const before = await workspaceItems(workspace.workspaceId);
    const key = workspace.keys.pwTest;
    const refusals = await Promise.all([
      create(workspace, { url: receiver(), event_types: ['price.approved'] }, key),
      call(`${ENDPOINTS}/${id}`, { method: 'PATCH', key, body: { enabled: false } }),
      call(`${ENDPOINTS}/${id}`, { method: 'DELETE', key }),
      call(`${ENDPOINTS}/${id}/rotate-secret`, { method: 'POST', key }),
    ]);
    for (const response of refusals) {
      expect(response.status, response.text).toBe(403);
      expect(response.json.error.code).toBe('forbidden');
    }
    expect(await workspaceItems(workspace.workspaceId)).toEqual(before);
    expect((await call(`${ENDPOINTS}/${id}`, { key })).status).toBe(200);
    expect((await call(ENDPOINTS, { key })).status).toBe(200);
  });

  it(`holds a workspace to ${MAX_ENDPOINTS_PER_WORKSPACE} endpoints, and frees a place when one is deleted`, async () => {
    const capped = await newWorkspace('Webhook Cap Seller');
    const ids: string[] = [];
    for (let index = 0; index < MAX_ENDPOINTS_PER_WORKSPACE; index++) ids.push((await created(capped)).id);
    const before = await workspaceItems(capped.workspaceId);
    expectBadRequest(await create(capped, { url: receiver(), event_types: ['price.approved'] }), /at most 20/);
    expect(await workspaceItems(capped.workspaceId)).toEqual(before);
    expect((await call(`${ENDPOINTS}/${ids[0]}`, { method: 'DELETE', key: capped.keys.pwLive })).status).toBe(200);
    await created(capped);
  });
});

describe('changing a webhook endpoint', () => {
  let workspace: TestWorkspace;
  beforeAll(async () => {
    workspace = await newWorkspace('Webhook Change Seller');
  });

  const patch = (id: string, body: unknown) => call(`${ENDPOINTS}/${id}`, { method: 'PATCH', key: workspace.keys.pwLive, body });

  it('changes the URL, the event types and the description', async () => {
    const { id } = await created(workspace, { description: 'old' });
    const response = await patch(id, { url: receiver('v2'), event_types: ['batch.drained', 'batch.failed'], description: null });
    expect(response.status, response.text).toBe(200);
    expect(response.json).toMatchObject({ id, url: receiver('v2'), event_types: ['batch.drained', 'batch.failed'], description: null });
    expect((await call(`${ENDPOINTS}/${id}`, { key: workspace.keys.pwLive })).json).toEqual(response.json);
  });

  it('refuses a refused URL, an empty change or a bad field with 400, and changes nothing', async () => {
    const { id } = await created(workspace);
    const before = await workspaceItems(workspace.workspaceId);
    expectBadRequest(await patch(id, { url: 'https://169.254.169.254/' }), /url/);
    expectBadRequest(await patch(id, { url: receiver(), enabled: 'yes' }), /enabled/);
    expectBadRequest(await patch(id, {}), /at least one/);
    expectBadRequest(await patch(id, { event_types: ['*'] }), /event_types/);
    expect(await workspaceItems(workspace.workspaceId)).toEqual(before);
  });

  it('answers 404 for an id no endpoint of the workspace has, well-formed or not', async () => {
    for (const id of [UNKNOWN, 'not-an-id', 'we_short']) {
      const response = await patch(id, { enabled: false });
      expect(response.status, response.text).toBe(404);
      expect(response.json.error.code).toBe('not_found');
    }
  });

  it('rotates the secret: the new one is shown once, and the old one still signs for 24 hours', async () => {
    const { id, secret: first } = await created(workspace);
    const rotatedAt = Date.now();
    const response = await call(`${ENDPOINTS}/${id}/rotate-secret`, { method: 'POST', key: workspace.keys.pwLive });
    expect(response.status, response.text).toBe(200);
    expect(response.json.id).toBe(id);
    expect(response.json.secret).toMatch(/^whsec_/);
    expect(response.json.secret).not.toBe(first);
    const expiresAt = Date.parse(response.json.previous_secret_expires_at);
    expect(expiresAt - rotatedAt).toBeGreaterThanOrEqual(PREVIOUS_SECRET_ACCEPTED_MS - 60_000);
    expect(expiresAt - rotatedAt).toBeLessThanOrEqual(PREVIOUS_SECRET_ACCEPTED_MS + 60_000);

    const rotated = await stored(workspace.workspaceId, id);
    expect(await signingSecrets(rotated, Date.now())).toEqual([response.json.secret, first]);
    expect(await signingSecrets(rotated, expiresAt)).toEqual([response.json.secret]);
    const read = await call(`${ENDPOINTS}/${id}`, { key: workspace.keys.pwLive });
    expect(read.json.previous_secret_expires_at).toBe(response.json.previous_secret_expires_at);
    expect(read.text).not.toContain(response.json.secret);
  });

  it('refuses a rotation with a body, or of an unknown endpoint, and changes nothing', async () => {
    const { id } = await created(workspace);
    const before = await workspaceItems(workspace.workspaceId);
    const withBody = await call(`${ENDPOINTS}/${id}/rotate-secret`, { method: 'POST', key: workspace.keys.pwLive, body: { secret: 'x' } });
    expectBadRequest(withBody, /secret/);
    const unknown = await call(`${ENDPOINTS}/${UNKNOWN}/rotate-secret`, { method: 'POST', key: workspace.keys.pwLive });
    expect(unknown.status).toBe(404);
    expect(await workspaceItems(workspace.workspaceId)).toEqual(before);
  });

  it('deletes an endpoint, after which it is gone', async () => {
    const { id } = await created(workspace);
    const response = await call(`${ENDPOINTS}/${id}`, { method: 'DELETE', key: workspace.keys.pwLive });
    expect(response.status, response.text).toBe(200);
    expect(response.json).toEqual({ id, deleted: true });
    expect((await call(`${ENDPOINTS}/${id}`, { key: workspace.keys.pwLive })).status).toBe(404);
    expect((await call(`${ENDPOINTS}/${id}`, { method: 'DELETE', key: workspace.keys.pwLive })).status).toBe(404);
    expect((await call(ENDPOINTS, { key: workspace.keys.pwLive })).json.data.map((row: { id: string }) => row.id)).not.toContain(id);
  });
});

describe('the health of a webhook endpoint', () => {
  it('is failing from its first parked delivery, disabled after five days of it, and healthy again when re-enabled', async () => {
    const workspace = await newWorkspace('Webhook Health Seller');
    const { id } = await created(workspace);
    const listed = async () =>
      (await call(ENDPOINTS, { key: workspace.keys.pwLive })).json.data.find((row: { id: string }) => row.id === id);
    const start = Date.now();

    await markEndpointFailure(workspace.workspaceId, id, start);
    expect(await listed()).toMatchObject({ status: 'failing', enabled: true, failing_since: new Date(start).toISOString() });
    // Later failures keep the streak's start.
    await markEndpointFailure(workspace.workspaceId, id, start + FAILING_DISABLES_AFTER_MS - 1);
    expect(await listed()).toMatchObject({ status: 'failing', failing_since: new Date(start).toISOString() });

    await markEndpointFailure(workspace.workspaceId, id, start + FAILING_DISABLES_AFTER_MS);
    expect(await listed()).toMatchObject({ status: 'disabled', enabled: false });

    const enabled = await call(`${ENDPOINTS}/${id}`, { method: 'PATCH', key: workspace.keys.pwLive, body: { enabled: true } });
    expect(enabled.json).toMatchObject({ status: 'healthy', enabled: true, failing_since: null });
  });

  it('is healthy again after a delivery succeeds, and a success on a healthy endpoint writes nothing', async () => {
    const workspace = await newWorkspace('Webhook Recovery Seller');
    const { id } = await created(workspace);
    await markEndpointFailure(workspace.workspaceId, id, Date.now());
    const failing = await stored(workspace.workspaceId, id);
    expect(failing.status).toBe('failing');
    expect((await markEndpointSuccess(workspace.workspaceId, id, Date.now(), failing))?.status).toBe('healthy');
    const healthy = await stored(workspace.workspaceId, id);
    const before = await workspaceItems(workspace.workspaceId);
    expect(await markEndpointSuccess(workspace.workspaceId, id, Date.now(), healthy)).toBe(healthy);
    expect(await workspaceItems(workspace.workspaceId)).toEqual(before);
  });
});

describe('two workspaces', () => {
  it('never see or touch each other’s endpoints: another workspace’s id is answered 404', async () => {
    const [owner, other] = await Promise.all([newWorkspace('Webhook Owner'), newWorkspace('Webhook Other')]);
    const { id } = await created(owner);
    const before = await workspaceItems(owner.workspaceId);
    const key = other.keys.pwLive;
    expect((await call(ENDPOINTS, { key })).json.data).toEqual([]);
    const answers = await Promise.all([
      call(`${ENDPOINTS}/${id}`, { key }),
      call(`${ENDPOINTS}/${id}`, { method: 'PATCH', key, body: { url: receiver('stolen') } }),
      call(`${ENDPOINTS}/${id}`, { method: 'DELETE', key }),
      call(`${ENDPOINTS}/${id}/rotate-secret`, { method: 'POST', key }),
    ]);
    for (const response of answers) {
      expect(response.status, response.text).toBe(404);
      expect(response.json.error.code).toBe('not_found');
    }
    expect(await workspaceItems(owner.workspaceId)).toEqual(before);
  });
});

describe('keys and features', () => {
  it('answers every endpoint route 403 feature_not_enabled for a workspace without the overview, and 401 without a key', async () => {
    const workspace = await newWorkspace('Webhook Featureless Seller');
    // Changed before any request, so that no instance has cached the workspace with the feature.
    await updateWorkspace(workspace.workspaceId, { features: ['writebacks', 'storefront'] });
    const { endpoint } = await createEndpoint(
      workspace.workspaceId,
      { url: receiver(), eventTypes: ['price.approved'] },
      { allowLoopbackHttp: true },
      Date.now(),
    );
    const id = endpoint.endpointId;
    const requests: Array<[string, string, unknown?]> = [
      ['POST', ENDPOINTS, { url: receiver(), event_types: ['price.approved'] }],
      ['GET', ENDPOINTS],
      ['GET', `${ENDPOINTS}/${id}`],
      ['PATCH', `${ENDPOINTS}/${id}`, { enabled: false }],
      ['DELETE', `${ENDPOINTS}/${id}`],
      ['POST', `${ENDPOINTS}/${id}/rotate-secret`],
    ];
    const before = await workspaceItems(workspace.workspaceId);
    for (const [method, path, body] of requests) {
      const refused = await call(path, { method, key: workspace.keys.pwLive, body });
      expect(refused.status, `${method} ${path}: ${refused.text}`).toBe(403);
      expect(refused.json.error.code).toBe('feature_not_enabled');
      const anonymous = await call(path, { method, body });
      expect(anonymous.status, `${method} ${path}`).toBe(401);
    }
    expect(await workspaceItems(workspace.workspaceId)).toEqual(before);
  });
});

describe('the log lines of a create', () => {
  const saved = process.env[allowLoopbackEnvironmentName];
  afterEach(() => {
    if (saved === undefined) delete process.env[allowLoopbackEnvironmentName];
    else process.env[allowLoopbackEnvironmentName] = saved;
  });

  it('never carry the secret the answer shows', async () => {
    const workspace = await newWorkspace('Webhook Log Seller');
    process.env[allowLoopbackEnvironmentName] = '1';
    // The handler runs in this process, so that its log lines can be read.
    const { handler } = await import('../../functions/webhooks/create-webhook-endpoint.ts');
    const body = Buffer.from(JSON.stringify({ url: receiver(), event_types: ['price.approved'] }));
    const event = buildEvent(
      {
        method: 'POST',
        url: ENDPOINTS,
        headers: { authorization: `Bearer ${workspace.keys.pwLive}`, 'content-type': 'application/json' },
        body,
        sourceIp: '127.0.0.1',
      },
      `POST ${ENDPOINTS}`,
      undefined,
    );
    const logs = captureLogs();
    let result;
    try {
      result = await handler(event, createLambdaContext({ name: 'createWebhookEndpoint', memoryMb: 256, timeoutSeconds: 10 }));
    } finally {
      logs.restore();
    }
    expect(result.statusCode).toBe(201);
    const { secret } = JSON.parse(String(result.body)) as { secret: string };
    expect(logs.lines.length).toBeGreaterThan(0);
    const logged = JSON.stringify(logs.lines);
    expect(logged).not.toContain(secret);
    expect(logged).not.toContain(secret.slice('whsec_'.length, 30));
  });
});
