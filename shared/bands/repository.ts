// Band items in the table: a category's history read back from its log (and the older layout's line items), and the bands computed from it written where price calls read them.
import { deleteItems, inParallel, putItems, WRITE_CONCURRENCY } from '#platform/table/bulk.ts';
import { tableName } from '#platform/config.ts';
import type { OrderLinesReference } from '#shared/canonical/data-warnings.ts';
import type { Band, CategoryBands } from '#shared/pricing/model.ts';
import { QUOTE_RATE_WINDOW_DAYS, type RecentQuotes } from '#shared/pricing/quote-rate.ts';
import { executeStatementBatch, putItem } from '#platform/table/commands.ts';
import { table } from '#platform/table/definition.ts';
import { HISTORY_LOG_SHARDS, keys } from '#platform/table/keys.ts';
import { historyKeys } from '#platform/table/index-keys.ts';
import { queryAll } from '#platform/table/query.ts';
import { type CategoryLine, currentLines, type LogEntry, logEntriesOf } from './history-log.ts';
import {
  categoryBandsFields,
  encodeBand,
  encodeBandMap,
  encodeWinLifts,
  legacyEntriesOf,
  legacyLineProjection,
  readCategoryBandsItem,
  type StoredCategoryBands,
} from './items.ts';

const historyIndex = table.indexes[1];
/** BatchExecuteStatement takes at most 25 statements. */
const STATEMENTS_PER_BATCH = 25;
const MAX_STATEMENT_RETRIES = 10;

/**
 * Lines still in the older layout, a line item per line in the history index (eventually consistent: indexes are
 * never strongly), as version-0 log entries: a document drained since, or migrated, hides them by its version.
 */
async function readLegacyEntries(workspaceId: string, category: string): Promise<LogEntry[]> {
  const { partitionKey } = historyKeys.categoryLines(workspaceId, category);
  const items = await queryAll({
    IndexName: historyIndex.name,
    KeyConditionExpression: '#pk = :pk',
    ProjectionExpression: legacyLineProjection.map((_, index) => `#p${index}`).join(', '),
    ExpressionAttributeNames: {
      '#pk': historyIndex.partitionKey,
      ...Object.fromEntries(legacyLineProjection.map((name, index) => [`#p${index}`, name])),
    },
    ExpressionAttributeValues: { ':pk': partitionKey },
  });
  return legacyEntriesOf(items);
}

/** Every log item of a category: its shards read at once, strongly, since the bands job runs right after the drain. */
async function readLogEntries(workspaceId: string, category: string): Promise<LogEntry[]> {
  const shards = await Promise.all(
    Array.from({ length: HISTORY_LOG_SHARDS }, (_, shard) => {
      const partition = keys.historyLogShard(workspaceId, category, shard);
      return queryAll({
        KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
        ProjectionExpression: 'entries',
        ExpressionAttributeValues: { ':pk': partition.PK, ':prefix': partition.SKPrefix },
        ConsistentRead: true,
      });
    }),
  );
  return shards.flat().flatMap(logEntriesOf);
}

/** The lines that count in a category today, as the bands and the backtest read them: its history log, and what the older layout still holds. */
export async function readCategoryLines(workspaceId: string, category: string, nowMs: number): Promise<CategoryLine[]> {
  const [logged, legacy] = await Promise.all([readLogEntries(workspaceId, category), readLegacyEntries(workspaceId, category)]);
  return currentLines(category, [...legacy, ...logged], nowMs);
}

/** Which of a category's bands to write: all of them for a rebuild, or those of the products and customers a batch touched. */
export interface BandWrites {
  readonly product: (sku: string) => boolean;
  readonly customer: (customerExternalId: string, skus: ReadonlyMap<string, Band>, category: string) => boolean;
  /** The products and customers whose lines in the category a batch added or removed: any left without lines lose their bands. */
  readonly linesTouchedIn: (category: string) => { readonly products: ReadonlySet<string>; readonly customers: ReadonlySet<string> };
}

/**
 * One product's write of its segment bands, order-lines reference and quote rate. Every product with lines in the
 * category has a rate: the lines name it, if only before the window.
 */
function productBandsStatement(
  key: { readonly PK: string; readonly SK: string },
  segments: ReadonlyMap<string, Band>,
  reference: OrderLinesReference | undefined,
  counted: RecentQuotes | undefined,
  at: string,
) {
  const quotes = counted ?? { lines: 0, days: QUOTE_RATE_WINDOW_DAYS, asOf: at.slice(0, 10) };
  return reference
    ? {
        Statement: `UPDATE "${tableName()}" SET segmentBands = ? SET orderLines = ? SET recentQuotes = ? SET bandsUpdatedAt = ? WHERE PK = ? AND SK = ?`,
        Parameters: [encodeBandMap(segments), reference, quotes, at, key.PK, key.SK],
      }
    : {
        Statement: `UPDATE "${tableName()}" SET segmentBands = ? SET recentQuotes = ? SET bandsUpdatedAt = ? REMOVE orderLines WHERE PK = ? AND SK = ?`,
        Parameters: [encodeBandMap(segments), quotes, at, key.PK, key.SK],
      };
}

/** What a category's recompute writes: its bands, and each product's recent order lines' reference and quote rate. */
export interface CategoryWrite {
  readonly bands: CategoryBands;
  readonly orderLines: ReadonlyMap<string, OrderLinesReference>;
  readonly recentQuotes: ReadonlyMap<string, RecentQuotes>;
}

/**
 * Writes one category's bands: the category item (always, so that the category is known to a rebuild), each chosen
 * product's segment × SKU bands onto its product item, and each chosen customer's customer × SKU bands in the category.
 * A product or customer whose lines there were all removed (a corrected document) loses its bands of the category.
 * The product's order-lines reference and quote rate ride in the same statement, so the data warnings of its next
 * record are judged against its recent order lines, and its expected impact is put per month, at no write of their own.
 */
export async function writeCategoryBands(
  workspaceId: string,
  category: string,
  { bands, orderLines, recentQuotes }: CategoryWrite,
  writes: BandWrites,
  at: string,
): Promise<{ products: number; customers: number }> {
  const customerItems = [...bands.customerSkus]
    .filter(([customer, skus]) => writes.customer(customer, skus, category))
    .map(([customer, skus]) => ({
      ...keys.customerBands(workspaceId, customer, category),
      type: 'customerBands',
      customerExternalId: customer,
      category,
      bands: encodeBandMap(skus),
      updatedAt: at,
    }));
  const touched = writes.linesTouchedIn(category);
  const lostCustomers = [...touched.customers].filter((customer) => !bands.customerSkus.has(customer));
  await Promise.all([
    putItems([
      {
        ...keys.categoryBands(workspaceId, category),
        type: 'categoryBands',
        bands: JSON.stringify(categoryBandsFields(category, bands)),
        updatedAt: at,
      },
      ...customerItems,
    ]),
    deleteItems(lostCustomers.map((customer) => keys.customerBands(workspaceId, customer, category))),
  ]);
  const products = [...bands.segmentSkus].filter(([sku]) => writes.product(sku));
  const lostProducts = [...touched.products].filter((sku) => !bands.segmentSkus.has(sku));
  // PartiQL updates in batches of 25: one call where UpdateItem would take 25. An UPDATE never creates an item, so
  // history naming a product the catalogue does not hold is refused for that statement alone, and left so. A product
  // that lost its lines keeps the bands of the category it has moved to, if it has: hence the condition on category.
  await executeStatements([
    ...products.map(([sku, segments]) =>
      productBandsStatement(keys.product(workspaceId, sku), segments, orderLines.get(sku), recentQuotes.get(sku), at),
    ),
    ...lostProducts.map((sku) => {
      const key = keys.product(workspaceId, sku);
      return {
        Statement: `UPDATE "${tableName()}" REMOVE segmentBands REMOVE orderLines REMOVE recentQuotes SET bandsUpdatedAt = ? WHERE PK = ? AND SK = ? AND "category" = ?`,
        Parameters: [at, key.PK, key.SK, category],
      };
    }),
  ]);
  return { products: products.length, customers: customerItems.length };
}

/** Runs statements 25 to a call, in parallel, retrying throttled ones; a statement refused by its condition is left so. */
async function executeStatements(statements: ReadonlyArray<{ Statement: string; Parameters: unknown[] }>): Promise<void> {
  const groups: Array<typeof statements> = [];
  for (let i = 0; i < statements.length; i += STATEMENTS_PER_BATCH) groups.push(statements.slice(i, i + STATEMENTS_PER_BATCH));
  await inParallel(groups, WRITE_CONCURRENCY, async (group) => {
    let pending = group;
    for (let attempt = 0; pending.length > 0; attempt++) {
      if (attempt > MAX_STATEMENT_RETRIES)
        throw new Error(`${pending.length} band updates still throttled after ${MAX_STATEMENT_RETRIES} retries`);
      if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(2000, 25 * 2 ** attempt)));
      const Responses = await executeStatementBatch(pending);
      const retry = new Set<number>();
      for (const [index, response] of Responses.entries()) {
        const code = response.Error?.Code;
        if (!code || code === 'ConditionalCheckFailed') continue;
        if (
          code === 'ThrottlingError' ||
          code === 'ProvisionedThroughputExceeded' ||
          code === 'RequestLimitExceeded' ||
          code === 'InternalServerError'
        ) {
          retry.add(index);
        } else throw new Error(`band update refused: ${code} ${response.Error?.Message ?? ''}`);
      }
      pending = pending.filter((_, index) => retry.has(index));
    }
  });
}

/** Rewrites categories' bands items with their segments' win models as pooling across categories left them. */
export async function writePooledWinModels(
  workspaceId: string,
  categories: ReadonlyMap<string, StoredCategoryBands>,
  at: string,
): Promise<void> {
  await putItems(
    [...categories.values()].map((stored) => ({
      ...keys.categoryBands(workspaceId, stored.category),
      type: 'categoryBands',
      bands: JSON.stringify(
        categoryBandsFields(stored.category, {
          category: stored.band,
          segments: stored.segments,
          segmentSkus: new Map(),
          customerSkus: new Map(),
        }),
      ),
      updatedAt: at,
    })),
  );
}

/** Every category that has a bands item, with what it holds: the parts of the workspace band, and what a rebuild walks. */
export async function readAllCategoryBands(workspaceId: string): Promise<StoredCategoryBands[]> {
  const partition = keys.categoryBandsPrefix(workspaceId);
  const items = await queryAll({
    KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
    ExpressionAttributeValues: { ':pk': partition.PK, ':prefix': partition.SKPrefix },
    // Read straight after the job wrote its categories: a stale read would combine the workspace band without them.
    ConsistentRead: true,
  });
  return items.map(readCategoryBandsItem);
}

/** The workspace band, with each segment's win lift beside it: every price call reads this item already. */
export async function writeWorkspaceBand(
  workspaceId: string,
  band: Band | undefined,
  at: string,
  winLifts: ReadonlyMap<string, number> = new Map(),
): Promise<void> {
  await putItem({
    Item: {
      ...keys.workspaceBands(workspaceId),
      type: 'workspaceBands',
      band: band ? JSON.stringify(encodeBand(band)) : null,
      winLifts: encodeWinLifts(winLifts),
      updatedAt: at,
    },
  });
}
