// Unit tests of the canonical record shapes: bounds, required and nullable fields, strictness and free-form attributes.
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import {
  CentsSchema,
  CustomerRecordSchema,
  entityKinds,
  entityRank,
  MAX_LINES_PER_DOCUMENT,
  OrderRecordSchema,
  ProductRecordSchema,
  QuoteRecordSchema,
  recordSchemas,
  SAFE_INT_MAX,
  SignedCounterSchema,
} from './schema.ts';

const product = { sku: 'SKU-1', name: 'Bolt', category: 'hardware', costCents: 100, currentPriceCents: 150 };
const customer = { name: 'Acme', externalId: 'C-1' };
const quoteLine = { productSku: 'SKU-1', quantity: 2, costCents: 100, quotedPriceCents: 150, pricingDecisionId: 'pd_1' };
const quote = { externalId: 'Q-1', customerExternalId: 'C-1', outcome: 'won', createdAt: '2024-02-29T13:45:00Z', lines: [quoteLine] };
const orderLine = { productSku: 'SKU-1', quantity: 2, costCents: 100, soldPriceCents: 150 };
const order = { externalId: 'O-1', currency: 'USD', soldAt: '2024-03-01T09:00:00+01:00', lines: [orderLine] };

function accepts(schema: v.GenericSchema, input: unknown): boolean {
  return v.safeParse(schema, input).success;
}

/** The dotted path of the first issue, as the API would name it. */
function firstPath(schema: v.GenericSchema, input: unknown): string | undefined {
  const result = v.safeParse(schema, input, { abortPipeEarly: true });
  return result.issues?.[0]?.path?.map((item) => String(item.key)).join('.');
}

describe('entity kinds', () => {
  it('ranks the kinds in the order a batch must stage them', () => {
    expect([...entityKinds].sort((a, b) => entityRank[a] - entityRank[b])).toEqual(['product', 'customer', 'quote', 'order']);
    expect(entityRank).toEqual({ product: 1, customer: 2, quote: 3, order: 4 });
  });

  it('has a record schema for every kind', () => {
    expect(Object.keys(recordSchemas).sort()).toEqual([...entityKinds].sort());
  });
});

describe('integer amounts', () => {
  it('accepts 0 and safe-int max, and refuses 2^53', () => {
    expect(SAFE_INT_MAX).toBe(2 ** 53 - 1);
    expect(accepts(CentsSchema, 0)).toBe(true);
    expect(accepts(CentsSchema, 2 ** 53 - 1)).toBe(true);
    expect(accepts(CentsSchema, 2 ** 53)).toBe(false);
  });

  it('refuses negatives, fractions, numeric strings and non-numbers', () => {
    for (const input of [-1, 1.5, '5', null, true, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(accepts(CentsSchema, input), String(input)).toBe(false);
    }
  });

  it('says what it wants whichever step fails', () => {
    for (const input of ['5', 1.5, -1, 2 ** 53]) {
      expect(v.safeParse(CentsSchema, input).issues?.[0]?.message).toBe('an integer from 0 to 9007199254740991');
    }
  });

  it('lets signed counters run from minus to plus safe-int max', () => {
    expect(accepts(SignedCounterSchema, -(2 ** 53 - 1))).toBe(true);
    expect(accepts(SignedCounterSchema, 2 ** 53 - 1)).toBe(true);
    expect(accepts(SignedCounterSchema, -(2 ** 53))).toBe(false);
    expect(accepts(SignedCounterSchema, 2 ** 53)).toBe(false);
    expect(accepts(SignedCounterSchema, -0.5)).toBe(false);
    expect(accepts(SignedCounterSchema, '-5')).toBe(false);
  });
});

describe('product records', () => {
  it('accepts the required fields alone, and every optional one', () => {
    expect(accepts(ProductRecordSchema, product)).toBe(true);
    const full = {
      ...product,
      externalId: 'P-1',
      mapCents: 120,
      floorCents: 110,
      ceilingCents: 300,
      isActive: true,
      inStock: false,
      stockOnHand: -3,
      brand: 'Bolts Inc',
      currency: 'EUR',
      attributes: { colour: 'red' },
    };
    expect(v.parse(ProductRecordSchema, full)).toEqual(full);
  });

  it('accepts negative stock on hand, since oversold stock runs below zero', () => {
    expect(accepts(ProductRecordSchema, { ...product, stockOnHand: -12 })).toBe(true);
  });

  it('refuses negative cents, fractional cents and cents sent as strings', () => {
    expect(firstPath(ProductRecordSchema, { ...product, costCents: -1 })).toBe('costCents');
    expect(firstPath(ProductRecordSchema, { ...product, currentPriceCents: 1.5 })).toBe('currentPriceCents');
    expect(firstPath(ProductRecordSchema, { ...product, mapCents: '5' })).toBe('mapCents');
  });

  it('refuses an empty sku or external id, but not an empty name', () => {
    expect(firstPath(ProductRecordSchema, { ...product, sku: '' })).toBe('sku');
    expect(firstPath(ProductRecordSchema, { ...product, externalId: '' })).toBe('externalId');
    expect(accepts(ProductRecordSchema, { ...product, name: '' })).toBe(true);
  });

  it('refuses null where the field is not nullable', () => {
    expect(firstPath(ProductRecordSchema, { ...product, brand: null })).toBe('brand');
  });

  it('refuses an unknown field and names it', () => {
    expect(firstPath(ProductRecordSchema, { ...product, colour: 'red' })).toBe('colour');
  });

  it('takes anything inside attributes, nested or not', () => {
    const attributes = { colour: 'red', sizes: [1, 2], nested: { deep: null }, unknownField: true };
    expect(v.parse(ProductRecordSchema, { ...product, attributes }).attributes).toEqual(attributes);
  });

  it('refuses attributes that are an array, null or not an object', () => {
    for (const attributes of [['red'], [], null, 'red', 5]) {
      expect(firstPath(ProductRecordSchema, { ...product, attributes }), JSON.stringify(attributes)).toBe('attributes');
    }
  });
});

describe('customer records', () => {
  it('accepts null for its nullable fields', () => {
    expect(accepts(CustomerRecordSchema, { ...customer, region: null, country: null, creditTerms: null, currency: null })).toBe(true);
  });

  it('requires the external id and refuses a null segment', () => {
    expect(firstPath(CustomerRecordSchema, { name: 'Acme' })).toBe('externalId');
    expect(firstPath(CustomerRecordSchema, { ...customer, segment: null })).toBe('segment');
  });
});

describe('quote records', () => {
  it('accepts a quote with its lines', () => {
    expect(accepts(QuoteRecordSchema, quote)).toBe(true);
  });

  it('knows only the outcomes open, won and lost', () => {
    for (const outcome of ['open', 'won', 'lost']) expect(accepts(QuoteRecordSchema, { ...quote, outcome })).toBe(true);
    expect(firstPath(QuoteRecordSchema, { ...quote, outcome: 'pending' })).toBe('outcome');
  });

  it('checks createdAt and decidedAt as date-times', () => {
    expect(firstPath(QuoteRecordSchema, { ...quote, createdAt: '2023-02-29T13:45:00Z' })).toBe('createdAt');
    expect(firstPath(QuoteRecordSchema, { ...quote, decidedAt: '2024-03-01 10:00:00Z' })).toBe('decidedAt');
    expect(accepts(QuoteRecordSchema, { ...quote, decidedAt: '2024-03-01T10:00:00.5-08:00' })).toBe(true);
  });

  it('accepts null for currency, exchange rate and lost reason', () => {
    expect(accepts(QuoteRecordSchema, { ...quote, currency: null, exchangeRate: null, lostReason: null })).toBe(true);
  });

  it('refuses a quote without lines', () => {
    expect(firstPath(QuoteRecordSchema, { ...quote, lines: [] })).toBe('lines');
  });

  it('takes a null pricing decision id, but not a missing one', () => {
    expect(accepts(QuoteRecordSchema, { ...quote, lines: [{ ...quoteLine, pricingDecisionId: null }] })).toBe(true);
    const { pricingDecisionId: _omitted, ...withoutId } = quoteLine;
    expect(firstPath(QuoteRecordSchema, { ...quote, lines: [withoutId] })).toBe('lines.0.pricingDecisionId');
  });

  it('lets the service-quoted price be null or negative', () => {
    expect(accepts(QuoteRecordSchema, { ...quote, lines: [{ ...quoteLine, serviceQuotedPriceCents: null }] })).toBe(true);
    expect(accepts(QuoteRecordSchema, { ...quote, lines: [{ ...quoteLine, serviceQuotedPriceCents: -5 }] })).toBe(true);
  });

  it('wants a quantity strictly above zero, fractions allowed', () => {
    expect(accepts(QuoteRecordSchema, { ...quote, lines: [{ ...quoteLine, quantity: 0.5 }] })).toBe(true);
    expect(firstPath(QuoteRecordSchema, { ...quote, lines: [{ ...quoteLine, quantity: 0 }] })).toBe('lines.0.quantity');
    expect(firstPath(QuoteRecordSchema, { ...quote, lines: [{ ...quoteLine, quantity: -1 }] })).toBe('lines.0.quantity');
    expect(firstPath(QuoteRecordSchema, { ...quote, lines: [{ ...quoteLine, quantity: '2' }] })).toBe('lines.0.quantity');
  });

  it('refuses an unknown field on a line and names its place', () => {
    expect(firstPath(QuoteRecordSchema, { ...quote, lines: [quoteLine, { ...quoteLine, discount: 5 }] })).toBe('lines.1.discount');
  });
});

describe('order records', () => {
  it('accepts an order with its lines', () => {
    expect(accepts(OrderRecordSchema, order)).toBe(true);
  });

  it('takes a customer external id that is absent, null or non-empty, and refuses an empty one', () => {
    expect(accepts(OrderRecordSchema, { ...order, customerExternalId: null })).toBe(true);
    expect(accepts(OrderRecordSchema, { ...order, customerExternalId: 'C-1' })).toBe(true);
    expect(firstPath(OrderRecordSchema, { ...order, customerExternalId: '' })).toBe('customerExternalId');
  });

  it('requires a currency and a date-time soldAt', () => {
    const { currency: _omitted, ...withoutCurrency } = order;
    expect(firstPath(OrderRecordSchema, withoutCurrency)).toBe('currency');
    expect(firstPath(OrderRecordSchema, { ...order, soldAt: '2024-03-01T09:00:00' })).toBe('soldAt');
  });

  it('refuses an order without lines', () => {
    expect(firstPath(OrderRecordSchema, { ...order, lines: [] })).toBe('lines');
  });

  it('checks every line, naming the bad one', () => {
    const lines = [orderLine, { ...orderLine, costCents: 2 ** 53 }];
    expect(firstPath(OrderRecordSchema, { ...order, lines })).toBe('lines.1.costCents');
  });

  it('keeps attributes on lines free-form', () => {
    expect(accepts(OrderRecordSchema, { ...order, lines: [{ ...orderLine, attributes: { anything: [1, { deep: true }] } }] })).toBe(true);
    expect(firstPath(OrderRecordSchema, { ...order, lines: [{ ...orderLine, attributes: [1] }] })).toBe('lines.0.attributes');
  });
});

describe('lines of a quote or an order', () => {
  const quoteWith = (count: number) => ({ ...quote, lines: Array.from({ length: count }, () => quoteLine) });
  const orderWith = (count: number) => ({ ...order, lines: Array.from({ length: count }, () => orderLine) });

  it('number at most 1000: a document of 1001 lines is refused, naming its lines', () => {
    expect(MAX_LINES_PER_DOCUMENT).toBe(1000);
    expect(accepts(QuoteRecordSchema, quoteWith(1000))).toBe(true);
    expect(accepts(OrderRecordSchema, orderWith(1000))).toBe(true);
    expect(firstPath(QuoteRecordSchema, quoteWith(1001))).toBe('lines');
    expect(firstPath(OrderRecordSchema, orderWith(1001))).toBe('lines');
    expect(v.safeParse(OrderRecordSchema, orderWith(1001)).issues?.[0]?.message).toBe('from 1 to 1000 lines');
  });
});

describe('identifiers and other text that becomes part of a key', () => {
  const long = 'x'.repeat(256);
  const widest = '𝄞'.repeat(255);
  const cases: Array<[string, v.GenericSchema, (text: string) => unknown, string]> = [
    ['a product sku', ProductRecordSchema, (sku) => ({ ...product, sku }), 'sku'],
    ['a product external id', ProductRecordSchema, (externalId) => ({ ...product, externalId }), 'externalId'],
    ['a product category', ProductRecordSchema, (category) => ({ ...product, category }), 'category'],
    ['a product currency', ProductRecordSchema, (currency) => ({ ...product, currency }), 'currency'],
    ['a customer external id', CustomerRecordSchema, (externalId) => ({ ...customer, externalId }), 'externalId'],
    ['a customer segment', CustomerRecordSchema, (segment) => ({ ...customer, segment }), 'segment'],
    ['a quote external id', QuoteRecordSchema, (externalId) => ({ ...quote, externalId }), 'externalId'],
    ['a quote customer', QuoteRecordSchema, (customerExternalId) => ({ ...quote, customerExternalId }), 'customerExternalId'],
    ['a quote line sku', QuoteRecordSchema, (productSku) => ({ ...quote, lines: [{ ...quoteLine, productSku }] }), 'lines.0.productSku'],
    ['an order external id', OrderRecordSchema, (externalId) => ({ ...order, externalId }), 'externalId'],
    ['an order customer', OrderRecordSchema, (customerExternalId) => ({ ...order, customerExternalId }), 'customerExternalId'],
    ['an order source quote', OrderRecordSchema, (sourceQuoteExternalId) => ({ ...order, sourceQuoteExternalId }), 'sourceQuoteExternalId'],
    ['an order line sku', OrderRecordSchema, (productSku) => ({ ...order, lines: [{ ...orderLine, productSku }] }), 'lines.0.productSku'],
  ];

  it.each(cases)('take 255 characters, even of 4 bytes each, and refuse 256 in %s', (_name, schema, build, path) => {
    expect(accepts(schema, build(widest))).toBe(true);
    expect(firstPath(schema, build(long))).toBe(path);
  });
});

describe('attributes of records', () => {
  function nested(levels: number): Record<string, unknown> {
    let value: Record<string, unknown> = { a: 1 };
    for (let level = 1; level < levels; level++) value = { a: value };
    return value;
  }

  it('are refused nested 33 levels deep on a record or on a line, naming the path into them', () => {
    const inside = Array(32).fill('a').join('.');
    expect(accepts(ProductRecordSchema, { ...product, attributes: nested(32) })).toBe(true);
    expect(firstPath(ProductRecordSchema, { ...product, attributes: nested(33) })).toBe(`attributes.${inside}`);
    expect(firstPath(QuoteRecordSchema, { ...quote, lines: [{ ...quoteLine, attributes: nested(33) }] })).toBe(
      `lines.0.attributes.${inside}`,
    );
  });
});
