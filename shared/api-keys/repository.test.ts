import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { checkGrant, hashApiKey } from './repository.ts';

function codeOf(run: () => unknown): string | undefined {
  try {
    run();
    return undefined;
  } catch (error) {
    return (error as { code?: string }).code;
  }
}

describe('issuing keys', () => {
  it('stores a key as the hex SHA-256 of its plaintext', () => {
    const key = 'svc_live_abc';
    expect(hashApiKey(key)).toBe(createHash('sha256').update(key).digest('hex'));
    expect(hashApiKey(key)).not.toContain('abc');
  });

  it('needs at least one scope on a svc_live key', () => {
    expect(codeOf(() => checkGrant({ workspaceId: 'ws', family: 'svc_live', scopes: [] }))).toBe('invalid_request');
    expect(codeOf(() => checkGrant({ workspaceId: 'ws', family: 'svc_live', scopes: ['erp', 'storefront'] }))).toBeUndefined();
  });

  it('gives overview keys no scopes', () => {
    expect(codeOf(() => checkGrant({ workspaceId: 'ws', family: 'pw_live', scopes: ['erp'] }))).toBe('invalid_request');
    expect(codeOf(() => checkGrant({ workspaceId: 'ws', family: 'pw_test', scopes: [] }))).toBeUndefined();
  });

  it('ties a connector-scope key to exactly one connector, and no other key to any', () => {
    expect(codeOf(() => checkGrant({ workspaceId: 'ws', family: 'svc_live', scopes: ['connector'] }))).toBe('invalid_request');
    expect(codeOf(() => checkGrant({ workspaceId: 'ws', family: 'svc_live', scopes: ['erp'], connectorId: 'con' }))).toBe(
      'invalid_request',
    );
    expect(
      codeOf(() => checkGrant({ workspaceId: 'ws', family: 'svc_live', scopes: ['erp', 'connector'], connectorId: 'con' })),
    ).toBeUndefined();
  });
});
