// Unit tests of price calls' pure parts: the hash a key's body is bound by, and the format of a pricing decision id.
import { describe, expect, it } from 'vitest';
import { randomBase62 } from '#platform/ids.ts';
import { keyDigest } from '#platform/table/key-parts.ts';
import { bodyHash, type CallRef, decisionId } from './calls.ts';

const body = { lines: [{ productSku: 'SKU-1', customerId: 'C-1', quantity: 2 }] };

describe('the body hash', () => {
  it('is the same for the same body resent with other whitespace', () => {
    const compact = JSON.parse('{"lines":[{"productSku":"SKU-1","customerId":"C-1","quantity":2}]}') as unknown;
    const spaced = JSON.parse('{\n  "lines": [ { "productSku": "SKU-1",\t"customerId": "C-1", "quantity": 2.0 } ]\n}\n') as unknown;
    expect(bodyHash(spaced)).toBe(bodyHash(compact));
    expect(bodyHash(compact)).toBe(bodyHash(body));
  });

  it('is a SHA-256 digest in base64url', () => {
    expect(bodyHash(body)).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(bodyHash({})).toBe('RBNvo1WzZ4oRRq0W9-hknpT7T8If536DEMBg9hyq_4o');
  });

  it('differs for any change to a value', () => {
    const variants: unknown[] = [
      body,
      { lines: [{ productSku: 'SKU-2', customerId: 'C-1', quantity: 2 }] },
      { lines: [{ productSku: 'SKU-1', customerId: 'C-2', quantity: 2 }] },
      { lines: [{ productSku: 'SKU-1', customerId: 'C-1', quantity: 3 }] },
      { lines: [{ productSku: 'SKU-1', customerId: 'C-1', quantity: '2' }] },
      { lines: [{ productSku: 'SKU-1', customerId: 'C-1', quantity: 2, orderValueCents: 0 }] },
      {
        lines: [
          { productSku: 'SKU-1', customerId: 'C-1', quantity: 2 },
          { productSku: 'SKU-1', customerId: 'C-1', quantity: 2 },
        ],
      },
      { lines: [] },
    ];
    expect(new Set(variants.map(bodyHash)).size).toBe(variants.length);
  });
});

describe('a pricing decision id', () => {
  const call: CallRef = { workspaceId: 'ws-1', keyDigest: 'abcdEFGH-_012345', callId: 'AbC123xyz789' };

  it('is pd_, the key digest, the call id and the line index in three digits', () => {
    expect(decisionId(call, 0)).toBe('pd_abcdEFGH-_012345AbC123xyz789000');
    expect(decisionId(call, 7)).toBe('pd_abcdEFGH-_012345AbC123xyz789007');
    expect(decisionId(call, 99)).toBe('pd_abcdEFGH-_012345AbC123xyz789099');
  });

  it('has a fixed length for any real key and call id, so that its parts can be read back', () => {
    const real: CallRef = { workspaceId: 'ws-1', keyDigest: keyDigest('order-42/attempt'), callId: randomBase62(12) };
    const id = decisionId(real, 42);
    expect(id).toMatch(/^pd_[A-Za-z0-9_-]{16}[0-9A-Za-z]{12}\d{3}$/);
    expect(id).toHaveLength(3 + 16 + 12 + 3);
    expect(id.slice(3, 19)).toBe(real.keyDigest);
    expect(id.slice(19, 31)).toBe(real.callId);
    expect(id.slice(31)).toBe('042');
  });

  it('does not depend on the workspace, which the route already names', () => {
    expect(decisionId({ ...call, workspaceId: 'ws-2' }, 3)).toBe(decisionId(call, 3));
  });
});
