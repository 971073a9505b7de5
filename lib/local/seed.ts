// Workspaces made for people to try the service: the demo local mode creates on first start, and the same shape for tests.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { issueApiKey } from '#shared/api-keys/repository.ts';
import { OPERATOR } from '#shared/api-keys/schema.ts';
import { createConsoleUser } from '#edge/console/users.ts';
import { ApiError } from '#platform/errors.ts';
import { putItems } from '#platform/table/bulk.ts';
import { createConnector } from '#shared/connectors/repository.ts';
import { entityKinds, type ProductRecord } from '#shared/records/schema.ts';
import { keys } from '#platform/table/keys.ts';
import { newTaskItem } from '#shared/writebacks/tasks.ts';
import { createWorkspace, getWorkspace } from '#shared/workspaces/repository.ts';
import { type CatalogueSize, sampleCatalogue } from './sample-catalogue.ts';

type KeyKind = 'erp' | 'storefront' | 'connector' | 'pwLive' | 'pwTest';

export interface WorkspaceWithKeys {
  readonly workspaceId: string;
  readonly connectorId: string;
  /** Plaintext keys, one of each kind. Only local tools keep them: the service itself stores hashes alone. */
  readonly keys: Readonly<Record<KeyKind, string>>;
  readonly keyIds: Readonly<Record<KeyKind, string>>;
}

/** A workspace, one connector that receives write-backs, and a key of each kind. */
export async function createWorkspaceWithKeys(name: string): Promise<WorkspaceWithKeys> {
  const { workspaceId } = await createWorkspace({ name, baseCurrency: 'USD' });
  const { connectorId } = await createConnector({ workspaceId, name: `${name} ERP`, receivesWritebacks: true });
  const [erp, storefront, connector, pwLive, pwTest] = await Promise.all([
    issueApiKey({ workspaceId, name: 'ERP price requests', family: 'svc_live', scopes: ['erp'], createdBy: OPERATOR }),
    issueApiKey({ workspaceId, name: 'Storefront', family: 'svc_live', scopes: ['storefront'], createdBy: OPERATOR }),
    issueApiKey({ workspaceId, name: 'ERP connector', family: 'svc_live', scopes: ['connector'], connectorId, createdBy: OPERATOR }),
    issueApiKey({ workspaceId, name: 'Reporting (live)', family: 'pw_live', scopes: [], createdBy: OPERATOR }),
    issueApiKey({ workspaceId, name: 'Reporting (sandbox)', family: 'pw_test', scopes: [], createdBy: OPERATOR }),
  ]);
  return {
    workspaceId,
    connectorId,
    keys: { erp: erp.key, storefront: storefront.key, connector: connector.key, pwLive: pwLive.key, pwTest: pwTest.key },
    keyIds: { erp: erp.keyId, storefront: storefront.keyId, connector: connector.keyId, pwLive: pwLive.keyId, pwTest: pwTest.keyId },
  };
}

/** The demo's console user, with every role; its password is kept beside the demo keys so that each start prints it. */
export interface DemoConsoleUser {
  readonly email: string;
  readonly password: string;
}

export type DemoWorkspace = WorkspaceWithKeys & { readonly console?: DemoConsoleUser; readonly layout?: number };

/**
 * The layout a demo saved now is in; a demo saved in an earlier one (or before the number was kept) is upgraded once.
 * 2: the console's recommendation rows and category list, and per-product monthly margins.
 */
export const DEMO_LAYOUT = 2;

export const DEMO_CONSOLE_EMAIL = 'demo@example.com';

/**
 * A console user of the demo workspace with all three roles. Emails are unique across workspaces: when data of an
 * earlier demo holds the usual address, the user gets one named after the workspace.
 */
export async function createDemoConsoleUser(workspaceId: string): Promise<DemoConsoleUser> {
  const roles = ['admin', 'pricing', 'finance'] as const;
  try {
    const { email, password } = await createConsoleUser({ workspaceId, email: DEMO_CONSOLE_EMAIL, roles, createdBy: OPERATOR.id });
    return { email, password };
  } catch (error) {
    if (!(error instanceof ApiError && error.param === 'email')) throw error;
    const { email, password } = await createConsoleUser({
      workspaceId,
      email: `demo-${workspaceId.slice(3, 13).toLowerCase()}@example.com`,
      roles,
      createdBy: OPERATOR.id,
    });
    return { email, password };
  }
}

/** Reuses the demo of an earlier start when its workspace is still in the table; otherwise creates one. */
export async function seedDemo(
  savedAt: string | undefined,
  /** Brings a workspace of an earlier release up to date: the admin program's migrations, which local mode does not import. */
  upgradeWorkspace: (workspaceId: string) => Promise<void>,
): Promise<{ demo: DemoWorkspace & { console: DemoConsoleUser }; created: boolean }> {
  const save = (demo: DemoWorkspace) => {
    if (savedAt) writeFileSync(savedAt, `${JSON.stringify(demo, null, 2)}\n`, { mode: 0o600 });
  };
  if (savedAt && existsSync(savedAt)) {
    const saved = JSON.parse(readFileSync(savedAt, 'utf8')) as DemoWorkspace;
    if (await getWorkspace(saved.workspaceId)) {
      // A demo saved before the console existed gets its console user now, its keys their listing items, and its
      // products, batches and tasks theirs; and a demo drained a line item per line has its history moved.
      const outdated = !saved.console || (saved.layout ?? 1) < DEMO_LAYOUT;
      if (outdated) await upgradeWorkspace(saved.workspaceId);
      const demo = { ...saved, console: saved.console ?? (await createDemoConsoleUser(saved.workspaceId)), layout: DEMO_LAYOUT };
      if (outdated) save(demo);
      return { demo, created: false };
    }
  }
  const workspace = await createWorkspaceWithKeys('Demo Seller');
  const demo = { ...workspace, console: await createDemoConsoleUser(workspace.workspaceId), layout: DEMO_LAYOUT };
  save(demo);
  return { demo, created: true };
}

/** A small seller's worth of data for the demo: enough to see ingest work and, later, prices with history behind them. */
export const demoCatalogueSize: CatalogueSize = { products: 50, customers: 12, quotes: 60, orders: 120 };

/**
 * Stages a sample catalogue through the service's own ingest endpoints, as a connector would, and commits it; the
 * drain then runs in the background. Returns the batch id.
 */
export async function ingestSampleCatalogue(gatewayUrl: string, connectorKey: string): Promise<string> {
  const headers = { authorization: `Bearer ${connectorKey}`, 'content-type': 'application/json' };
  const send = async (path: string, body?: unknown) => {
    const response = await fetch(`${gatewayUrl}/api/v1/ingest/batches${path}`, {
      method: 'POST',
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`POST /api/v1/ingest/batches${path} answered ${response.status}: ${text}`);
    return JSON.parse(text) as Record<string, string>;
  };
  const { batchId } = await send('');
  const catalogue = sampleCatalogue(demoCatalogueSize, { now: new Date() });
  for (const entity of entityKinds) await send(`/${batchId}/records`, { entity, records: catalogue[entity] });
  await send(`/${batchId}/commit`);
  return batchId as string;
}

/** Demo quotes quoted back with the decision ids of earlier price calls, so that the adherence report has a history. */
export const DEMO_ADHERENCE_QUOTES = 40;
const DEMO_REASONS = [null, null, 'Competitor match', 'Volume deal', 'Strategic account', 'Rounded price'] as const;

type GatewayCall = (key: string, method: string, path: string, body?: unknown) => Promise<Record<string, unknown>>;

/** A call through the gateway with a key, as an ERP or connector makes it; an answer that is not ok is thrown. */
function gatewayCall(gatewayUrl: string): GatewayCall {
  return async (key, method, path, body) => {
    const response = await fetch(`${gatewayUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'idempotency-key': crypto.randomUUID() },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`${method} ${path} answered ${response.status}: ${text}`);
    return JSON.parse(text) as Record<string, unknown>;
  };
}

/** Reads the batch's status every half second until it has drained; a failed batch, or two minutes, is thrown. */
async function waitUntilDrained(call: GatewayCall, key: string, batchId: string): Promise<void> {
  for (let waited = 0; ; waited += 500) {
    const status = await call(key, 'GET', `/api/v1/ingest/batches/${batchId}`);
    if (status.status === 'drained') break;
    if (status.status === 'failed' || waited > 120_000) throw new Error(`the sample catalogue did not drain: ${JSON.stringify(status)}`);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

/** Overridden upwards mostly loses, downwards mostly wins: the story the report should tell about the demo. */
function adherenceOutcome(i: number, above: boolean, below: boolean): 'won' | 'lost' | 'open' | undefined {
  if (above) return i % 4 === 0 ? 'won' : 'lost';
  if (below) return i % 4 === 0 ? 'lost' : 'won';
  return (['lost', 'won', 'won', 'open'] as const)[i % 4];
}

/** A quote naming a decision id the service never issued: the report counts it apart. */
function unknownDecisionQuote(first: { customerExternalId: string; lines: Array<Record<string, unknown>> }, now: number) {
  return {
    externalId: 'ADH-Q-UNKNOWN',
    customerExternalId: first.customerExternalId,
    outcome: 'open',
    createdAt: new Date(now).toISOString(),
    lines: [{ ...first.lines[0], pricingDecisionId: 'pd_unknownDecision00000000000000000' }],
  };
}

/** The quote's lines as a salesperson quoted them: followed on two lines in three; otherwise 6% under (a reason given) or 5% over the guided price. */
function adherenceQuoteLines(
  i: number,
  products: ReadonlyArray<ProductRecord | undefined>,
  lines: ReadonlyArray<{ quantity: number }>,
  priced: Array<Record<string, unknown>>,
) {
  return priced.flatMap((result, index) => {
    const product = products[index];
    if (result.ok !== true || !product) return [];
    const guided = Number(result.priceCents);
    const choice = (i + index) % 6;
    const quoted = choice < 4 ? guided : choice === 4 ? Math.round(guided * 0.94) : Math.round(guided * 1.05);
    return [
      {
        productSku: product.sku,
        quantity: lines[index]?.quantity ?? 1,
        costCents: product.costCents,
        quotedPriceCents: quoted,
        pricingDecisionId: result.pricingDecisionId,
        serviceQuotedPriceCents: guided,
        salespersonPriceReason: choice < 4 ? null : DEMO_REASONS[(i + index) % DEMO_REASONS.length],
      },
    ];
  });
}

/**
 * After the sample catalogue has drained: prices two lines per quote through POST /api/v1/prices, as an ERP would,
 * then stages quotes that carry those decision ids (followed on most, overridden up or down on some, with the
 * salesperson's reason), orders naming some of them, and one quote with an id the service never issued. Returns the
 * batch id of those quotes.
 */
export async function ingestAdherenceHistory(gatewayUrl: string, demo: WorkspaceWithKeys, catalogueBatchId: string): Promise<string> {
  const call = gatewayCall(gatewayUrl);
  await waitUntilDrained(call, demo.keys.connector, catalogueBatchId);
  const catalogue = sampleCatalogue(demoCatalogueSize, { now: new Date() });
  // Customers priced in the base currency: the demo's report then needs no exchange rates.
  const customers = catalogue.customer.filter((customer) => (customer.currency ?? 'USD') === 'USD');
  const now = Date.now();
  const quote: Array<Record<string, unknown>> = [];
  const order: Array<Record<string, unknown>> = [];
  for (let i = 0; i < DEMO_ADHERENCE_QUOTES; i++) {
    const customer = customers[i % customers.length];
    const products = [catalogue.product[(i * 3) % catalogue.product.length], catalogue.product[(i * 7 + 1) % catalogue.product.length]];
    const lines = products.map((product) => ({ productSku: product?.sku, quantity: 5 + (i % 4) * 5, customerId: customer?.externalId }));
    const priced = (await call(demo.keys.erp, 'POST', '/api/v1/prices', { lines })).lines as Array<Record<string, unknown>>;
    const quoteLines = adherenceQuoteLines(i, products, lines, priced);
    if (quoteLines.length === 0) continue;
    const externalId = `ADH-Q-${i}`;
    const above = quoteLines.some((line) => line.quotedPriceCents > line.serviceQuotedPriceCents * 1.02);
    const below = quoteLines.some((line) => line.quotedPriceCents < line.serviceQuotedPriceCents * 0.98);
    const outcome = adherenceOutcome(i, above, below);
    const createdAt = new Date(now - (i % 20) * 86_400_000).toISOString();
    quote.push({ externalId, customerExternalId: customer?.externalId, outcome, createdAt, lines: quoteLines });
    if (outcome === 'won' && i % 2 === 0) {
      order.push({
        externalId: `ADH-O-${i}`,
        customerExternalId: customer?.externalId,
        sourceQuoteExternalId: externalId,
        currency: 'USD',
        soldAt: createdAt,
        lines: quoteLines.map((line) => ({
          productSku: line.productSku,
          quantity: line.quantity,
          costCents: line.costCents,
          soldPriceCents: line.quotedPriceCents,
        })),
      });
    }
  }
  const first = quote[0] as { customerExternalId: string; lines: Array<Record<string, unknown>> } | undefined;
  if (first) quote.push(unknownDecisionQuote(first, now));
  const batch = await call(demo.keys.connector, 'POST', '/api/v1/ingest/batches');
  const batchId = String(batch.batchId);
  await call(demo.keys.connector, 'POST', `/api/v1/ingest/batches/${batchId}/records`, { entity: 'quote', records: quote });
  if (order.length > 0)
    await call(demo.keys.connector, 'POST', `/api/v1/ingest/batches/${batchId}/records`, { entity: 'order', records: order });
  await call(demo.keys.connector, 'POST', `/api/v1/ingest/batches/${batchId}/commit`);
  return batchId;
}

/** The products seeded tasks price, below every task's price. */
async function putSeededProducts(workspaceId: string, count: number, sku: (index: number) => string): Promise<void> {
  await putItems(
    Array.from({ length: count }, (_, index) => ({
      ...keys.product(workspaceId, sku(index)),
      type: 'product',
      sku: sku(index),
      name: `Seeded product ${index}`,
      category: 'Seeded',
      costCents: 700,
      // Below every task's price, so that an applied task visibly changes it.
      currentPriceCents: 900,
    })),
  );
}

/** The latest-approval item an approval would leave on each SKU, naming its tasks. */
function latestApprovalItems(workspaceId: string, items: ReadonlyArray<Record<string, unknown>>, startMs: number) {
  const tasksOf = new Map<string, string[]>();
  for (const item of items) tasksOf.set(String(item.productSku), [...(tasksOf.get(String(item.productSku)) ?? []), String(item.taskId)]);
  return [...tasksOf].map(([productSku, taskIds]) => ({
    ...keys.latestApproval(workspaceId, productSku),
    type: 'latestApproval',
    version: 1,
    approvalId: 'apv_seed',
    approvedAt: new Date(startMs).toISOString(),
    taskIds,
  }));
}

/**
 * Pending write-back tasks for one connector, as approvals would leave them, written in bulk for tests and the
 * benchmark: claims on a thousand tasks need not approve a thousand prices. Task i prices product `SEED-i`, which is
 * written too when `products` is set, and is a millisecond older than task i + 1; `skus` names the products instead.
 * Each SKU gets the latest-approval item an approval would leave, naming its tasks, all of sequence 1.
 * Returns the task ids in that order.
 */
export async function seedPendingTasks(
  workspaceId: string,
  connectorId: string,
  count: number,
  options: { startMs?: number; products?: boolean; skus?: readonly string[] } = {},
): Promise<string[]> {
  const startMs = options.startMs ?? Date.now() - 60_000;
  const sku = (index: number) => options.skus?.[index] ?? `SEED-${index}`;
  if (options.products) await putSeededProducts(workspaceId, count, sku);
  const items = Array.from({ length: count }, (_, index) =>
    newTaskItem({
      workspaceId,
      connectorId,
      channel: 'Seeded ERP',
      approvalId: `apv_seed${index}`,
      priceCents: 1000 + index,
      reasonSummary: 'seeded',
      createdAt: new Date(startMs + index).toISOString(),
      sequence: 1,
      waitsFor: undefined,
      recommendation: {
        status: 'priced',
        sku: sku(index),
        currency: 'USD',
        currentPriceCents: 1000,
        pricingDecisionId: `pd_seed${index}`,
        updatedAt: new Date(startMs).toISOString(),
        recommendedPriceCents: 1000 + index,
        floorCents: 1,
        rationale: 'seeded',
        reasonSummary: 'seeded',
        drivers: [],
        confidence: 'low',
        exchangeRateToBase: 1,
      },
    }),
  );
  const latest = latestApprovalItems(workspaceId, items, startMs);
  await putItems([...items, ...latest]);
  return items.map((item) => String(item.taskId));
}
