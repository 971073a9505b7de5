// Unit tests of issuing keys: the hash that is stored, the rules a grant must meet, and which keys can be rotated.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { checkGrant, checkRotatable, hashApiKey } from './repository.ts';
import type { ApiKeyRecord } from './schema.ts';

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

describe('rotating keys', () => {
  const key: ApiKeyRecord = { keyId: 'key_1', workspaceId: 'ws', family: 'pw_live', scopes: [], createdAt: '2026-01-01T00:00:00.000Z' };
  const now = new Date('2026-01-02T00:00:00.000Z');

  it('rotates a key that was never rotated nor revoked', () => {
    expect(() => checkRotatable(key, now)).not.toThrow();
  });

  it('refuses to rotate a key within its grace period, saying it was already rotated and when it stops working', () => {
    const rotated = { ...key, revokeAt: '2026-01-02T00:00:00.001Z' };
    expect(() => checkRotatable(rotated, now)).toThrow(
      expect.objectContaining({
        code: 'invalid_request',
        message: expect.stringContaining('already rotated and stops working at 2026-01-02T00:00:00.001Z'),
      }),
    );
  });

  it('refuses to rotate a key revoked, or whose grace period has ended, as revoked', () => {
    for (const ended of [
      { ...key, revokedAt: '2026-01-01T12:00:00.000Z' },
      { ...key, revokeAt: now.toISOString() },
    ]) {
      expect(() => checkRotatable(ended, now)).toThrow(
        expect.objectContaining({ code: 'invalid_request', message: expect.stringContaining('is revoked') }),
      );
    }
  });
});
