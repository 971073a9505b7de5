// Unit tests of identifiers: the 255-character bound, counted in code points, and the table keys it must fit.
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { newBatchId, newId } from '#platform/ids.ts';
import { table } from '#platform/table/definition.ts';
import { historyKeys, lookupKeys } from '#platform/table/index-keys.ts';
import { keys } from '#platform/table/keys.ts';
import { codePointLength, IdentifierSchema, KeyTextSchema, MAX_IDENTIFIER_LENGTH } from './identifier.ts';

/** One character of each width in UTF-8: 1, 2, 3 and 4 bytes (the last is two UTF-16 code units). */
const characters = ['a', 'é', '€', '𝄞'] as const;

describe('the identifier bound', () => {
  it('is 255 characters', () => {
    expect(MAX_IDENTIFIER_LENGTH).toBe(255);
  });

  it('counts code points, so a character outside the BMP is one, and a lone surrogate is one too', () => {
    expect(codePointLength('')).toBe(0);
    expect(codePointLength('SKU-1')).toBe(5);
    expect(codePointLength('𝄞'.repeat(3))).toBe(3);
    expect('𝄞'.repeat(3)).toHaveLength(6);
    expect(codePointLength('a\uD834b\uDD1E')).toBe(4);
  });

  it('accepts 255 characters of any width, and refuses 256, naming the bound', () => {
    for (const character of characters) {
      expect(v.is(IdentifierSchema, character.repeat(255)), character).toBe(true);
      const refused = v.safeParse(IdentifierSchema, character.repeat(256));
      expect(refused.success, character).toBe(false);
      expect(refused.issues?.[0]?.message).toBe('a non-empty string of at most 255 characters');
    }
  });

  it('refuses an empty identifier, while other key text may be empty but is held to the same bound', () => {
    expect(v.is(IdentifierSchema, '')).toBe(false);
    expect(v.is(KeyTextSchema, '')).toBe(true);
    expect(v.is(KeyTextSchema, '𝄞'.repeat(255))).toBe(true);
    expect(v.safeParse(KeyTextSchema, 'a'.repeat(256)).issues?.[0]?.message).toBe('a string of at most 255 characters');
  });

  it('refuses a string of a million characters', () => {
    expect(v.is(IdentifierSchema, 'x'.repeat(1_000_000))).toBe(false);
  });
});

describe('table keys built from identifiers at the bound', () => {
  const partitionKeys = new Set<string>([table.partitionKey, ...table.indexes.map((index) => index.partitionKey)]);
  const sortKeys = new Set<string>([table.sortKey, ...table.indexes.map((index) => index.sortKey)]);
  const workspaceId = newId('ws');
  const connectorId = newId('con');
  // 255 characters of 4 bytes each: the most UTF-8 an identifier can be.
  const widest = '𝄞'.repeat(MAX_IDENTIFIER_LENGTH);

  const built: Array<[string, object]> = [
    ['product', keys.product(workspaceId, widest)],
    ['customer', keys.customer(workspaceId, widest)],
    ['documentLine', keys.documentLine(workspaceId, 'quote', widest, 999)],
    ['fxRate', keys.fxRate(workspaceId, widest)],
    ['customerBands', keys.customerBands(workspaceId, widest, widest)],
    ['categoryBands', keys.categoryBands(workspaceId, widest)],
    ['recommendation', keys.recommendation(workspaceId, widest)],
    ['approval', keys.approval(workspaceId, widest, new Date(0).toISOString(), newId('apv'))],
    ['batch', keys.batch(workspaceId, newBatchId())],
    ['productByExternalId', lookupKeys.productByExternalId(workspaceId, widest)],
    ['productLine', lookupKeys.productLine(workspaceId, widest, widest, 'order', widest, 999)],
    ['openWriteback', lookupKeys.openWriteback(workspaceId, connectorId, widest, newId('wb'))],
    ['categoryLine', historyKeys.categoryLine(workspaceId, widest, widest, 'order', widest, 999)],
  ];

  it.each(built)('fit DynamoDB: %s has partition keys of at most 2048 bytes and sort keys of at most 1024', (_name, key) => {
    for (const [attribute, value] of Object.entries(key)) {
      const bytes = Buffer.byteLength(String(value), 'utf8');
      if (partitionKeys.has(attribute)) expect(bytes, attribute).toBeLessThanOrEqual(2048);
      else if (sortKeys.has(attribute)) expect(bytes, attribute).toBeLessThanOrEqual(1024);
      else throw new Error(`${attribute} is not a key attribute of the table`);
    }
  });
});
