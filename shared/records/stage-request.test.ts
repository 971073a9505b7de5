// Unit tests of reading a staging body: the order of its checks, and the param and message of each refusal.
import { describe, expect, it } from 'vitest';
import { readStageRequest } from './stage-request.ts';
import { thrownApiError } from '#test/support/thrown.ts';

const product = { sku: 'SKU-1', name: 'Bolt', category: 'hardware', costCents: 100, currentPriceCents: 150 };
const orderLine = { productSku: 'SKU-1', quantity: 1, costCents: 100, soldPriceCents: 150 };
const order = { externalId: 'O-1', currency: 'USD', soldAt: '2024-03-01T09:00:00Z', lines: [orderLine] };

function products(count: number): (typeof product)[] {
  return Array.from({ length: count }, (_, index) => ({ ...product, sku: `SKU-${index}` }));
}

describe('readStageRequest', () => {
  it('returns the entity with its records, typed by kind', () => {
    const request = readStageRequest({ entity: 'order', records: [order] });
    expect(request).toEqual({ entity: 'order', records: [order] });
    if (request.entity === 'order') expect(request.records[0]?.lines[0]?.soldPriceCents).toBe(150);
  });

  it('takes up to 1000 records in one call', () => {
    expect(readStageRequest({ entity: 'product', records: products(1000) }).records).toHaveLength(1000);
  });

  it('refuses no records and more than 1000, naming records', () => {
    for (const records of [[], products(1001)]) {
      expect(thrownApiError(() => readStageRequest({ entity: 'product', records }))).toMatchObject({
        code: 'invalid_request',
        status: 422,
        param: 'records',
      });
    }
  });

  it('refuses records that are not an array', () => {
    expect(thrownApiError(() => readStageRequest({ entity: 'product', records: { 0: product } }))).toMatchObject({ param: 'records' });
  });

  it('answers a missing entity with invalid_request, not entity_not_supported', () => {
    expect(thrownApiError(() => readStageRequest({ records: [product] }))).toMatchObject({
      code: 'invalid_request',
      param: 'entity',
      message: 'entity is required.',
    });
  });

  it('answers an entity that is not a string with invalid_request', () => {
    expect(thrownApiError(() => readStageRequest({ entity: 4, records: [product] }))).toMatchObject({
      code: 'invalid_request',
      param: 'entity',
    });
  });

  it('answers an unknown entity with entity_not_supported', () => {
    expect(thrownApiError(() => readStageRequest({ entity: 'invoice', records: [product] }))).toMatchObject({
      code: 'entity_not_supported',
      status: 422,
      param: 'entity',
    });
  });

  it('checks the envelope before the entity, and the entity before the records', () => {
    expect(thrownApiError(() => readStageRequest({ entity: 'invoice', records: [] }))).toMatchObject({
      code: 'invalid_request',
      param: 'records',
    });
    expect(thrownApiError(() => readStageRequest({ entity: 'invoice', records: [{ bogus: true }] })).code).toBe('entity_not_supported');
  });

  it('refuses an unknown field beside entity and records', () => {
    expect(thrownApiError(() => readStageRequest({ entity: 'product', records: [product], batchId: 'b' }))).toMatchObject({
      code: 'invalid_request',
      param: 'batchId',
      message: 'Unknown field batchId.',
    });
  });

  it('names the first bad record by its index', () => {
    const records = products(20);
    records[17] = { ...product, costCents: -1 };
    records[19] = { ...product, costCents: -1 };
    expect(thrownApiError(() => readStageRequest({ entity: 'product', records }))).toMatchObject({
      code: 'invalid_request',
      param: 'records[17].costCents',
      message: 'Invalid records[17].costCents: an integer from 0 to 9007199254740991.',
    });
  });

  it('names a bad field deep inside a record', () => {
    const lines = [orderLine, { ...orderLine, costCents: 1.5 }];
    expect(thrownApiError(() => readStageRequest({ entity: 'order', records: [{ ...order, lines }] })).param).toBe(
      'records[0].lines[1].costCents',
    );
  });

  it('says that a missing field is required', () => {
    const { name: _omitted, ...withoutName } = product;
    expect(thrownApiError(() => readStageRequest({ entity: 'product', records: [product, product, product, withoutName] }))).toMatchObject({
      param: 'records[3].name',
      message: 'records[3].name is required.',
    });
  });

  it('names an unknown field inside a record', () => {
    expect(thrownApiError(() => readStageRequest({ entity: 'product', records: [{ ...product, colour: 'red' }] }))).toMatchObject({
      param: 'records[0].colour',
      message: 'Unknown field records[0].colour.',
    });
  });

  it('explains a bad date-time with the expected shape', () => {
    const bad = { ...order, soldAt: '2023-02-29T09:00:00Z' };
    expect(thrownApiError(() => readStageRequest({ entity: 'order', records: [order, bad] }))).toMatchObject({
      param: 'records[1].soldAt',
      message: expect.stringContaining('a date-time such as 2024-02-29T13:45:00Z'),
    });
  });

  it('refuses a quote of 1001 lines, naming the lines of that record', () => {
    const quoteLine = { productSku: 'SKU-1', quantity: 1, costCents: 100, quotedPriceCents: 150, pricingDecisionId: null };
    const lines = Array.from({ length: 1001 }, () => quoteLine);
    const quote = { externalId: 'Q-1', customerExternalId: 'C-1', outcome: 'open', createdAt: '2024-03-01T09:00:00Z', lines };
    expect(thrownApiError(() => readStageRequest({ entity: 'quote', records: [quote] }))).toMatchObject({
      code: 'invalid_request',
      status: 422,
      param: 'records[0].lines',
      message: 'Invalid records[0].lines: from 1 to 1000 lines.',
    });
  });

  it('refuses attributes nested a hundred thousand levels deep with invalid_request naming the path, not a stack overflow', () => {
    let attributes: Record<string, unknown> = { a: 1 };
    for (let level = 1; level < 100_000; level++) attributes = { a: attributes };
    const records = [product, product, product, { ...product, attributes }];
    expect(thrownApiError(() => readStageRequest({ entity: 'product', records }))).toMatchObject({
      code: 'invalid_request',
      status: 422,
      param: `records[3].attributes${'.a'.repeat(32)}`,
      message: `Invalid records[3].attributes${'.a'.repeat(32)}: attributes may nest objects and arrays at most 32 levels deep.`,
    });
  });

  it('refuses a body that is not an object', () => {
    for (const body of [undefined, null, 'product']) {
      expect(thrownApiError(() => readStageRequest(body)).code).toBe('invalid_request');
    }
  });
});
