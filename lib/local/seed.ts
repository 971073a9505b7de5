// Workspaces made for people to try the service: the demo local mode creates on first start, and the same shape for tests.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { issueApiKey } from '../../shared/api-keys/repository.ts';
import { putItems } from '../../shared/table/bulk.ts';
import { createConnector } from '../../shared/connectors/repository.ts';
import { entityKinds } from '../../shared/records/schema.ts';
import { keys } from '../../shared/table/keys.ts';
import { newTaskItem } from '../../shared/writebacks/tasks.ts';
import { createWorkspace, getWorkspace } from '../../shared/workspaces/repository.ts';
import { type CatalogueSize, sampleCatalogue } from '../sample-catalogue.ts';

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
    issueApiKey({ workspaceId, family: 'svc_live', scopes: ['erp'] }),
    issueApiKey({ workspaceId, family: 'svc_live', scopes: ['storefront'] }),
    issueApiKey({ workspaceId, family: 'svc_live', scopes: ['connector'], connectorId }),
    issueApiKey({ workspaceId, family: 'pw_live', scopes: [] }),
    issueApiKey({ workspaceId, family: 'pw_test', scopes: [] }),
  ]);
  return {
    workspaceId,
    connectorId,
    keys: { erp: erp.key, storefront: storefront.key, connector: connector.key, pwLive: pwLive.key, pwTest: pwTest.key },
    keyIds: { erp: erp.keyId, storefront: storefront.keyId, connector: connector.keyId, pwLive: pwLive.keyId, pwTest: pwTest.keyId },
  };
}

/** Reuses the demo of an earlier start when its workspace is still in the table; otherwise creates one. */
export async function seedDemo(savedAt: string | undefined): Promise<{ demo: WorkspaceWithKeys; created: boolean }> {
  if (savedAt && existsSync(savedAt)) {
    const saved = JSON.parse(readFileSync(savedAt, 'utf8')) as WorkspaceWithKeys;
    if (await getWorkspace(saved.workspaceId)) return { demo: saved, created: false };
  }
  const demo = await createWorkspaceWithKeys('Demo Seller');
  if (savedAt) writeFileSync(savedAt, `${JSON.stringify(demo, null, 2)}\n`, { mode: 0o600 });
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

/**
 * Pending write-back tasks for one connector, as approvals would leave them, written in bulk for tests and the
 * benchmark: claims on a thousand tasks need not approve a thousand prices. Task i prices product `SEED-i`, which is
 * written too when `products` is set, and is a millisecond older than task i + 1. Returns the task ids in that order.
 */
export async function seedPendingTasks(
  workspaceId: string,
  connectorId: string,
  count: number,
  options: { startMs?: number; products?: boolean } = {},
): Promise<string[]> {
  const startMs = options.startMs ?? Date.now() - 60_000;
  const sku = (index: number) => `SEED-${index}`;
  if (options.products) {
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
  const items = Array.from({ length: count }, (_, index) =>
    newTaskItem({
      workspaceId,
      connectorId,
      channel: 'Seeded ERP',
      approvalId: `apv_seed${index}`,
      priceCents: 1000 + index,
      reasonSummary: 'seeded',
      createdAt: new Date(startMs + index).toISOString(),
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
  await putItems(items);
  return items.map((item) => String(item.taskId));
}
