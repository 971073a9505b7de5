// The Idempotency-Key of the creating overview routes through the gateway: approvals and webhook endpoint registration act once per key.
import { randomUUID } from 'node:crypto';
import { PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { idempotentRequestHash } from '#edge/http/idempotent.ts';
import { issueApiKey } from '#shared/api-keys/repository.ts';
import { createConnector } from '#shared/connectors/repository.ts';
import { tableName } from '#platform/config.ts';
import { tableClient } from '#platform/table/client.ts';
import { keyDigest } from '#platform/table/key-parts.ts';
import { keys } from '#platform/table/keys.ts';
import { drain, LAMP, SHADE } from './prices-support.ts';
import { type Item, workspaceItems } from './hostile-input-support.ts';
import { type ApiResponse, call, newWorkspace, type TestWorkspace } from './support.ts';

const APPROVE = '/v1/prices/approve';
const ENDPOINTS = '/v1/webhook-endpoints';
/** A loopback receiver URL, which the integration stack's local-mode switch allows; nothing needs to listen there. */
const RECEIVER = 'http://127.0.0.1:9/hooks';

function post(path: string, key: string, body: unknown, idempotencyKey?: string): Promise<ApiResponse> {
  return call(path, { method: 'POST', key, body, headers: idempotencyKey === undefined ? {} : { 'idempotency-key': idempotencyKey } });
}

async function lampSeller(): Promise<TestWorkspace> {
  const seller = await newWorkspace('Idempotent Approver');
  await drain(seller, { product: [LAMP, SHADE] });
  return seller;
}

/** What an approval leaves in the table, counted: approval records, write-back tasks, and events by type. */
async function published(workspaceId: string) {
  const items = [...(await workspaceItems(workspaceId)).values()];
  const eventsOf = (type: string) => items.filter((item) => item.type === 'webhookEvent' && (item.event as Item).type === type).length;
  return {
    approvals: items.filter((item) => String(item.SK).startsWith('APPROVAL#')).length,
    tasks: items.filter((item) => item.type === 'writeback').length,
    approvedEvents: eventsOf('price.approved'),
    pendingEvents: eventsOf('writeback.pending'),
  };
}

function expectOverviewError(response: ApiResponse, status: number, code: string): void {
  expect(response.status, response.text).toBe(status);
  expect(response.json.error).toMatchObject({ code, request_id: response.headers.get('x-request-id') });
}

/** The marker a first call holds its key with while it runs, as the store writes it. */
async function runningMarker(workspaceId: string, operation: string, key: string, body: unknown): Promise<void> {
  await tableClient().send(
    new PutCommand({
      TableName: tableName(),
      Item: {
        ...keys.idempotentCall(workspaceId, operation, keyDigest(key)),
        callId: 'livecall0000',
        bodyHash: idempotentRequestHash('pw_live', JSON.stringify(body)),
        state: 'running',
        lockedUntil: Date.now() + 60_000,
        replayUntil: Date.now() + 86_400_000,
      },
    }),
  );
}

describe('POST /v1/prices/approve with an Idempotency-Key', () => {
  let seller: TestWorkspace;
  beforeAll(async () => {
    seller = await lampSeller();
  }, 60_000);

  it('publishes one approval, and one task and one writeback.pending event per connector, for a retry, whose answer is the first byte for byte', async () => {
    const workspace = await lampSeller();
    await createConnector({ workspaceId: workspace.workspaceId, name: 'Storefront sync', receivesWritebacks: true });
    const key = randomUUID();
    const first = await post(APPROVE, workspace.keys.pwLive, { sku: 'LAMP', price: 15 }, key);
    expect(first.status, first.text).toBe(200);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const retry = await post(APPROVE, workspace.keys.pwLive, '{ "price": 15,\n  "sku": "LAMP" }', key);
    expect(retry.status, retry.text).toBe(200);
    expect(retry.text).toBe(first.text);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(retry.headers.get('x-request-id')).not.toBe(first.headers.get('x-request-id'));
    expect(first.json.published_to).toHaveLength(2);
    expect(await published(workspace.workspaceId)).toEqual({ approvals: 1, tasks: 2, approvedEvents: 1, pendingEvents: 2 });
  });

  it('approves every time without a key, as before', async () => {
    const workspace = await lampSeller();
    for (let attempt = 0; attempt < 2; attempt++)
      expect((await post(APPROVE, workspace.keys.pwLive, { sku: 'LAMP', price: 15 })).status).toBe(200);
    expect((await published(workspace.workspaceId)).approvals).toBe(2);
  });

  it('runs concurrent retries once: one approval, the rest replays of it or 409 in flight', async () => {
    const workspace = await lampSeller();
    const key = randomUUID();
    const responses = await Promise.all(
      Array.from({ length: 5 }, () => post(APPROVE, workspace.keys.pwLive, { sku: 'SHADE', price: 8 }, key)),
    );
    const statuses = responses.map((response) => response.status);
    expect(
      statuses.every((status) => status === 200 || status === 409),
      statuses.join(),
    ).toBe(true);
    expect(new Set(responses.filter((response) => response.status === 200).map((response) => response.text)).size).toBe(1);
    expect(responses.filter((response) => response.status === 200 && !response.headers.get('idempotent-replayed'))).toHaveLength(1);
    expect(await published(workspace.workspaceId)).toEqual({ approvals: 1, tasks: 1, approvedEvents: 1, pendingEvents: 1 });
  });

  it('answers 409 idempotency_key_in_flight with Retry-After while the first call with the key runs, and approves nothing', async () => {
    const key = randomUUID();
    const body = { sku: 'LAMP', price: 16 };
    await runningMarker(seller.workspaceId, 'approvePrice', key, body);
    const before = await published(seller.workspaceId);
    const response = await post(APPROVE, seller.keys.pwLive, body, key);
    expectOverviewError(response, 409, 'idempotency_key_in_flight');
    expect(response.headers.get('retry-after')).toBe('1');
    expect(await published(seller.workspaceId)).toEqual(before);
  });

  it('refuses the key reused with another body with 422 idempotency_key_reused, and approves nothing more', async () => {
    const key = randomUUID();
    expect((await post(APPROVE, seller.keys.pwLive, { sku: 'LAMP', price: 15 }, key)).status).toBe(200);
    const before = await published(seller.workspaceId);
    expectOverviewError(await post(APPROVE, seller.keys.pwLive, { sku: 'LAMP', price: 15.5 }, key), 422, 'idempotency_key_reused');
    expect(await published(seller.workspaceId)).toEqual(before);
  });

  it('never replays a live approval to a sandbox key under the same key', async () => {
    const key = randomUUID();
    const body = { sku: 'LAMP', price: 14 };
    expect((await post(APPROVE, seller.keys.pwLive, body, key)).json.livemode).toBe(true);
    expectOverviewError(await post(APPROVE, seller.keys.pwTest, body, key), 422, 'idempotency_key_reused');
  });

  it('stores no refusal: a retry with the same key after a guardrail refusal approves', async () => {
    const key = randomUUID();
    expectOverviewError(await post(APPROVE, seller.keys.pwLive, { sku: 'LAMP', price: 30 }, key), 422, 'guardrail_violation');
    const corrected = await post(APPROVE, seller.keys.pwLive, { sku: 'LAMP', price: 15 }, key);
    expect(corrected.status, corrected.text).toBe(200);
    expect(corrected.headers.get('idempotent-replayed')).toBeNull();
  });

  it('approves afresh under a key whose 24-hour replay window has passed', async () => {
    const workspace = await lampSeller();
    const key = randomUUID();
    const body = { sku: 'LAMP', price: 15 };
    const first = await post(APPROVE, workspace.keys.pwLive, body, key);
    await tableClient().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.idempotentCall(workspace.workspaceId, 'approvePrice', keyDigest(key)),
        UpdateExpression: 'SET replayUntil = :past',
        ExpressionAttributeValues: { ':past': Date.now() - 1 },
      }),
    );
    const later = await post(APPROVE, workspace.keys.pwLive, body, key);
    expect(later.status, later.text).toBe(200);
    expect(later.headers.get('idempotent-replayed')).toBeNull();
    expect(later.json.approved_at).not.toBe(first.json.approved_at);
    expect((await published(workspace.workspaceId)).approvals).toBe(2);
  });

  it('keeps one key apart on two operations: an approval and an endpoint under it both act', async () => {
    const key = randomUUID();
    expect((await post(APPROVE, seller.keys.pwLive, { sku: 'SHADE', price: 8 }, key)).status).toBe(200);
    const created = await post(ENDPOINTS, seller.keys.pwLive, { url: RECEIVER, event_types: ['price.approved'] }, key);
    expect(created.status, created.text).toBe(201);
    expect(created.headers.get('idempotent-replayed')).toBeNull();
  });
});

describe('POST /v1/webhook-endpoints with an Idempotency-Key', () => {
  let workspace: TestWorkspace;
  beforeAll(async () => {
    workspace = await newWorkspace('Idempotent Hooks');
  });

  const endpoints = async () => (await call(ENDPOINTS, { key: workspace.keys.pwLive })).json.data as Array<{ id: string }>;

  it('registers one endpoint for a retry, replaying the first answer and its secret byte for byte', async () => {
    const key = randomUUID();
    const body = { url: RECEIVER, event_types: ['price.approved', 'batch.drained'], description: 'ERP' };
    const before = (await endpoints()).length;
    const first = await post(ENDPOINTS, workspace.keys.pwLive, body, key);
    expect(first.status, first.text).toBe(201);
    expect(first.json.secret).toMatch(/^whsec_/);
    const retry = await post(ENDPOINTS, workspace.keys.pwLive, body, key);
    expect(retry.status, retry.text).toBe(201);
    expect(retry.text).toBe(first.text);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect((await endpoints()).map((endpoint) => endpoint.id)).toContain(first.json.id);
    expect((await endpoints()).length).toBe(before + 1);
  });

  it('replays to the key that made the call alone: another key of the workspace gets 422 idempotency_key_reused, never the secret', async () => {
    const key = randomUUID();
    const body = { url: RECEIVER, event_types: ['batch.drained'] };
    const first = await post(ENDPOINTS, workspace.keys.pwLive, body, key);
    expect(first.status, first.text).toBe(201);
    const other = (await issueApiKey({ workspaceId: workspace.workspaceId, family: 'pw_live', scopes: [] })).key;
    const before = (await endpoints()).length;
    const answer = await post(ENDPOINTS, other, body, key);
    expectOverviewError(answer, 422, 'idempotency_key_reused');
    expect(answer.json.error.message).toMatch(/another API key/);
    expect(answer.text).not.toContain('whsec_');
    expect(answer.headers.get('idempotent-replayed')).toBeNull();
    expect((await endpoints()).length).toBe(before);
    // The key that made it still gets its answer.
    expect((await post(ENDPOINTS, workspace.keys.pwLive, body, key)).text).toBe(first.text);
  });

  it('keeps the stored answer sealed: no item of the workspace holds the secret in clear', async () => {
    const key = randomUUID();
    const first = await post(ENDPOINTS, workspace.keys.pwLive, { url: RECEIVER, event_types: ['price.approved'] }, key);
    expect(first.status, first.text).toBe(201);
    const items = [...(await workspaceItems(workspace.workspaceId)).values()];
    const stored = items.find((item) => item.PK === keys.idempotentCall(workspace.workspaceId, 'createWebhookEndpoint', keyDigest(key)).PK);
    expect(stored).toMatchObject({ state: 'done', statusCode: 201, response: expect.stringMatching(/^v1\./) });
    const secret = first.json.secret as string;
    const secretBody = secret.slice('whsec_'.length);
    for (const item of items) {
      const text = JSON.stringify(item, (_key, value: unknown) =>
        value instanceof Uint8Array ? Buffer.from(value).toString('latin1') : value,
      );
      expect(text.includes(secretBody)).toBe(false);
    }
  });

  it('answers 409 idempotency_key_in_flight with Retry-After while the first create runs, and registers nothing', async () => {
    const key = randomUUID();
    const body = { url: RECEIVER, event_types: ['batch.drained'] };
    await runningMarker(workspace.workspaceId, 'createWebhookEndpoint', key, body);
    const before = (await endpoints()).length;
    const response = await post(ENDPOINTS, workspace.keys.pwLive, body, key);
    expectOverviewError(response, 409, 'idempotency_key_in_flight');
    expect(response.headers.get('retry-after')).toBe('1');
    expect((await endpoints()).length).toBe(before);
  });

  it('refuses the key reused with another body with 422 idempotency_key_reused, and registers nothing more', async () => {
    const key = randomUUID();
    expect((await post(ENDPOINTS, workspace.keys.pwLive, { url: RECEIVER, event_types: ['batch.drained'] }, key)).status).toBe(201);
    const before = (await endpoints()).length;
    const response = await post(ENDPOINTS, workspace.keys.pwLive, { url: `${RECEIVER}/other`, event_types: ['batch.drained'] }, key);
    expectOverviewError(response, 422, 'idempotency_key_reused');
    expect((await endpoints()).length).toBe(before);
  });

  it.each([
    ['empty', ''],
    ['over 255 characters', 'k'.repeat(256)],
    ['not printable ASCII', 'clé-1'],
  ])('refuses an Idempotency-Key that is %s with 400 bad_request, and registers nothing', async (_name, key) => {
    const before = await workspaceItems(workspace.workspaceId);
    const response = await post(ENDPOINTS, workspace.keys.pwLive, { url: RECEIVER, event_types: ['batch.drained'] }, key);
    expectOverviewError(response, 400, 'bad_request');
    expect(response.json.error.message).toMatch(/Idempotency-Key/);
    expect([...(await workspaceItems(workspace.workspaceId)).keys()]).toEqual([...before.keys()]);
  });
});
