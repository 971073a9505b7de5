// The console's list by expected impact and by size of change against DynamoDB Local: every row once, in order, across pages, currencies, categories, searches and filters.
import { describe, expect, it } from 'vitest';
import { CapacityLedger, withCapacityLedger } from '#platform/meter.ts';
import { skuSortKey } from '#platform/table/listing-sort-keys.ts';
import { orderings } from '#shared/recommendations/listing.ts';
import { readCataloguePage, type RowFilter } from '#shared/recommendations/listing-pages.ts';
import { storeRecommendations } from '#shared/recommendations/repository.ts';
import { type CatalogueQuery, type CatalogueRow, decodeCursor, encodeCursor } from '#shared/recommendations/catalogue.ts';
import type { Recommendation } from '#shared/recommendations/schema.ts';
import {
  estimatedImpact,
  sampleRecommendation,
  spreadMarginChangeCents,
  spreadPriceCents,
  TOO_THIN_IMPACT,
} from '#test/support/recommendations.ts';
import { newWorkspace } from './support.ts';

const RATES: Record<string, number> = { USD: 1, EUR: 1.08, JPY: 0.0067 };
const DIGITS: Record<string, number> = { USD: 2, EUR: 2, JPY: 0 };

/** 37 products over two categories and three currencies; every fifth too thin to say, every seventh unpriced. */
function catalogue(): Recommendation[] {
  return Array.from({ length: 37 }, (_, index) => {
    const currency = ['USD', 'EUR', 'JPY'][index % 3] as string;
    return sampleRecommendation(
      { sku: `IMP-${index + 1}`, category: index % 2 === 0 ? 'Lighting' : 'Fasteners', currency },
      index % 7 === 6
        ? undefined
        : {
            recommendedPriceCents: spreadPriceCents(index),
            confidence: 'medium',
            exchangeRateToBase: RATES[currency] as number,
            impact: index % 5 === 4 ? TOO_THIN_IMPACT : estimatedImpact(spreadMarginChangeCents(index)),
          },
    );
  });
}

/** Every row of a list, a small page at a time, following each page's cursor; every page but the last full. */
async function everyRow(workspaceId: string, query: Omit<CatalogueQuery, 'after'>, keep?: RowFilter): Promise<CatalogueRow[]> {
  const pages: CatalogueRow[][] = [];
  let after: string | undefined;
  do {
    const cursor = decodeCursor(after ?? null);
    const page = await readCataloguePage(workspaceId, { ...query, ...(cursor ? { after: cursor } : {}) }, 6, keep);
    expect(page.shown).toBe(pages.flat().length);
    pages.push([...page.rows]);
    after = page.next;
  } while (after && pages.length < 100);
  expect(pages.slice(0, -1).every((page) => page.length === 6)).toBe(true);
  return pages.flat();
}

function inBase(recommendation: Recommendation): number | undefined {
  if (recommendation.status !== 'priced' || recommendation.impact?.status !== 'estimated') return undefined;
  return (
    (recommendation.impact.expectedMarginChangeCents / 10 ** (DIGITS[recommendation.currency] as number)) *
    (RATES[recommendation.currency] as number)
  );
}

describe('the list by expected impact', () => {
  it('reads the largest expected margin gain per quote first in the base currency, then every product without an estimate, each once', async () => {
    const seller = await newWorkspace('Impact List Seller');
    const products = catalogue();
    await storeRecommendations(seller.workspaceId, products);
    const rows = await everyRow(seller.workspaceId, { sort: 'impact-desc' });
    expect(rows.map((row) => row.sku).sort()).toEqual(products.map((product) => product.sku).sort());
    const bySku = new Map(products.map((product) => [product.sku, product]));
    const values = rows.map((row) => inBase(bySku.get(row.sku) as Recommendation));
    const numbers = values.filter((value) => value !== undefined);
    expect(values.slice(0, numbers.length)).toEqual(numbers);
    expect(numbers).toEqual([...numbers].sort((a, b) => b - a));
    expect(values.slice(numbers.length).every((value) => value === undefined)).toBe(true);
    // The row carries the change in the product's own minor units, for the console to show with its currency.
    const first = rows[0] as CatalogueRow;
    const impact = (bySku.get(first.sku) as Extract<Recommendation, { status: 'priced' }>).impact;
    expect(first.expectedMarginChangeCents).toBe(impact?.status === 'estimated' ? impact.expectedMarginChangeCents : undefined);
  });

  it('keeps to one category when filtered by it', async () => {
    const seller = await newWorkspace('Impact Category Seller');
    const products = catalogue();
    await storeRecommendations(seller.workspaceId, products);
    const rows = await everyRow(seller.workspaceId, { sort: 'impact-desc', category: 'Lighting' });
    expect(rows.map((row) => row.sku).sort()).toEqual(
      products
        .filter((p) => p.category === 'Lighting')
        .map((p) => p.sku)
        .sort(),
    );
    const bySku = new Map(products.map((product) => [product.sku, product]));
    const numbers = rows.map((row) => inBase(bySku.get(row.sku) as Recommendation)).filter((value) => value !== undefined);
    expect(numbers).toEqual([...numbers].sort((a, b) => b - a));
  });
});

/** 40 products in two categories whose changes repeat, either way: -25, -20, -10, 0, +10, +20; every ninth without one. */
function tiedCatalogue(): Recommendation[] {
  return Array.from({ length: 40 }, (_, index) =>
    sampleRecommendation(
      {
        sku: `TIE-${index + 1}`,
        name: index % 4 === 0 ? `Brass hinge ${index}` : `Steel part ${index}`,
        category: index % 2 === 0 ? 'Hinges' : 'Bolts',
        currentPriceCents: index % 9 === 8 ? 0 : 1000,
      },
      index % 9 === 4 ? undefined : { recommendedPriceCents: [750, 800, 900, 1000, 1100, 1200][index % 6] as number, confidence: 'low' },
    ),
  );
}

/**
 * The sort by size as a person reads it: the largest change either way first; at equal size the rise first; equal
 * rises as the list by change, highest first, shows them and equal cuts as lowest first does; then the products
 * without a change, by SKU.
 */
function bySize(rows: readonly CatalogueRow[]): string[] {
  const key = (row: CatalogueRow) => skuSortKey(row.sku);
  const order = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  const numbers = rows.filter((row) => row.changePct !== null) as Array<CatalogueRow & { changePct: number }>;
  numbers.sort((a, b) => {
    const size = Math.abs(b.changePct) - Math.abs(a.changePct);
    if (size !== 0) return size;
    if (a.changePct >= 0 !== b.changePct >= 0) return a.changePct >= 0 ? -1 : 1;
    return a.changePct >= 0 ? order(key(b), key(a)) : order(key(a), key(b));
  });
  const none = rows.filter((row) => row.changePct === null).sort((a, b) => order(key(a), key(b)));
  return [...numbers, ...none].map((row) => row.sku);
}

describe('the list by size of change', () => {
  it('reads the largest change either way first, then the products without one, each once', async () => {
    const seller = await newWorkspace('Size List Seller');
    const products = catalogue();
    await storeRecommendations(seller.workspaceId, products);
    const rows = await everyRow(seller.workspaceId, { sort: 'size-desc' });
    expect(rows).toHaveLength(products.length);
    const sizes = rows.map((row) => (row.changePct === null ? null : Math.abs(row.changePct)));
    const numbers = sizes.filter((size) => size !== null);
    expect(sizes.slice(0, numbers.length)).toEqual([...numbers].sort((a, b) => b - a));
    expect(sizes.slice(numbers.length).every((size) => size === null)).toBe(true);
  });

  it('orders ties the same way on every page: a rise before a cut of its size, equal changes as the list by change reads them', async () => {
    const seller = await newWorkspace('Size Ties Seller');
    const products = tiedCatalogue();
    await storeRecommendations(seller.workspaceId, products);
    const all = (await readCataloguePage(seller.workspaceId, { sort: 'sku' }, 100)).rows;
    expect(all).toHaveLength(40);
    const rows = await everyRow(seller.workspaceId, { sort: 'size-desc' });
    expect(rows.map((row) => row.sku)).toEqual(bySize(all));
    // The ties are there to be ordered: three sizes held by rises and cuts both, and unchanged products.
    expect(rows.filter((row) => row.changePct === 0).length).toBeGreaterThan(1);
    expect(rows.filter((row) => row.changePct === null).length).toBeGreaterThan(1);
  });

  it('keeps to one category, and to the products a search matches, in the same order', async () => {
    const seller = await newWorkspace('Size Filter Seller');
    await storeRecommendations(seller.workspaceId, tiedCatalogue());
    const all = (await readCataloguePage(seller.workspaceId, { sort: 'sku' }, 100)).rows;
    const hinges = await everyRow(seller.workspaceId, { sort: 'size-desc', category: 'Hinges' });
    expect(hinges.map((row) => row.sku)).toEqual(bySize(all.filter((row) => row.category === 'Hinges')));
    const brass = await everyRow(seller.workspaceId, { sort: 'size-desc', search: 'BRASS' });
    expect(brass.map((row) => row.sku)).toEqual(bySize(all.filter((row) => row.name?.startsWith('Brass'))));
    expect(brass.length).toBeGreaterThan(6);
    const both = await everyRow(seller.workspaceId, { sort: 'size-desc', category: 'Hinges', search: 'tie-1' });
    expect(both.map((row) => row.sku)).toEqual(bySize(all.filter((row) => row.category === 'Hinges' && row.sku.startsWith('TIE-1'))));
  });

  it('keeps the rows a filter the rows do not hold keeps, in the same order', async () => {
    const seller = await newWorkspace('Size Kept Seller');
    await storeRecommendations(seller.workspaceId, tiedCatalogue());
    const all = (await readCataloguePage(seller.workspaceId, { sort: 'sku' }, 100)).rows;
    const odd = (sku: string) => Number(sku.slice(4)) % 2 === 1;
    const keep: RowFilter = async (rows) => rows.filter((row) => odd(row.sku));
    const kept = await everyRow(seller.workspaceId, { sort: 'size-desc' }, keep);
    expect(kept.map((row) => row.sku)).toEqual(bySize(all.filter((row) => odd(row.sku))));
  });

  it('reads a cursor whose ends name no row of the list by change as the first page', async () => {
    const seller = await newWorkspace('Size Cursor Seller');
    await storeRecommendations(seller.workspaceId, tiedCatalogue());
    const first = await readCataloguePage(seller.workspaceId, { sort: 'size-desc' }, 6);
    const forged = { segment: 0, sku: 'TIE-1', sortKey: skuSortKey('TIE-1'), shown: 300 };
    const page = await readCataloguePage(seller.workspaceId, { sort: 'size-desc', after: forged }, 6);
    expect(page.rows).toEqual(first.rows);
    expect(page.shown).toBe(0);
    const second = decodeCursor(first.next ?? null);
    expect(second?.segment).toBe(0);
    const swapped = decodeCursor(
      encodeCursor({
        segment: 0,
        sku: 'TIE-1',
        sortKey: `C0000000000000000#${skuSortKey('TIE-1')}`,
        shown: 6,
        bottom: { sku: 'TIE-2', sortKey: `C1999999999999999#${skuSortKey('TIE-2')}` },
      }),
    );
    expect((await readCataloguePage(seller.workspaceId, { sort: 'size-desc', ...(swapped ? { after: swapped } : {}) }, 6)).rows).toEqual(
      first.rows,
    );
  });

  it('costs a few read units a view whatever the catalogue: each end of the list by change read half a page at a time, over its shards', async () => {
    const seller = await newWorkspace('Size Cost Seller');
    const products = Array.from({ length: 6 }, () => tiedCatalogue()).flatMap((batch, copy) =>
      batch.map((product) => ({ ...product, sku: `${product.sku}-${copy}` })),
    );
    await storeRecommendations(seller.workspaceId, products);
    const measured: Record<string, number> = {};
    let after: string | undefined;
    for (const name of ['first page', 'second page', 'third page']) {
      const ledger = new CapacityLedger();
      const cursor = decodeCursor(after ?? null);
      const page = await withCapacityLedger(ledger, () =>
        readCataloguePage(seller.workspaceId, { sort: 'size-desc', ...(cursor ? { after: cursor } : {}) }),
      );
      measured[name] = ledger.readUnits;
      after = page.next;
    }
    const byChange = new CapacityLedger();
    await withCapacityLedger(byChange, () => readCataloguePage(seller.workspaceId, { sort: 'change-desc' }));
    measured['first page by change'] = byChange.readUnits;
    console.info(`read units per view by size of change (240 products, pages of 50): ${JSON.stringify(measured)}`);
    // Each end's first read is a Query of each of the ordering's 9 partitions (8 shards and the one before them), 0.5
    // RRU at least apiece; reading on Queries only the shards whose rows were taken.
    for (const name of ['first page', 'second page', 'third page']) expect(measured[name], name).toBeLessThanOrEqual(11);
  });
});

describe('the write units of a recommendation with its impact', () => {
  it('are its item and one row per ordering, each row and entry under 1 KB', async () => {
    const seller = await newWorkspace('Impact Write Seller');
    const [first] = catalogue();
    const ledger = new CapacityLedger();
    await withCapacityLedger(ledger, () => storeRecommendations(seller.workspaceId, [first as Recommendation]));
    console.info(`write units per recommendation stored with its rows: ${ledger.writeUnits}`);
    // The item (with its basis and impact) in at most 2 KB, and each ordering's row and its index entry in 1 KB each;
    // the category list's update 1 more.
    expect(ledger.writeUnits).toBeLessThanOrEqual(2 + 2 * orderings.length + 1);
  });
});
