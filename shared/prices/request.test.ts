// Unit tests of a price call's input: the body's lines against PriceRequestSchema.
import { describe, expect, it } from 'vitest';
import { parseInput } from '#platform/input.ts';
import { MAX_LINES_PER_CALL, PriceRequestSchema } from './request.ts';
import { thrownApiError } from '#test/support/thrown.ts';

const parse = (body: unknown) => parseInput(PriceRequestSchema, body);
const refusal = (body: unknown) => thrownApiError(() => parse(body));
const withLine = (line: Record<string, unknown>) => ({ lines: [line] });

describe('the price request body', () => {
  it('accepts a line that names a product by SKU and a quantity', () => {
    expect(parse(withLine({ productSku: 'SKU-1', quantity: 3 }))).toEqual({ lines: [{ productSku: 'SKU-1', quantity: 3 }] });
  });

  it('accepts a line that names its product only by external id', () => {
    expect(parse(withLine({ productExternalId: 'EXT-1', quantity: 1 }))).toEqual({ lines: [{ productExternalId: 'EXT-1', quantity: 1 }] });
  });

  it('accepts every optional field of a line, and fractional quantities', () => {
    const line = {
      customerId: 'C-1',
      customerExternalId: 'C-1',
      productSku: 'SKU-1',
      productExternalId: 'EXT-1',
      quantity: 0.5,
      orderValueCents: 0,
      orderTotalQuantity: 12.5,
    };
    expect(parse(withLine(line))).toEqual({ lines: [line] });
  });

  it('refuses a line that names no product, naming productSku', () => {
    expect(refusal(withLine({ customerId: 'C-1', quantity: 1 }))).toMatchObject({
      code: 'invalid_request',
      status: 422,
      param: 'lines[0].productSku',
      message: 'Invalid lines[0].productSku: a line needs productSku or productExternalId.',
    });
  });

  it('names the index of the offending line', () => {
    const body = {
      lines: [
        { productSku: 'A', quantity: 1 },
        { productSku: 'B', quantity: 1 },
        { productSku: 'C', quantity: 0 },
      ],
    };
    expect(refusal(body).param).toBe('lines[2].quantity');
  });

  it('requires a quantity', () => {
    expect(refusal(withLine({ productSku: 'SKU-1' }))).toMatchObject({
      param: 'lines[0].quantity',
      message: 'lines[0].quantity is required.',
    });
  });

  it('refuses a quantity of zero or less', () => {
    for (const quantity of [0, -1]) {
      expect(refusal(withLine({ productSku: 'SKU-1', quantity }))).toMatchObject({
        param: 'lines[0].quantity',
        message: 'Invalid lines[0].quantity: quantity must be greater than 0.',
      });
    }
  });

  it('accepts a quantity of exactly one billion and refuses anything above it', () => {
    expect(parse(withLine({ productSku: 'SKU-1', quantity: 1_000_000_000 })).lines[0]?.quantity).toBe(1_000_000_000);
    expect(refusal(withLine({ productSku: 'SKU-1', quantity: 1_000_000_001 }))).toMatchObject({
      param: 'lines[0].quantity',
      message: 'Invalid lines[0].quantity: quantity must be at most 1,000,000,000.',
    });
  });

  it('refuses a quantity that is not a finite number, without coercing strings', () => {
    expect(refusal(withLine({ productSku: 'SKU-1', quantity: '5' }))).toMatchObject({
      param: 'lines[0].quantity',
      message: 'Invalid lines[0].quantity: a number greater than 0 and at most 1,000,000,000.',
    });
    expect(refusal(withLine({ productSku: 'SKU-1', quantity: Infinity }))).toMatchObject({
      param: 'lines[0].quantity',
      message: 'Invalid lines[0].quantity: a finite number.',
    });
  });

  it('refuses an orderTotalQuantity of zero, naming that field', () => {
    expect(refusal(withLine({ productSku: 'SKU-1', quantity: 1, orderTotalQuantity: 0 }))).toMatchObject({
      param: 'lines[0].orderTotalQuantity',
      message: 'Invalid lines[0].orderTotalQuantity: orderTotalQuantity must be greater than 0.',
    });
  });

  it('refuses a negative or unsafe orderValueCents', () => {
    expect(refusal(withLine({ productSku: 'SKU-1', quantity: 1, orderValueCents: -1 }))).toMatchObject({
      param: 'lines[0].orderValueCents',
      message: 'Invalid lines[0].orderValueCents: orderValueCents must be at least 0.',
    });
    expect(refusal(withLine({ productSku: 'SKU-1', quantity: 1, orderValueCents: Number.MAX_SAFE_INTEGER + 2 }))).toMatchObject({
      param: 'lines[0].orderValueCents',
      message: 'Invalid lines[0].orderValueCents: orderValueCents must be at most 9007199254740991.',
    });
  });

  it('refuses an empty identifier', () => {
    expect(refusal(withLine({ productSku: '', quantity: 1 }))).toMatchObject({
      param: 'lines[0].productSku',
      message: 'Invalid lines[0].productSku: a non-empty string of at most 255 characters.',
    });
    expect(refusal(withLine({ productSku: 'SKU-1', customerId: '', quantity: 1 })).param).toBe('lines[0].customerId');
  });

  it('takes identifiers of up to 255 characters, an emoji counting as one, and refuses 256, naming the field', () => {
    const widest = '🙂'.repeat(255);
    const line = { customerId: widest, customerExternalId: widest, productSku: widest, productExternalId: widest, quantity: 1 };
    expect(parse(withLine(line))).toEqual({ lines: [line] });
    for (const field of ['customerId', 'customerExternalId', 'productSku', 'productExternalId']) {
      expect(refusal(withLine({ productSku: 'SKU-1', quantity: 1, [field]: 'x'.repeat(256) }))).toMatchObject({
        code: 'invalid_request',
        status: 422,
        param: `lines[0].${field}`,
        message: `Invalid lines[0].${field}: a non-empty string of at most 255 characters.`,
      });
    }
  });

  it('refuses an unknown field of a line and of the body', () => {
    expect(refusal(withLine({ productSku: 'SKU-1', quantity: 1, priceCents: 100 }))).toMatchObject({
      param: 'lines[0].priceCents',
      message: 'Unknown field lines[0].priceCents.',
    });
    expect(refusal({ lines: [{ productSku: 'SKU-1', quantity: 1 }], currency: 'USD' })).toMatchObject({
      param: 'currency',
      message: 'Unknown field currency.',
    });
  });

  it('requires lines, as an array', () => {
    expect(refusal({})).toMatchObject({ param: 'lines', message: 'lines is required.' });
    expect(refusal({ lines: {} })).toMatchObject({ param: 'lines', message: 'Invalid lines: an array of price request lines.' });
  });

  it('refuses too many lines for their number before it looks at any of them', () => {
    expect(refusal({ lines: Array.from({ length: 1_000_000 }, () => 0) })).toMatchObject({
      param: 'lines',
      message: 'Invalid lines: from 1 to 100 lines.',
    });
  });

  it('takes from 1 to 100 lines', () => {
    const lines = (count: number) => ({
      lines: Array.from({ length: count }, (_, index) => ({ productSku: `SKU-${index}`, quantity: 1 })),
    });
    expect(MAX_LINES_PER_CALL).toBe(100);
    expect(parse(lines(1)).lines).toHaveLength(1);
    expect(parse(lines(100)).lines).toHaveLength(100);
    for (const count of [0, 101]) {
      expect(refusal(lines(count))).toMatchObject({
        code: 'invalid_request',
        param: 'lines',
        message: 'Invalid lines: from 1 to 100 lines.',
      });
    }
  });
});
