// One page of the console's recommendations, read with DynamoDB's own paging: a Query of the ordering the view asks for.
import * as v from 'valibot';
import { queryPage } from '#platform/table/commands.ts';
import { table } from '#platform/table/definition.ts';
import { listingKeys } from '#platform/table/index-keys.ts';
import { keys } from '#platform/table/keys.ts';
import {
  CATALOGUE_PAGE_SIZE,
  type CatalogueCursor,
  type CataloguePage,
  type CatalogueQuery,
  type CatalogueRow,
  encodeCursor,
} from './catalogue.ts';
import { NO_CHANGE_PREFIX, type Ordering, readCategories } from './listing.ts';

const listingIndex = table.indexes[3];

/**
 * Rows a searching view reads at most (~300 B each, so ~20 RRU): a search is a filter on the list, paid on what it
 * reads, so a view stops there and offers to search on.
 */
export const SEARCH_READ_BUDGET = 500;
/**
 * Rows a view filtered by something the list's rows do not hold reads at most: each row read costs the filter its
 * own reads (an approval state: ~1 RRU a row), so the view stops sooner and offers to look on.
 */
export const FILTER_READ_BUDGET = 200;

/** Keeps the rows that pass a filter the list's rows do not hold, reading what it needs for them. */
export type RowFilter = <Row extends CatalogueRow>(rows: Row[]) => Promise<Row[]>;

const RowSchema = v.object({
  sku: v.string(),
  name: v.optional(v.string()),
  category: v.optional(v.string()),
  currency: v.string(),
  currentPriceCents: v.number(),
  recommendedPriceCents: v.optional(v.number()),
  changePct: v.nullable(v.number()),
  confidence: v.optional(v.picklist(['high', 'medium', 'low'])),
  expectedMarginChangeCents: v.optional(v.number()),
  listSk: v.string(),
});

/** A stretch of one list, read one way: a sort highest first reads the numbers backwards, then the rest. */
interface Segment {
  readonly forward: boolean;
  readonly range?: { readonly below: string } | { readonly from: string };
}

function readingOf(query: CatalogueQuery): { ordering: Ordering; segments: readonly Segment[] } {
  const scope = query.category === undefined ? '' : 'category-';
  if (query.sort === 'sku') return { ordering: `${scope}sku` as Ordering, segments: [{ forward: true }] };
  if (query.sort === 'change-asc') return { ordering: `${scope}change` as Ordering, segments: [{ forward: true }] };
  const ordering = `${scope}${query.sort === 'size-desc' ? 'size' : query.sort === 'impact-desc' ? 'impact' : 'change'}` as Ordering;
  return {
    ordering,
    segments: [
      { forward: false, range: { below: NO_CHANGE_PREFIX } },
      { forward: true, range: { from: NO_CHANGE_PREFIX } },
    ],
  };
}

interface SegmentRead {
  readonly rows: (CatalogueRow & { listSk: string })[];
  /** Where the segment goes on; absent once it is read to its end. */
  readonly more?: { readonly sku: string; readonly sortKey: string };
  readonly read: number;
}

async function readSegment(
  workspaceId: string,
  query: CatalogueQuery,
  ordering: Ordering,
  segment: Segment,
  start: { sku: string; sortKey: string } | undefined,
  limit: number,
): Promise<SegmentRead> {
  const partition = listingKeys.recommendationRows(workspaceId, ordering, query.category).partitionKey;
  const names: Record<string, string> = { '#pk': listingIndex.partitionKey };
  const values: Record<string, unknown> = { ':pk': partition };
  let condition = '#pk = :pk';
  if (segment.range) names['#sk'] = listingIndex.sortKey;
  if (segment.range && 'below' in segment.range) {
    condition += ' AND #sk < :bound';
    values[':bound'] = segment.range.below;
  } else if (segment.range) {
    condition += ' AND #sk >= :bound';
    values[':bound'] = segment.range.from;
  }
  if (query.search !== undefined) {
    names['#search'] = 'search';
    values[':needle'] = query.search.toLowerCase();
  }
  // The start key is built here from the cursor's SKU and sort key, so a link can only name a row of this list.
  const page = await queryPage({
    IndexName: listingIndex.name,
    KeyConditionExpression: condition,
    ...(query.search === undefined ? {} : { FilterExpression: 'contains(#search, :needle)' }),
    ExpressionAttributeNames: names,
    ExpressionAttributeValues: values,
    ScanIndexForward: segment.forward,
    Limit: limit,
    ...(start
      ? {
          ExclusiveStartKey: {
            ...keys.recommendationRow(workspaceId, start.sku, ordering),
            ...listingKeys.recommendationRow(workspaceId, ordering, query.category, start.sortKey),
          },
        }
      : {}),
  });
  const rows = (page.Items ?? []).map((item) => v.parse(RowSchema, item));
  const last = page.LastEvaluatedKey;
  return {
    rows,
    read: page.ScannedCount ?? rows.length,
    ...(last ? { more: { sku: skuOf(workspaceId, last), sortKey: String(last[listingIndex.sortKey]) } } : {}),
  };
}

const MAX_FILTER_BYTES = 1024;

function keyable(text: string | undefined): boolean {
  return text === undefined || (text.isWellFormed() && Buffer.byteLength(text) <= MAX_FILTER_BYTES);
}

function skuOf(workspaceId: string, key: Record<string, unknown>): string {
  const prefix = keys.recommendationRow(workspaceId, '', 'sku').PK;
  return String(key.PK).slice(prefix.length);
}

function strip(row: CatalogueRow & { listSk: string }): CatalogueRow {
  const { listSk: _listSk, ...rest } = row;
  return rest;
}

/**
 * One page of the list as the query asks, and the cursor of the next: a Query of at most a page and one row (a
 * search: of at most SEARCH_READ_BUDGET rows), whatever the size of the catalogue; and the category list, one item.
 */
export async function readCataloguePage(
  workspaceId: string,
  query: CatalogueQuery,
  pageSize = CATALOGUE_PAGE_SIZE,
  keep?: RowFilter,
): Promise<CataloguePage> {
  // A category or search no key or filter can hold (a lone surrogate, or past any category's length) matches nothing.
  if (!keyable(query.category) || !keyable(query.search)) return { rows: [], shown: 0, categories: await readCategories(workspaceId) };
  const { ordering, segments } = readingOf(query);
  const shown = query.after?.shown ?? 0;
  const rows: (CatalogueRow & { listSk: string })[] = [];
  let segmentIndex = query.after?.segment ?? 0;
  // A cursor at the start of a segment names no row.
  let start: { sku: string; sortKey: string } | undefined = query.after?.sortKey ? query.after : undefined;
  let budget = keep ? FILTER_READ_BUDGET : query.search === undefined ? pageSize + 1 : SEARCH_READ_BUDGET;
  let next: CatalogueCursor | undefined;
  const categoriesRead = readCategories(workspaceId);
  while (segmentIndex < segments.length && budget > 0) {
    const segment = segments[segmentIndex] as Segment;
    const read = await readSegment(workspaceId, query, ordering, segment, start, Math.min(budget, keep ? pageSize + 1 : budget));
    rows.push(...(keep ? await keep(read.rows) : read.rows));
    budget -= read.read;
    if (rows.length > pageSize) break;
    if (read.more) start = read.more;
    else {
      segmentIndex += 1;
      start = undefined;
    }
    // A search that spent its reads stops where it got to; the next view searches on from there.
    if (budget <= 0 && segmentIndex < segments.length) {
      next = { segment: segmentIndex, sku: start?.sku ?? '', sortKey: start?.sortKey ?? '', shown: shown + rows.length };
    }
  }
  if (rows.length > pageSize) {
    const lastShown = rows[pageSize - 1] as CatalogueRow & { listSk: string };
    // Of a sort read in two segments, the rows without a change are the second.
    const segment = segments.length > 1 && lastShown.listSk.startsWith(NO_CHANGE_PREFIX) ? 1 : 0;
    next = { segment, sku: lastShown.sku, sortKey: lastShown.listSk, shown: shown + pageSize };
  }
  const page = rows.slice(0, pageSize).map(strip);
  return { rows: page, shown, ...(next ? { next: encodeCursor(next) } : {}), categories: await categoriesRead };
}
