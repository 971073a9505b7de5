// The console's list of recommendations as DynamoDB pages it: a slim row per product in each ordering, and the category list.
import type { TableItem } from '#platform/table/bulk.ts';
import { getItem, updateItem } from '#platform/table/commands.ts';
import { table } from '#platform/table/definition.ts';
import { listingKeys } from '#platform/table/index-keys.ts';
import { keys } from '#platform/table/keys.ts';
import { noNumberSortKey, numberSortKey, numberSortKeyParts, skuSortKey } from '#platform/table/listing-sort-keys.ts';
import { queryAll } from '#platform/table/query.ts';
import { minorUnitDigits } from '#shared/pricing/currency.ts';
import { type CatalogueRow, catalogueRow } from './catalogue.ts';
import { keyOrder } from './listing-shards.ts';
import type { Recommendation } from './schema.ts';

const listingIndex = table.indexes[3];

/**
 * Each way the console lists recommendations, a partition of the listing index apiece: by SKU, by change or by its
 * expected impact, over the workspace or within the product's category. A row is written per ordering, in the
 * ordering's shard its SKU hashes to, so each list is a Query of each shard that reads only its share of the page it
 * shows, merged (listing-shards.ts). A new filter or sort is a new ordering here, unless it can be read
 * from one that exists: the sort by size of change reads the ordering by change from both ends (listing-by-size.ts).
 */
export const orderings = ['sku', 'change', 'impact', 'category-sku', 'category-change', 'category-impact'] as const;
export type Ordering = (typeof orderings)[number];

const byCategory = (ordering: Ordering) => ordering.startsWith('category-');

/** The ordering by change: in hundredths of a point; rows without a change (unpriced, or no current price) sort last. */
export function changeSortKey(changePct: number | null, sku: string): string {
  return changePct === null ? noNumberSortKey(sku) : numberSortKey(Math.round(changePct * 100), sku);
}

/** The change a key of the ordering by change holds, in hundredths of a point; undefined for a row without one. */
export function changeOfSortKey(sortKey: string): number | undefined {
  return numberSortKeyParts(sortKey)?.value;
}

/**
 * The expected margin change per quote in units of the workspace's base currency (to the ten-thousandth), so that
 * products in different currencies compare. Without an estimate, without a rate to the base, or held by data warnings,
 * it sorts after every number: a product whose data looks wrong is in no ranking of gains.
 */
export function impactSortKey(recommendation: Recommendation, sku: string): string {
  if (recommendation.warnings?.length) return noNumberSortKey(sku);
  const impact = recommendation.status === 'priced' ? recommendation.impact : undefined;
  const rate = recommendation.status === 'priced' ? recommendation.exchangeRateToBase : undefined;
  if (impact?.status !== 'estimated' || rate === undefined) return noNumberSortKey(sku);
  const inBase = (impact.expectedMarginChangeCents / 10 ** minorUnitDigits(recommendation.currency)) * rate;
  const tenThousandths = Math.round(inBase * 10_000);
  // Only a figure that is no number sorts without one: an infinite one is clamped to its end of the ordering.
  return Number.isNaN(tenThousandths) ? noNumberSortKey(sku) : numberSortKey(tenThousandths, sku);
}

function sortKeyOf(ordering: Ordering, row: CatalogueRow, recommendation: Recommendation): string {
  if (ordering.endsWith('change')) return changeSortKey(row.changePct, row.sku);
  if (ordering.endsWith('impact')) return impactSortKey(recommendation, row.sku);
  return skuSortKey(row.sku);
}

/** What a search matches, case-insensitively: the SKU and the name. */
export function searchText(row: Pick<CatalogueRow, 'sku' | 'name'>): string {
  return `${row.sku}\n${row.name ?? ''}`.toLowerCase();
}

/**
 * A recommendation's rows, one per ordering. A row of a category ordering for a product without a category carries no
 * list keys, so it leaves that list.
 */
export function recommendationRows(workspaceId: string, recommendation: Recommendation): TableItem[] {
  const row = catalogueRow(recommendation);
  const search = searchText(row);
  return orderings.map((ordering) => {
    const category = byCategory(ordering) ? row.category : undefined;
    const listed = !byCategory(ordering) || category !== undefined;
    return {
      ...keys.recommendationRow(workspaceId, row.sku, ordering),
      ...(listed ? listingKeys.recommendationRow(workspaceId, ordering, category, row.sku, sortKeyOf(ordering, row, recommendation)) : {}),
      type: 'recommendationRow',
      ...row,
      search,
      updatedAt: recommendation.updatedAt,
    };
  });
}

/** Adds the categories of stored recommendations to the workspace's list: a set, so adding one again changes nothing. */
export async function noteCategories(workspaceId: string, categories: Iterable<string>): Promise<void> {
  const named = new Set(categories);
  if (named.size === 0) return;
  await updateItem({
    Key: keys.recommendationCategories(workspaceId),
    UpdateExpression: 'SET #type = :type ADD categories :categories',
    ExpressionAttributeNames: { '#type': 'type' },
    ExpressionAttributeValues: { ':type': 'recommendationCategories', ':categories': named },
  });
}

export async function readCategories(workspaceId: string): Promise<string[]> {
  const item = await getItem({ Key: keys.recommendationCategories(workspaceId) });
  const categories = item?.categories;
  return categories instanceof Set ? [...(categories as Set<string>)].sort() : [];
}

/** The SKUs listed in a category, by SKU: what a change of the category's bands reprices. Each shard is read whole, at once. */
export async function categorySkus(workspaceId: string, category: string): Promise<string[]> {
  const partitions = listingKeys.recommendationRows(workspaceId, 'category-sku', category).partitionKeys;
  const shards = await Promise.all(
    partitions.map((partition) =>
      queryAll({
        IndexName: listingIndex.name,
        KeyConditionExpression: '#pk = :pk',
        ProjectionExpression: 'sku, #sk',
        ExpressionAttributeNames: { '#pk': listingIndex.partitionKey, '#sk': listingIndex.sortKey },
        ExpressionAttributeValues: { ':pk': partition },
      }),
    ),
  );
  return shards
    .flat()
    .map((item) => ({ sku: String(item.sku), sortKey: String(item[listingIndex.sortKey]) }))
    .sort((a, b) => keyOrder(a.sortKey, b.sortKey))
    .map(({ sku }) => sku);
}
