// Unit tests of issuing keys: the hash that is stored and the rules a grant must meet.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { checkGrant, hashApiKey } from './repository.ts';

describe('issuing keys', () => {
  it('stores a key as the hex SHA-256 of its plaintext', () => {
    const key = 'svc_live_abc';
    expect(hashApiKey(key)).toBe(createHash('sha256').update(key).digest('hex'));
    expect(hashApiKey(key)).not.toContain('abc');
  });

  it('needs at least one scope on a svc_live key', () => {
    expect(() => checkGrant({ workspaceId: 'ws', family: 'svc_live', scopes: [] })).toThrow(
      expect.objectContaining({ code: 'invalid_request' }),
    );
    expect(() => checkGrant({ workspaceId: 'ws', family: 'svc_live', scopes: ['erp', 'storefront'] })).not.toThrow();
  });

  it('gives overview keys no scopes', () => {
    expect(() => checkGrant({ workspaceId: 'ws', family: 'pw_live', scopes: ['erp'] })).toThrow(
      expect.objectContaining({ code: 'invalid_request' }),
    );
    expect(() => checkGrant({ workspaceId: 'ws', family: 'pw_test', scopes: [] })).not.toThrow();
  });

  it('ties a connector-scope key to exactly one connector, and no other key to any', () => {
    expect(() => checkGrant({ workspaceId: 'ws', family: 'svc_live', scopes: ['connector'] })).toThrow(
      expect.objectContaining({ code: 'invalid_request' }),
    );
    expect(() => checkGrant({ workspaceId: 'ws', family: 'svc_live', scopes: ['erp'], connectorId: 'con' })).toThrow(
      expect.objectContaining({ code: 'invalid_request' }),
    );
    expect(() => checkGrant({ workspaceId: 'ws', family: 'svc_live', scopes: ['erp', 'connector'], connectorId: 'con' })).not.toThrow();
  });
});
