// Canonical data as table items: products, customers, quote and order lines (the pricing history), FX observations and touched nodes.
import type { CustomerRecord, OrderRecord, ProductRecord, QuoteRecord } from '#shared/records/schema.ts';
import type { TableItem } from '#platform/table/bulk.ts';
import { keys } from '#platform/table/keys.ts';
import { lookupKeys } from '#platform/table/index-keys.ts';
import type { RecentQuotes } from '#shared/pricing/quote-rate.ts';
import type { OrderLinesReference, WarningJudgement } from './data-warnings.ts';

const DAY_MS = 86_400_000;
/** History is kept at least this long: a decision id quoted back within 400 days can still be attributed. */
export const HISTORY_RETENTION_DAYS = 400;

/** Where an item came from; the same for every item of a batch, so a redelivered drain writes identical items. */
export interface Provenance {
  readonly workspaceId: string;
  readonly batchId: string;
  /** The batch's commit time: the moment the connector said this data was complete. */
  readonly syncedAt: string;
}

/** Free-form attributes are stored as JSON text: DynamoDB maps refuse empty keys and nesting beyond 32 levels. */
function attributesJson(attributes: Record<string, unknown> | undefined): { attributesJson?: string } {
  return attributes === undefined ? {} : { attributesJson: JSON.stringify(attributes) };
}

/** What a product's item keeps from the one it replaces: what its last bands job wrote onto it. */
export interface CarriedFromBands {
  /** The segment × SKU bands, as JSON text. */
  readonly segmentBands?: string | undefined;
  readonly orderLines?: OrderLinesReference | undefined;
  readonly recentQuotes?: RecentQuotes | undefined;
}

/**
 * A product's item. Its data warnings and the basis they were judged against are written only when it has any, so a
 * product in line is the same item, and costs the same write, as before warnings existed.
 */
export function productItem(record: ProductRecord, from: Provenance, carried: CarriedFromBands = {}, judged?: WarningJudgement): TableItem {
  const { attributes, ...fields } = record;
  return {
    ...keys.product(from.workspaceId, record.sku),
    ...(record.externalId ? lookupKeys.productByExternalId(from.workspaceId, record.externalId) : {}),
    type: 'product',
    ...fields,
    ...attributesJson(attributes),
    ...(carried.segmentBands === undefined ? {} : { segmentBands: carried.segmentBands }),
    ...(carried.orderLines === undefined ? {} : { orderLines: carried.orderLines }),
    ...(carried.recentQuotes === undefined ? {} : { recentQuotes: carried.recentQuotes }),
    ...(judged && judged.warnings.length > 0 ? { warnings: judged.warnings } : {}),
    ...(judged?.basis ? { warningBasis: judged.basis } : {}),
    batchId: from.batchId,
    syncedAt: from.syncedAt,
  };
}

export function customerItem(record: CustomerRecord, from: Provenance): TableItem {
  const { attributes, ...fields } = record;
  return {
    ...keys.customer(from.workspaceId, record.externalId),
    type: 'customer',
    ...fields,
    ...attributesJson(attributes),
    batchId: from.batchId,
    syncedAt: from.syncedAt,
  };
}

export type DocumentRecord = { kind: 'quote'; record: QuoteRecord } | { kind: 'order'; record: OrderRecord };

/** What a line is keyed by besides its document: known from the product and customer items at drain time. */
export interface LineContext {
  categoryOf(sku: string): string | undefined;
  segmentOf(customerExternalId: string): string | undefined;
}

/** The document's own date: a quote's creation, an order's sale. */
export function documentDate(document: DocumentRecord): string {
  return document.kind === 'quote' ? document.record.createdAt : document.record.soldAt;
}

/** Kept for the retention period after the document's date, or after the sync that brought it if that is later. */
export function historyExpiresAt(document: DocumentRecord, from: Provenance): number {
  const latest = Math.max(Date.parse(documentDate(document)), Date.parse(from.syncedAt));
  return Math.floor((latest + HISTORY_RETENTION_DAYS * DAY_MS) / 1000);
}

/** Quoted price for a quote line, sold price for an order line. */
export function linePriceCents(document: DocumentRecord, index: number): number {
  return document.kind === 'quote'
    ? (document.record.lines[index] as QuoteRecord['lines'][number]).quotedPriceCents
    : (document.record.lines[index] as OrderRecord['lines'][number]).soldPriceCents;
}

/**
 * The pricing nodes a version of a document fed: its customer, and each line's SKU with the segment and category the
 * line was keyed under. A later version touches them, so that the bands they fed are recomputed without its lines.
 */
export interface DocumentFeeds {
  readonly customer: string | null;
  readonly lines: ReadonlyArray<readonly [sku: string, segment: string | null, category: string | null]>;
}

export function feedsOf(record: QuoteRecord | OrderRecord, context: LineContext): DocumentFeeds {
  const customer = record.customerExternalId ?? null;
  const segment = customer === null ? null : (context.segmentOf(customer) ?? null);
  return { customer, lines: record.lines.map((line) => [line.productSku, segment, context.categoryOf(line.productSku) ?? null]) };
}

/**
 * Where a drain wrote a document's version: the chunk (batch and staged chunk), and for an order the margin
 * contribution of the version it replaced, as JSON. Until a checkpoint of that batch takes the chunk in, the months
 * hold what the replaced version added, and a later version (or the same chunk run again) takes out that.
 */
export interface DocumentWrite {
  readonly chunk: string;
  readonly replacedMargin?: string | undefined;
}

/**
 * A document is one item, its lines embedded in the document as staged, at line 0's key (keys.document). It carries
 * its line count; the nodes it fed; the nodes the version it replaced fed, so that a drain that dies after writing it
 * still finds them when it runs again; and its version, which its history log entries carry.
 */
export function documentItem(
  document: DocumentRecord,
  context: LineContext,
  from: Provenance,
  version: number,
  replaced?: DocumentFeeds,
  written?: DocumentWrite,
): TableItem {
  const { kind, record } = document;
  return {
    ...keys.document(from.workspaceId, kind, record.externalId),
    type: `${kind}Document`,
    externalId: record.externalId,
    lineCount: record.lines.length,
    // No line items beside this one: a later version has nothing else to remove.
    lineItems: 1,
    version,
    document: JSON.stringify(record),
    feeds: JSON.stringify(feedsOf(record, context)),
    ...(replaced ? { replacedFeeds: JSON.stringify(replaced) } : {}),
    ...(written ? { chunk: written.chunk } : {}),
    ...(written?.replacedMargin ? { replacedMargin: written.replacedMargin } : {}),
    batchId: from.batchId,
    syncedAt: from.syncedAt,
    expiresAt: historyExpiresAt(document, from),
  };
}

/** The document as staged, from its line 0. */
export function documentOf(lineZero: TableItem): QuoteRecord | OrderRecord {
  return JSON.parse(String(lineZero.document)) as QuoteRecord | OrderRecord;
}

export interface FxObservation {
  readonly currency: string;
  /** Units of the workspace's base currency per one unit of `currency`. */
  readonly rate: number;
  readonly asOf: string;
  readonly asOfMs: number;
  readonly source: string;
}

/** A document's rate, when it names both a currency and a usable rate. */
export function fxObservation(document: DocumentRecord): FxObservation | undefined {
  const { currency, exchangeRate, externalId } = document.record;
  if (!currency || exchangeRate === null || exchangeRate === undefined || !(exchangeRate > 0)) return undefined;
  const asOf = documentDate(document);
  return { currency, rate: exchangeRate, asOf, asOfMs: Date.parse(asOf), source: `${document.kind}:${externalId}` };
}

/** The newest observation per currency; of two at the same moment, the later-staged one wins, as records do. */
export function newestRates(observations: Iterable<FxObservation>): FxObservation[] {
  const newest = new Map<string, FxObservation>();
  for (const observation of observations) {
    const seen = newest.get(observation.currency);
    if (!seen || observation.asOfMs >= seen.asOfMs) newest.set(observation.currency, observation);
  }
  return [...newest.values()];
}

/** A node of the pricing hierarchy, written as a JSON array so that ids holding any character stay unambiguous. */
export type TouchedNode =
  | readonly ['customerSku', string, string]
  | readonly ['segmentSku', string, string]
  | readonly ['segmentCategory', string, string]
  | readonly ['category', string]
  /** A product and a customer with a line in the category: one left without lines there loses its bands of it. */
  | readonly ['categorySku', string, string]
  | readonly ['categoryCustomer', string, string]
  /** A product whose record the batch wrote: its list price or cost may have moved. */
  | readonly ['productRecord', string];

export class TouchedSet {
  readonly products = new Set<string>();
  readonly customers = new Set<string>();
  readonly nodes = new Set<string>();

  addNode(node: TouchedNode): void {
    this.nodes.add(JSON.stringify(node));
  }

  /** The nodes a stored version of a document fed, as they were keyed then. */
  addFeeds(feeds: DocumentFeeds): void {
    for (const [productSku, segment, category] of feeds.lines) {
      this.addLine({ productSku, customer: feeds.customer, segment: segment ?? undefined, category: category ?? undefined });
    }
  }

  /** The nodes whose bands a line feeds. */
  addLine(line: { productSku: string; customer: string | null; segment: string | undefined; category: string | undefined }): void {
    const segment = line.segment ?? '';
    this.products.add(line.productSku);
    if (line.customer !== null) this.addNode(['customerSku', line.customer, line.productSku]);
    this.addNode(['segmentSku', segment, line.productSku]);
    if (line.category !== undefined) {
      this.addNode(['segmentCategory', segment, line.category]);
      this.addNode(['category', line.category]);
      this.addNode(['categorySku', line.category, line.productSku]);
      if (line.customer !== null) this.addNode(['categoryCustomer', line.category, line.customer]);
    }
  }

  get size(): number {
    return this.products.size + this.customers.size + this.nodes.size;
  }
}
