// Unit tests of pricing a call's lines from its snapshot: identification errors, currency and FX, audience, bands and result lines.
import { describe, expect, it } from 'vitest';
import type { StoredCategoryBands } from '#shared/bands/items.ts';
import { conversionFactor } from '#shared/pricing/currency.ts';
import type { Band, WinModel } from '#shared/pricing/model.ts';
import { priceLine } from '#shared/pricing/price-line.ts';
import { defaultPricingSettings, type PricingSettings } from '#shared/pricing/settings.ts';
import { type CustomerView, customerBandsKey, type FxRate, type PricingSnapshot, type ProductView } from './inputs.ts';
import { type CallContext, type LineError, type LineResult, lineBands, priceLines } from './price-lines.ts';
import type { PriceRequestLine } from './request.ts';

const DAY_MS = 86_400_000;
const NOW = Date.UTC(2026, 2, 1);

function band(target: number, overrides: Partial<Band> = {}): Band {
  return {
    floor: target - 0.1,
    target,
    stretch: target + 0.1,
    nEff: 40,
    medianQuantity: 10,
    cov: 0.2,
    newestAtMs: NOW - 10 * DAY_MS,
    sumW: 40,
    sumW2: 40,
    asOfMs: NOW,
    ...overrides,
  };
}

/** Cost 5000, list 10 000: with no history the price is the list price, at 50% margin. */
function product(overrides: Partial<ProductView> = {}): ProductView {
  return {
    sku: 'SKU-1',
    externalId: 'EXT-1',
    category: 'Fasteners',
    costCents: 5000,
    currentPriceCents: 10_000,
    segmentBands: new Map(),
    ...overrides,
  };
}

function customer(overrides: Partial<CustomerView> = {}): CustomerView {
  return { externalId: 'C-1', segment: 'smb', ...overrides };
}

function snapshot(
  parts: {
    products?: ProductView[];
    customers?: CustomerView[];
    rates?: Record<string, FxRate>;
  } & Partial<Omit<PricingSnapshot, 'products' | 'customers' | 'rates'>> = {},
): PricingSnapshot {
  const { products = [product()], customers = [customer()], rates = {}, ...rest } = parts;
  return {
    products: new Map(products.map((item) => [item.sku, item])),
    skuByExternalId: new Map(products.flatMap((item) => (item.externalId ? [[item.externalId, item.sku] as const] : []))),
    customers: new Map(customers.map((item) => [item.externalId, item])),
    categoryBands: new Map(),
    customerBands: new Map(),
    workspaceBand: undefined,
    rates: new Map(Object.entries(rates)),
    ...rest,
  };
}

function context(overrides: Partial<CallContext> = {}, settings: Partial<PricingSettings> = {}): CallContext {
  return {
    baseCurrency: 'USD',
    settings: { ...defaultPricingSettings, ...settings },
    audience: 'erp',
    nowMs: NOW,
    decisionIdOf: (index) => `pd_test${String(index).padStart(3, '0')}`,
    ...overrides,
  };
}

function line(overrides: Partial<PriceRequestLine> = {}): PriceRequestLine {
  return { productSku: 'SKU-1', quantity: 1, ...overrides };
}

/** The one line's result of a call of one line. */
function priceOne(request: PriceRequestLine, snap: PricingSnapshot = snapshot(), ctx: CallContext = context()): LineResult | LineError {
  const results = priceLines([request], snap, ctx);
  expect(results).toHaveLength(1);
  return results[0] as LineResult | LineError;
}

function priced(result: LineResult | LineError): LineResult {
  if (!result.ok) throw new Error(`expected a priced line, got ${JSON.stringify(result.error)}`);
  return result;
}

const fresh = (rate: number): FxRate => ({ rate, asOfMs: NOW - DAY_MS });

describe('identifying the product', () => {
  it('refuses a SKU the workspace does not know, naming productSku', () => {
    expect(priceOne(line({ productSku: 'SKU-X' }))).toStrictEqual({
      ok: false,
      error: {
        code: 'unknown_product',
        message: 'No product with this identifier is known to the workspace.',
        param: 'lines[0].productSku',
      },
    });
  });

  it('refuses an external id the workspace does not know, naming productExternalId', () => {
    const result = priceOne({ productExternalId: 'EXT-X', quantity: 1 });
    expect(result).toStrictEqual({
      ok: false,
      error: {
        code: 'unknown_product',
        message: 'No product with this identifier is known to the workspace.',
        param: 'lines[0].productExternalId',
      },
    });
  });

  it('refuses an external id whose SKU has no product item', () => {
    const snap = snapshot({ skuByExternalId: new Map([['EXT-9', 'SKU-9']]) });
    expect(priceOne({ productExternalId: 'EXT-9', quantity: 1 }, snap)).toMatchObject({
      ok: false,
      error: { code: 'unknown_product', param: 'lines[0].productExternalId' },
    });
  });

  it('prices a product named only by its external id', () => {
    expect(priced(priceOne({ productExternalId: 'EXT-1', quantity: 1 })).priceCents).toBe(10_000);
  });

  it('prices a product named by both its SKU and its external id', () => {
    expect(priced(priceOne(line({ productExternalId: 'EXT-1' }))).priceCents).toBe(10_000);
  });

  it('refuses a SKU and an external id that name different products, naming productExternalId', () => {
    const snap = snapshot({ products: [product(), product({ sku: 'SKU-2', externalId: 'EXT-2' })] });
    expect(priceOne(line({ productExternalId: 'EXT-2' }), snap)).toStrictEqual({
      ok: false,
      error: {
        code: 'unknown_product',
        message: 'productSku and productExternalId name different products.',
        param: 'lines[0].productExternalId',
      },
    });
  });

  it('refuses an external id given for a product that has none', () => {
    const snap = snapshot({ products: [product({ externalId: undefined })] });
    expect(priceOne(line({ productExternalId: 'EXT-1' }), snap)).toMatchObject({
      ok: false,
      error: { code: 'unknown_product', param: 'lines[0].productExternalId' },
    });
  });

  it('goes by the SKU when both are given, naming productSku if it is unknown', () => {
    expect(priceOne(line({ productSku: 'SKU-X', productExternalId: 'EXT-1' }))).toMatchObject({
      ok: false,
      error: { code: 'unknown_product', param: 'lines[0].productSku' },
    });
  });

  it('names the index of the line in its param', () => {
    const results = priceLines([line(), line(), line({ productSku: 'SKU-X' })], snapshot(), context());
    expect(results[2]).toMatchObject({ ok: false, error: { param: 'lines[2].productSku' } });
  });
});

describe('identifying the customer', () => {
  it('refuses a customerId the workspace does not know, naming customerId', () => {
    expect(priceOne(line({ customerId: 'C-X' }))).toStrictEqual({
      ok: false,
      error: {
        code: 'unknown_customer',
        message: 'No customer with this identifier is known to the workspace.',
        param: 'lines[0].customerId',
      },
    });
  });

  it('refuses a customerExternalId the workspace does not know, naming customerExternalId', () => {
    expect(priceOne(line({ customerExternalId: 'C-X' }))).toMatchObject({
      ok: false,
      error: { code: 'unknown_customer', param: 'lines[0].customerExternalId' },
    });
  });

  it('refuses a customerId and a customerExternalId that differ, even when both are known', () => {
    const snap = snapshot({ customers: [customer(), customer({ externalId: 'C-2' })] });
    expect(priceOne(line({ customerId: 'C-1', customerExternalId: 'C-2' }), snap)).toStrictEqual({
      ok: false,
      error: {
        code: 'unknown_customer',
        message: 'customerId and customerExternalId name different customers.',
        param: 'lines[0].customerExternalId',
      },
    });
  });

  it('prices a customer named by either field, or by both alike, the same', () => {
    const snap = snapshot({ customers: [customer({ currency: 'EUR' })], rates: { EUR: fresh(1.25) } });
    const byId = priced(priceOne(line({ customerId: 'C-1' }), snap));
    expect(byId.currency).toBe('EUR');
    expect(priced(priceOne(line({ customerExternalId: 'C-1' }), snap))).toStrictEqual(byId);
    expect(priced(priceOne(line({ customerId: 'C-1', customerExternalId: 'C-1' }), snap))).toStrictEqual(byId);
  });

  it('reports an unknown product before an unknown customer', () => {
    expect(priceOne(line({ productSku: 'SKU-X', customerId: 'C-X' }))).toMatchObject({ error: { code: 'unknown_product' } });
  });
});

describe('a product without a cost', () => {
  it('cannot be priced: no_cost_basis, naming the line', () => {
    const results = priceLines([line(), line()], snapshot({ products: [product({ costCents: 0 })] }), context());
    expect(results[1]).toStrictEqual({
      ok: false,
      error: { code: 'no_cost_basis', message: 'The product has no cost (costCents is 0), so no margin can be priced.', param: 'lines[1]' },
    });
  });

  it('is reported after an unknown customer', () => {
    const snap = snapshot({ products: [product({ costCents: 0 })] });
    expect(priceOne(line({ customerId: 'C-X' }), snap)).toMatchObject({ error: { code: 'unknown_customer' } });
  });
});

describe('the currency of a line', () => {
  it('is the customer’s currency when the customer has one', () => {
    const snap = snapshot({
      products: [product({ currency: 'GBP' })],
      customers: [customer({ currency: 'EUR' })],
      rates: { EUR: fresh(1.1), GBP: fresh(1.25) },
    });
    expect(priced(priceOne(line({ customerId: 'C-1' }), snap)).currency).toBe('EUR');
  });

  it('is the product’s currency for a customer without one, or for no customer', () => {
    const snap = snapshot({ products: [product({ currency: 'GBP' })] });
    expect(priced(priceOne(line({ customerId: 'C-1' }), snap))).toMatchObject({ currency: 'GBP', priceCents: 10_000 });
    expect(priced(priceOne(line(), snap))).toMatchObject({ currency: 'GBP', priceCents: 10_000 });
  });

  it('takes a product stored with an empty currency as having none', () => {
    const snap = snapshot({ products: [product({ currency: '' })] });
    expect(priced(priceOne(line({ customerId: 'C-1' }), snap))).toMatchObject({ currency: 'USD', priceCents: 10_000 });
  });

  it('is the base currency when neither the customer nor the product has one', () => {
    expect(priced(priceOne(line({ customerId: 'C-1' })))).toMatchObject({ currency: 'USD', priceCents: 10_000 });
  });

  it('needs no rate when it is the product’s own currency, even a foreign one', () => {
    const snap = snapshot({ products: [product({ currency: 'EUR' })], customers: [customer({ currency: 'EUR' })] });
    expect(priced(priceOne(line({ customerId: 'C-1' }), snap))).toMatchObject({ currency: 'EUR', priceCents: 10_000 });
  });
});

describe('converting a product into the line’s currency', () => {
  it('prices a dollar product in yen by the rate and by 10^(0−2)', () => {
    // 125 yen to the dollar: the $100.00 list price is ¥12,500.
    const snap = snapshot({ customers: [customer({ currency: 'JPY' })], rates: { JPY: fresh(0.008) } });
    expect(priced(priceOne(line({ customerId: 'C-1' }), snap))).toMatchObject({
      currency: 'JPY',
      priceCents: 12_500,
      guardrailsApplied: [],
    });
  });

  it('prices a yen product in dollars by the rate and by 10^(2−0)', () => {
    const snap = snapshot({
      products: [product({ currency: 'JPY', costCents: 7500, currentPriceCents: 15_000 })],
      customers: [customer({ currency: 'USD' })],
      rates: { JPY: fresh(0.008) },
    });
    expect(priced(priceOne(line({ customerId: 'C-1' }), snap))).toMatchObject({ currency: 'USD', priceCents: 12_000 });
  });

  it('converts between two currencies that are both foreign to the base through their rates', () => {
    // 1 EUR = 1.10 USD, 1 GBP = 1.25 USD: €100.00 is £88.00.
    const snap = snapshot({
      products: [product({ currency: 'EUR' })],
      customers: [customer({ currency: 'GBP' })],
      rates: { EUR: fresh(1.1), GBP: fresh(1.25) },
    });
    expect(priced(priceOne(line({ customerId: 'C-1' }), snap))).toMatchObject({ currency: 'GBP', priceCents: 8800 });
  });

  it('converts every amount of the product before pricing it, guardrails included', () => {
    const foreign = product({ mapCents: 11_000, floorCents: 9000, ceilingCents: 12_000, inStock: true, stockOnHand: 4 });
    const snap = snapshot({ products: [foreign], customers: [customer({ currency: 'KWD' })], rates: { KWD: fresh(3.25) } });
    const factor = conversionFactor({ currency: 'USD', rate: 1 }, { currency: 'KWD', rate: 3.25 });
    const expected = priceLine(
      {
        product: {
          sku: 'SKU-1',
          costCents: 5000 * factor,
          currentPriceCents: 10_000 * factor,
          mapCents: 11_000 * factor,
          floorCents: 9000 * factor,
          ceilingCents: 12_000 * factor,
          inStock: true,
          stockOnHand: 4,
        },
        currency: 'KWD',
        hasCustomer: true,
        quantity: 1,
        enforceMap: true,
        nowMs: NOW,
      },
      {},
      defaultPricingSettings,
    );
    const result = priced(priceOne(line({ customerId: 'C-1' }), snap, context({ audience: 'storefront' })));
    expect(result).toMatchObject({ currency: 'KWD', priceCents: expected.priceCents, guardrailsApplied: expected.guardrailsApplied });
    // $110.00 of MAP is 33,846.15 fils, above the low-stock price: the line is held to it, rounded up to a whole fil.
    expect(expected.guardrailsApplied).toEqual(['map']);
    expect(result.priceCents).toBe(33_847);
  });

  it('refuses a line whose currency has no synced rate', () => {
    const snap = snapshot({ customers: [customer({ currency: 'EUR' })] });
    expect(priceOne(line({ customerId: 'C-1' }), snap)).toStrictEqual({
      ok: false,
      error: {
        code: 'fx_rate_unavailable',
        message: 'No exchange rate for EUR has been synced; quotes or orders in EUR bring one.',
        param: 'lines[0]',
      },
    });
  });

  it('refuses a line whose product’s currency has no synced rate', () => {
    const snap = snapshot({
      products: [product({ currency: 'CHF' })],
      customers: [customer({ currency: 'EUR' })],
      rates: { EUR: fresh(1.1) },
    });
    expect(priceOne(line({ customerId: 'C-1' }), snap)).toMatchObject({
      ok: false,
      error: { code: 'fx_rate_unavailable', message: 'No exchange rate for CHF has been synced; quotes or orders in CHF bring one.' },
    });
  });

  it('refuses a rate older than fxStaleDays, saying when it is from', () => {
    const snap = snapshot({ customers: [customer({ currency: 'EUR' })], rates: { EUR: { rate: 1.1, asOfMs: NOW - 8 * DAY_MS } } });
    expect(priceOne(line({ customerId: 'C-1' }), snap)).toStrictEqual({
      ok: false,
      error: {
        code: 'fx_rate_stale',
        message: 'The newest exchange rate for EUR is from 2026-02-21T00:00:00.000Z, older than 7 days.',
        param: 'lines[0]',
      },
    });
  });

  it('refuses a stale rate of the product’s currency too', () => {
    const snap = snapshot({
      products: [product({ currency: 'CHF' })],
      customers: [customer({ currency: 'EUR' })],
      rates: { CHF: { rate: 1.2, asOfMs: NOW - 30 * DAY_MS }, EUR: fresh(1.1) },
    });
    expect(priceOne(line({ customerId: 'C-1' }), snap)).toMatchObject({ error: { code: 'fx_rate_stale', param: 'lines[0]' } });
  });

  it.each([
    ['too large to price whole', 1e-130],
    ['too small to carry a margin', 1e130],
  ])('refuses rates that convert amounts %s', (_case, rate) => {
    const snap = snapshot({ customers: [customer({ currency: 'EUR' })], rates: { EUR: fresh(rate) } });
    expect(priceOne(line({ customerId: 'C-1' }), snap)).toMatchObject({
      ok: false,
      error: { code: 'fx_rate_unavailable', message: expect.stringContaining('beyond what can be priced'), param: 'lines[0]' },
    });
  });

  it('takes a rate exactly fxStaleDays old', () => {
    const snap = snapshot({ customers: [customer({ currency: 'EUR' })], rates: { EUR: { rate: 1.25, asOfMs: NOW - 7 * DAY_MS } } });
    expect(priced(priceOne(line({ customerId: 'C-1' }), snap))).toMatchObject({ currency: 'EUR', priceCents: 8000 });
  });

  it('follows the workspace’s fxStaleDays', () => {
    const snap = snapshot({ customers: [customer({ currency: 'EUR' })], rates: { EUR: { rate: 1.25, asOfMs: NOW - 8 * DAY_MS } } });
    expect(priceOne(line({ customerId: 'C-1' }), snap, context({}, { fxStaleDays: 10 })).ok).toBe(true);
    const justNow = snapshot({ customers: [customer({ currency: 'EUR' })], rates: { EUR: { rate: 1.25, asOfMs: NOW - 1 } } });
    expect(priceOne(line({ customerId: 'C-1' }), justNow, context({}, { fxStaleDays: 0 }))).toMatchObject({
      error: { code: 'fx_rate_stale', message: 'The newest exchange rate for EUR is from 2026-02-28T23:59:59.999Z, older than 0 days.' },
    });
  });
});

describe('the result line', () => {
  it('shows an erp caller the whole reasoning, in the contract’s field order', () => {
    const result = priceOne(line());
    expect(Object.keys(result)).toEqual([
      'priceCents',
      'currency',
      'pricingDecisionId',
      'reason',
      'reasonSummary',
      'explanation',
      'guardrailsApplied',
      'confidence',
      'confidenceScore',
      'ok',
    ]);
    expect(result).toStrictEqual({
      priceCents: 10_000,
      currency: 'USD',
      pricingDecisionId: 'pd_test000',
      reason: [
        { param: 'segment_target', marginDeltaBps: 0, label: 'No history: the list price 100.00 USD at 50.00% margin', scope: 'product' },
      ],
      reasonSummary: 'list price 50.00% · final 50.00%',
      explanation: {
        short: 'Priced at the list price; no adjustments.',
        drivers: [],
        stance: 'negotiable',
        marginPct: 50,
        targetMarginPct: 50,
        confidence: 'low',
      },
      guardrailsApplied: [],
      confidence: 'low',
      confidenceScore: 0,
      ok: true,
    });
  });

  it('shows a storefront caller no reason, reason summary or explanation', () => {
    const result = priceOne(line(), snapshot(), context({ audience: 'storefront' }));
    expect(Object.keys(result)).toEqual([
      'priceCents',
      'currency',
      'pricingDecisionId',
      'guardrailsApplied',
      'confidence',
      'confidenceScore',
      'ok',
    ]);
    expect(result).toStrictEqual({
      priceCents: 10_000,
      currency: 'USD',
      pricingDecisionId: 'pd_test000',
      guardrailsApplied: [],
      confidence: 'low',
      confidenceScore: 0,
      ok: true,
    });
  });

  it('is what priceLine gives for the line’s product, customer, deal and bands', () => {
    const segmentSku = band(0.42);
    const customerSku = band(0.48, { nEff: 25, medianQuantity: 20 });
    const winModel: WinModel = { intercept: 3, slope: -7, closedQuotes: 120, nEff: 80 };
    const stocked = product({ inStock: true, stockOnHand: 5, segmentBands: new Map([['smb', segmentSku]]) });
    const snap = snapshot({
      products: [stocked],
      categoryBands: new Map([
        ['Fasteners', { category: 'Fasteners', band: band(0.38), segments: new Map([['smb', { band: band(0.4), winModel }]]) }],
      ]),
      customerBands: new Map([[customerBandsKey('C-1', 'Fasteners'), new Map([['SKU-1', customerSku]])]]),
      workspaceBand: band(0.35),
    });
    const request = line({ customerId: 'C-1', quantity: 40, orderValueCents: 500_000, orderTotalQuantity: 80 });
    const expected = priceLine(
      {
        product: { sku: 'SKU-1', costCents: 5000, currentPriceCents: 10_000, inStock: true, stockOnHand: 5 },
        currency: 'USD',
        hasCustomer: true,
        quantity: 40,
        orderValueCents: 500_000,
        orderTotalQuantity: 80,
        enforceMap: false,
        nowMs: NOW,
      },
      lineBands(stocked, customer(), snap),
      defaultPricingSettings,
    );
    expect(expected.reason.map((entry) => entry.param)).toEqual(['segment_target', 'customer_history', 'quantity', 'win_model', 'stock']);
    expect(priceOne(request, snap)).toStrictEqual({
      priceCents: expected.priceCents,
      currency: 'USD',
      pricingDecisionId: 'pd_test000',
      reason: expected.reason,
      reasonSummary: expected.reasonSummary,
      explanation: expected.explanation,
      guardrailsApplied: expected.guardrailsApplied,
      confidence: expected.confidence,
      confidenceScore: expected.confidenceScore,
      ok: true,
    });
  });

  it('comes one per line, in the order of the lines, errors in their place', () => {
    const results = priceLines(
      [line({ quantity: 1 }), line({ productSku: 'SKU-X' }), line({ customerId: 'C-X' }), line({ customerId: 'C-1' })],
      snapshot(),
      context(),
    );
    expect(results.map((result) => (result.ok ? 'ok' : result.error.code))).toEqual(['ok', 'unknown_product', 'unknown_customer', 'ok']);
    expect(priceLines([], snapshot(), context())).toEqual([]);
  });

  it('carries the decision id of its own index, and only a priced line asks for one', () => {
    const asked: number[] = [];
    const ctx = context({
      decisionIdOf: (index) => {
        asked.push(index);
        return `decision-${index}`;
      },
    });
    const results = priceLines([line(), line({ productSku: 'SKU-X' }), line(), line()], snapshot(), ctx);
    expect(results.map((result) => (result.ok ? result.pricingDecisionId : undefined))).toEqual([
      'decision-0',
      undefined,
      'decision-2',
      'decision-3',
    ]);
    expect(asked).toEqual([0, 2, 3]);
  });
});

describe('MAP', () => {
  // With no history the price would be the 10 000 list price; MAP is above it.
  const snap = snapshot({ products: [product({ mapCents: 12_000 })] });

  it('holds a storefront caller’s price at or above it', () => {
    const result = priced(priceOne(line(), snap, context({ audience: 'storefront' })));
    expect(result.priceCents).toBe(12_000);
    expect(result.guardrailsApplied).toEqual(['map']);
  });

  it('does not hold an erp caller with the default settings', () => {
    const result = priced(priceOne(line(), snap));
    expect(result.priceCents).toBe(10_000);
    expect(result.guardrailsApplied).toEqual([]);
  });

  it('holds an erp caller when the workspace enforces MAP for erp', () => {
    const result = priced(priceOne(line(), snap, context({}, { enforceMapForErp: true })));
    expect(result.priceCents).toBe(12_000);
    expect(result.guardrailsApplied).toEqual(['map']);
  });

  it('leaves a storefront price already above MAP alone', () => {
    const below = snapshot({ products: [product({ mapCents: 9000 })] });
    const result = priced(priceOne(line(), below, context({ audience: 'storefront' })));
    expect(result.priceCents).toBe(10_000);
    expect(result.guardrailsApplied).toEqual([]);
  });
});

describe('the bands of a line', () => {
  const customerSku = band(0.5);
  const otherSku = band(0.51);
  const otherCategory = band(0.52);
  const smbSku = band(0.45);
  const noSegmentSku = band(0.44);
  const smbCategory = band(0.4);
  const noSegmentCategory = band(0.39);
  const categoryBand = band(0.35);
  const workspaceBand = band(0.3);
  const winModel: WinModel = { intercept: 3, slope: -7, closedQuotes: 120, nEff: 80 };
  const fasteners: StoredCategoryBands = {
    category: 'Fasteners',
    band: categoryBand,
    segments: new Map([
      ['smb', { band: smbCategory, winModel }],
      ['', { band: noSegmentCategory, winModel: undefined }],
    ]),
  };
  const banded = product({
    segmentBands: new Map([
      ['smb', smbSku],
      ['', noSegmentSku],
    ]),
  });
  const snap = snapshot({
    products: [banded],
    categoryBands: new Map([['Fasteners', fasteners]]),
    customerBands: new Map([
      [
        customerBandsKey('C-1', 'Fasteners'),
        new Map([
          ['SKU-1', customerSku],
          ['SKU-2', otherSku],
        ]),
      ],
      [customerBandsKey('C-1', 'Adhesives'), new Map([['SKU-1', otherCategory]])],
    ]),
    workspaceBand,
  });

  it('are, for a customer, its customer × SKU band, its segment’s bands and win model, the category’s and the workspace’s', () => {
    const bands = lineBands(banded, customer(), snap);
    expect(bands).toStrictEqual({
      customerSku,
      segmentSku: smbSku,
      segmentCategory: smbCategory,
      winModel,
      category: categoryBand,
      workspace: workspaceBand,
    });
    expect(bands.customerSku).toBe(customerSku);
    expect(bands.segmentSku).toBe(smbSku);
    expect(bands.segmentCategory).toBe(smbCategory);
  });

  it('are, without a customer, those of the unnamed segment, with no customer × SKU band', () => {
    expect(lineBands(banded, undefined, snap)).toStrictEqual({
      segmentSku: noSegmentSku,
      segmentCategory: noSegmentCategory,
      category: categoryBand,
      workspace: workspaceBand,
    });
  });

  it('are those of the unnamed segment for a customer without a segment', () => {
    const bands = lineBands(banded, customer({ externalId: 'C-2', segment: '' }), snap);
    expect(bands.segmentSku).toBe(noSegmentSku);
    expect(bands.segmentCategory).toBe(noSegmentCategory);
    expect(bands.customerSku).toBeUndefined();
  });

  it('leave out the segment bands a customer’s segment does not have', () => {
    expect(lineBands(banded, customer({ externalId: 'C-3', segment: 'enterprise' }), snap)).toStrictEqual({
      category: categoryBand,
      workspace: workspaceBand,
    });
  });

  it('take the customer × SKU band only from the customer’s own bands in the product’s category', () => {
    const adhesive = product({ sku: 'SKU-1', category: 'Adhesives' });
    expect(lineBands(adhesive, customer(), snap).customerSku).toBe(otherCategory);
    expect(lineBands(product({ sku: 'SKU-3' }), customer(), snap).customerSku).toBeUndefined();
    expect(lineBands(banded, customer({ externalId: 'C-2' }), snap).customerSku).toBeUndefined();
  });

  it('are none when nothing has history', () => {
    expect(lineBands(product(), customer(), snapshot())).toStrictEqual({});
  });

  it('carry the win lift of the customer’s segment from the workspace bands item, and none without a customer', () => {
    const snap = snapshot({
      workspaceWinLifts: new Map([
        ['smb', 0.03],
        ['enterprise', 0.05],
      ]),
    });
    expect(lineBands(product(), customer(), snap).workspaceWinLift).toBe(0.03);
    expect(lineBands(product(), customer({ segment: 'mid-market' }), snap).workspaceWinLift).toBeUndefined();
    expect(lineBands(product(), undefined, snap).workspaceWinLift).toBeUndefined();
  });
});
