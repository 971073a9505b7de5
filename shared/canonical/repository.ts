// Canonical items in the table: the reads a drain needs before it writes, and FX rates.
import { updateItem } from '#platform/table/commands.ts';
import type { DocumentKind } from '#platform/table/key-parts.ts';
import { keys } from '#platform/table/keys.ts';
import { getItems, inParallel, WRITE_CONCURRENCY } from '#platform/table/bulk.ts';
import { type RecentQuotes, recentQuotesOf } from '#shared/pricing/quote-rate.ts';
import { basisOf, orderLinesOf, type StoredProductValues } from './data-warnings.ts';
import type { DocumentFeeds, FxObservation } from './items.ts';

/** Each product's category, for the skus asked about that exist. */
export async function readCategories(workspaceId: string, skus: readonly string[]): Promise<Map<string, string>> {
  const items = await getItems(
    skus.map((sku) => keys.product(workspaceId, sku)),
    {
      consistent: true,
      projection: '#sku, #category',
      names: { '#sku': 'sku', '#category': 'category' },
    },
  );
  return new Map(items.map((item) => [item.sku as string, item.category as string]));
}

/**
 * What a product's new record is written with and judged against: the bands it carries and its stored values, its
 * order-lines reference among them, which the new item carries on as it carries the bands.
 */
export interface StoredProduct {
  /** The segment × SKU bands, as JSON text; absent until its first bands job. */
  readonly segmentBands?: string;
  /** Its quote rate, as its last bands job counted it. */
  readonly recentQuotes?: RecentQuotes;
  readonly values: StoredProductValues;
}

/**
 * The stored products asked about that exist: the segment × SKU bands each carries, and its cost, current price,
 * currency, warning basis and order-lines reference, which its data warnings are judged against. Reading the values along with the bands
 * costs nothing more: a read is charged by the item's size, whatever it projects.
 */
export async function readStoredProducts(workspaceId: string, skus: readonly string[]): Promise<Map<string, StoredProduct>> {
  const items = await getItems(
    skus.map((sku) => keys.product(workspaceId, sku)),
    {
      consistent: true,
      projection: '#sku, #bands, #cost, #price, #currency, #basis, #approved, #orders, #quotes',
      names: {
        '#sku': 'sku',
        '#bands': 'segmentBands',
        '#cost': 'costCents',
        '#price': 'currentPriceCents',
        '#currency': 'currency',
        '#basis': 'warningBasis',
        '#approved': 'writtenBackPriceCents',
        '#orders': 'orderLines',
        '#quotes': 'recentQuotes',
      },
    },
  );
  return new Map(
    items.map((item) => {
      const basis = basisOf(item);
      const orderLines = orderLinesOf(item);
      const values: StoredProductValues = {
        costCents: Number(item.costCents ?? 0),
        currentPriceCents: Number(item.currentPriceCents ?? 0),
        currency: typeof item.currency === 'string' ? item.currency : '',
        ...(basis ? { basis } : {}),
        ...(typeof item.writtenBackPriceCents === 'number' ? { writtenBackPriceCents: item.writtenBackPriceCents } : {}),
        ...(orderLines ? { orderLines } : {}),
      };
      const recentQuotes = recentQuotesOf(item);
      const carried = {
        ...(typeof item.segmentBands === 'string' ? { segmentBands: item.segmentBands } : {}),
        ...(recentQuotes ? { recentQuotes } : {}),
      };
      return [item.sku as string, { ...carried, values }];
    }),
  );
}

/** Each customer's segment ('' when it has none), for the customers asked about that exist. */
export async function readSegments(workspaceId: string, customerIds: readonly string[]): Promise<Map<string, string>> {
  const items = await getItems(
    customerIds.map((id) => keys.customer(workspaceId, id)),
    {
      consistent: true,
      projection: '#id, #segment',
      names: { '#id': 'externalId', '#segment': 'segment' },
    },
  );
  return new Map(items.map((item) => [item.externalId as string, (item.segment as string | undefined) ?? '']));
}

/** What a newer version of a document replaces: its line count, its text as staged, and the nodes it fed. */
export interface StoredDocument {
  readonly lineCount: number;
  /** The document as staged, as JSON text. */
  readonly document: string;
  /** The batch that wrote it: the same text from the same batch is the same version, written by an earlier attempt. */
  readonly batchId: string;
  /** Undefined on a line 0 written before line 0 kept its feeds: its lines' SKUs and customer are read from the text. */
  readonly feeds: DocumentFeeds | undefined;
  readonly replacedFeeds: DocumentFeeds | undefined;
  /** 0 for a document stored before documents had versions. */
  readonly version: number;
  /** The items the document is stored as: 1 when its lines are embedded, else one per line (the older layout). */
  readonly lineItems: number;
  readonly expiresAt: number | undefined;
  /** The batch and staged chunk whose drain wrote it; undefined on a version written before documents kept it. */
  readonly chunk: string | undefined;
  /** An order's: the margin contribution of the version it replaced, as JSON; undefined when it replaced none. */
  readonly replacedMargin: string | undefined;
}

/**
 * The stored version of each document asked about that exists, from its document item (line 0 in the older layout). Reading the staged document and the
 * feeds along with the count costs nothing more: a read is charged by the item's size, whatever it projects.
 */
export async function readStoredDocuments(
  workspaceId: string,
  kind: DocumentKind,
  externalIds: readonly string[],
): Promise<Map<string, StoredDocument>> {
  const items = await getItems(
    externalIds.map((id) => keys.document(workspaceId, kind, id)),
    {
      consistent: true,
      projection: '#id, #count, #document, #batch, #feeds, #replaced, #version, #items, #expires, #chunk, #margin',
      names: {
        '#id': 'externalId',
        '#count': 'lineCount',
        '#document': 'document',
        '#batch': 'batchId',
        '#feeds': 'feeds',
        '#replaced': 'replacedFeeds',
        '#version': 'version',
        '#items': 'lineItems',
        '#expires': 'expiresAt',
        '#chunk': 'chunk',
        '#margin': 'replacedMargin',
      },
    },
  );
  const feeds = (text: unknown) => (typeof text === 'string' ? (JSON.parse(text) as DocumentFeeds) : undefined);
  return new Map(
    items.map((item) => [
      item.externalId as string,
      {
        lineCount: item.lineCount as number,
        document: String(item.document ?? ''),
        batchId: String(item.batchId ?? ''),
        feeds: feeds(item.feeds),
        replacedFeeds: feeds(item.replacedFeeds),
        version: typeof item.version === 'number' ? item.version : 0,
        lineItems: typeof item.lineItems === 'number' ? item.lineItems : (item.lineCount as number),
        expiresAt: typeof item.expiresAt === 'number' ? item.expiresAt : undefined,
        chunk: typeof item.chunk === 'string' ? item.chunk : undefined,
        replacedMargin: typeof item.replacedMargin === 'string' ? item.replacedMargin : undefined,
      },
    ]),
  );
}

/** Keeps the newest rate per currency: an older observation, from this batch or a later-synced one, never replaces a newer. */
export async function recordFxRates(workspaceId: string, observations: readonly FxObservation[], syncedAt: string): Promise<void> {
  await inParallel(observations, WRITE_CONCURRENCY, async (observation) => {
    // Refused where a newer rate is already kept: it stays.
    await updateItem({
      Key: keys.fxRate(workspaceId, observation.currency),
      UpdateExpression:
        'SET #type = :type, currency = :currency, rate = :rate, asOf = :asOf, asOfMs = :asOfMs, #source = :source, syncedAt = :syncedAt',
      ConditionExpression: 'attribute_not_exists(asOfMs) OR asOfMs <= :asOfMs',
      ExpressionAttributeNames: { '#type': 'type', '#source': 'source' },
      ExpressionAttributeValues: {
        ':type': 'fxRate',
        ':currency': observation.currency,
        ':rate': observation.rate,
        ':asOf': observation.asOf,
        ':asOfMs': observation.asOfMs,
        ':source': observation.source,
        ':syncedAt': syncedAt,
      },
    });
  });
}
