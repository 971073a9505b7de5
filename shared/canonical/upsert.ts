// Upserting one chunk of staged records into canonical data: the later record for a key wins, and a rerun writes the same.
import type { CustomerRecord, EntityKind, OrderRecord, ProductRecord, QuoteRecord } from '../records/schema.ts';
import { type DocumentKind, keys, type PrimaryKey } from '../table/keys.ts';
import {
  customerItem,
  type DocumentRecord,
  documentLineItems,
  fxObservation,
  newestRates,
  productItem,
  type Provenance,
  TouchedSet,
} from './items.ts';
import { deleteItems, putItems, readCategories, readLineCounts, readSegments, recordFxRates } from './repository.ts';

/** A map that forgets its oldest entries past a size, so that a drain's memory does not grow with the batch. */
export class BoundedMap<K, V> extends Map<K, V> {
  readonly limit: number;

  constructor(limit: number) {
    super();
    this.limit = limit;
  }

  override set(key: K, value: V): this {
    if (!this.has(key) && this.size >= this.limit) {
      const oldest = this.keys().next();
      if (!oldest.done) this.delete(oldest.value);
    }
    return super.set(key, value);
  }
}

/**
 * What a drain remembers between chunks: categories and segments it wrote or read, null for one that does not exist.
 * Products and customers are staged before the quotes and orders that name them, so most lookups are hits.
 */
export class DrainMemory {
  readonly categories = new BoundedMap<string, string | null>(50_000);
  readonly segments = new BoundedMap<string, string | null>(50_000);
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

async function upsertProducts(records: readonly ProductRecord[], from: Provenance, memory: DrainMemory, touched: TouchedSet) {
  const latest = lastByKey(records, (record) => record.sku);
  await putItems(latest.map((record) => productItem(record, from)));
  for (const record of latest) {
    memory.categories.set(record.sku, record.category);
    touched.products.add(record.sku);
  }
}

async function upsertCustomers(records: readonly CustomerRecord[], from: Provenance, memory: DrainMemory, touched: TouchedSet) {
  const latest = lastByKey(records, (record) => record.externalId);
  await putItems(latest.map((record) => customerItem(record, from)));
  for (const record of latest) {
    memory.segments.set(record.externalId, record.segment ?? '');
    touched.customers.add(record.externalId);
  }
}

/**
 * Removes the lines a document no longer has, then writes its lines. In that order a drain that dies halfway and
 * runs again still finds the old line count on line 0 and removes the same lines.
 */
async function upsertDocuments(documents: readonly DocumentRecord[], from: Provenance, memory: DrainMemory, touched: TouchedSet) {
  const latest = lastByKey(documents, (document) => document.record.externalId);
  const kind: DocumentKind | undefined = latest[0]?.kind;
  if (!kind) return;
  const [lineCounts] = await Promise.all([
    readLineCounts(
      from.workspaceId,
      kind,
      latest.map((document) => document.record.externalId),
    ),
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
  const context = {
    categoryOf: (sku: string) => memory.categories.get(sku) ?? undefined,
    segmentOf: (customer: string) => memory.segments.get(customer) ?? undefined,
  };
  const stale: PrimaryKey[] = [];
  for (const document of latest) {
    const stored = lineCounts.get(document.record.externalId) ?? 0;
    for (let index = document.record.lines.length; index < stored; index++) {
      stale.push(keys.documentLine(from.workspaceId, kind, document.record.externalId, index));
    }
  }
  await deleteItems(stale);
  await putItems(latest.flatMap((document) => documentLineItems(document, context, from)));
  await recordFxRates(from.workspaceId, newestRates(latest.flatMap((document) => fxObservation(document) ?? [])), from.syncedAt);
  for (const document of latest) {
    const customer = document.record.customerExternalId ?? null;
    const segment = customer === null ? undefined : context.segmentOf(customer);
    for (const line of document.record.lines) {
      touched.addLine({ productSku: line.productSku, customer, segment, category: context.categoryOf(line.productSku) });
    }
  }
}

/** Upserts one chunk's records (validated when they were staged) and says what they touched. */
export async function upsertRecords(
  entity: EntityKind,
  records: readonly unknown[],
  from: Provenance,
  memory: DrainMemory,
): Promise<TouchedSet> {
  const touched = new TouchedSet();
  switch (entity) {
    case 'product':
      await upsertProducts(records as ProductRecord[], from, memory, touched);
      break;
    case 'customer':
      await upsertCustomers(records as CustomerRecord[], from, memory, touched);
      break;
    case 'quote':
      await upsertDocuments(
        (records as QuoteRecord[]).map((record) => ({ kind: 'quote', record })),
        from,
        memory,
        touched,
      );
      break;
    case 'order':
      await upsertDocuments(
        (records as OrderRecord[]).map((record) => ({ kind: 'order', record })),
        from,
        memory,
        touched,
      );
      break;
  }
  return touched;
}
