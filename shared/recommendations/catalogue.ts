// A workspace's recommendations as the console lists them: the query a person asks, the row shown per product, and a page of rows.
import { changePct } from './overview.ts';
import type { Recommendation } from './schema.ts';

export const CATALOGUE_PAGE_SIZE = 50;
/** size-desc: the largest change either way first; impact-desc: the largest expected margin gain per quote first. */
export const catalogueSorts = ['sku', 'change-asc', 'change-desc', 'size-desc', 'impact-desc'] as const;
export type CatalogueSort = (typeof catalogueSorts)[number];

/** Where a page starts: the last row of the page before, in the ordering the list is read in. */
export interface CatalogueCursor {
  /** The segment of the sort the row is in (a sort by change, highest first, reads the products without one last). */
  readonly segment: number;
  readonly sku: string;
  readonly sortKey: string;
  /** Rows before the page, for the summary. */
  readonly shown: number;
}

export interface CatalogueQuery {
  readonly category?: string;
  /** Matched, case-insensitively, anywhere in the SKU or the name. */
  readonly search?: string;
  readonly sort: CatalogueSort;
  /** Absent for the first page. */
  readonly after?: CatalogueCursor;
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
  /** The impact's expected margin change per quote, in the product's minor units; absent unless estimated. */
  readonly expectedMarginChangeCents?: number;
}

export interface CataloguePage {
  readonly rows: readonly CatalogueRow[];
  /** Rows before this page (0 on the first). */
  readonly shown: number;
  /** The cursor of the page after, as the query string carries it; absent on the last page. */
  readonly next?: string;
  /** Every category of the workspace's recommendations, for the filter. */
  readonly categories: readonly string[];
}

const MAX_CURSOR_TEXT = 4096;

export function encodeCursor(cursor: CatalogueCursor): string {
  return Buffer.from(JSON.stringify([cursor.segment, cursor.sku, cursor.sortKey, cursor.shown])).toString('base64url');
}

/** A cursor from a link; anything that does not read as one is the first page. */
export function decodeCursor(text: string | null): CatalogueCursor | undefined {
  if (!text || text.length > MAX_CURSOR_TEXT) return undefined;
  try {
    const parsed: unknown = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
    if (!Array.isArray(parsed) || parsed.length !== 4) return undefined;
    const [segment, sku, sortKey, shown] = parsed as unknown[];
    if (typeof segment !== 'number' || !Number.isSafeInteger(segment) || segment < 0 || segment > 1) return undefined;
    if (typeof sku !== 'string' || sku.length > 512) return undefined;
    if (typeof sortKey !== 'string' || sortKey.length > 1024 || (sortKey === '') !== (sku === '')) return undefined;
    if (typeof shown !== 'number' || !Number.isSafeInteger(shown) || shown < 0) return undefined;
    if (!sku.isWellFormed() || !sortKey.isWellFormed()) return undefined;
    return { segment, sku, sortKey, shown };
  } catch {
    return undefined;
  }
}

/** The query string a person typed or a link carried: anything that does not read falls back rather than fails. */
export function readCatalogueQuery(query: URLSearchParams): CatalogueQuery {
  const category = query.get('category')?.trim();
  const search = query.get('q')?.trim();
  const sort = query.get('sort') ?? 'sku';
  const after = decodeCursor(query.get('after'));
  return {
    ...(category ? { category } : {}),
    ...(search ? { search } : {}),
    sort: (catalogueSorts as readonly string[]).includes(sort) ? (sort as CatalogueSort) : 'sku',
    ...(after ? { after } : {}),
  };
}

export function catalogueRow(recommendation: Recommendation): CatalogueRow {
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
    ...(recommendation.impact?.status === 'estimated'
      ? { expectedMarginChangeCents: recommendation.impact.expectedMarginChangeCents }
      : {}),
  };
}
