// Listing a connector's batches and cancelling an open one, through the local gateway against DynamoDB Local; and the HTTP glue's 415 and 405.
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { createPricingClient } from '../../client/src/index.ts';
import { tableName } from '#platform/config.ts';
import { tableClient } from '#platform/table/client.ts';
import { keys } from '#platform/table/keys.ts';
import {
  BATCHES_PATH,
  chunkKeys,
  commit,
  connectorCaller,
  type ConnectorCaller,
  expectError,
  openTestBatch,
  readStatus,
  sampleProducts,
  secondConnector,
  stage,
  type TestBatch,
  unknownBatchId,
  waitForBands,
  waitForStatus,
} from './ingest-support.ts';
import { call, newWorkspace } from './support.ts';

const CANCELLED = 'batch cancelled before commit';

function cancel(batch: TestBatch, key = batch.key, body?: unknown) {
  return call(`${BATCHES_PATH}/${batch.batchId}/cancel`, { method: 'POST', key, body });
}

function list(caller: ConnectorCaller, query = '') {
  return call(`${BATCHES_PATH}${query}`, { key: caller.key });
}

/** Every batch the list answers, page after page of `limit`, and the pages' sizes. */
async function listAll(caller: ConnectorCaller, limit: number, status?: string) {
  const ids: string[] = [];
  const sizes: number[] = [];
  let next: string | null = null;
  do {
    const query: string = `?limit=${limit}${status ? `&status=${status}` : ''}${next ? `&starting_after=${next}` : ''}`;
    const response = await list(caller, query);
    expect(response.status, response.text).toBe(200);
    ids.push(...response.json.data.map((entry: { batchId: string }) => entry.batchId));
    sizes.push(response.json.data.length);
    next = response.json.next;
  } while (next);
  return { ids, sizes };
}

async function batchOfProducts(caller: ConnectorCaller, count = 3): Promise<{ batch: TestBatch; skus: string[] }> {
  const batch = await openTestBatch(caller);
  const records = sampleProducts(count);
  const staged = await stage(batch, { entity: 'product', records });
  expect(staged.status, staged.text).toBe(202);
  return { batch, skus: records.map((record) => record.sku) };
}

describe('GET /api/v1/ingest/batches', () => {
  let caller: ConnectorCaller;
  let other: ConnectorCaller;
  const opened: TestBatch[] = [];
  let expired: TestBatch;

  beforeAll(async () => {
    const workspace = await newWorkspace('Batch List Seller');
    caller = connectorCaller(workspace);
    other = await secondConnector(workspace.workspaceId);
    for (let index = 0; index < 5; index++) opened.push(await openTestBatch(caller));
    await openTestBatch(other);
    // One committed, one cancelled, one past its 24 hours (its stored createdAt moved back two days), two open.
    expect((await commit(opened[0] as TestBatch)).status).toBe(202);
    await waitForStatus(opened[0] as TestBatch, 'drained', 30_000);
    expect((await cancel(opened[1] as TestBatch)).status).toBe(200);
    expired = opened[2] as TestBatch;
    await tableClient().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.batch(expired.workspaceId, expired.batchId),
        UpdateExpression: 'SET createdAt = :then',
        ExpressionAttributeValues: { ':then': new Date(Date.now() - 2 * 86_400_000).toISOString() },
      }),
    );
  }, 60_000);

  it('lists only the calling connector’s batches, newest first, each with its status as the status route answers it', async () => {
    const response = await list(caller);
    expect(response.status, response.text).toBe(200);
    expect(response.json.next).toBeNull();
    const listed = response.json.data as Array<{ batchId: string; createdAt: string }>;
    expect(listed.map((entry) => entry.batchId).sort()).toEqual(opened.map((batch) => batch.batchId).sort());
    // The batch made to look expired had its createdAt moved, not its place in the list.
    const places = listed.filter((entry) => entry.batchId !== expired.batchId).map((entry) => `${entry.createdAt}#${entry.batchId}`);
    expect(places).toEqual([...places].sort().reverse());
    for (const entry of listed) {
      const status = await readStatus({ ...caller, batchId: entry.batchId });
      expect({ batchId: entry.batchId, ...status.json }).toEqual(entry);
    }
  });

  it('pages through every batch with limit and starting_after, each once, and ends with next null', async () => {
    const paged = await listAll(caller, 2);
    expect(paged.sizes).toEqual([2, 2, 1]);
    expect(paged.ids).toEqual(((await list(caller)).json.data as Array<{ batchId: string }>).map((entry) => entry.batchId));
  });

  it('keeps only the batches in the status asked for, an open batch past its life counted as failed', async () => {
    const statusOf = async (status: string) => (await listAll(caller, 1, status)).ids.sort();
    const open = [opened[3], opened[4]].map((batch) => (batch as TestBatch).batchId).sort();
    expect(await statusOf('open')).toEqual(open);
    expect(await statusOf('failed')).toEqual([opened[1], expired].map((batch) => (batch as TestBatch).batchId).sort());
    expect(await statusOf('drained')).toEqual([(opened[0] as TestBatch).batchId]);
    expect(await statusOf('committed')).toEqual([]);
    const expiredEntry = (await list(caller, '?status=failed')).json.data.find(
      (entry: { batchId: string }) => entry.batchId === expired.batchId,
    );
    expect(expiredEntry).toMatchObject({ status: 'failed', error: 'batch expired before commit' });
  });

  it.each([
    ['status', '?status=cancelled'],
    ['status', '?status=OPEN'],
    ['limit', '?limit=0'],
    ['limit', '?limit=101'],
    ['limit', '?limit=1.5'],
    ['starting_after', '?starting_after=bm90LWEtY3Vyc29y'],
    ['unknown', '?order=asc'],
  ])('refuses a bad %s (%s) with 422 invalid_request naming it', async (param, query) => {
    const response = await list(caller, query);
    expect(response.status).toBe(422);
    expect(response.json.error.code).toBe('invalid_request');
    expect(response.json.error.param).toBe(param === 'unknown' ? 'order' : param);
  });

  it('refuses a key without the connector scope', async () => {
    const workspace = await newWorkspace('Batch List ERP');
    const response = await call(BATCHES_PATH, { key: workspace.keys.erp });
    expect(response.status).toBe(403);
    expect(response.json.error.code).toBe('forbidden');
  });
});

describe('POST /api/v1/ingest/batches/{batchId}/cancel', () => {
  let caller: ConnectorCaller;
  beforeAll(async () => {
    caller = connectorCaller(await newWorkspace('Batch Cancel Seller'));
  });

  it('cancels an open batch: failed with the cancelled error and cancelledAt, its staged records discarded', async () => {
    const { batch } = await batchOfProducts(caller);
    expect((await chunkKeys(batch)).length).toBeGreaterThan(0);
    const response = await cancel(batch);
    expect(response.status, response.text).toBe(200);
    expect(response.json).toMatchObject({ status: 'failed', error: CANCELLED, recordCount: 3, entities: ['product'] });
    expect(response.json.cancelledAt).toEqual(expect.any(String));
    expect(await chunkKeys(batch)).toEqual([]);
    expect((await readStatus(batch)).json).toEqual(response.json);
  });

  it('answers a cancel of a cancelled batch the same again, and with an empty body or {} alike', async () => {
    const { batch } = await batchOfProducts(caller);
    const first = await cancel(batch);
    const again = await cancel(batch, batch.key, {});
    expect(again.status).toBe(200);
    expect(again.json).toEqual(first.json);
  });

  it('refuses to stage into or commit a cancelled batch', async () => {
    const { batch } = await batchOfProducts(caller);
    await cancel(batch);
    expectError(await commit(batch), { status: 409, code: 'batch_already_committed' });
    expectError(await stage(batch, { entity: 'product', records: sampleProducts(1) }), { status: 409, code: 'batch_already_committed' });
    expect(await chunkKeys(batch)).toEqual([]);
  });

  it('refuses to cancel a committed batch, and after it drained, with 409 and changes nothing', async () => {
    const { batch } = await batchOfProducts(caller);
    expect((await commit(batch)).status).toBe(202);
    expectError(await cancel(batch), { status: 409, code: 'batch_already_committed' });
    await waitForStatus(batch, 'drained', 30_000);
    // The bands job stamps the batch after it drains: the status compared is the one after that last write.
    await waitForBands(batch.key, batch.batchId);
    const settled = (await readStatus(batch)).json;
    expectError(await cancel(batch), { status: 409, code: 'batch_already_committed' });
    expect((await readStatus(batch)).json).toEqual(settled);
  });

  it('answers another connector’s batch and an unknown one 404, and a batch id that is not a UUID 422', async () => {
    const { batch } = await batchOfProducts(caller);
    const stranger = await secondConnector(caller.workspaceId);
    expectError(await cancel(batch, stranger.key), { status: 404, code: 'batch_not_found' });
    expect((await readStatus(batch)).json.status).toBe('open');
    expectError(await cancel({ ...batch, batchId: unknownBatchId() }), { status: 404, code: 'batch_not_found' });
    expectError(await cancel({ ...batch, batchId: 'not-a-uuid' }), { status: 422, code: 'invalid_request', param: 'batchId' });
    expectError(await cancel(batch, batch.key, { force: true }), { status: 422, code: 'invalid_request', param: 'force' });
    expect((await readStatus(batch)).json.status).toBe('open');
  });

  it('lets exactly one of a cancel and a commit sent at once win, and never drains what a cancel discarded', async () => {
    const races = await Promise.all(
      Array.from({ length: 8 }, async () => {
        const { batch, skus } = await batchOfProducts(caller, 2);
        const [committed, cancelled] = await Promise.all([commit(batch), cancel(batch)]);
        return { batch, skus, committed, cancelled };
      }),
    );
    for (const { batch, committed, cancelled } of races) {
      expect([committed.status, cancelled.status].sort(), `${committed.text} ${cancelled.text}`).toEqual(
        committed.status === 202 ? [202, 409] : [200, 409],
      );
      if (committed.status === 202) await waitForStatus(batch, 'drained', 30_000);
    }
    for (const { batch, skus, cancelled } of races.filter((race) => race.cancelled.status === 200)) {
      const status = (await readStatus(batch)).json;
      expect(status).toEqual(cancelled.json);
      expect(status.drainedCount).toBeUndefined();
      expect(await chunkKeys(batch)).toEqual([]);
      for (const sku of skus) {
        const { Item } = await tableClient().send(new GetCommand({ TableName: tableName(), Key: keys.product(batch.workspaceId, sku) }));
        expect(Item, sku).toBeUndefined();
      }
    }
  }, 120_000);
});

describe('the typed client', () => {
  it('lists the connector’s open batches and cancels one', async () => {
    const caller = connectorCaller(await newWorkspace('Client Batches Seller'));
    const client = createPricingClient({ baseUrl: inject('stack').gatewayUrl, key: caller.key });
    const { batchId } = await client.openBatch();
    expect((await client.listBatches({ status: 'open' })).data.map((entry) => entry.batchId)).toEqual([batchId]);
    expect(await client.cancelBatch(batchId)).toMatchObject({ status: 'failed', error: CANCELLED });
    expect(await client.listBatches({ status: 'open', limit: 5 })).toEqual({ data: [], next: null });
  });
});

describe('the HTTP glue every route shares', () => {
  let caller: ConnectorCaller;
  beforeAll(async () => {
    caller = connectorCaller(await newWorkspace('Glue Seller'));
  });

  it('refuses a body labelled text/plain with 415 invalid_request, even when it is JSON, and stages nothing', async () => {
    const batch = await openTestBatch(caller);
    const response = await call(`${BATCHES_PATH}/${batch.batchId}/records`, {
      method: 'POST',
      key: batch.key,
      body: JSON.stringify({ entity: 'product', records: sampleProducts(1) }),
      headers: { 'content-type': 'text/plain;charset=UTF-8' },
    });
    expectError(response, { status: 415, code: 'invalid_request', param: 'Content-Type' });
    expect((await readStatus(batch)).json.recordCount).toBe(0);
    expect(await chunkKeys(batch)).toEqual([]);
  });

  it('answers a method a known path does not serve with 405 and Allow, in the envelope of the path’s surface', async () => {
    const v1 = await call(BATCHES_PATH, { method: 'DELETE', key: caller.key });
    expectError(v1, { status: 405, code: 'invalid_request' });
    // HEAD is served wherever GET is.
    expect(v1.headers.get('allow')).toBe('GET, HEAD, POST');
    const overview = await call('/v1/webhook-endpoints', { method: 'PUT' });
    expect(overview.status).toBe(405);
    expect(overview.json.error.code).toBe('bad_request');
    expect(overview.headers.get('allow')).toBe('GET, HEAD, POST');
    // `/v1/prices/{sku}` serves GET at any SKU, `approve` among them.
    expect((await call('/v1/prices/approve', { method: 'DELETE' })).headers.get('allow')).toBe('GET, HEAD, POST');
    const unknown = await call('/api/v1/ingest/nothing', { method: 'DELETE' });
    expect(unknown.status).toBe(404);
    expect(unknown.headers.get('allow')).toBeNull();
  });
});
