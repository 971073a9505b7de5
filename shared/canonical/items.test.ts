// Unit tests of canonical data as table items: products, customers, documents and their history log entries, history expiry, FX observations and touched nodes.
import { describe, expect, it } from 'vitest';
import type { CustomerRecord, OrderRecord, ProductRecord, QuoteRecord } from '#shared/records/schema.ts';
import { keys } from '#platform/table/keys.ts';
import { lookupKeys } from '#platform/table/index-keys.ts';
import {
  customerItem,
  type DocumentRecord,
  documentItem,
  documentOf,
  type FxObservation,
  fxObservation,
  HISTORY_RETENTION_DAYS,
  historyExpiresAt,
  type LineContext,
  newestRates,
  productItem,
  type Provenance,
  TouchedSet,
} from './items.ts';
import { documentLogEntries } from '#shared/pipeline/history-log.ts';

const DAY_MS = 86_400_000;
const from: Provenance = { workspaceId: 'ws-1', batchId: 'batch-1', syncedAt: '2026-03-01T00:00:00.000Z' };

function seconds(iso: string, plusDays = 0): number {
  return Math.floor((Date.parse(iso) + plusDays * DAY_MS) / 1000);
}

/** A drain's knowledge of categories and segments, recording which customers it was asked about. */
function context(categories: Record<string, string>, segments: Record<string, string>): LineContext & { askedSegments: string[] } {
  const askedSegments: string[] = [];
  return {
    askedSegments,
    categoryOf: (sku) => categories[sku],
    segmentOf: (customer) => {
      askedSegments.push(customer);
      return segments[customer];
    },
  };
}

describe('product items', () => {
  const product: ProductRecord = {
    sku: 'SKU-1',
    externalId: 'ERP-1',
    name: 'Hex bolt',
    category: 'Fasteners',
    costCents: 100,
    currentPriceCents: 150,
    floorCents: 110,
    isActive: true,
    currency: 'USD',
    attributes: { uom: 'box', '': 'empty key', deep: { a: [1, { b: null }] } },
  };

  it('keys a product by workspace and sku, with a lookup by external id, and keeps its fields and provenance', () => {
    const { attributes: _attributes, ...fields } = product;
    expect(productItem(product, from)).toEqual({
      ...keys.product('ws-1', 'SKU-1'),
      ...lookupKeys.productByExternalId('ws-1', 'ERP-1'),
      type: 'product',
      ...fields,
      attributesJson: JSON.stringify(product.attributes),
      batchId: 'batch-1',
      syncedAt: '2026-03-01T00:00:00.000Z',
    });
  });

  it('stores attributes as JSON text that reads back as they came, and no attributes map', () => {
    const item = productItem(product, from);
    expect(item).not.toHaveProperty('attributes');
    expect(JSON.parse(item.attributesJson as string)).toEqual(product.attributes);
  });

  it('has no lookup key without an external id, and no attributesJson without attributes', () => {
    const item = productItem({ sku: 'SKU-2', name: 'Nut', category: 'Fasteners', costCents: 5, currentPriceCents: 9 }, from);
    expect(item).toEqual({
      ...keys.product('ws-1', 'SKU-2'),
      type: 'product',
      sku: 'SKU-2',
      name: 'Nut',
      category: 'Fasteners',
      costCents: 5,
      currentPriceCents: 9,
      batchId: 'batch-1',
      syncedAt: '2026-03-01T00:00:00.000Z',
    });
    expect(item).not.toHaveProperty('lookupPk');
    expect(item).not.toHaveProperty('attributesJson');
  });

  it('keeps an empty attributes object as "{}"', () => {
    const item = productItem(
      { sku: 'SKU-3', name: 'Washer', category: 'Fasteners', costCents: 1, currentPriceCents: 2, attributes: {} },
      from,
    );
    expect(item.attributesJson).toBe('{}');
  });
});

describe('customer items', () => {
  it('keys a customer by workspace and external id and keeps its fields, attributes as JSON text and provenance', () => {
    const customer: CustomerRecord = { name: 'Acme', externalId: 'C-1', segment: 'enterprise', region: null, attributes: { tier: 2 } };
    const item = customerItem(customer, from);
    expect(item).toEqual({
      ...keys.customer('ws-1', 'C-1'),
      type: 'customer',
      name: 'Acme',
      externalId: 'C-1',
      segment: 'enterprise',
      region: null,
      attributesJson: '{"tier":2}',
      batchId: 'batch-1',
      syncedAt: '2026-03-01T00:00:00.000Z',
    });
    expect(JSON.parse(item.attributesJson as string)).toEqual({ tier: 2 });
  });

  it('has no lookup key and no attributesJson when it has no attributes', () => {
    const item = customerItem({ name: 'Bolt Co', externalId: 'C-2' }, from);
    expect(item).toEqual({
      ...keys.customer('ws-1', 'C-2'),
      type: 'customer',
      name: 'Bolt Co',
      externalId: 'C-2',
      batchId: 'batch-1',
      syncedAt: from.syncedAt,
    });
  });
});

describe('a quote as one item, and its history log entries', () => {
  const quote: QuoteRecord = {
    externalId: 'Q-1',
    customerExternalId: 'C-1',
    outcome: 'won',
    currency: 'EUR',
    exchangeRate: 1.08,
    createdAt: '2026-02-01T10:00:00Z',
    decidedAt: '2026-02-03T10:00:00Z',
    lines: [
      { productSku: 'SKU-1', quantity: 10, costCents: 100, quotedPriceCents: 150, pricingDecisionId: 'pd_1', attributes: { note: 'rush' } },
      { productSku: 'SKU-2', quantity: 2, costCents: 500, quotedPriceCents: 800, pricingDecisionId: null },
      { productSku: 'SKU-3', quantity: 1.5, costCents: 40, quotedPriceCents: 55, pricingDecisionId: null, salespersonPriceReason: 'match' },
    ],
  };
  const document: DocumentRecord = { kind: 'quote', record: quote };
  // SKU-2 is not known yet: it has no category.
  const known = () => context({ 'SKU-1': 'Fasteners', 'SKU-3': 'Safety' }, { 'C-1': 'enterprise' });

  it('writes the whole quote as one item at the document key, with its line count, version, feeds and provenance', () => {
    expect(documentItem(document, known(), from, 3)).toEqual({
      ...keys.document('ws-1', 'quote', 'Q-1'),
      type: 'quoteDocument',
      externalId: 'Q-1',
      lineCount: 3,
      lineItems: 1,
      version: 3,
      document: JSON.stringify(quote),
      feeds: JSON.stringify({
        customer: 'C-1',
        lines: [
          ['SKU-1', 'enterprise', 'Fasteners'],
          ['SKU-2', 'enterprise', null],
          ['SKU-3', 'enterprise', 'Safety'],
        ],
      }),
      batchId: 'batch-1',
      syncedAt: '2026-03-01T00:00:00.000Z',
      expiresAt: seconds('2026-03-01T00:00:00.000Z', HISTORY_RETENTION_DAYS),
    });
    expect(documentOf(documentItem(document, known(), from, 1))).toEqual(quote);
  });

  it('sits where line 0 of the older layout sat, so that one read finds a document in either layout', () => {
    expect(keys.document('ws-1', 'quote', 'Q-1')).toEqual(keys.documentLine('ws-1', 'quote', 'Q-1', 0));
  });

  it('keeps the nodes the version it replaced fed', () => {
    const replaced = { customer: 'C-9', lines: [['SKU-9', 'smb', 'Adhesives']] as const };
    expect(JSON.parse(String(documentItem(document, known(), from, 2, replaced).replacedFeeds))).toEqual(replaced);
  });

  it('logs one entry per category with the lines in it, priced as quoted, and none for a product without a category', () => {
    const entries = documentLogEntries(document, known(), from, 2);
    expect([...entries.keys()]).toEqual(['Fasteners', 'Safety']);
    expect(entries.get('Fasteners')).toEqual({
      kind: 'quote',
      documentId: 'Q-1',
      version: 2,
      expiresAt: seconds('2026-03-01T00:00:00.000Z', HISTORY_RETENTION_DAYS),
      customerExternalId: 'C-1',
      segment: 'enterprise',
      atMs: Date.parse('2026-02-01T10:00:00Z'),
      outcome: 'won',
      decidedAtMs: Date.parse('2026-02-03T10:00:00Z'),
      currency: 'EUR',
      exchangeRate: 1.08,
      lines: [{ productSku: 'SKU-1', quantity: 10, costCents: 100, priceCents: 150 }],
    });
    expect(entries.get('Safety')?.lines).toEqual([{ productSku: 'SKU-3', quantity: 1.5, costCents: 40, priceCents: 55 }]);
  });

  it('logs a removal in a category the replaced version had lines in and this one has none', () => {
    const replaced = { feeds: { customer: 'C-1', lines: [['SKU-9', 'enterprise', 'Adhesives']] as const }, expiresAt: 9_999_999_999 };
    const removal = documentLogEntries(document, known(), from, 4, replaced).get('Adhesives');
    expect(removal).toEqual({ kind: 'quote', documentId: 'Q-1', version: 4, expiresAt: 9_999_999_999 });
  });

  it('keys the lines with an empty segment when the customer has no known segment', () => {
    expect(documentLogEntries(document, context({ 'SKU-1': 'Fasteners' }, {}), from, 1).get('Fasteners')).toMatchObject({ segment: '' });
  });
});

describe('an order as one item, and its history log entries', () => {
  const order: OrderRecord = {
    externalId: 'O-9',
    customerExternalId: null,
    currency: 'USD',
    exchangeRate: 1,
    soldAt: '2026-02-15T08:30:00.000Z',
    sourceQuoteExternalId: 'Q-1',
    lines: [
      { productSku: 'SKU-1', quantity: 4, costCents: 100, soldPriceCents: 140 },
      { productSku: 'SKU-7', quantity: 1, costCents: 900, soldPriceCents: 1_250, attributes: { serial: 'X' } },
    ],
  };
  const document: DocumentRecord = { kind: 'order', record: order };

  it('logs lines priced by what was sold, timed by the sale, naming the quote it came from', () => {
    const entries = documentLogEntries(document, context({ 'SKU-1': 'Fasteners', 'SKU-7': 'Fasteners' }, {}), from, 1);
    expect(entries.get('Fasteners')).toMatchObject({
      kind: 'order',
      documentId: 'O-9',
      atMs: Date.parse('2026-02-15T08:30:00.000Z'),
      sourceQuoteExternalId: 'Q-1',
      customerExternalId: undefined,
      segment: '',
      lines: [
        { productSku: 'SKU-1', priceCents: 140 },
        { productSku: 'SKU-7', priceCents: 1_250 },
      ],
    });
  });

  it('asks no segment for an order without a customer', () => {
    const known = context({ 'SKU-1': 'Fasteners', 'SKU-7': 'Power Tools' }, { '': 'enterprise' });
    documentLogEntries(document, known, from, 1);
    expect(known.askedSegments).toEqual([]);
  });

  it('logs nothing when no category is known', () => {
    expect(documentLogEntries(document, context({}, {}), from, 1).size).toBe(0);
  });
});

describe('history expiry', () => {
  const order = (soldAt: string): DocumentRecord => ({
    kind: 'order',
    record: { externalId: 'O-1', currency: 'USD', soldAt, lines: [{ productSku: 'SKU-1', quantity: 1, costCents: 1, soldPriceCents: 2 }] },
  });

  it('keeps history 400 days', () => {
    expect(HISTORY_RETENTION_DAYS).toBe(400);
  });

  it('counts from the sync for a document older than it', () => {
    expect(historyExpiresAt(order('2024-06-01T00:00:00Z'), from)).toBe(seconds(from.syncedAt, 400));
    expect(documentItem(order('2024-06-01T00:00:00Z'), context({}, {}), from, 1).expiresAt).toBe(seconds(from.syncedAt, 400));
  });

  it('counts from the document date for a document dated after the sync', () => {
    const future = '2026-09-30T12:34:56.789Z';
    expect(historyExpiresAt(order(future), from)).toBe(seconds(future, 400));
    const quote: DocumentRecord = {
      kind: 'quote',
      record: {
        externalId: 'Q-1',
        customerExternalId: 'C-1',
        outcome: 'open',
        createdAt: future,
        lines: [{ productSku: 'SKU-1', quantity: 1, costCents: 1, quotedPriceCents: 2, pricingDecisionId: null }],
      },
    };
    expect(documentItem(quote, context({}, {}), from, 1).expiresAt).toBe(seconds(future, 400));
  });

  it('gives whole epoch seconds, rounded down', () => {
    const expiresAt = historyExpiresAt(order('2026-09-30T12:34:56.789Z'), from);
    expect(Number.isInteger(expiresAt)).toBe(true);
    expect(expiresAt).toBe((Date.parse('2026-09-30T12:34:56.000Z') + 400 * DAY_MS) / 1000);
  });

  it('reads a date with an offset by the moment it names', () => {
    const later = { ...from, syncedAt: '2020-01-01T00:00:00Z' };
    expect(historyExpiresAt(order('2026-03-01T01:00:00+01:00'), later)).toBe(seconds('2026-03-01T00:00:00Z', 400));
  });
});

describe('FX observations', () => {
  const quote = (currency: string | null | undefined, exchangeRate: number | null | undefined): DocumentRecord => ({
    kind: 'quote',
    record: {
      externalId: 'Q-7',
      customerExternalId: 'C-1',
      outcome: 'open',
      ...(currency === undefined ? {} : { currency }),
      ...(exchangeRate === undefined ? {} : { exchangeRate }),
      createdAt: '2026-02-01T10:00:00Z',
      lines: [{ productSku: 'SKU-1', quantity: 1, costCents: 1, quotedPriceCents: 2, pricingDecisionId: null }],
    },
  });

  it("observes a quote's currency and rate as of its creation, naming the quote", () => {
    expect(fxObservation(quote('EUR', 1.08))).toEqual({
      currency: 'EUR',
      rate: 1.08,
      asOf: '2026-02-01T10:00:00Z',
      asOfMs: Date.parse('2026-02-01T10:00:00Z'),
      source: 'quote:Q-7',
    });
  });

  it("observes an order's rate as of its sale", () => {
    const order: DocumentRecord = {
      kind: 'order',
      record: {
        externalId: 'O-3',
        currency: 'GBP',
        exchangeRate: 1.27,
        soldAt: '2026-02-02T00:00:00Z',
        lines: [{ productSku: 'SKU-1', quantity: 1, costCents: 1, soldPriceCents: 2 }],
      },
    };
    expect(fxObservation(order)).toMatchObject({ currency: 'GBP', rate: 1.27, asOf: '2026-02-02T00:00:00Z', source: 'order:O-3' });
  });

  it('observes nothing without a currency or without a rate above zero', () => {
    const cases: [string | null | undefined, number | null | undefined][] = [
      [undefined, 1.08],
      [null, 1.08],
      ['', 1.08],
      ['EUR', undefined],
      ['EUR', null],
      ['EUR', 0],
      ['EUR', -1.08],
      ['EUR', Number.NaN],
    ];
    for (const [currency, rate] of cases) expect(fxObservation(quote(currency, rate)), `${currency} ${rate}`).toBeUndefined();
  });
});

describe('newest rates', () => {
  const observation = (currency: string, asOf: string, rate: number, source: string): FxObservation => ({
    currency,
    rate,
    asOf,
    asOfMs: Date.parse(asOf),
    source,
  });

  it('keeps the newest observation per currency, whatever order they come in', () => {
    const eurOld = observation('EUR', '2026-01-01T00:00:00Z', 1.05, 'quote:Q-1');
    const eurNew = observation('EUR', '2026-02-01T00:00:00Z', 1.08, 'order:O-1');
    const gbp = observation('GBP', '2026-01-15T00:00:00Z', 1.27, 'order:O-2');
    expect(newestRates([eurOld, gbp, eurNew])).toEqual([eurNew, gbp]);
    expect(newestRates([eurNew, gbp, eurOld])).toEqual([eurNew, gbp]);
  });

  it('lets the later one in the input win a tie', () => {
    const first = observation('EUR', '2026-02-01T00:00:00Z', 1.08, 'quote:Q-1');
    const second = observation('EUR', '2026-02-01T00:00:00Z', 1.09, 'quote:Q-2');
    expect(newestRates([first, second])).toEqual([second]);
    expect(newestRates([second, first])).toEqual([first]);
  });

  it('reads any iterable and gives nothing for nothing', () => {
    expect(newestRates([])).toEqual([]);
    const only = observation('CHF', '2026-01-01T00:00:00Z', 1.1, 'order:O-5');
    expect(newestRates(new Set([only]))).toEqual([only]);
  });
});

describe('touched nodes', () => {
  const nodes = (touched: TouchedSet) => [...touched.nodes].map((node) => JSON.parse(node) as unknown);

  it('touches the customer, segment and category nodes of a line whose customer, segment and category are known', () => {
    const touched = new TouchedSet();
    touched.addLine({ productSku: 'SKU-1', customer: 'C-1', segment: 'enterprise', category: 'Fasteners' });
    expect([...touched.products]).toEqual(['SKU-1']);
    expect(nodes(touched)).toEqual([
      ['customerSku', 'C-1', 'SKU-1'],
      ['segmentSku', 'enterprise', 'SKU-1'],
      ['segmentCategory', 'enterprise', 'Fasteners'],
      ['category', 'Fasteners'],
      ['categorySku', 'Fasteners', 'SKU-1'],
      ['categoryCustomer', 'Fasteners', 'C-1'],
    ]);
    expect(touched.size).toBe(7);
  });

  it('touches only the empty-segment sku node of a line with no customer and no known category', () => {
    const touched = new TouchedSet();
    touched.addLine({ productSku: 'SKU-2', customer: null, segment: undefined, category: undefined });
    expect(nodes(touched)).toEqual([['segmentSku', '', 'SKU-2']]);
    expect([...touched.customers]).toEqual([]);
  });

  it('touches the empty-segment category nodes of a customer with no known segment', () => {
    const touched = new TouchedSet();
    touched.addLine({ productSku: 'SKU-3', customer: 'C-2', segment: undefined, category: 'Safety' });
    expect(nodes(touched)).toEqual([
      ['customerSku', 'C-2', 'SKU-3'],
      ['segmentSku', '', 'SKU-3'],
      ['segmentCategory', '', 'Safety'],
      ['category', 'Safety'],
      ['categorySku', 'Safety', 'SKU-3'],
      ['categoryCustomer', 'Safety', 'C-2'],
    ]);
  });

  it('touches no category node for a customer line of unknown category', () => {
    const touched = new TouchedSet();
    touched.addLine({ productSku: 'SKU-4', customer: 'C-1', segment: 'smb', category: undefined });
    expect(nodes(touched)).toEqual([
      ['customerSku', 'C-1', 'SKU-4'],
      ['segmentSku', 'smb', 'SKU-4'],
    ]);
  });

  it('counts a node once however many lines feed it', () => {
    const touched = new TouchedSet();
    touched.addLine({ productSku: 'SKU-1', customer: 'C-1', segment: 'smb', category: 'Fasteners' });
    touched.addLine({ productSku: 'SKU-1', customer: 'C-1', segment: 'smb', category: 'Fasteners' });
    touched.addLine({ productSku: 'SKU-2', customer: 'C-1', segment: 'smb', category: 'Fasteners' });
    expect(touched.products.size).toBe(2);
    // Per customer × SKU and segment × SKU pair, then the category's nodes: segment, category, two SKUs, one customer.
    expect(touched.nodes.size).toBe(2 + 2 + 5);
    expect(touched.size).toBe(11);
  });

  it('keeps ids holding separators and quotes apart', () => {
    const touched = new TouchedSet();
    touched.addNode(['customerSku', 'a#b', 'c']);
    touched.addNode(['customerSku', 'a', 'b#c']);
    touched.addNode(['customerSku', 'a","b', 'c']);
    expect(touched.nodes.size).toBe(3);
    expect(nodes(touched)).toEqual([
      ['customerSku', 'a#b', 'c'],
      ['customerSku', 'a', 'b#c'],
      ['customerSku', 'a","b', 'c'],
    ]);
  });

  it('counts products, customers and nodes in its size', () => {
    const touched = new TouchedSet();
    expect(touched.size).toBe(0);
    touched.products.add('SKU-1');
    touched.customers.add('C-1');
    touched.addNode(['category', 'Fasteners']);
    expect(touched.size).toBe(3);
  });
});
