// Preparing one chunk of staged records for canonical data: the later record for a key wins, and a rerun writes the same.
import { customerItem, productItem, type Provenance, TouchedSet } from '#shared/canonical/items.ts';
import { judgeProductData } from '#shared/canonical/data-warnings.ts';
import { readStoredProducts } from '#shared/canonical/repository.ts';
import type { CustomerRecord, EntityKind, OrderRecord, ProductRecord, QuoteRecord } from '#shared/records/schema.ts';
import { dataWarningRules, type DrainMemory, lastByKey } from './memory.ts';
import { prepareDocuments } from './prepare-documents.ts';
import type { PreparedChunk } from './prepared-chunk.ts';

/**
 * A product's item is replaced whole, so the segment × SKU bands it carries are read first and written with it: prices
 * keep them until the bands job after the drain recomputes them. The same read gives the values it is judged against:
 * a cost or current price moved past the workspace's factor, or a price below cost, leaves it with data warnings.
 */
async function prepareProducts(records: readonly ProductRecord[], from: Provenance, memory: DrainMemory): Promise<PreparedChunk> {
  const latest = lastByKey(records, (record) => record.sku);
  const touched = new TouchedSet();
  for (const record of latest) {
    memory.categories.set(record.sku, record.category);
    touched.products.add(record.sku);
    touched.addNode(['category', record.category]);
    touched.addNode(['productRecord', record.sku]);
  }
  const [stored, rules] = await Promise.all([
    readStoredProducts(
      from.workspaceId,
      latest.map((record) => record.sku),
    ),
    dataWarningRules(from, memory),
  ]);
  let warned = 0;
  const puts = latest.map((record) => {
    const before = stored.get(record.sku);
    const judged = judgeProductData(record, before?.values, rules.factor, rules.baseCurrency);
    if (judged.warnings.length > 0) warned += 1;
    const carried = { segmentBands: before?.segmentBands, orderLines: before?.values.orderLines, recentQuotes: before?.recentQuotes };
    return productItem(record, from, carried, judged);
  });
  return { puts, deletes: [], rates: [], touched, documents: new Set(), warned };
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

/**
 * Reads what a chunk's records need (validated when they were staged) and builds its items; writes nothing. The chunk
 * marker names the chunk among every batch's (keys.ts): its history log items are keyed by it.
 */
export async function prepareChunk(
  entity: EntityKind,
  records: readonly unknown[],
  from: Provenance,
  memory: DrainMemory,
  chunkMarker: string,
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
        chunkMarker,
      );
    case 'order':
      return prepareDocuments(
        (records as OrderRecord[]).map((record) => ({ kind: 'order', record })),
        from,
        memory,
        chunkMarker,
      );
  }
}
