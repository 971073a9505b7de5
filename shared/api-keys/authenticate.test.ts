// Unit tests of authentication: reading the bearer key, the order of checks, and the credential cache.
import { describe, expect, it } from 'vitest';
import type { RouteAuth } from './authenticate.ts';
import type { Workspace } from '#shared/workspaces/schema.ts';
import { workspaceDefaults } from '#shared/workspaces/schema.ts';
import { AUTH_CACHE_MS, authorize, checkFamily, connectorOf, readBearerKey } from './authenticate.ts';
import type { ApiKeyRecord } from './schema.ts';

const workspace: Workspace = {
  ...workspaceDefaults,
  features: [...workspaceDefaults.features],
  workspaceId: 'ws_1',
  name: 'Seller',
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
};
const connectorKey: ApiKeyRecord = {
  keyId: 'key_1',
  workspaceId: 'ws_1',
  family: 'svc_live',
  scopes: ['connector'],
  connectorId: 'con_1',
  createdAt: '2026-01-01T00:00:00.000Z',
};
const ingest: RouteAuth = { family: 'svc_live', scopes: ['connector'] };
const claim: RouteAuth = { family: 'svc_live', scopes: ['connector'], feature: 'writebacks' };
const overview: RouteAuth = { family: 'pw_live', scopes: [], feature: 'overview' };

describe('reading the bearer key', () => {
  it('takes a well-formed key of each family', () => {
    const secret = 'a'.repeat(32);
    expect(readBearerKey(`Bearer svc_live_${secret}`)).toEqual({ key: `svc_live_${secret}`, family: 'svc_live' });
    expect(readBearerKey(`Bearer pw_live_${secret}`).family).toBe('pw_live');
    expect(readBearerKey(`bearer pw_test_${secret}`).family).toBe('pw_test');
  });

  it.each([
    undefined,
    '',
    'Bearer',
    'Basic abc',
    `Token svc_live_${'a'.repeat(32)}`,
    `Bearer svc_live_${'a'.repeat(31)}`,
    `Bearer svc_test_${'a'.repeat(32)}`,
    `Bearer svc_live_${'a'.repeat(31)}!`,
  ])('refuses %j as unauthorized', (header) => {
    expect(() => readBearerKey(header)).toThrow(expect.objectContaining({ code: 'unauthorized' }));
  });

  it('never repeats the key in its message', () => {
    const key = `svc_live_${'Z'.repeat(31)}`;
    try {
      readBearerKey(`Bearer ${key}`);
    } catch (error) {
      expect((error as Error).message).not.toContain(key);
    }
  });
});

describe('authorizing a key for a route', () => {
  it('turns away a key of the other surface by its prefix alone', () => {
    expect(() => checkFamily(ingest, 'pw_live')).toThrow(expect.objectContaining({ code: 'unauthorized' }));
    expect(() => checkFamily(overview, 'svc_live')).toThrow(expect.objectContaining({ code: 'unauthorized' }));
    expect(() => checkFamily(overview, 'pw_test')).not.toThrow();
  });

  it('lets a connector key of an active workspace through, with its connector', () => {
    const principal = authorize(ingest, connectorKey, workspace);
    expect(principal).toMatchObject({ keyId: 'key_1', workspaceId: 'ws_1', connectorId: 'con_1' });
    expect(connectorOf(principal)).toBe('con_1');
  });

  it('checks in the order of the contract: key, scope, workspace status, feature', () => {
    const inactive = { ...workspace, status: 'inactive' as const, features: [] };
    const revoked = { ...connectorKey, revokedAt: '2026-01-02T00:00:00.000Z' };
    const erpKey = { ...connectorKey, scopes: ['erp' as const], connectorId: undefined };

    expect(() => authorize(claim, undefined, inactive)).toThrow(expect.objectContaining({ code: 'unauthorized' }));
    expect(() => authorize(claim, revoked, inactive)).toThrow(expect.objectContaining({ code: 'unauthorized' }));
    expect(() => authorize(claim, { ...connectorKey, family: 'pw_live' }, inactive)).toThrow(
      expect.objectContaining({ code: 'unauthorized' }),
    );
    expect(() => authorize(claim, erpKey, inactive)).toThrow(expect.objectContaining({ code: 'forbidden' }));
    expect(() => authorize(claim, connectorKey, inactive)).toThrow(expect.objectContaining({ code: 'subscription_inactive' }));
    expect(() => authorize(claim, connectorKey, { ...workspace, features: ['overview'] })).toThrow(
      expect.objectContaining({ code: 'feature_not_enabled' }),
    );
    expect(() => authorize(claim, connectorKey, workspace)).not.toThrow();
  });

  it('lets a rotated key work until its grace period ends, and refuses it from then on as revoked', () => {
    const rotated = { ...connectorKey, revokeAt: '2026-01-02T00:00:00.000Z' };
    const end = Date.parse('2026-01-02T00:00:00.000Z');
    expect(() => authorize(ingest, rotated, workspace, end - 1)).not.toThrow();
    expect(() => authorize(ingest, rotated, workspace, end)).toThrow(
      expect.objectContaining({ code: 'unauthorized', message: 'The API key has been revoked.' }),
    );
  });

  it('accepts any one of the scopes a route lists', () => {
    const prices: RouteAuth = { family: 'svc_live', scopes: ['erp', 'storefront'] };
    expect(() => authorize(prices, { ...connectorKey, scopes: ['storefront'] }, workspace)).not.toThrow();
    expect(() => authorize(prices, connectorKey, workspace)).toThrow(expect.objectContaining({ code: 'forbidden' }));
  });

  it('lets a storefront key price only while the workspace has the storefront feature, and an erp key always', () => {
    const prices: RouteAuth = { family: 'svc_live', scopes: ['erp', 'storefront'], featureOfScope: { storefront: 'storefront' } };
    const storefrontKey = { ...connectorKey, scopes: ['storefront' as const], connectorId: undefined };
    const withoutStorefront = { ...workspace, features: ['writebacks' as const, 'overview' as const] };
    expect(() => authorize(prices, storefrontKey, workspace)).not.toThrow();
    expect(() => authorize(prices, storefrontKey, withoutStorefront)).toThrow(
      expect.objectContaining({ code: 'feature_not_enabled', message: 'The workspace does not have the storefront feature.' }),
    );
    expect(() => authorize(prices, { ...storefrontKey, scopes: ['erp'] }, withoutStorefront)).not.toThrow();
    expect(() => authorize(prices, { ...storefrontKey, scopes: ['storefront', 'erp'] }, withoutStorefront)).not.toThrow();
  });

  it('needs no scope on the overview surface, only the family and the feature', () => {
    const pwKey: ApiKeyRecord = { ...connectorKey, family: 'pw_test', scopes: [], connectorId: undefined };
    expect(() => authorize(overview, pwKey, workspace)).not.toThrow();
    expect(() => authorize(overview, pwKey, { ...workspace, features: ['writebacks'] })).toThrow(
      expect.objectContaining({ code: 'feature_not_enabled' }),
    );
  });

  it('refuses a connector route to a key that belongs to no connector', () => {
    const principal = authorize(
      { family: 'svc_live', scopes: [] },
      { ...connectorKey, scopes: ['erp'], connectorId: undefined },
      workspace,
    );
    expect(() => connectorOf(principal)).toThrow(expect.objectContaining({ code: 'forbidden' }));
  });
});

describe('the per-instance credential cache', () => {
  it('takes a revoked key or a changed workspace into account within a minute', () => {
    expect(AUTH_CACHE_MS).toBeLessThanOrEqual(60_000);
  });
});
