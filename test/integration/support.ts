// What integration tests share: calls through the local gateway, and a fresh workspace with keys for each test.
import { inject } from 'vitest';
import { issueApiKey } from '../../shared/api-keys/repository.ts';
import { createConnector } from '../../shared/connectors/repository.ts';
import { createWorkspace } from '../../shared/workspaces/repository.ts';

export interface ApiResponse {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- response bodies are asserted field by field.
  readonly json: any;
}

export interface CallOptions {
  readonly method?: string;
  readonly key?: string;
  /** Sent as JSON unless it is already a string. */
  readonly body?: unknown;
  readonly headers?: Record<string, string>;
  readonly baseUrl?: string;
}

export async function call(path: string, options: CallOptions = {}): Promise<ApiResponse> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.key) headers.authorization = `Bearer ${options.key}`;
  let body: string | undefined;
  if (options.body !== undefined) {
    body = typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
    headers['content-type'] ??= 'application/json';
  }
  const response = await fetch(`${options.baseUrl ?? inject('stack').gatewayUrl}${path}`, {
    method: options.method ?? 'GET',
    headers,
    body,
  });
  const text = await response.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, headers: response.headers, text, json };
}

export interface TestWorkspace {
  readonly workspaceId: string;
  readonly connectorId: string;
  readonly keys: {
    readonly erp: string;
    readonly storefront: string;
    readonly connector: string;
    readonly pwLive: string;
    readonly pwTest: string;
  };
  readonly keyIds: Record<'erp' | 'storefront' | 'connector' | 'pwLive' | 'pwTest', string>;
}

/** Each test works in its own workspace, so tests stay independent on one shared table. */
export async function newWorkspace(name = 'Test Seller'): Promise<TestWorkspace> {
  const { workspaceId } = await createWorkspace({ name });
  const { connectorId } = await createConnector({ workspaceId, name: 'Test ERP', receivesWritebacks: true });
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
