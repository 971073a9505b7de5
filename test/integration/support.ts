// What integration tests share: calls through the local gateway, and a fresh workspace with keys for each test.
import { inject } from 'vitest';
import { CONTRACT_VIOLATION_HEADER } from '#lib/local/gateway.ts';
import { createWorkspaceWithKeys, type WorkspaceWithKeys } from '#lib/local/seed.ts';
import { updateWorkspace } from '#shared/workspaces/repository.ts';

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
  failOnContractViolation(response.headers.get(CONTRACT_VIOLATION_HEADER));
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, headers: response.headers, text, json };
}

/**
 * The shared gateway judges each answer against the OpenAPI documents in the main process; its verdict comes back in a
 * header, and fails the test whose request it was, before the test reads an answer the contract does not allow.
 */
export function failOnContractViolation(violation: string | null | undefined): void {
  if (violation) throw new Error(`The answer breaks the OpenAPI contract: ${violation}`);
}

export type TestWorkspace = WorkspaceWithKeys;

/**
 * Each test works in its own workspace, so tests stay independent on one shared table. Its request rates are raised far
 * above the default, so that a test sending requests back to back is never throttled by a limit it is not about; the
 * rate limit's own tests set theirs.
 */
export async function newWorkspace(name = 'Test Seller'): Promise<TestWorkspace> {
  const workspace = await createWorkspaceWithKeys(name);
  await updateWorkspace(workspace.workspaceId, { rateLimit: UNTHROTTLED_RATE, overviewRateLimit: UNTHROTTLED_RATE });
  return workspace;
}

const UNTHROTTLED_RATE = 100_000;
