// The console's list over its shards against DynamoDB Local: rows still in the partition an ordering had before it was sharded list with the shards' rows, in order and once each.
import { describe, expect, it } from 'vitest';
import { putItems, type TableItem } from '#platform/table/bulk.ts';
import { table } from '#platform/table/definition.ts';
import { listingKeys } from '#platform/table/index-keys.ts';
import { type CatalogueQuery, type CatalogueRow, decodeCursor } from '#shared/recommendations/catalogue.ts';
import { skuSortKey } from '#platform/table/listing-sort-keys.ts';
import { categorySkus, recommendationRows } from '#shared/recommendations/listing.ts';
import { readCataloguePage } from '#shared/recommendations/listing-pages.ts';
import { storeRecommendations } from '#shared/recommendations/repository.ts';
import type { Recommendation } from '#shared/recommendations/schema.ts';
import { estimatedImpact, sampleRecommendation, spreadMarginChangeCents, spreadPriceCents } from '#test/support/recommendations.ts';
import { newWorkspace } from './support.ts';
import { readWorkspaceItems } from './workspace-items.ts';

const listingIndex = table.indexes[3];

/** 41 products in two categories; every sixth unpriced, so that the sorts by change and impact read both segments. */
function catalogue(): Recommendation[] {
  return Array.from({ length: 41 }, (_, index) =>
    sampleRecommendation(
      {
        sku: `SHD-${index + 1}`,
        name: index % 3 === 0 ? `Brass hinge ${index}` : `Oak shelf ${index}`,
        category: index % 2 === 0 ? 'Hardware' : 'Shelving',
      },
      index % 6 === 5
        ? undefined
        : {
            recommendedPriceCents: spreadPriceCents(index),
            confidence: 'medium',
            exchangeRateToBase: 1,
            impact: estimatedImpact(spreadMarginChangeCents(index), 1),
          },
    ),
  );
}

/** A row as the release before the shards wrote it: in the one partition of its ordering. */
function unsharded(workspaceId: string, row: TableItem): TableItem {
  const listPk = row[listingIndex.partitionKey];
  if (typeof listPk !== 'string') return row;
  const ordering = String(row.SK).replace(/^RECROW#/, '');
  const category = ordering.startsWith('category-') ? String(row.category) : undefined;
  const before = listingKeys.recommendationRows(workspaceId, ordering, category).partitionKeys.at(-1) as string;
  return { ...row, [listingIndex.partitionKey]: before };
}

/** Every row of a list, eight at a time, following each page's cursor. */
async function everyRow(workspaceId: string, query: Omit<CatalogueQuery, 'after'>): Promise<string[]> {
  const rows: CatalogueRow[] = [];
  let after: string | undefined;
  for (let pages = 0; pages < 100; pages++) {
    const cursor = decodeCursor(after ?? null);
    const page = await readCataloguePage(workspaceId, { ...query, ...(cursor ? { after: cursor } : {}) }, 8);
    rows.push(...page.rows);
    if (!page.next) return rows.map((row) => row.sku);
    after = page.next;
  }
  throw new Error('the list did not end');
}

const views: Omit<CatalogueQuery, 'after'>[] = [
  { sort: 'sku' },
  { sort: 'change-desc' },
  { sort: 'size-desc' },
  { sort: 'impact-desc' },
  { sort: 'size-desc', category: 'Shelving' },
  { sort: 'change-desc', search: 'hinge' },
  { sort: 'sku', category: 'Hardware', search: 'oak' },
];

describe("the console's list over its shards", () => {
  it('lists rows left in the partition before the shards with the rows in the shards, in order and once each, in every view', async () => {
    const seller = await newWorkspace('Sharded List Seller');
    const products = catalogue();
    await storeRecommendations(seller.workspaceId, products);
    const sharded = Object.fromEntries(
      await Promise.all(views.map(async (view) => [JSON.stringify(view), await everyRow(seller.workspaceId, view)])),
    );

    // Every third product's rows as the release before wrote them, in both categories.
    const legacy = products.filter((_, index) => index % 3 === 0);
    await putItems(
      legacy.flatMap((product) => recommendationRows(seller.workspaceId, product).map((row) => unsharded(seller.workspaceId, row))),
    );
    const rows = (await readWorkspaceItems(seller.workspaceId)).filter((item) => item.type === 'recommendationRow');
    const inShards = rows.filter((item) => /#RECROWS#[a-z-]+#S\d/.test(String(item[listingIndex.partitionKey])));
    const before = rows.filter((item) => typeof item[listingIndex.partitionKey] === 'string' && !inShards.includes(item));
    expect(before.length).toBeGreaterThan(0);
    expect(inShards.length).toBeGreaterThan(0);
    for (const category of ['Hardware', 'Shelving']) {
      expect(before.some((item) => item.category === category)).toBe(true);
      expect(inShards.some((item) => item.category === category)).toBe(true);
    }

    for (const view of views) {
      const listed = await everyRow(seller.workspaceId, view);
      expect(listed, JSON.stringify(view)).toEqual(sharded[JSON.stringify(view)]);
      expect(new Set(listed).size, JSON.stringify(view)).toBe(listed.length);
    }
    const bySku = [...products]
      .map((product) => product.sku)
      .sort((a, b) => Buffer.compare(Buffer.from(skuSortKey(a)), Buffer.from(skuSortKey(b))));
    expect(sharded[JSON.stringify({ sort: 'sku' })]).toEqual(bySku);
    expect(await categorySkus(seller.workspaceId, 'Hardware')).toEqual(bySku.filter((sku) => (Number(sku.slice(4)) - 1) % 2 === 0));
  }, 300_000);
});
