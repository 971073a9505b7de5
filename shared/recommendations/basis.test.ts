// The basis a recommendation keeps: which guardrail it tells a person binds, when a max-change move stopped at another bound.
import { describe, expect, it } from 'vitest';
import { bandAt } from '#test/support/bands.ts';
import type { LineInputs, PricingProduct } from '#shared/pricing/model.ts';
import { priceLineWithBasis } from '#shared/pricing/price-line.ts';
import { defaultPricingSettings as settings } from '#shared/pricing/settings.ts';
import { recommendationBasis } from './basis.ts';

const NOW = Date.UTC(2025, 0, 1);
const bands = { segmentSku: bandAt(NOW, { floor: 0.4, target: 0.45, stretch: 0.5, cov: 0 }) };

function basisOf(product: Omit<PricingProduct, 'sku'>, currency = 'USD') {
  const inputs: LineInputs = {
    product: { sku: 'SKU-1', ...product },
    currency,
    hasCustomer: false,
    quantity: 1,
    enforceMap: true,
    nowMs: NOW,
  };
  const priced = priceLineWithBasis(inputs, bands, settings);
  return { priced, basis: recommendationBasis(priced, inputs.product, settings) };
}

describe('the binding guardrail', () => {
  it('is the floor when the max change asked for less than the floor allows, and the label says where the move stopped', () => {
    // The band asks 62.40; 25% over the current 40.28 is 50.35, under the floor of 56.17: the price sits on the floor.
    const { priced, basis } = basisOf({ costCents: 3432, currentPriceCents: 4028, floorCents: 5617 });
    expect(priced.line.priceCents).toBe(5617);
    expect(basis.binding).toEqual({ guardrail: 'floor', valueCents: 5617 });
    expect(priced.line.reason.at(-1)?.label).toBe('Kept within 25% of the current price 40.28 USD, stopped at the floor price 56.17 USD');
  });

  it('is the minimum margin when that is the bound the max change stopped at', () => {
    // The band asks 65.33; 25% over the current 25.00 is 31.25, under the cost of 35.93 that a 0% minimum margin holds.
    const { priced, basis } = basisOf({ costCents: 3593, currentPriceCents: 2500 });
    expect(priced.line.priceCents).toBe(3593);
    expect(basis.binding).toEqual({ guardrail: 'min_margin', valueCents: 3593 });
    expect(priced.line.reason.at(-1)?.label).toBe('Kept within 25% of the current price 25.00 USD, stopped at cost');
  });

  it('is the ceiling when the max change asked for more than the ceiling allows', () => {
    // The band asks 72.73; 25% under the current 120.00 is 90.00, over the ceiling of 80.00.
    const { priced, basis } = basisOf({ costCents: 4000, currentPriceCents: 12_000, ceilingCents: 8000 });
    expect(priced.line.priceCents).toBe(8000);
    expect(basis.binding).toEqual({ guardrail: 'ceiling', valueCents: 8000 });
  });

  it('is the max change itself when no other bound stopped it', () => {
    const { priced, basis } = basisOf({ costCents: 5500, currentPriceCents: 20_000 });
    expect(priced.line.priceCents).toBe(15_000);
    expect(basis.binding).toEqual({ guardrail: 'max_change', valueCents: 15_000 });
    expect(priced.line.reason.at(-1)?.label).toBe('Kept within 25% of the current price 200.00 USD');
  });
});
