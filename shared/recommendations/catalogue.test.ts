import { describe, expect, it } from 'vitest';
import { cataloguePage, readCatalogueQuery } from './catalogue.ts';
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

describe('the catalogue of recommendations', () => {
  it('lists every product by SKU with its change, and the categories to filter by', () => {
    const page = cataloguePage(catalogue, { sort: 'sku', page: 1 });
    expect(page.rows.map((row) => row.sku)).toEqual(['BOLT-1', 'FREE-1', 'LAMP-1', 'LAMP-2']);
    expect(page.rows[0]).toMatchObject({ changePct: -25, recommendedPriceCents: 150, confidence: 'low' });
    expect(page.rows[1]).toMatchObject({ changePct: null });
    expect(page.rows[1]).not.toHaveProperty('recommendedPriceCents');
    expect(page.categories).toEqual(['Fasteners', 'Lighting']);
  });

  it('orders SKUs as a person does, numbers within them by value', () => {
    const numbered = [priced('CLIP-10', 100, 100), priced('CLIP-2', 100, 100), priced('CLIP-1', 100, 100)];
    expect(cataloguePage(numbered, { sort: 'sku', page: 1 }).rows.map((row) => row.sku)).toEqual(['CLIP-1', 'CLIP-2', 'CLIP-10']);
  });

  it('filters by category and searches SKU and name without regard to case', () => {
    expect(cataloguePage(catalogue, { category: 'Fasteners', sort: 'sku', page: 1 }).rows.map((row) => row.sku)).toEqual(['BOLT-1']);
    expect(cataloguePage(catalogue, { search: 'hex', sort: 'sku', page: 1 }).rows.map((row) => row.sku)).toEqual(['BOLT-1']);
    expect(cataloguePage(catalogue, { search: 'lamp', sort: 'sku', page: 1 }).matching).toBe(2);
  });

  it('sorts by change either way, with products that have no change last', () => {
    expect(cataloguePage(catalogue, { sort: 'change-asc', page: 1 }).rows.map((row) => row.sku)).toEqual([
      'BOLT-1',
      'LAMP-1',
      'LAMP-2',
      'FREE-1',
    ]);
    expect(cataloguePage(catalogue, { sort: 'change-desc', page: 1 }).rows.map((row) => row.sku)).toEqual([
      'LAMP-2',
      'LAMP-1',
      'BOLT-1',
      'FREE-1',
    ]);
  });

  it('cuts the list into pages, and shows the last page for a page past it', () => {
    const second = cataloguePage(catalogue, { sort: 'sku', page: 2 }, 3);
    expect(second).toMatchObject({ page: 2, pages: 2, matching: 4 });
    expect(second.rows.map((row) => row.sku)).toEqual(['LAMP-2']);
    expect(cataloguePage(catalogue, { sort: 'sku', page: 9 }, 3).page).toBe(2);
  });

  it('reads the query string, falling back on anything that does not read', () => {
    expect(readCatalogueQuery(new URLSearchParams('category=Lighting&q=%20lamp%20&sort=change-desc&page=3'))).toEqual({
      category: 'Lighting',
      search: 'lamp',
      sort: 'change-desc',
      page: 3,
    });
    expect(readCatalogueQuery(new URLSearchParams('category=&sort=price&page=-1'))).toEqual({ sort: 'sku', page: 1 });
    expect(readCatalogueQuery(new URLSearchParams('page=1e400'))).toEqual({ sort: 'sku', page: 1 });
  });
});
