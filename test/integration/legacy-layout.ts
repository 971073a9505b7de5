// Items as older layouts stored them (documents a line item per line with lookup and history index keys, recommendations unpacked): what existing workspaces still hold until migrated or stored again.
import { type DocumentRecord, feedsOf, historyExpiresAt, type LineContext, type Provenance } from '#shared/canonical/items.ts';
import type { OrderRecord, QuoteRecord } from '#shared/records/schema.ts';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { tableName } from '#platform/config.ts';
import { putItems, type TableItem } from '#platform/table/bulk.ts';
import { tableClient } from '#platform/table/client.ts';
import { historyKeys, lookupKeys } from '#platform/table/index-keys.ts';
import { keys } from '#platform/table/keys.ts';
import { recommendationOfItem } from '#shared/recommendations/repository.ts';
import type { Recommendation } from '#shared/recommendations/schema.ts';

/** One item per line in the document's partition; line 0 carries the document as staged, its line count and feeds. */
export function legacyLineItems(document: DocumentRecord, context: LineContext, from: Provenance): TableItem[] {
  const { kind, record } = document;
  const customer = record.customerExternalId ?? null;
  const segment = customer === null ? undefined : context.segmentOf(customer);
  const atMs = Date.parse(kind === 'quote' ? (record as QuoteRecord).createdAt : (record as OrderRecord).soldAt);
  const expiresAt = historyExpiresAt(document, from);
  return record.lines.map((line, index) => {
    const category = context.categoryOf(line.productSku);
    const priceCents = 'quotedPriceCents' in line ? line.quotedPriceCents : line.soldPriceCents;
    return {
      ...keys.documentLine(from.workspaceId, kind, record.externalId, index),
      ...lookupKeys.productLine(from.workspaceId, line.productSku, customer, kind, record.externalId, index),
      ...(category === undefined
        ? {}
        : historyKeys.categoryLine(from.workspaceId, category, segment ?? '', kind, record.externalId, index)),
      type: `${kind}Line`,
      externalId: record.externalId,
      lineIndex: index,
      productSku: line.productSku,
      ...(customer === null ? {} : { customerExternalId: customer }),
      ...(segment === undefined ? {} : { segment }),
      ...(category === undefined ? {} : { category }),
      ...(record.currency ? { currency: record.currency } : {}),
      atMs,
      ...(kind === 'quote'
        ? { outcome: (record as QuoteRecord).outcome }
        : (record as OrderRecord).sourceQuoteExternalId
          ? { sourceQuoteExternalId: (record as OrderRecord).sourceQuoteExternalId }
          : {}),
      quantity: line.quantity,
      costCents: line.costCents,
      priceCents,
      ...(index === 0
        ? {
            lineCount: record.lines.length,
            document: JSON.stringify(record),
            feeds: JSON.stringify(feedsOf(record, context)),
            batchId: from.batchId,
            syncedAt: from.syncedAt,
          }
        : {}),
      expiresAt,
    };
  });
}

/** Writes documents in the older layout straight into the table, as a workspace drained before the history log holds them. */
export async function writeLegacyDocuments(documents: readonly DocumentRecord[], context: LineContext, from: Provenance): Promise<void> {
  await putItems(documents.flatMap((document) => legacyLineItems(document, context, from)));
}

/**
 * Rewrites a product's stored recommendation as the older layout kept it, every field an attribute, less the fields
 * `omit` names (as a recommendation stored before those fields existed): what existing workspaces hold until their
 * next bands job stores it again, packed.
 */
export async function storeRecommendationUnpacked(workspaceId: string, sku: string, omit: readonly string[] = []): Promise<void> {
  const stored = await storedRecommendation(workspaceId, sku);
  if (!stored) throw new Error(`no recommendation of ${sku} to rewrite`);
  const fields: TableItem = { ...stored };
  for (const name of omit) delete fields[name];
  await putItems([{ ...keys.recommendation(workspaceId, sku), type: 'recommendation', ...fields }]);
}

/** A product's stored recommendation, read as the service reads it, whichever layout holds it. */
export async function storedRecommendation(workspaceId: string, sku: string): Promise<Recommendation | undefined> {
  const { Item } = await tableClient().send(
    new GetCommand({ TableName: tableName(), Key: keys.recommendation(workspaceId, sku), ConsistentRead: true }),
  );
  return Item ? recommendationOfItem(Item) : undefined;
}
