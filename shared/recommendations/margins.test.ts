import { describe, expect, it } from 'vitest';
import type { OrderRecord } from '#shared/records/schema.ts';
import { addContributions, orderContribution } from './margins.ts';

function order(
  soldAt: string,
  lines: Array<[sku: string, quantity: number, cost: number, price: number]>,
  exchangeRate?: number,
): OrderRecord {
  return {
    externalId: 'O-1',
    customerExternalId: 'C-1',
    currency: 'USD',
    soldAt,
    ...(exchangeRate === undefined ? {} : { exchangeRate }),
    lines: lines.map(([productSku, quantity, costCents, soldPriceCents]) => ({ productSku, quantity, costCents, soldPriceCents })),
  } as OrderRecord;
}

describe("an order's contribution to its products' monthly margins", () => {
  it('sums each product of the order in its UTC month, weighted by quantity', () => {
    expect(
      orderContribution(
        order('2026-09-30T23:30:00-02:00', [
          ['LAMP', 10, 60, 100],
          ['LAMP', 30, 80, 100],
          ['SHADE', 1, 50, 200],
        ]),
      ),
    ).toEqual({ '2026-10 LAMP': [4000, 3000, 2], '2026-10 SHADE': [200, 50, 1] });
  });

  it('converts an order in another currency at its rate, so that it weighs as much as it sold for', () => {
    expect(orderContribution(order('2026-09-01T00:00:00Z', [['LAMP', 1, 50, 100]], 3))).toEqual({ '2026-09 LAMP': [300, 150, 1] });
  });

  it('takes a corrected version as the difference from the one before, and leaves nothing for an unchanged one', () => {
    const before = orderContribution(order('2026-09-01T00:00:00Z', [['LAMP', 2, 50, 100]]));
    const after = orderContribution(order('2026-09-01T00:00:00Z', [['LAMP', 3, 50, 100]]));
    expect(addContributions(after, before, -1)).toEqual({ '2026-09 LAMP': [100, 50, 0] });
    expect(addContributions(before, before, -1)).toEqual({});
  });
});
