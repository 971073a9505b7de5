// What the ingest tests share: batch calls through the gateway, a batch's state seen from outside and in the table, record builders, and a dump of canonical data.
import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import { type SampleCatalogue, sampleCatalogue } from '#lib/local/sample-catalogue.ts';
import { issueApiKey } from '#shared/api-keys/repository.ts';
import { logEntriesOf } from '#shared/bands/history-log.ts';
import { decompressRecords } from '#shared/batches/chunks.ts';
import { readStagedChunks } from '#shared/batches/chunk-items.ts';
import { createConnector } from '#shared/connectors/repository.ts';
import { entityKinds, type ProductRecord } from '#shared/records/schema.ts';
import { updateWorkspace } from '#shared/workspaces/repository.ts';
import { type ApiResponse, call, newWorkspace, type TestWorkspace } from './support.ts';
import { readWorkspaceItems } from './workspace-items.ts';
import { unpackJson } from '#platform/table/packed.ts';

export const BATCHES_PATH = '/api/v1/ingest/batches';

/** A connector-scope key and the workspace and connector it acts for. */
export interface ConnectorCaller {
  readonly workspaceId: string;
  readonly connectorId: string;
  readonly key: string;
}

export interface TestBatch extends ConnectorCaller {
  readonly batchId: string;
}

export function connectorCaller(workspace: TestWorkspace): ConnectorCaller {
  return { workspaceId: workspace.workspaceId, connectorId: workspace.connectorId, key: workspace.keys.connector };
}

/** A second connector of the same workspace, with its own connector key. */
export async function secondConnector(workspaceId: string): Promise<ConnectorCaller> {
  const { connectorId } = await createConnector({ workspaceId, name: 'Second ERP', receivesWritebacks: false });
  const { key } = await issueApiKey({ workspaceId, family: 'svc_live', scopes: ['connector'], connectorId });
  return { workspaceId, connectorId, key };
}

/** Auth caches a workspace for 60 s, so the cap is set on a workspace that has not yet served a request. */
export async function workspaceWithCap(batchRecordCap: number): Promise<TestWorkspace> {
  const workspace = await newWorkspace('Capped Seller');
  await updateWorkspace(workspace.workspaceId, { batchRecordCap });
  return workspace;
}

export async function openTestBatch(caller: ConnectorCaller): Promise<TestBatch> {
  const response = await call(BATCHES_PATH, { method: 'POST', key: caller.key });
  expect(response.status, response.text).toBe(201);
  return { ...caller, batchId: response.json.batchId as string };
}

export function stage(batch: TestBatch, body: unknown, key = batch.key): Promise<ApiResponse> {
  return call(`${BATCHES_PATH}/${batch.batchId}/records`, { method: 'POST', key, body });
}

export function readStatus(batch: TestBatch, key = batch.key): Promise<ApiResponse> {
  return call(`${BATCHES_PATH}/${batch.batchId}`, { key });
}

export function commit(batch: TestBatch, key = batch.key, body?: unknown): Promise<ApiResponse> {
  return call(`${BATCHES_PATH}/${batch.batchId}/commit`, { method: 'POST', key, body });
}

/** The three routes that take a batch id, each as one call for a given id and key. */
export const batchRoutes = {
  stage: (batchId: string, key: string) =>
    call(`${BATCHES_PATH}/${batchId}/records`, { method: 'POST', key, body: { entity: 'product', records: [productRecord()] } }),
  status: (batchId: string, key: string) => call(`${BATCHES_PATH}/${batchId}`, { key }),
  commit: (batchId: string, key: string) => call(`${BATCHES_PATH}/${batchId}/commit`, { method: 'POST', key }),
} as const;

export type BatchRoute = keyof typeof batchRoutes;
export const batchRouteNames = Object.keys(batchRoutes) as BatchRoute[];

/** A v4 uuid that no batch has. */
export function unknownBatchId(): string {
  return randomUUID();
}

export interface ExpectedError {
  readonly status: number;
  readonly code: string;
  readonly param?: string;
}

/** The v1 error envelope with the expected status, code and (when given) param, and the response's request id. */
export function expectError(response: ApiResponse, expected: ExpectedError): void {
  expect(response.status, response.text).toBe(expected.status);
  expect(response.json?.error).toMatchObject({
    code: expected.code,
    message: expect.any(String),
    requestId: response.headers.get('x-request-id'),
  });
  if (expected.param !== undefined) expect(response.json.error.param).toBe(expected.param);
}

/** The sort keys of a batch's staged chunks, read straight from the table. */
export async function chunkKeys(batch: Pick<TestBatch, 'workspaceId' | 'batchId'>): Promise<string[]> {
  return (await readStagedChunks(batch)).map((item) => item.SK as string);
}

/** Every record staged into a batch, in staging order, decoded from its chunks. */
export async function stagedRecords(batch: Pick<TestBatch, 'workspaceId' | 'batchId'>): Promise<unknown[]> {
  return (await readStagedChunks(batch)).flatMap((item) => decompressRecords(item.data as Uint8Array));
}

export interface BatchSnapshot {
  readonly status: string;
  readonly entities: readonly string[];
  readonly recordCount: number;
  readonly skippedOverCap: number;
  readonly chunks: readonly string[];
}

/** What a connector reads in the batch status, and which chunks the table holds for the batch. */
export async function snapshot(batch: TestBatch): Promise<BatchSnapshot> {
  const response = await readStatus(batch);
  expect(response.status, response.text).toBe(200);
  const { status, entities, recordCount, skippedOverCap } = response.json;
  return { status, entities, recordCount, skippedOverCap, chunks: await chunkKeys(batch) };
}

/** The drain may move a committed batch on at any moment; every other status stays put unless a call moves it. */
function statusMayMove(status: string): boolean {
  return status === 'committed' || status === 'draining';
}

export async function expectUnchanged(batch: TestBatch, before: BatchSnapshot): Promise<void> {
  const after = await snapshot(batch);
  expect({ ...after, status: statusMayMove(before.status) ? before.status : after.status }).toEqual(before);
  if (statusMayMove(before.status)) expect(['committed', 'draining', 'drained']).toContain(after.status);
}

/** Sends a call the service must refuse, checks the error, and checks that the batch is exactly as it was before. */
export async function expectRefusedWithoutEffect(
  batch: TestBatch,
  send: () => Promise<ApiResponse>,
  expected: ExpectedError,
): Promise<void> {
  const before = await snapshot(batch);
  const response = await send();
  expectError(response, expected);
  await expectUnchanged(batch, before);
}

/** Stages a valid call and checks that exactly its records were added, after those already in the batch. */
export async function expectStaged(batch: TestBatch, body: { entity: string; records: readonly unknown[] }): Promise<void> {
  const before = await snapshot(batch);
  const storedBefore = await stagedRecords(batch);
  const response = await stage(batch, body);
  expect(response.status, response.text).toBe(202);
  expect(response.json).toEqual({ staged: body.records.length });
  const after = await snapshot(batch);
  expect(after).toMatchObject({
    status: 'open',
    recordCount: before.recordCount + body.records.length,
    skippedOverCap: before.skippedOverCap,
  });
  expect(after.entities).toContain(body.entity);
  expect(await stagedRecords(batch)).toEqual([...storedBefore, ...body.records]);
}

export async function waitForStatus(batch: TestBatch, wanted: string, timeoutMs = 10_000): Promise<ApiResponse['json']> {
  return waitForBatch(batch.key, batch.batchId, [wanted], { timeoutMs });
}

/** Valid product records with distinct skus, from the sample catalogue. */
export function sampleProducts(count: number, prefix = `${randomUUID().slice(0, 8)}-`): ProductRecord[] {
  return sampleCatalogue({ products: count, customers: 0, quotes: 0, orders: 0 }, { seed: 7, prefix }).product;
}

/** An open batch that already holds one accepted call of three products: a refused call must leave that call as it is. */
export async function batchWithProducts(caller: ConnectorCaller): Promise<TestBatch> {
  const batch = await openTestBatch(caller);
  const response = await stage(batch, { entity: 'product', records: sampleProducts(3) });
  expect(response.status, response.text).toBe(202);
  return batch;
}

type Fields = Record<string, unknown>;

/** A copy of `record` without `field`, for testing a field that must be sent. */
export function without(record: Fields, field: string): Fields {
  return Object.fromEntries(Object.entries(record).filter(([name]) => name !== field));
}

export function productRecord(fields: Fields = {}): Fields {
  return { sku: 'SKU-1', name: 'Hex bolt M8', category: 'Fasteners', costCents: 120, currentPriceCents: 180, ...fields };
}

export function customerRecord(fields: Fields = {}): Fields {
  return { name: 'Acme Ltd', externalId: 'C-1', ...fields };
}

export function quoteLine(fields: Fields = {}): Fields {
  return { productSku: 'SKU-1', quantity: 10, costCents: 120, quotedPriceCents: 170, pricingDecisionId: null, ...fields };
}

export function quoteRecord(fields: Fields = {}): Fields {
  return {
    externalId: 'Q-1',
    customerExternalId: 'C-1',
    outcome: 'open',
    createdAt: '2024-03-01T10:00:00Z',
    lines: [quoteLine()],
    ...fields,
  };
}

export function orderLine(fields: Fields = {}): Fields {
  return { productSku: 'SKU-1', quantity: 10, costCents: 120, soldPriceCents: 175, ...fields };
}

export function orderRecord(fields: Fields = {}): Fields {
  return { externalId: 'O-1', customerExternalId: 'C-1', currency: 'USD', soldAt: '2024-03-01T10:00:00Z', lines: [orderLine()], ...fields };
}

// Whole ingest runs, by key and batch id, against the shared stack or a stack of a test's own (baseUrl).

export async function openBatchWith(key: string, baseUrl?: string): Promise<string> {
  const opened = await call('/api/v1/ingest/batches', { method: 'POST', key, baseUrl });
  expect(opened.status).toBe(201);
  return opened.json.batchId as string;
}

/** Stages every kind of a catalogue in rank order, in calls of at most `perCall` records. */
export async function stageCatalogue(
  key: string,
  batchId: string,
  catalogue: SampleCatalogue,
  options: { perCall?: number; baseUrl?: string } = {},
) {
  const perCall = options.perCall ?? 1000;
  for (const entity of entityKinds) {
    const records = catalogue[entity];
    for (let start = 0; start < records.length; start += perCall) {
      const response = await call(`/api/v1/ingest/batches/${batchId}/records`, {
        method: 'POST',
        key,
        body: { entity, records: records.slice(start, start + perCall) },
        baseUrl: options.baseUrl,
      });
      expect(response.status, response.text).toBe(202);
    }
  }
}

export async function commitBatch(key: string, batchId: string, baseUrl?: string): Promise<string> {
  const response = await call(`/api/v1/ingest/batches/${batchId}/commit`, { method: 'POST', key, baseUrl });
  expect(response.status, response.text).toBe(202);
  return response.json.jobId as string;
}

/** Polls the batch status until it reaches one of `until`; the body is ApiResponse's, asserted field by field. */
export async function waitForBatch(
  key: string,
  batchId: string,
  until: readonly string[],
  options: { baseUrl?: string; timeoutMs?: number } = {},
): Promise<ApiResponse['json']> {
  const deadline = Date.now() + (options.timeoutMs ?? 20_000);
  for (;;) {
    const response = await call(`/api/v1/ingest/batches/${batchId}`, { key, baseUrl: options.baseUrl });
    expect(response.status).toBe(200);
    if (until.includes(response.json.status)) return response.json;
    if (Date.now() > deadline) throw new Error(`batch ${batchId} still ${response.json.status}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Polls a drained batch's status until the bands job after it has recomputed what it touched. */
export async function waitForBands(key: string, batchId: string, options: { baseUrl?: string; timeoutMs?: number } = {}): Promise<void> {
  const deadline = Date.now() + (options.timeoutMs ?? 20_000);
  for (;;) {
    const response = await call(`/api/v1/ingest/batches/${batchId}`, { key, baseUrl: options.baseUrl });
    if (response.json?.bandsRecomputedAt) return;
    if (Date.now() > deadline) throw new Error(`the bands of batch ${batchId} are still not recomputed`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Stages and commits a batch of a workspace's connector, waits for its recommendations, and answers its status. */
export async function syncUntilPriced(
  workspace: TestWorkspace,
  catalogue: Partial<SampleCatalogue>,
): Promise<{ batchId: string; status: ApiResponse['json'] }> {
  const batchId = await openBatchWith(workspace.keys.connector);
  await stageCatalogue(workspace.keys.connector, batchId, { product: [], customer: [], quote: [], order: [], ...catalogue });
  await commitBatch(workspace.keys.connector, batchId);
  const drained = await waitForBatch(workspace.keys.connector, batchId, ['drained', 'failed'], { timeoutMs: 60_000 });
  expect(drained.status, JSON.stringify(drained)).toBe('drained');
  await waitForBands(workspace.keys.connector, batchId, { timeoutMs: 60_000 });
  return { batchId, status: await waitForBatch(workspace.keys.connector, batchId, ['drained']) };
}

/**
 * A workspace's canonical data (everything but batch partitions), with what differs between two runs of the same
 * records taken out: the workspace id, the batch that brought each item and when; derived items only if asked for.
 */
export async function dumpCanonical(workspaceId: string, options: { derived?: boolean } = {}): Promise<Record<string, unknown>[]> {
  const items = (await readWorkspaceItems(workspaceId)).filter((item) => String(item.PK).startsWith(`WS#${workspaceId}#`));
  // Bands, the list markups kept beside them and recommendations carry the moment they were computed, and usage and the cost ledger the moment of each
  // request; they have tests of their own, and are left out unless asked for. The bands lease exists only while a bands job runs.
  // A recommendation's rows in the console's orderings, and the category list, are written with it.
  const derived = (item: Record<string, unknown>) =>
    /Bands$|^bandsLease$|^listMarkups$|^recommendation$|^recommendationRow$|^recommendationCategories$/.test(String(item.type));
  // Webhook events and their deliveries are the record of what happened to the data, not the data: each run has its own,
  // and the workspace's webhook line holds the moment its next event may go out.
  const kept = items.filter(
    (item) =>
      !/#(BATCH|USAGE|CALL|WHEVENT|WHDELIVERIES)#|#COST$/.test(String(item.PK)) &&
      item.type !== 'webhookLine' &&
      (options.derived === true || !derived(item)),
  );
  // History log items are keyed by the batch and chunk that wrote them, which differ run to run: what they hold is
  // compared instead, one item per category with every entry in a fixed order.
  const logged = new Map<string, string[]>();
  for (const item of kept) {
    if (item.type !== 'historyLog') continue;
    const entries = logged.get(String(item.category)) ?? [];
    entries.push(...logEntriesOf(item).map(({ expiresAt: _expiresAt, ...entry }) => JSON.stringify(entry)));
    logged.set(String(item.category), entries);
  }
  const logs: Record<string, unknown>[] = [...logged].map(([category, entries]) => ({
    PK: 'HLOG',
    SK: category,
    type: 'historyLog',
    entries: entries.sort(),
  }));
  return [...kept.filter((item) => item.type !== 'historyLog'), ...logs]
    .map((item) => {
      // A document's chunk names the batch that wrote it, as its batchId does. What the bands job writes onto a product
      // (its bands, its recent order lines' figures, its quote rate) lands whenever that job runs, before or after the dump.
      const {
        batchId: _batchId,
        chunk: _chunk,
        syncedAt: _syncedAt,
        expiresAt: _expiresAt,
        segmentBands: _bands,
        orderLines: _orderLines,
        recentQuotes: _recentQuotes,
        bandsUpdatedAt: _at,
        ...fields
      } = item;
      // An adherence aggregate and a product's month of margins mark the last chunk of each batch they took by the
      // batch's id, which differs run to run.
      const marked = item.type === 'adherenceAggregate' || item.type === 'productMargin';
      const rest = Object.fromEntries(Object.entries(fields).filter(([name]) => !marked || !name.startsWith('m_')));
      // What an item keeps packed is compared as what it holds.
      if (rest.packed instanceof Uint8Array) rest.packed = unpackJson(rest.packed);
      return JSON.parse(JSON.stringify(rest).replaceAll(workspaceId, 'WS')) as Record<string, unknown>;
    })
    .sort((a, b) => `${a.PK}|${a.SK}`.localeCompare(`${b.PK}|${b.SK}`));
}

/** The lines in a dump's history log items, as `dumpCanonical` compares them. */
export function loggedLines(dump: readonly Record<string, unknown>[]): unknown[] {
  return dump
    .filter((item) => item.type === 'historyLog')
    .flatMap((item) => (item.entries as string[]).flatMap((entry) => (JSON.parse(entry) as { lines?: unknown[] }).lines ?? []));
}
