// A keyed approval or endpoint create whose invocation dies after its work commits: the key already holds the answer, so a retry replays it and acts nothing twice.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type Gateway, startGateway } from '#lib/local/gateway.ts';
import { loadHandler } from '#lib/local/handlers.ts';
import { fallbackRoute, routeById } from '#edge/routes.ts';
import { getItem, updateItem } from '#platform/table/commands.ts';
import { keyDigest } from '#platform/table/key-parts.ts';
import { keys } from '#platform/table/keys.ts';
import { createConnector } from '#shared/connectors/repository.ts';
import type * as Connectors from '#shared/connectors/repository.ts';
import type * as Commands from '#platform/table/commands.ts';
import { drain, LAMP } from './prices-support.ts';
import { type Item, workspaceItems } from './hostile-input-support.ts';
import { newWorkspace, type TestWorkspace } from './support.ts';

/** What each test asks of the seams below, by workspace: a crash right after a commit, or a step before it. */
const crashAfterCommit = new Map<string, () => Promise<void>>();
const beforeCommit = new Map<string, () => Promise<void>>();

// A transaction that commits and then the invocation dies: the crash is injected right after the table's answer, so
// nothing the handler does next runs, as when Lambda stops an invocation there.
vi.mock('#platform/table/commands.ts', async (original) => {
  const actual = await original<typeof Commands>();
  return {
    ...actual,
    transactWrite: async (...args: Parameters<typeof actual.transactWrite>) => {
      const committed = await actual.transactWrite(...args);
      const text = JSON.stringify(args[0]);
      for (const [workspaceId, crash] of crashAfterCommit) {
        if (text.includes(workspaceId)) {
          crashAfterCommit.delete(workspaceId);
          await crash();
        }
      }
      return committed;
    },
  };
});

// Reading the connectors is the last read before an approval's transaction: a retry that takes the key over there
// is one that ran after the first call's marker lapsed.
vi.mock('#shared/connectors/repository.ts', async (original) => {
  const actual = await original<typeof Connectors>();
  return {
    ...actual,
    listConnectors: async (workspaceId: string) => {
      await beforeCommit.get(workspaceId)?.();
      return actual.listConnectors(workspaceId);
    },
  };
});

let gateway: Gateway;

beforeAll(async () => {
  const routes = (['approvePrice', 'createWebhookEndpoint'] as const).map((id) => {
    const route = routeById(id);
    return { ...route, name: route.id };
  });
  // The handlers run in this process, so that the seams above are theirs.
  gateway = await startGateway({
    host: '127.0.0.1',
    port: 0,
    routes,
    fallback: { ...fallbackRoute, name: fallbackRoute.id },
    load: loadHandler,
  });
});
afterAll(() => gateway.stop());

async function post(path: string, key: string, body: unknown, idempotencyKey: string) {
  const response = await fetch(`${gateway.url}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'idempotency-key': idempotencyKey },
    body: JSON.stringify(body),
  });
  return { status: response.status, text: await response.text(), replayed: response.headers.get('idempotent-replayed') };
}

async function counted(workspaceId: string) {
  const items = [...(await workspaceItems(workspaceId)).values()];
  const eventsOf = (type: string) => items.filter((item) => item.type === 'webhookEvent' && (item.event as Item).type === type).length;
  return {
    approvals: items.filter((item) => String(item.SK).startsWith('APPROVAL#')).length,
    tasks: items.filter((item) => item.type === 'writeback').length,
    endpoints: items.filter((item) => item.type === 'webhookEndpoint').length,
    approvedEvents: eventsOf('price.approved'),
  };
}

/** The state of a key's item as the store keeps it: running while its call works, done once it holds the answer. */
async function keyState(workspaceId: string, routeId: string, idempotencyKey: string): Promise<string | undefined> {
  const item = await getItem({ Key: keys.idempotentCall(workspaceId, routeId, keyDigest(idempotencyKey)), ConsistentRead: true });
  return item?.state as string | undefined;
}

describe('an approval whose invocation dies right after its transaction commits', () => {
  let seller: TestWorkspace;
  beforeAll(async () => {
    seller = await newWorkspace('Crashing Approver');
    await drain(seller, { product: [LAMP] });
    // With the workspace's own connector, two that take write-backs: one task each.
    await createConnector({ workspaceId: seller.workspaceId, name: 'ERP sync', receivesWritebacks: true });
  }, 60_000);

  it('has stored its answer under the key in the same commit, so a retry replays it and publishes nothing twice', async () => {
    const idempotencyKey = randomUUID();
    const seen: Array<string | undefined> = [];
    crashAfterCommit.set(seller.workspaceId, async () => {
      seen.push(await keyState(seller.workspaceId, 'approvePrice', idempotencyKey));
      throw new Error('the invocation died after the approval committed');
    });
    const crashed = await post('/v1/prices/approve', seller.keys.pwLive, { sku: 'LAMP', price: 15 }, idempotencyKey);
    expect(crashed.status).toBe(500);
    // The moment the approval committed, its key already held the answer: no crash after it can lose it.
    expect(seen).toEqual(['done']);
    const retry = await post('/v1/prices/approve', seller.keys.pwLive, { sku: 'LAMP', price: 15 }, idempotencyKey);
    expect(retry.status, retry.text).toBe(200);
    expect(retry.replayed).toBe('true');
    expect(JSON.parse(retry.text)).toMatchObject({ sku: 'LAMP', price: 15, status: 'published' });
    expect(await counted(seller.workspaceId)).toMatchObject({ approvals: 1, tasks: 2, approvedEvents: 1 });
  });

  it('publishes nothing when its key was taken over by a retry before its transaction, and answers 409 in flight', async () => {
    const idempotencyKey = randomUUID();
    const before = await counted(seller.workspaceId);
    beforeCommit.set(seller.workspaceId, async () => {
      beforeCommit.delete(seller.workspaceId);
      // As a retry does once the first call's marker has lapsed: the key becomes another call's.
      const refused = await updateItem({
        Key: keys.idempotentCall(seller.workspaceId, 'approvePrice', keyDigest(idempotencyKey)),
        UpdateExpression: 'SET callId = :other',
        ConditionExpression: 'attribute_exists(PK)',
        ExpressionAttributeValues: { ':other': 'takenover00' },
      });
      expect(refused.refused).toBeFalsy();
    });
    const response = await post('/v1/prices/approve', seller.keys.pwLive, { sku: 'LAMP', price: 16 }, idempotencyKey);
    expect(response.status, response.text).toBe(409);
    expect(JSON.parse(response.text).error.code).toBe('idempotency_key_in_flight');
    expect(await counted(seller.workspaceId)).toEqual(before);
  });
});

describe('an endpoint create whose invocation dies right after its transaction commits', () => {
  it('has stored its sealed answer with the endpoint, so a retry replays the same secret and registers one endpoint', async () => {
    const seller = await newWorkspace('Crashing Endpoint Owner');
    const idempotencyKey = randomUUID();
    const body = { url: 'http://127.0.0.1:9/hooks', event_types: ['price.approved'] };
    const seen: Array<string | undefined> = [];
    crashAfterCommit.set(seller.workspaceId, async () => {
      seen.push(await keyState(seller.workspaceId, 'createWebhookEndpoint', idempotencyKey));
      throw new Error('the invocation died after the endpoint committed');
    });
    const crashed = await post('/v1/webhook-endpoints', seller.keys.pwLive, body, idempotencyKey);
    expect(crashed.status).toBe(500);
    expect(seen).toEqual(['done']);
    const retry = await post('/v1/webhook-endpoints', seller.keys.pwLive, body, idempotencyKey);
    expect(retry.status, retry.text).toBe(201);
    expect(retry.replayed).toBe('true');
    expect(JSON.parse(retry.text).secret).toMatch(/^whsec_/);
    expect((await counted(seller.workspaceId)).endpoints).toBe(1);
  });
});
