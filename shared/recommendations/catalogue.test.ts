import { describe, expect, it } from 'vitest';
import { catalogueRow, decodeCursor, encodeCursor, readCatalogueQuery } from './catalogue.ts';
import { NO_NUMBER_PREFIX, skuSortKey } from '#platform/table/listing-sort-keys.ts';
import { changeSortKey } from './listing.ts';
import type { Recommendation } from './schema.ts';

function priced(
  sku: string,
  currentPriceCents: number,
  recommendedPriceCents: number,
  extra: Partial<Recommendation> = {},
): Recommendation {
  return {
    status: 'priced',
    sku,
    name: `Product ${sku}`,
    category: 'Lighting',
    currency: 'USD',
    currentPriceCents,
    recommendedPriceCents,
    pricingDecisionId: 'pd_1',
    updatedAt: '2026-11-01T00:00:00.000Z',
    floorCents: 1,
    rationale: 'r',
    reasonSummary: 's',
    drivers: [],
    confidence: 'low',
    ...extra,
  } as Recommendation;
}

const catalogue: Recommendation[] = [
  priced('LAMP-2', 1000, 1100),
  priced('BOLT-1', 200, 150, { category: 'Fasteners', name: 'Hex bolt M10' }),
  priced('LAMP-1', 1000, 900),
  {
    status: 'unpriced',
    sku: 'FREE-1',
    category: 'Lighting',
    currency: 'USD',
    currentPriceCents: 0,
    pricingDecisionId: 'pd_2',
    updatedAt: 'x',
    reason: 'no_cost_basis',
  },
];

function sortedBy(key: (recommendation: Recommendation) => string, recommendations = catalogue): string[] {
  return [...recommendations].sort((a, b) => (key(a) < key(b) ? -1 : 1)).map((recommendation) => recommendation.sku);
}

describe('the catalogue of recommendations', () => {
  it('shows each product with its change, and no recommended price or change for one it cannot price', () => {
    expect(catalogueRow(catalogue[1] as Recommendation)).toMatchObject({ changePct: -25, recommendedPriceCents: 150, confidence: 'low' });
    const unpriced = catalogueRow(catalogue[3] as Recommendation);
    expect(unpriced).toMatchObject({ changePct: null });
    expect(unpriced).not.toHaveProperty('recommendedPriceCents');
  });

  it('keys SKUs so that they sort as a person orders them, numbers within them by value', () => {
    const numbered = [priced('CLIP-10', 100, 100), priced('clip-2', 100, 100), priced('CLIP-1', 100, 100), priced('CLIP-002', 1, 1)];
    expect(sortedBy((recommendation) => skuSortKey(recommendation.sku), numbered)).toEqual(['CLIP-1', 'CLIP-002', 'clip-2', 'CLIP-10']);
    expect(sortedBy((recommendation) => skuSortKey(recommendation.sku))).toEqual(['BOLT-1', 'FREE-1', 'LAMP-1', 'LAMP-2']);
  });

  it('keys changes so that they sort by value, lowest first, with products that have no change after every number', () => {
    const change = (recommendation: Recommendation) => changeSortKey(catalogueRow(recommendation).changePct, recommendation.sku);
    expect(sortedBy(change)).toEqual(['BOLT-1', 'LAMP-1', 'LAMP-2', 'FREE-1']);
    expect(changeSortKey(-100, 'A') < changeSortKey(-0.01, 'A')).toBe(true);
    expect(changeSortKey(0, 'A') < changeSortKey(0.01, 'A')).toBe(true);
    expect(changeSortKey(9e12, 'A') < changeSortKey(null, 'A')).toBe(true);
    expect(changeSortKey(5, 'A').startsWith(NO_NUMBER_PREFIX)).toBe(false);
  });

  it('reads the query string, falling back on anything that does not read', () => {
    const after = encodeCursor({ segment: 1, sku: 'LAMP-1', sortKey: 'N#lamp-011#LAMP-1', shown: 50 });
    expect(readCatalogueQuery(new URLSearchParams(`category=Lighting&q=%20lamp%20&sort=change-desc&after=${after}`))).toEqual({
      category: 'Lighting',
      search: 'lamp',
      sort: 'change-desc',
      after: { segment: 1, sku: 'LAMP-1', sortKey: 'N#lamp-011#LAMP-1', shown: 50 },
    });
    expect(readCatalogueQuery(new URLSearchParams('category=&sort=price&page=-1'))).toEqual({ sort: 'sku' });
  });

  it('reads a cursor that was tampered with as the first page', () => {
    const forged = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
    for (const text of [
      'not-base64-json',
      forged({ segment: 0 }),
      forged([7, 'A', 'a#A', 0]),
      forged([0, 'A', '', 0]),
      forged([0, 'A', 'a#A', -1]),
      forged([0, '\ud800', 'a#A', 0]),
      forged([0, 'A'.repeat(600), 'a#A', 0]),
      'x'.repeat(5000),
    ]) {
      expect(decodeCursor(text)).toBeUndefined();
    }
    expect(decodeCursor(forged([1, '', '', 50]))).toEqual({ segment: 1, sku: '', sortKey: '', shown: 50 });
  });

  it("carries the sort by size's two ends, and reads them back", () => {
    const cursor = {
      segment: 0,
      sku: 'LAMP-2',
      sortKey: changeSortKey(10, 'LAMP-2'),
      shown: 50,
      bottom: { sku: 'BOLT-1', sortKey: changeSortKey(-25, 'BOLT-1') },
    };
    expect(decodeCursor(encodeCursor(cursor))).toEqual(cursor);
    const onlyBottom = { ...cursor, sku: '', sortKey: '' };
    expect(decodeCursor(encodeCursor(onlyBottom))).toEqual(onlyBottom);
    expect(readCatalogueQuery(new URLSearchParams(`sort=size-desc&after=${encodeCursor(cursor)}`)).after).toEqual(cursor);
  });

  it('reads a cursor with a bottom end as the first page unless it is of the sort by size, among the rows with a change, naming a row', () => {
    const forged = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
    const key = changeSortKey(-25, 'BOLT-1');
    for (const text of [
      forged([1, '', '', 0, 'BOLT-1', key]),
      forged([0, '', '', 0, '', '']),
      forged([0, '', '', 0, 'BOLT-1', '']),
      forged([0, '', '', 0, 'BOLT-1']),
      forged([0, '', '', 0, 'BOLT-1', 7]),
      forged([0, '', '', 0, '\ud800', key]),
      forged([0, '', '', 0, 'BOLT-1', 'x'.repeat(1025)]),
    ]) {
      expect(decodeCursor(text), text).toBeUndefined();
    }
    const sized = encodeCursor({ segment: 0, sku: '', sortKey: '', shown: 50, bottom: { sku: 'BOLT-1', sortKey: key } });
    for (const sort of ['sku', 'change-asc', 'change-desc', 'impact-desc']) {
      expect(readCatalogueQuery(new URLSearchParams(`sort=${sort}&after=${sized}`)).after, sort).toBeUndefined();
    }
  });
});
