// The demo workspace local mode creates on first start: a workspace, a connector and one key of each kind.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { issueApiKey } from '../../shared/api-keys/repository.ts';
import { createConnector } from '../../shared/connectors/repository.ts';
import { createWorkspace, getWorkspace } from '../../shared/workspaces/repository.ts';

export interface DemoWorkspace {
  readonly workspaceId: string;
  readonly connectorId: string;
  /** Plaintext keys by kind. Only a local demo keeps them: the service itself stores hashes alone. */
  readonly keys: {
    readonly erp: string;
    readonly storefront: string;
    readonly connector: string;
    readonly overviewLive: string;
    readonly overviewTest: string;
  };
}

/** Reuses the demo of an earlier start when its workspace is still in the table; otherwise creates one. */
export async function seedDemo(savedAt: string | undefined): Promise<{ demo: DemoWorkspace; created: boolean }> {
  if (savedAt && existsSync(savedAt)) {
    const saved = JSON.parse(readFileSync(savedAt, 'utf8')) as DemoWorkspace;
    if (await getWorkspace(saved.workspaceId)) return { demo: saved, created: false };
  }
  const workspace = await createWorkspace({ name: 'Demo Seller', baseCurrency: 'USD' });
  const workspaceId = workspace.workspaceId;
  const connector = await createConnector({ workspaceId, name: 'Demo ERP', receivesWritebacks: true });
  const key = async (grant: Omit<Parameters<typeof issueApiKey>[0], 'workspaceId'>) => (await issueApiKey({ workspaceId, ...grant })).key;
  const demo: DemoWorkspace = {
    workspaceId,
    connectorId: connector.connectorId,
    keys: {
      erp: await key({ family: 'svc_live', scopes: ['erp'] }),
      storefront: await key({ family: 'svc_live', scopes: ['storefront'] }),
      connector: await key({ family: 'svc_live', scopes: ['connector'], connectorId: connector.connectorId }),
      overviewLive: await key({ family: 'pw_live', scopes: [] }),
      overviewTest: await key({ family: 'pw_test', scopes: [] }),
    },
  };
  if (savedAt) writeFileSync(savedAt, `${JSON.stringify(demo, null, 2)}\n`, { mode: 0o600 });
  return { demo, created: true };
}
