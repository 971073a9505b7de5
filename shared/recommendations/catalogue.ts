// A workspace's recommendations as one list: read from the listing index, then filtered, searched, sorted and cut into pages.
import * as v from 'valibot';
import { listingKeys } from '#platform/table/index-keys.ts';
import { queryListing } from '#platform/table/query.ts';
import { changePct } from './overview.ts';
import { type Recommendation, RecommendationSchema } from './schema.ts';

export const CATALOGUE_PAGE_SIZE = 50;
export const catalogueSorts = ['sku', 'change-asc', 'change-desc'] as const;
export type CatalogueSort = (typeof catalogueSorts)[number];

export interface CatalogueQuery {
  readonly category?: string;
  /** Matched, case-insensitively, anywhere in the SKU or the name. */
  readonly search?: string;
  readonly sort: CatalogueSort;
  /** From 1. */
  readonly page: number;
}

export interface CatalogueRow {
  readonly sku: string;
  readonly name?: string;
  readonly category?: string;
  readonly currency: string;
  readonly currentPriceCents: number;
  /** Absent for a product the engine cannot price. */
  readonly recommendedPriceCents?: number;
  readonly changePct: number | null;
  readonly confidence?: 'high' | 'medium' | 'low';
}

export interface CataloguePage {
  readonly rows: readonly CatalogueRow[];
  /** Products that match the filter and search, over every page. */
  readonly matching: number;
  readonly page: number;
  readonly pages: number;
  /** Every category of the workspace's recommendations, for the filter. */
  readonly categories: readonly string[];
}

/** The query string a person typed or a link carried: anything that does not read falls back rather than fails. */
export function readCatalogueQuery(query: URLSearchParams): CatalogueQuery {
  const category = query.get('category')?.trim();
  const search = query.get('q')?.trim();
  const sort = query.get('sort') ?? 'sku';
  const page = Number(query.get('page') ?? '1');
  return {
    ...(category ? { category } : {}),
    ...(search ? { search } : {}),
    sort: (catalogueSorts as readonly string[]).includes(sort) ? (sort as CatalogueSort) : 'sku',
    page: Number.isSafeInteger(page) && page >= 1 ? page : 1,
  };
}

function catalogueRow(recommendation: Recommendation): CatalogueRow {
  const common = {
    sku: recommendation.sku,
    ...(recommendation.name === undefined ? {} : { name: recommendation.name }),
    ...(recommendation.category === undefined ? {} : { category: recommendation.category }),
    currency: recommendation.currency,
    currentPriceCents: recommendation.currentPriceCents,
  };
  if (recommendation.status === 'unpriced') return { ...common, changePct: null };
  return {
    ...common,
    recommendedPriceCents: recommendation.recommendedPriceCents,
    changePct: changePct(recommendation.recommendedPriceCents, recommendation.currentPriceCents),
    confidence: recommendation.confidence,
  };
}

/** SKUs as a person orders them: CLIP-2 before CLIP-10. */
const skuOrder = new Intl.Collator('en', { numeric: true });
function bySku(a: string, b: string): number {
  return skuOrder.compare(a, b);
}

/** Products without a change to sort by (unpriced, or no current price) go last whichever way the sort runs. */
function byChange(direction: 1 | -1) {
  return (a: CatalogueRow, b: CatalogueRow): number => {
    if (a.changePct === null || b.changePct === null) return (a.changePct === null ? 1 : 0) - (b.changePct === null ? 1 : 0);
    return direction * (a.changePct - b.changePct) || bySku(a.sku, b.sku);
  };
}

/** One page of the list as the query asks; a page past the last shows the last. */
export function cataloguePage(
  recommendations: readonly Recommendation[],
  query: CatalogueQuery,
  pageSize = CATALOGUE_PAGE_SIZE,
): CataloguePage {
  const all = recommendations.map(catalogueRow);
  const categories = [...new Set(all.flatMap((row) => (row.category === undefined ? [] : [row.category])))].sort();
  const needle = query.search?.toLowerCase();
  const matching = all.filter(
    (row) =>
      (query.category === undefined || row.category === query.category) &&
      (needle === undefined || row.sku.toLowerCase().includes(needle) || (row.name ?? '').toLowerCase().includes(needle)),
  );
  if (query.sort === 'sku') matching.sort((a, b) => bySku(a.sku, b.sku));
  else matching.sort(byChange(query.sort === 'change-asc' ? 1 : -1));
  const pages = Math.max(1, Math.ceil(matching.length / pageSize));
  const page = Math.min(query.page, pages);
  return { rows: matching.slice((page - 1) * pageSize, page * pageSize), matching: matching.length, page, pages, categories };
}

/**
 * Every recommendation of the workspace, from the listing index in SKU order: a Query of ~6 recommendations per 4 KB.
 * Sorting by change needs them all, so the list is read whole rather than a page at a time.
 */
export async function readCatalogue(workspaceId: string): Promise<Recommendation[]> {
  const items = await queryListing(listingKeys.recommendations(workspaceId));
  return items.map((item) => v.parse(RecommendationSchema, item));
}
