// One page of the console's recommendations, read with DynamoDB's own paging: a Query of each shard of the ordering the view asks for, merged.
import {
  CATALOGUE_PAGE_SIZE,
  type CatalogueCursor,
  type CataloguePage,
  type CatalogueQuery,
  type CatalogueRow,
  encodeCursor,
  type ListPosition,
} from './catalogue.ts';
import { type End, type Ends, endsOfCursor, SizeMerge } from './listing-by-size.ts';
import { NO_NUMBER_PREFIX } from '#platform/table/listing-sort-keys.ts';
import { type Ordering, readCategories, searchText } from './listing.ts';
import { type ListedRow, ORDERING_PARTITIONS, orderingReader, type Segment, type ShardMerge, shardLimit } from './listing-shards.ts';

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

/** Keeps the rows that pass a filter the list's rows do not hold, reading what it needs for them, in their order. */
export type RowFilter = <Row extends CatalogueRow>(rows: Row[]) => Promise<Row[]>;

/**
 * The first `wanted` rows the filter keeps, in order, asked about no more rows at a time than could all still be
 * wanted: each row it is asked about costs its reads (an approval state: 0.5 RRU), so none past the last row wanted.
 */
export async function keepInOrder<Row extends CatalogueRow>(rows: readonly Row[], keep: RowFilter, wanted: number): Promise<Row[]> {
  const kept: Row[] = [];
  let asked = 0;
  while (kept.length < wanted && asked < rows.length) {
    const chunk = rows.slice(asked, asked + wanted - kept.length);
    asked += chunk.length;
    kept.push(...(await keep(chunk)));
  }
  return kept;
}

/** The rows with a change, and those without, of the ordering by change of the query's scope. */
const changeSegments: readonly Segment[] = [
  { forward: false, range: { below: NO_NUMBER_PREFIX } },
  { forward: true, range: { from: NO_NUMBER_PREFIX } },
];

/**
 * The ordering a sort reads and its segments. The sort by size has none of its own: it reads the ordering by change,
 * its rows with a change from both ends at once (listing-by-size.ts), then those without one as by change.
 */
function readingOf(query: CatalogueQuery): { ordering: Ordering; segments: readonly Segment[] } {
  const scope = query.category === undefined ? '' : 'category-';
  if (query.sort === 'sku') return { ordering: `${scope}sku` as Ordering, segments: [{ forward: true }] };
  if (query.sort === 'change-asc') return { ordering: `${scope}change` as Ordering, segments: [{ forward: true }] };
  return { ordering: `${scope}${query.sort === 'impact-desc' ? 'impact' : 'change'}` as Ordering, segments: changeSegments };
}

const MAX_FILTER_BYTES = 1024;

function keyable(text: string | undefined): boolean {
  return text === undefined || (text.isWellFormed() && Buffer.byteLength(text) <= MAX_FILTER_BYTES);
}

function strip(row: CatalogueRow & { listSk: string }): CatalogueRow {
  const { listSk: _listSk, ...rest } = row;
  return rest;
}

/** Where the list goes on after a row: the cursor of a page that ends with it, but for the count before it. */
type Place = Omit<CatalogueCursor, 'shown'>;

/** What a view has read so far: the rows it keeps, each with its place, the rows it may still read, where it stopped. */
interface Reading {
  readonly rows: { row: ListedRow; place: Place }[];
  budget: number;
  stopped?: Place;
}

interface View {
  readonly workspaceId: string;
  readonly query: CatalogueQuery;
  readonly pageSize: number;
  readonly keep: RowFilter | undefined;
  /** Rows it stops at: a page's and one more, to know whether another follows; the top of the list, its own. */
  readonly wanted: number;
}

/** Reads the segments of a sort in order from a place, until the page is full or its reads are spent. */
async function readSegments(view: View, reading: Reading, segmentIndex: number, from: ListPosition | undefined): Promise<void> {
  const { ordering, segments } = readingOf(view.query);
  let start = from;
  const scope = { workspaceId: view.workspaceId, ordering, category: view.query.category, search: view.query.search };
  // A view that filters is held to a budget of rows read over all the shards; one that does not reads until its page is full.
  const metered = view.keep !== undefined || view.query.search !== undefined;
  let reader: ShardMerge<ListedRow> | undefined;
  while (segmentIndex < segments.length && reading.budget > 0) {
    const segment = segments[segmentIndex] as Segment;
    const limit = metered
      ? shardLimit(view.keep ? view.pageSize + 1 : reading.budget, reading.budget)
      : shardLimit(view.pageSize + 1 - reading.rows.length);
    reader ??= orderingReader(scope, segment, start);
    const read = await reader.read(limit);
    const place = (row: ListedRow): Place => ({ segment: segmentIndex, sku: row.sku, sortKey: row.listSk });
    const kept = view.keep ? await keepInOrder(read.rows, view.keep, view.wanted - reading.rows.length) : read.rows;
    reading.rows.push(...kept.map((row) => ({ row, place: place(row) })));
    if (metered) reading.budget -= read.read;
    // Fewer rows left than partitions: a round would pay each Query's least for a row or none, so the budget is spent.
    if (metered && reading.budget < ORDERING_PARTITIONS) reading.budget = 0;
    if (reading.rows.length >= view.wanted) return;
    if (read.more) start = read.more;
    else {
      segmentIndex += 1;
      start = undefined;
      reader = undefined;
    }
    // A search that spent its reads stops where it got to; the next view searches on from there.
    if (reading.budget <= 0 && segmentIndex < segments.length) {
      reading.stopped = { segment: segmentIndex, sku: start?.sku ?? '', sortKey: start?.sortKey ?? '' };
    }
  }
}

function placeOfEnds(ends: Ends): Place {
  return { segment: 0, sku: ends.top?.sku ?? '', sortKey: ends.top?.sortKey ?? '', ...(ends.bottom ? { bottom: ends.bottom } : {}) };
}

/**
 * The rows with a change of the sort by size, from where the cursor's two ends stand: taken largest first, then
 * searched and filtered here (a filter in the Query would hide from the merge the rows it must compare). True once
 * every row with a change is taken.
 */
async function readBySize(view: View, reading: Reading, from: Ends): Promise<boolean> {
  const { query, pageSize, keep } = view;
  const ordering: Ordering = query.category === undefined ? 'change' : 'category-change';
  const scope = { workspaceId: view.workspaceId, ordering, category: query.category };
  // Each end reads on from where it stopped: SizeMerge reads an end again only once every row it read is taken.
  const readers: Partial<Record<End, ShardMerge<ListedRow>>> = {};
  const merge = new SizeMerge<ListedRow>(
    async (end, start, limit) => {
      const segment = { forward: end === 'bottom', range: { below: NO_NUMBER_PREFIX } };
      readers[end] ??= orderingReader(scope, segment, start);
      const read = await readers[end].read(shardLimit(limit));
      return { rows: read.rows, more: read.more !== undefined };
    },
    from,
    pageSize + 1,
  );
  const needle = query.search?.toLowerCase();
  while (reading.budget > 0) {
    const taken = await merge.take(Math.min(reading.budget, keep ? pageSize + 1 : reading.budget));
    reading.budget -= taken.length;
    const found = needle === undefined ? taken : taken.filter(({ row }) => searchText(row).includes(needle));
    const rows = found.map(({ row }) => row);
    const kept = new Set(keep ? await keepInOrder(rows, keep, view.wanted - reading.rows.length) : rows);
    reading.rows.push(...found.filter(({ row }) => kept.has(row)).map(({ row, ends }) => ({ row, place: placeOfEnds(ends) })));
    if (reading.rows.length >= view.wanted) return false;
    if (merge.done) break;
    if (reading.budget <= 0) reading.stopped = placeOfEnds(taken.at(-1)?.ends ?? from);
  }
  if (merge.done && reading.budget <= 0) reading.stopped = { segment: 1, sku: '', sortKey: '' };
  return merge.done;
}

/**
 * Reads the view's rows from where the query's cursor stands until it has the rows it wants or its reads are spent;
 * the cursor it went on from (none for ends of the sort by size that name no row of its list).
 */
async function readView(view: View, reading: Reading): Promise<CatalogueQuery['after']> {
  const { query } = view;
  let { after } = query;
  let segment = after?.segment ?? 0;
  if (query.sort === 'size-desc' && segment === 0) {
    // Ends that name no row of this list read as the first page.
    const top = after?.sku ? { sku: after.sku, sortKey: after.sortKey } : undefined;
    const from = endsOfCursor({ ...(top ? { top } : {}), ...(after?.bottom ? { bottom: after.bottom } : {}) });
    if (from === undefined) after = undefined;
    if (await readBySize(view, reading, from ?? {})) segment = 1;
  }
  // A cursor at the start of a segment names no row.
  const start = after?.sortKey && segment === after.segment ? { sku: after.sku, sortKey: after.sortKey } : undefined;
  if (reading.rows.length < view.wanted && reading.stopped === undefined) await readSegments(view, reading, segment, start);
  return after;
}

function firstReading(query: CatalogueQuery, pageSize: number, keep: RowFilter | undefined): Reading {
  return { rows: [], budget: keep ? FILTER_READ_BUDGET : query.search === undefined ? pageSize + 1 : SEARCH_READ_BUDGET };
}

/**
 * One page of the list as the query asks, and the cursor of the next: a Query of each shard of the ordering for its
 * share of a page and one row (a search: of SEARCH_READ_BUDGET rows over them all), whatever the size of the
 * catalogue, or for the sort by size the same from each end of the list by change; and the category list, one item.
 */
export async function readCataloguePage(
  workspaceId: string,
  query: CatalogueQuery,
  pageSize = CATALOGUE_PAGE_SIZE,
  keep?: RowFilter,
): Promise<CataloguePage> {
  // A category or search no key or filter can hold (a lone surrogate, or past any category's length) matches nothing.
  if (!keyable(query.category) || !keyable(query.search)) return { rows: [], shown: 0, categories: await readCategories(workspaceId) };
  const categoriesRead = readCategories(workspaceId);
  const reading = firstReading(query, pageSize, keep);
  const after = await readView({ workspaceId, query, pageSize, keep, wanted: pageSize + 1 }, reading);
  const shown = after?.shown ?? 0;
  const lastShown = reading.rows.length > pageSize ? reading.rows[pageSize - 1] : undefined;
  const next = lastShown ? lastShown.place : reading.stopped;
  const rows = reading.rows.slice(0, pageSize).map(({ row }) => strip(row));
  return {
    rows,
    shown,
    ...(next ? { next: encodeCursor({ ...next, shown: shown + rows.length }) } : {}),
    categories: await categoriesRead,
  };
}

/**
 * The first `count` rows of the list that `keep` keeps, as the first page of that size shows them: the same Queries,
 * so the same rows, but no cursor past them to find, so the filter reads no row past the last one kept (a panel's
 * reads: the landing page's top products by expected impact), and no category list.
 */
export async function readListTop(workspaceId: string, query: CatalogueQuery, count: number, keep?: RowFilter): Promise<CatalogueRow[]> {
  if (!keyable(query.category) || !keyable(query.search)) return [];
  const reading = firstReading(query, count, keep);
  await readView({ workspaceId, query, pageSize: count, keep, wanted: count }, reading);
  return reading.rows.slice(0, count).map(({ row }) => strip(row));
}
