// Unit tests of the data-warning rule: a cost or current price moved past the factor either way, a price below cost, the basis a held product keeps, and clearing.
import { describe, expect, it } from 'vitest';
import { pricingSettings } from '#shared/pricing/settings.ts';
import {
  basisOf,
  DEFAULT_DATA_WARNING_FACTOR,
  judgeProductData,
  ORDER_LINES_REFERENCE_SIZE,
  orderLinesOf,
  orderLinesReference,
  orderLinesReferences,
  type StoredProductValues,
  warningsOf,
} from './data-warnings.ts';
import type { HistoryLine } from '#shared/pricing/model.ts';
import { productItem } from './items.ts';

const stored: StoredProductValues = { costCents: 202, currentPriceCents: 1790, currency: '' };
const judge = (next: { costCents: number; currentPriceCents: number; currency?: string }, before = stored, factor = 3) =>
  judgeProductData(next, before, factor, 'USD');

describe('the data-warning rule', () => {
  it('warns of a cost multiplied by 10, naming both values in major units with the currency', () => {
    const judged = judge({ costCents: 2020, currentPriceCents: 1790 });
    expect(judged.warnings.map((warning) => warning.code)).toEqual(['cost_jump', 'price_below_cost']);
    expect(judged.warnings[0]?.message).toBe(
      'cost 20.20 USD is 10 times the cost it was in line at, 2.02 USD: past the 3× a batch may move it without a check.',
    );
    expect(judged.warnings[1]?.message).toBe('current price 17.90 USD is below the cost 20.20 USD.');
    expect(judged.basis).toEqual({ costCents: 202, currentPriceCents: 1790, currency: '' });
  });

  it('warns of a current price divided by 10 as of one multiplied by 10: the factor holds either way', () => {
    const up = judge({ costCents: 202, currentPriceCents: 17_900 });
    const down = judge({ costCents: 202, currentPriceCents: 179 });
    expect(up.warnings).toEqual([
      {
        code: 'price_jump',
        message:
          'current price 179.00 USD is 10 times the price it was in line at, 17.90 USD: past the 3× a batch may move it without a check.',
      },
    ]);
    expect(down.warnings.map((warning) => warning.code)).toEqual(['price_jump', 'price_below_cost']);
    expect(down.warnings[0]?.message).toContain('current price 1.79 USD is 1/10 of the price it was in line at, 17.90 USD');
  });

  it('lets a move within the factor through, and holds one just past it', () => {
    expect(judge({ costCents: 606, currentPriceCents: 1790 }).warnings).toEqual([]);
    expect(judge({ costCents: 68, currentPriceCents: 1790 }).warnings).toEqual([]);
    expect(judge({ costCents: 607, currentPriceCents: 1790 }).warnings.map((warning) => warning.code)).toEqual(['cost_jump']);
    expect(judge({ costCents: 67, currentPriceCents: 1790 }).warnings.map((warning) => warning.code)).toEqual(['cost_jump']);
  });

  it('warns of a price below cost on a product it has never seen, which has nothing to jump from', () => {
    const first = judgeProductData({ costCents: 500, currentPriceCents: 450 }, undefined, 3, 'EUR');
    expect(first).toEqual({
      warnings: [{ code: 'price_below_cost', message: 'current price 4.50 EUR is below the cost 5.00 EUR.' }],
    });
    expect(judgeProductData({ costCents: 500, currentPriceCents: 45_000 }, undefined, 3, 'EUR').warnings).toEqual([]);
  });

  it('names the product’s own currency, and compares nothing across a change of currency', () => {
    const inEur = judge({ costCents: 2020, currentPriceCents: 1790, currency: 'EUR' }, { ...stored, currency: 'EUR' });
    expect(inEur.warnings[0]?.message).toContain('cost 20.20 EUR is 10 times the cost it was in line at, 2.02 EUR');
    expect(judge({ costCents: 2020, currentPriceCents: 17_900, currency: 'JPY' }).warnings).toEqual([]);
  });

  it('judges a held product against the values it was last in line at, so that bringing them back clears it', () => {
    const held = judge({ costCents: 2020, currentPriceCents: 2500 });
    expect(held.basis).toEqual({ costCents: 202, currentPriceCents: 2500, currency: '' });
    const storedHeld: StoredProductValues = {
      costCents: 2020,
      currentPriceCents: 2500,
      currency: '',
      ...(held.basis ? { basis: held.basis } : {}),
    };
    // The same wrong cost again stays held; the cost back in line clears it, although it is a tenth of the stored one.
    expect(judge({ costCents: 2020, currentPriceCents: 2500 }, storedHeld).warnings.map((warning) => warning.code)).toEqual(['cost_jump']);
    expect(judge({ costCents: 205, currentPriceCents: 2500 }, storedHeld)).toEqual({ warnings: [] });
  });

  it('takes a current price an approved write-back set as in line, so that the next batch sending it clears the jump', () => {
    const held = judge({ costCents: 202, currentPriceCents: 17_900 });
    const basis = held.basis ?? stored;
    const written: StoredProductValues = { costCents: 202, currentPriceCents: 13_425, currency: '', basis, writtenBackPriceCents: 13_425 };
    expect(judge({ costCents: 202, currentPriceCents: 13_425 }, written)).toEqual({ warnings: [] });
    // Until a write-back sets it, the same price stays held against the basis.
    expect(judge({ costCents: 202, currentPriceCents: 13_425 }, { ...written, writtenBackPriceCents: undefined }).warnings).toHaveLength(1);
  });

  it('clears a price below cost as soon as the price is above the cost again', () => {
    const below = judge({ costCents: 202, currentPriceCents: 150 }, { costCents: 202, currentPriceCents: 250, currency: '' });
    expect(below.warnings.map((warning) => warning.code)).toEqual(['price_below_cost']);
    expect(below.basis).toBeUndefined();
    expect(judge({ costCents: 202, currentPriceCents: 250 }, { costCents: 202, currentPriceCents: 150, currency: '' })).toEqual({
      warnings: [],
    });
  });

  it('takes the factor from the workspace setting, 3 when the workspace sets none', () => {
    expect(pricingSettings(undefined).dataWarningFactor ?? DEFAULT_DATA_WARNING_FACTOR).toBe(3);
    const factor = pricingSettings({ dataWarningFactor: 12 }).dataWarningFactor ?? DEFAULT_DATA_WARNING_FACTOR;
    expect(judge({ costCents: 2020, currentPriceCents: 17_900 }, stored, factor).warnings).toEqual([]);
    expect(judge({ costCents: 303, currentPriceCents: 1790 }, stored, 1.5).warnings).toEqual([]);
    const tight = judge({ costCents: 304, currentPriceCents: 1790 }, stored, 1.5);
    expect(tight.warnings[0]?.message).toContain('past the 1.5× a batch may move it');
  });

  it('writes the warnings and the basis on the product item only when it has any, and reads them back', () => {
    const from = { workspaceId: 'ws-1', batchId: 'batch-1', syncedAt: '2026-03-01T00:00:00.000Z' };
    const record = { sku: 'BOLT', name: 'Bolt', category: 'Fasteners', costCents: 2020, currentPriceCents: 1790 };
    const judged = judge(record);
    const item = productItem(record, from, {}, judged);
    expect(warningsOf(item)).toEqual(judged.warnings);
    expect(basisOf(item)).toEqual(judged.basis);
    const inLine = productItem({ ...record, costCents: 202 }, from, {}, judge({ ...record, costCents: 202 }));
    expect(inLine).not.toHaveProperty('warnings');
    expect(inLine).not.toHaveProperty('warningBasis');
    expect(warningsOf(inLine)).toEqual([]);
    expect(warningsOf({ warnings: [{ code: 'other', message: 'x' }] })).toEqual([]);
  });
});

/** An order line of BOLT sold on day `day` of March 2026. */
const orderLine = (day: number, priceCents: number, costCents: number, extra: Partial<HistoryLine> & { currency?: string } = {}) => ({
  kind: 'order' as const,
  documentId: `SO-${String(day).padStart(3, '0')}`,
  productSku: 'BOLT',
  customerExternalId: 'C-1',
  segment: '',
  quantity: 10,
  costCents,
  priceCents,
  atMs: Date.UTC(2026, 2, day),
  ...extra,
});

describe('the recent order lines a product is judged against', () => {
  it('are the medians of the unit cost and price of its last order lines, so one mistyped line moves neither', () => {
    const lines = [orderLine(1, 1790, 202), orderLine(2, 1750, 205), orderLine(3, 17_900, 2020), orderLine(4, 1800, 0)];
    expect(orderLinesReference(lines)).toEqual({ currency: '', costCents: 205, priceCents: 1795, lines: 4 });
  });

  it(`take the newest ${ORDER_LINES_REFERENCE_SIZE} order lines in the newest line's currency, and no quote line`, () => {
    const old = Array.from({ length: 10 }, (_, day) => orderLine(day + 1, 900, 100));
    const recent = Array.from({ length: ORDER_LINES_REFERENCE_SIZE }, (_, day) => orderLine(day + 11, 1790, 202));
    const quote = { ...orderLine(31, 50_000, 40_000), kind: 'quote' as const, outcome: 'won' as const };
    const inEur = orderLine(31, 1650, 190, { currency: 'EUR' });
    expect(orderLinesReference([...old, ...recent, quote])).toEqual({ currency: '', costCents: 202, priceCents: 1790, lines: 20 });
    expect(orderLinesReference([...recent, inEur])).toEqual({ currency: 'EUR', costCents: 190, priceCents: 1650, lines: 1 });
    expect(orderLinesReference([quote])).toBeUndefined();
  });

  it("are kept per product of a category's lines, for the products an order line names", () => {
    const nut = { ...orderLine(5, 90, 40), productSku: 'NUT' };
    const references = orderLinesReferences([orderLine(1, 1790, 202), nut, { ...nut, productSku: 'WASHER', kind: 'quote' as const }]);
    expect([...references.keys()]).toEqual(['BOLT', 'NUT']);
    expect(orderLinesOf({ orderLines: references.get('NUT') })).toEqual({ currency: '', costCents: 40, priceCents: 90, lines: 1 });
    expect(orderLinesOf({})).toBeUndefined();
  });
});

describe('the data-warning rule against recent order lines', () => {
  const orderLines = { currency: '', costCents: 202, priceCents: 1790, lines: 12 };

  it('holds a cost first given where there was none, when it lies past the factor from the order lines', () => {
    const noCost: StoredProductValues = { costCents: 0, currentPriceCents: 1790, currency: '', orderLines };
    const judged = judge({ costCents: 2020, currentPriceCents: 1790 }, noCost);
    expect(judged.warnings.map((warning) => warning.code)).toEqual(['cost_jump', 'price_below_cost']);
    expect(judged.warnings[0]?.message).toBe(
      'cost 20.20 USD is 10 times the median cost on its last 12 order lines, 2.02 USD: past the 3× a batch may move it without a check.',
    );
    expect(judge({ costCents: 210, currentPriceCents: 1790 }, noCost)).toEqual({ warnings: [] });
    // Held with no cost known before it: the next batch's cost is judged against the order lines alone.
    expect(judged.basis).toEqual({ costCents: 0, currentPriceCents: 1790, currency: '' });
    const held: StoredProductValues = { ...noCost, costCents: 2020, ...(judged.basis ? { basis: judged.basis } : {}) };
    expect(judge({ costCents: 210, currentPriceCents: 1790 }, held)).toEqual({ warnings: [] });
  });

  it('holds a price that drifted past the factor over batches that each stayed within it', () => {
    const drifted: StoredProductValues = { costCents: 202, currentPriceCents: 3580, currency: '', orderLines: { ...orderLines, lines: 1 } };
    const judged = judge({ costCents: 202, currentPriceCents: 7160 }, drifted);
    expect(judged.warnings).toEqual([
      {
        code: 'price_jump',
        message:
          'current price 71.60 USD is 4 times the price its last order line sold at, 17.90 USD: past the 3× a batch may move it without a check.',
      },
    ]);
    // The price before it is kept as the one in line, so that sending it again clears the warning.
    expect(judged.basis).toEqual({ costCents: 202, currentPriceCents: 3580, currency: '' });
    const held: StoredProductValues = { ...drifted, currentPriceCents: 7160, ...(judged.basis ? { basis: judged.basis } : {}) };
    expect(judge({ costCents: 202, currentPriceCents: 3580 }, held)).toEqual({ warnings: [] });
    expect(judge({ costCents: 202, currentPriceCents: 7160 }, held).warnings.map((warning) => warning.code)).toEqual(['price_jump']);
  });

  it('names a jump once, against the value it was in line at, when both comparisons find it', () => {
    const judged = judge({ costCents: 2020, currentPriceCents: 1790 }, { ...stored, orderLines });
    expect(judged.warnings.filter((warning) => warning.code === 'cost_jump')).toHaveLength(1);
    expect(judged.warnings[0]?.message).toContain('the cost it was in line at');
  });

  it('compares order lines only in the same currency, and takes a price an approved write-back set as in line', () => {
    const inEur = { ...orderLines, currency: 'EUR' };
    expect(
      judge({ costCents: 2020, currentPriceCents: 1790 }, { costCents: 0, currentPriceCents: 1790, currency: '', orderLines: inEur }),
    ).toEqual({
      warnings: [{ code: 'price_below_cost', message: 'current price 17.90 USD is below the cost 20.20 USD.' }],
    });
    // The base currency named outright is the same currency as none named.
    const named = { ...orderLines, currency: 'USD' };
    expect(
      judge({ costCents: 2020, currentPriceCents: 5000 }, { costCents: 0, currentPriceCents: 5000, currency: '', orderLines: named })
        .warnings,
    ).toHaveLength(1);
    const approved: StoredProductValues = {
      costCents: 202,
      currentPriceCents: 5600,
      currency: '',
      orderLines,
      writtenBackPriceCents: 5600,
    };
    expect(judge({ costCents: 202, currentPriceCents: 5600 }, approved)).toEqual({ warnings: [] });
    expect(judge({ costCents: 202, currentPriceCents: 5600 }, { ...approved, writtenBackPriceCents: undefined }).warnings).toHaveLength(1);
  });
});
