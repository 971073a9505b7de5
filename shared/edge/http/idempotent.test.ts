// Unit tests of what an optional Idempotency-Key binds a creating route's call to: its body, however written, and the key's family.
import { describe, expect, it } from 'vitest';
import { keys } from '#platform/table/keys.ts';
import type { AnswerCodec } from '#shared/idempotency/store.ts';
import { idempotentRequestHash, routeOperation } from './idempotent.ts';

describe('the request an Idempotency-Key is bound to', () => {
  it('is the same for the same body resent with other whitespace or key order', () => {
    const compact = idempotentRequestHash('pw_live', '{"sku":"LAMP","price":15}');
    expect(idempotentRequestHash('pw_live', '{\n  "price": 15,\n  "sku": "LAMP"\n}\n')).toBe(compact);
    expect(idempotentRequestHash('pw_live', '{"price":15.0,"sku":"LAMP"}')).toBe(compact);
  });

  it('differs for any changed value, nested ones included', () => {
    const hashes = [
      '{"sku":"LAMP","price":15}',
      '{"sku":"LAMP","price":15.01}',
      '{"sku":"SHADE","price":15}',
      '{"url":"https://a.example/h","event_types":["batch.drained","price.approved"]}',
      '{"url":"https://a.example/h","event_types":["price.approved","batch.drained"]}',
    ].map((body) => idempotentRequestHash('pw_live', body));
    expect(new Set(hashes).size).toBe(hashes.length);
  });

  it('binds the key to its family, so a sandbox key never replays a live answer', () => {
    expect(idempotentRequestHash('pw_test', '{"sku":"LAMP","price":15}')).not.toBe(
      idempotentRequestHash('pw_live', '{"sku":"LAMP","price":15}'),
    );
  });

  it('binds text that is not JSON, or nests past the bound, as it is, without parsing it', () => {
    expect(idempotentRequestHash('pw_live', '{"sku":')).not.toBe(idempotentRequestHash('pw_live', '{"sku": '));
    const deep = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
    expect(idempotentRequestHash('pw_live', deep)).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(idempotentRequestHash('pw_live', '')).not.toBe(idempotentRequestHash('pw_live', '""'));
  });
});

describe("a route's key store", () => {
  const seal: AnswerCodec = { encode: async (json) => json, decode: async (stored) => String(stored) };

  it('keeps each route apart from every other, in the workspace, for the 24 hours a replay is answered', () => {
    const operation = routeOperation('approvePrice', 'stored', undefined);
    expect(operation.itemKey('ws_A', 'digest')).toEqual(keys.idempotentCall('ws_A', 'approvePrice', 'digest'));
    expect(operation.itemKey('ws_A', 'digest')).not.toEqual(
      routeOperation('createWebhookEndpoint', 'sealed', seal).itemKey('ws_A', 'digest'),
    );
    expect(operation.retentionSeconds).toBe(86_400);
  });

  it('refuses a row and a handler that disagree on sealing, so that a secret is never stored in clear', () => {
    expect(() => routeOperation('createWebhookEndpoint', 'sealed', undefined)).toThrow(/gives no seal/);
    expect(() => routeOperation('approvePrice', 'stored', seal)).toThrow(/gives seal/);
    expect(routeOperation('createWebhookEndpoint', 'sealed', seal).codec).toBe(seal);
  });
});
