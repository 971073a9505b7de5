// The seller a pricing manager's morning is played on: a year of history, quotes that give BOLT a win model, and a product sold in two months half a year apart.
import type { OrderRecord, ProductRecord, QuoteRecord } from '#shared/records/schema.ts';
import { daysAgo } from '#test/integration/prices-support.ts';

/** Sold in two months about six months apart, and nothing between: the chart must show the gap. */
export const GAP: ProductRecord = { sku: 'GAP-1', name: 'Seasonal clamp', category: 'Fasteners', costCents: 1000, currentPriceCents: 1500 };

export function gapOrders(): OrderRecord[] {
  return [5, 6, 185, 186].map((days, i) => ({
    externalId: `O-GAP-${i}`,
    customerExternalId: `C-${i}`,
    currency: 'USD',
    soldAt: daysAgo(days),
    lines: [{ productSku: 'GAP-1', quantity: 4, costCents: 1000, soldPriceCents: days < 100 ? 1450 : 1380 }],
  }));
}

/** Quotes of BOLT won at low prices and lost at high ones, so that its win model has a slope to say something with. */
export function boltQuotes(): QuoteRecord[] {
  return Array.from({ length: 400 }, (_, i) => {
    const markup = 1.2 + (i % 10) * 0.05;
    // Nine in ten won at the lowest price, one in ten at the highest, falling evenly between.
    const won = (Math.floor(i / 10) * 7) % 10 < 9 - (i % 10) * 0.9;
    return {
      externalId: `Q-BOLT-${i}`,
      customerExternalId: `C-${i % 20}`,
      outcome: won ? 'won' : 'lost',
      currency: 'USD',
      createdAt: daysAgo(3 + (i % 90)),
      decidedAt: daysAgo(2 + (i % 90)),
      lines: [{ productSku: 'BOLT', quantity: 12, costCents: 1000, quotedPriceCents: Math.round(1000 * markup), pricingDecisionId: null }],
    };
  });
}

/** Text as a person reads it: runs of whitespace as one space. */
export function words(text: string | null): string {
  return (text ?? '').replace(/\s+/g, ' ').trim();
}
