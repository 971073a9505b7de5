// Upserting one chunk of staged records into canonical data: the later record for a key wins, and a rerun writes the same.
import type { CustomerRecord, EntityKind, OrderRecord, ProductRecord, QuoteRecord } from '#shared/records/schema.ts';
import { type DocumentKind, keys, type PrimaryKey } from '#platform/table/keys.ts';
import {
  customerItem,
  type DocumentRecord,
  documentItem,
  documentLogEntries,
  feedsOf,
  type FxObservation,
  fxObservation,
  newestRates,
  productItem,
  type Provenance,
  TouchedSet,
} from '#shared/canonical/items.ts';
import { BoundedMap } from '#platform/caches.ts';
import { historyLogItems, type LogEntry } from '#shared/bands/history-log.ts';
import { deleteItems, putItems, type TableItem } from '#platform/table/bulk.ts';
import { type AdherenceWork, adherenceDocuments, prepareOrderAdherence, prepareQuoteAdherence } from '#shared/adherence/repository.ts';
import { pricingSettings } from '#shared/pricing/settings.ts';
import { getWorkspace } from '#shared/workspaces/repository.ts';
import { readCategories, readStoredDocuments, readSegmentBands, readSegments, recordFxRates } from '#shared/canonical/repository.ts';

/**
 * What a drain remembers between chunks: categories and segments it wrote or read, null for one that does not exist.
 * Products and customers are staged before the quotes and orders that name them, so most lookups are hits.
 */
export class DrainMemory {
  readonly categories = new BoundedMap<string, string | null>(50_000);
  readonly segments = new BoundedMap<string, string | null>(50_000);
  /** The workspace's adherence band, read once per drain invocation. */
  bandPct: Promise<number> | undefined;
}

function adherenceBandPct(from: Provenance, memory: DrainMemory): Promise<number> {
  memory.bandPct ??= getWorkspace(from.workspaceId).then((workspace) => pricingSettings(workspace?.pricing).adherenceBandPct);
  return memory.bandPct;
}

/** The last record for each key, in the order the keys were first seen. */
function lastByKey<T>(records: readonly T[], keyOf: (record: T) => string): T[] {
  const latest = new Map<string, T>();
  for (const record of records) latest.set(keyOf(record), record);
  return [...latest.values()];
}

async function fillCategories(from: Provenance, skus: Iterable<string>, memory: DrainMemory): Promise<void> {
  const missing = [...new Set(skus)].filter((sku) => !memory.categories.has(sku));
  if (missing.length === 0) return;
  const found = await readCategories(from.workspaceId, missing);
  for (const sku of missing) memory.categories.set(sku, found.get(sku) ?? null);
}

async function fillSegments(from: Provenance, customerIds: Iterable<string>, memory: DrainMemory): Promise<void> {
  const missing = [...new Set(customerIds)].filter((id) => !memory.segments.has(id));
  if (missing.length === 0) return;
  const found = await readSegments(from.workspaceId, missing);
  for (const id of missing) memory.segments.set(id, found.get(id) ?? null);
}

/**
 * A chunk made ready to write: its items, the stale lines to remove first, the rates it observed and what it touches.
 * Preparing reads; applying only writes, so the next chunk can be prepared while this one is applied.
 */
export interface PreparedChunk {
  readonly puts: TableItem[];
  readonly deletes: PrimaryKey[];
  readonly rates: FxObservation[];
  readonly touched: TouchedSet;
  /** Quotes or orders whose stored line counts were read: a chunk that rewrites any of them must be applied first. */
  readonly documents: ReadonlySet<string>;
  /** Quote and order chunks: what they change in the adherence aggregates, applied at the chunk's checkpoint. */
  readonly adherence?: AdherenceWork;
}

function keyText(key: { PK?: unknown; SK?: unknown }): string {
  return `${String(key.PK)}|${String(key.SK)}`;
}

/**
 * Whether `next` must wait for `current` to be written before it is prepared and written itself: when it read line
 * counts `current` changes, or writes an item `current` writes too (the later record must land last).
 */
export function dependsOn(next: PreparedChunk, current: PreparedChunk): boolean {
  for (const document of next.documents) if (current.documents.has(document)) return true;
  const written = new Set([...current.puts.map(keyText), ...current.deletes.map(keyText)]);
  return next.puts.some((item) => written.has(keyText(item))) || next.deletes.some((key) => written.has(keyText(key)));
}

/**
 * A product's item is replaced whole, so the segment × SKU bands it carries are read first and written with it: prices
 * keep them until the bands job after the drain recomputes them.
 */
async function prepareProducts(records: readonly ProductRecord[], from: Provenance, memory: DrainMemory): Promise<PreparedChunk> {
  const latest = lastByKey(records, (record) => record.sku);
  const touched = new TouchedSet();
  for (const record of latest) {
    memory.categories.set(record.sku, record.category);
    touched.products.add(record.sku);
    touched.addNode(['category', record.category]);
  }
  const bands = await readSegmentBands(
    from.workspaceId,
    latest.map((record) => record.sku),
  );
  return {
    puts: latest.map((record) => productItem(record, from, bands.get(record.sku))),
    deletes: [],
    rates: [],
    touched,
    documents: new Set(),
  };
}

function prepareCustomers(records: readonly CustomerRecord[], from: Provenance, memory: DrainMemory): PreparedChunk {
  const latest = lastByKey(records, (record) => record.externalId);
  const touched = new TouchedSet();
  for (const record of latest) {
    memory.segments.set(record.externalId, record.segment ?? '');
    touched.customers.add(record.externalId);
  }
  return { puts: latest.map((record) => customerItem(record, from)), deletes: [], rates: [], touched, documents: new Set() };
}

async function prepareDocuments(
  documents: readonly DocumentRecord[],
  from: Provenance,
  memory: DrainMemory,
  chunkKey: string,
): Promise<PreparedChunk> {
  const latest = lastByKey(documents, (document) => document.record.externalId);
  const touched = new TouchedSet();
  const kind: DocumentKind | undefined = latest[0]?.kind;
  if (!kind) return { puts: [], deletes: [], rates: [], touched, documents: new Set() };
  const externalIds = latest.map((document) => document.record.externalId);
  const [stored] = await Promise.all([
    readStoredDocuments(from.workspaceId, kind, externalIds),
    fillCategories(
      from,
      latest.flatMap((document) => document.record.lines.map((line) => line.productSku)),
      memory,
    ),
    fillSegments(
      from,
      latest.flatMap((document) => (document.record.customerExternalId ? [document.record.customerExternalId] : [])),
      memory,
    ),
  ]);
  // A stored version written before line 0 kept its feeds is read from its text, with today's categories and segments.
  const textOnly = [...stored.values()].flatMap((document) =>
    document.feeds ? [] : [JSON.parse(document.document) as QuoteRecord | OrderRecord],
  );
  await Promise.all([
    fillCategories(
      from,
      textOnly.flatMap((record) => record.lines.map((line) => line.productSku)),
      memory,
    ),
    fillSegments(
      from,
      textOnly.flatMap((record) => (record.customerExternalId ? [record.customerExternalId] : [])),
      memory,
    ),
  ]);
  const context = {
    categoryOf: (sku: string) => memory.categories.get(sku) ?? undefined,
    segmentOf: (customer: string) => memory.segments.get(customer) ?? undefined,
  };
  const deletes: PrimaryKey[] = [];
  const puts: TableItem[] = [];
  const logEntries = new Map<string, LogEntry[]>();
  for (const document of latest) {
    const { externalId } = document.record;
    const previous = stored.get(externalId);
    // A document stored in the older layout has a line item per line: those past line 0 go (line 0 is overwritten).
    for (let index = 1; index < (previous?.lineItems ?? 0); index++) {
      deletes.push(keys.documentLine(from.workspaceId, kind, externalId, index));
    }
    // A corrected document takes its old lines out of the nodes they fed, so those are touched too. The same text
    // stored by the same batch is this version, written by an earlier attempt at this drain: what it replaced is kept
    // on it, and so is its version. The same text from an earlier batch is a resend, whose lines may now be keyed under
    // other categories.
    const rerun = previous?.batchId === from.batchId && previous.document === JSON.stringify(document.record);
    const replaced = !previous
      ? undefined
      : rerun
        ? previous.replacedFeeds
        : (previous.feeds ?? feedsOf(JSON.parse(previous.document) as QuoteRecord | OrderRecord, context));
    const version = !previous ? 1 : rerun ? Math.max(previous.version, 1) : previous.version + 1;
    if (replaced) touched.addFeeds(replaced);
    touched.addFeeds(feedsOf(document.record, context));
    puts.push(documentItem(document, context, from, version, replaced));
    const entries = documentLogEntries(document, context, from, version, replaced && { feeds: replaced, expiresAt: previous?.expiresAt });
    for (const [category, entry] of entries) {
      const list = logEntries.get(category);
      if (list) list.push(entry);
      else logEntries.set(category, [entry]);
    }
  }
  for (const [category, entries] of logEntries) puts.push(...historyLogItems(from.workspaceId, category, chunkKey, entries));
  const adherence =
    kind === 'quote'
      ? await prepareQuoteAdherence(
          latest.map((document) => document.record as QuoteRecord),
          from,
          { ...context, bandPct: await adherenceBandPct(from, memory) },
        )
      : await prepareOrderAdherence(
          latest.map((document) => document.record as OrderRecord),
          from,
        );
  const adherenceOf = latest.flatMap((document) =>
    document.kind === 'quote'
      ? [document.record.externalId]
      : document.record.sourceQuoteExternalId
        ? [document.record.sourceQuoteExternalId]
        : [],
  );
  return {
    puts,
    deletes,
    rates: newestRates(latest.flatMap((document) => fxObservation(document) ?? [])),
    touched,
    documents: new Set([...externalIds.map((id) => `${kind}#${id}`), ...adherenceDocuments(adherenceOf)]),
    adherence,
  };
}

/**
 * Reads what a chunk's records need (validated when they were staged) and builds its items; writes nothing. The chunk
 * key names the chunk within its batch: its history log items are keyed by it.
 */
export async function prepareChunk(
  entity: EntityKind,
  records: readonly unknown[],
  from: Provenance,
  memory: DrainMemory,
  chunkKey: string,
): Promise<PreparedChunk> {
  switch (entity) {
    case 'product':
      return prepareProducts(records as ProductRecord[], from, memory);
    case 'customer':
      return prepareCustomers(records as CustomerRecord[], from, memory);
    case 'quote':
      return prepareDocuments(
        (records as QuoteRecord[]).map((record) => ({ kind: 'quote', record })),
        from,
        memory,
        chunkKey,
      );
    case 'order':
      return prepareDocuments(
        (records as OrderRecord[]).map((record) => ({ kind: 'order', record })),
        from,
        memory,
        chunkKey,
      );
  }
}

/**
 * Writes a prepared chunk's items: stale line items of the older layout are removed before the document that replaces
 * them is written, so a drain that dies halfway and runs again still finds the old layout on line 0 and removes the
 * same lines.
 */
export async function writeChunk(prepared: PreparedChunk): Promise<void> {
  await deleteItems(prepared.deletes);
  await putItems(prepared.puts);
}

/** Rates are recorded in chunk order, after the chunk's items, so that of two rates at one moment the later-staged wins. */
export async function recordChunkRates(prepared: PreparedChunk, from: Provenance): Promise<void> {
  await recordFxRates(from.workspaceId, prepared.rates, from.syncedAt);
}
