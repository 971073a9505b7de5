// A workspace's recommendations as the console lists them: the query a person asks, the row shown per product, and a page of rows.
import { changePct } from './overview.ts';
import type { Recommendation } from './schema.ts';

export const CATALOGUE_PAGE_SIZE = 50;
/** size-desc: the largest change either way first; impact-desc: the largest expected margin gain per quote first. */
export const catalogueSorts = ['sku', 'change-asc', 'change-desc', 'size-desc', 'impact-desc'] as const;
export type CatalogueSort = (typeof catalogueSorts)[number];

/** A row of a list the listing index orders: its SKU and its key there. */
export interface ListPosition {
  readonly sku: string;
  readonly sortKey: string;
}

/** Where a page starts: the last row of the page before, in the ordering the list is read in. */
export interface CatalogueCursor {
  /** The segment of the sort the row is in (a sort by change, highest first, reads the products without one last). */
  readonly segment: number;
  /** The row ('' before any); of the sort by size, the last row read from the top of the list by change. */
  readonly sku: string;
  readonly sortKey: string;
  /** Rows before the page, for the summary. */
  readonly shown: number;
  /** Of the sort by size only: the last row read from the bottom of the list by change (its largest cuts). */
  readonly bottom?: ListPosition;
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
  /** The impact's expected margin change per quote, in the product's minor units; absent unless estimated, or while held. */
  readonly expectedMarginChangeCents?: number;
  /** The codes of the product's data warnings: "check the data", out of the impact ranking and bulk selection. */
  readonly warnings?: readonly string[];
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
  const fields = [cursor.segment, cursor.sku, cursor.sortKey, cursor.shown];
  if (cursor.bottom) fields.push(cursor.bottom.sku, cursor.bottom.sortKey);
  return Buffer.from(JSON.stringify(fields)).toString('base64url');
}

function isKeyText(text: unknown, maxLength: number): text is string {
  return typeof text === 'string' && text.length <= maxLength && text.isWellFormed();
}

/** A position as a cursor names it: both empty (no row yet) or both there. */
function isPosition(sku: unknown, sortKey: unknown): boolean {
  return isKeyText(sku, 512) && isKeyText(sortKey, 1024) && (sortKey === '') === (sku === '');
}

/** A cursor from a link; anything that does not read as one is the first page. */
export function decodeCursor(text: string | null): CatalogueCursor | undefined {
  if (!text || text.length > MAX_CURSOR_TEXT) return undefined;
  try {
    const parsed: unknown = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
    if (!Array.isArray(parsed) || (parsed.length !== 4 && parsed.length !== 6)) return undefined;
    const [segment, sku, sortKey, shown, bottomSku, bottomSortKey] = parsed as unknown[];
    if (typeof segment !== 'number' || !Number.isSafeInteger(segment) || segment < 0 || segment > 1) return undefined;
    if (!isPosition(sku, sortKey)) return undefined;
    if (typeof shown !== 'number' || !Number.isSafeInteger(shown) || shown < 0) return undefined;
    const cursor = { segment, sku: sku as string, sortKey: sortKey as string, shown };
    if (parsed.length === 4) return cursor;
    // A bottom position is the sort by size's, among the rows with a change (the first segment), and names a row.
    if (segment !== 0 || !isPosition(bottomSku, bottomSortKey) || bottomSku === '') return undefined;
    return { ...cursor, bottom: { sku: bottomSku as string, sortKey: bottomSortKey as string } };
  } catch {
    return undefined;
  }
}

/** The query string a person typed or a link carried: anything that does not read falls back rather than fails. */
export function readCatalogueQuery(query: URLSearchParams): CatalogueQuery {
  const category = query.get('category')?.trim();
  const search = query.get('q')?.trim();
  const sort = query.get('sort') ?? 'sku';
  const sorted = (catalogueSorts as readonly string[]).includes(sort) ? (sort as CatalogueSort) : 'sku';
  const after = decodeCursor(query.get('after'));
  // Only the sort by size reads from two ends: a cursor of it names no place in another sort's list.
  const fits = after !== undefined && (after.bottom === undefined || sorted === 'size-desc');
  return {
    ...(category ? { category } : {}),
    ...(search ? { search } : {}),
    sort: sorted,
    ...(fits ? { after } : {}),
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
  // Codes only: a row is read a page at a time, and its size decides what a page of the list costs.
  const warnings = recommendation.warnings?.length ? { warnings: recommendation.warnings.map((warning) => warning.code) } : {};
  if (recommendation.status === 'unpriced') return { ...common, changePct: null, ...warnings };
  return {
    ...common,
    recommendedPriceCents: recommendation.recommendedPriceCents,
    changePct: changePct(recommendation.recommendedPriceCents, recommendation.currentPriceCents),
    confidence: recommendation.confidence,
    // An impact computed from data that looks wrong is no gain to rank: it is left out until the data is in line.
    ...(recommendation.impact?.status === 'estimated' && !recommendation.warnings?.length
      ? { expectedMarginChangeCents: recommendation.impact.expectedMarginChangeCents }
      : {}),
    ...warnings,
  };
}
