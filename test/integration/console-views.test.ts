// The console's recommendations list and product page against DynamoDB Local: paged by DynamoDB in every sort and filter, and read units per view that stay put as the catalogue grows.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { putItems } from '#platform/table/bulk.ts';
import { CapacityLedger, withCapacityLedger } from '#platform/meter.ts';
import { historyLogItems, type LogEntry } from '#shared/bands/history-log.ts';
import { recommendationsPage } from '#edge/console/pages/recommendation-list.ts';
import { productPage } from '#edge/console/pages/recommendations.ts';
import type { ConsoleContext, ConsolePage } from '#edge/console/page.ts';
import { type CatalogueQuery, type CatalogueRow, catalogueRow, readCatalogueQuery } from '#shared/recommendations/catalogue.ts';
import { skuSortKey } from '#platform/table/listing-sort-keys.ts';
import { changeSortKey, recommendationRows } from '#shared/recommendations/listing.ts';
import { readCataloguePage } from '#shared/recommendations/listing-pages.ts';
import { foldMargins } from '#shared/recommendations/margins.ts';
import { storeRecommendations } from '#shared/recommendations/repository.ts';
import type { Recommendation } from '#shared/recommendations/schema.ts';
import { newWorkspace } from './support.ts';

function priced(sku: string, category: string, currentPriceCents: number, recommendedPriceCents: number): Recommendation {
  return {
    status: 'priced',
    sku,
    name: `Part ${sku}`,
    category,
    currency: 'USD',
    currentPriceCents,
    recommendedPriceCents,
    pricingDecisionId: `pd_${sku}`,
    updatedAt: '2026-11-01T00:00:00.000Z',
    floorCents: 1,
    rationale: 'Priced at the category target: the margin of the category as its orders realised it over the year.',
    reasonSummary: 'category target',
    drivers: [{ param: 'quantity', label: 'Deal size', points: -0.5, direction: 'down' }],
    confidence: 'medium',
  };
}

function unpriced(sku: string, category: string): Recommendation {
  return {
    status: 'unpriced',
    sku,
    name: `Free ${sku}`,
    category,
    currency: 'USD',
    currentPriceCents: 0,
    pricingDecisionId: `pd_${sku}`,
    updatedAt: '2026-11-01T00:00:00.000Z',
    reason: 'no_cost_basis',
  };
}

/** A catalogue of `count` products over a few categories, every seventh without a change to sort by. */
function catalogue(count: number, categories = ['Fasteners', 'Lighting', 'Adhesives']): Recommendation[] {
  return Array.from({ length: count }, (_, index) => {
    const sku = `P-${index + 1}`;
    const category = categories[index % categories.length] as string;
    if (index % 7 === 3) return unpriced(sku, category);
    return priced(sku, category, 1000, 700 + ((index * 37) % 600));
  });
}

/** Every page of the list as a person follows its next links. */
async function everyPage(workspaceId: string, query: Omit<CatalogueQuery, 'after'>, pageSize: number): Promise<CatalogueRow[][]> {
  const pages: CatalogueRow[][] = [];
  let after: string | undefined;
  do {
    const params = new URLSearchParams(after ? { after } : {});
    const page = await readCataloguePage(workspaceId, { ...query, ...readCatalogueQuery(params), sort: query.sort }, pageSize);
    pages.push([...page.rows]);
    after = page.next;
  } while (after !== undefined && pages.length < 100);
  return pages;
}

/** What the list should show: by SKU as a person orders them, or by change with products without one last. */
function expected(recommendations: readonly Recommendation[], query: Omit<CatalogueQuery, 'after'>): string[] {
  const rows = recommendations
    .map(catalogueRow)
    .filter((row) => query.category === undefined || row.category === query.category)
    .filter((row) => query.search === undefined || `${row.sku}\n${row.name}`.toLowerCase().includes(query.search.toLowerCase()));
  const by = (key: (row: CatalogueRow) => string) => (a: CatalogueRow, b: CatalogueRow) => (key(a) < key(b) ? -1 : 1);
  if (query.sort === 'sku') return rows.sort(by((row) => skuSortKey(row.sku))).map((row) => row.sku);
  const change = (row: CatalogueRow) => changeSortKey(row.changePct, row.sku);
  const numbers = rows.filter((row) => row.changePct !== null).sort(by(change));
  const none = rows.filter((row) => row.changePct === null).sort(by(change));
  return [...(query.sort === 'change-asc' ? numbers : numbers.reverse()), ...none].map((row) => row.sku);
}

function contextOf(workspaceId: string, query = '', params: Record<string, string> = {}): ConsoleContext {
  return {
    user: { userId: 'usr_views', email: 'views@example.com', workspaceId, roles: ['pricing'] },
    params,
    query: new URLSearchParams(query),
    csrfToken: 'token',
    nowMs: Date.now(),
  };
}

/** The read units one view of a page consumed, as its cost line reports them. */
async function readUnitsOf(page: ConsolePage, ctx: ConsoleContext): Promise<{ units: number; text: string }> {
  const ledger = new CapacityLedger();
  const view = await withCapacityLedger(ledger, () => page.read(ctx));
  return { units: ledger.readUnits, text: view.body.text };
}

describe("the console's list of recommendations", () => {
  it('pages through every product once, in each sort, over the workspace and within a category', async () => {
    const seller = await newWorkspace('Paged Console Seller');
    const products = catalogue(61);
    await storeRecommendations(seller.workspaceId, products);

    for (const sort of ['sku', 'change-asc', 'change-desc'] as const) {
      for (const query of [{ sort }, { sort, category: 'Lighting' }, { sort, search: 'p-1' }]) {
        const pages = await everyPage(seller.workspaceId, query, 7);
        expect(
          pages.flat().map((row) => row.sku),
          JSON.stringify(query),
        ).toEqual(expected(products, query));
        expect(pages.slice(0, -1).every((page) => page.length === 7)).toBe(true);
      }
    }
    expect((await readCataloguePage(seller.workspaceId, { sort: 'sku' })).categories).toEqual(['Adhesives', 'Fasteners', 'Lighting']);
  });

  it('shows the highest change first and products without a change last, whichever way it sorts', async () => {
    const seller = await newWorkspace('Sorted Console Seller');
    await storeRecommendations(seller.workspaceId, [
      priced('UP', 'Tools', 1000, 1500),
      unpriced('FREE', 'Tools'),
      priced('DOWN', 'Tools', 1000, 500),
      priced('FLAT', 'Tools', 1000, 1000),
    ]);
    const skus = async (sort: CatalogueQuery['sort']) => (await readCataloguePage(seller.workspaceId, { sort })).rows.map((row) => row.sku);
    expect(await skus('change-desc')).toEqual(['UP', 'FLAT', 'DOWN', 'FREE']);
    expect(await skus('change-asc')).toEqual(['DOWN', 'FLAT', 'UP', 'FREE']);
  });

  it("moves a product to its new category's list when its category changes, and out of the old one", async () => {
    const seller = await newWorkspace('Moved Console Seller');
    await storeRecommendations(seller.workspaceId, [priced('MOVER', 'Old', 1000, 1100), priced('STAYS', 'Old', 1000, 1200)]);
    await storeRecommendations(seller.workspaceId, [priced('MOVER', 'New', 1000, 1100)]);
    const inCategory = async (category: string) =>
      (await readCataloguePage(seller.workspaceId, { sort: 'change-desc', category })).rows.map((row) => row.sku);
    expect(await inCategory('Old')).toEqual(['STAYS']);
    expect(await inCategory('New')).toEqual(['MOVER']);
  });
});

/** A category's history log of `lines` order lines, 1,000 to a document, written as drains write it. */
function categoryLog(workspaceId: string, category: string, skus: readonly string[], lines: number) {
  const entries: LogEntry[] = [];
  for (let document = 0; document * 1000 < lines; document++) {
    entries.push({
      kind: 'order',
      documentId: `O-${document}`,
      version: 1,
      expiresAt: Math.floor(Date.now() / 1000) + 86_400 * 365,
      customerExternalId: 'C-1',
      segment: '',
      atMs: Date.now() - document * 86_400_000,
      lines: Array.from({ length: Math.min(1000, lines - document * 1000) }, (_, index) => ({
        productSku: skus[(document * 1000 + index) % skus.length] as string,
        quantity: 1 + (index % 5),
        costCents: 700,
        priceCents: 1000,
      })),
    });
  }
  return historyLogItems(workspaceId, category, `seed#${randomUUID()}`, entries);
}

describe('read units per view of the recommendations pages', () => {
  // Large enough that reading what a view does not need shows at once: the 12,000 list rows (six per product) are
  // hundreds of read units, and the category's history is 10 documents of 1,000 lines; every gate below is 30 or less.
  it('stay within a small constant with 2,000 products and a 10,000-line category', async () => {
    const seller = await newWorkspace('Large Console Seller');
    const products = catalogue(2_000, ['Bulk', ...Array.from({ length: 19 }, (_, index) => `Category ${index + 1}`)]);
    const bulk = products.filter((product) => product.category === 'Bulk').map((product) => product.sku);
    // The rows every list reads; the recommendation items themselves only for the product the page shows.
    await putItems([
      ...products.flatMap((recommendation) => recommendationRows(seller.workspaceId, recommendation)),
      ...categoryLog(seller.workspaceId, 'Bulk', bulk, 10_000),
    ]);
    const sku = bulk[0] as string;
    await storeRecommendations(seller.workspaceId, products.slice(0, 1));
    await foldMargins(
      seller.workspaceId,
      Object.fromEntries(
        Array.from({ length: 24 }, (_, month) => [
          `20${24 + Math.floor(month / 12)}-${String((month % 12) + 1).padStart(2, '0')} ${sku}`,
          [100_000, 70_000, 40],
        ]),
      ),
      'seed',
      '1',
    );

    const views: Array<[string, ConsolePage, ConsoleContext]> = [
      ['list by SKU', recommendationsPage, contextOf(seller.workspaceId)],
      ['list of one category by change', recommendationsPage, contextOf(seller.workspaceId, 'category=Bulk&sort=change-desc')],
      ['list by change, lowest first', recommendationsPage, contextOf(seller.workspaceId, 'sort=change-asc')],
      ['list searched', recommendationsPage, contextOf(seller.workspaceId, 'q=p-99')],
      ['product page', productPage, contextOf(seller.workspaceId, '', { sku })],
    ];
    const measured: Record<string, number> = {};
    for (const [name, page, ctx] of views) {
      const { units, text } = await readUnitsOf(page, ctx);
      measured[name] = units;
      expect(text, name).not.toContain('No recommendations yet');
    }
    // The next page costs what the first did.
    const first = await readCataloguePage(seller.workspaceId, { sort: 'change-desc' });
    const { units: nextPage } = await readUnitsOf(
      recommendationsPage,
      contextOf(seller.workspaceId, `sort=change-desc&after=${first.next}`),
    );
    measured['list by change, a later page'] = nextPage;
    console.info(`read units per view: ${JSON.stringify(measured)}`);

    for (const name of ['list by SKU', 'list of one category by change', 'list by change, lowest first', 'list by change, a later page']) {
      expect(measured[name], name).toBeLessThanOrEqual(10);
    }
    expect(measured['list searched']).toBeLessThanOrEqual(30);
    expect(measured['product page']).toBeLessThanOrEqual(4);
  }, 300_000);
});
