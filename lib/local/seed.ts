// Workspaces made for people to try the service: the demo local mode creates on first start, and the same shape for tests.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { issueApiKey } from '../../shared/api-keys/repository.ts';
import { createConnector } from '../../shared/connectors/repository.ts';
import { createWorkspace, getWorkspace } from '../../shared/workspaces/repository.ts';

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
