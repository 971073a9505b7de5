// Unit tests of the data-warning rule: a cost or current price moved past the factor either way, a price below cost, the basis a held product keeps, and clearing.
import { describe, expect, it } from 'vitest';
import { pricingSettings } from '#shared/pricing/settings.ts';
import { basisOf, DEFAULT_DATA_WARNING_FACTOR, judgeProductData, type StoredProductValues, warningsOf } from './data-warnings.ts';
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
    const item = productItem(record, from, undefined, judged);
    expect(warningsOf(item)).toEqual(judged.warnings);
    expect(basisOf(item)).toEqual(judged.basis);
    const inLine = productItem({ ...record, costCents: 202 }, from, undefined, judge({ ...record, costCents: 202 }));
    expect(inLine).not.toHaveProperty('warnings');
    expect(inLine).not.toHaveProperty('warningBasis');
    expect(warningsOf(inLine)).toEqual([]);
    expect(warningsOf({ warnings: [{ code: 'other', message: 'x' }] })).toEqual([]);
  });
});
