// Moving a workspace's documents from the older layout (a line item per line, in the history index) to one item per document with a history log: resumable, and safe to run again.
import { queryAll } from '#platform/table/query.ts';
import { historyLogItems, type LoggedDocument } from '#shared/bands/history-log.ts';
import { legacyEntriesOf, legacyLineProjection } from '#shared/bands/items.ts';
import { readAllCategoryBands } from '#shared/bands/repository.ts';
import { deleteItems, inParallel, putItems, type TableItem } from '#platform/table/bulk.ts';
import { getItem, putItem, queryPage } from '#platform/table/commands.ts';
import { table } from '#platform/table/definition.ts';
import { type DocumentKind, keyDigest } from '#platform/table/key-parts.ts';
import { historyKeys } from '#platform/table/index-keys.ts';
import { keys } from '#platform/table/keys.ts';
import type { DocumentFeeds } from '#shared/canonical/items.ts';

const historyIndex = table.indexes[1];
/** Documents migrated at once: each is a Query of its partition and a few writes. */
const DOCUMENTS_AT_ONCE = 8;
/** Pages in a row that moved nothing before the migration gives up on a category (the index lags by far less). */
const MAX_IDLE_PAGES = 50;

export interface MigrationResult {
  readonly categories: number;
  readonly documents: number;
  readonly lines: number;
  /** False when it stopped because it was asked to; running it again carries on. */
  readonly done: boolean;
}

export interface MigrationProgress {
  /** Asked before each page of a category: true stops the migration there. */
  readonly shouldStop?: () => boolean;
  readonly onCategory?: (category: string, documents: number) => void;
}

/** The log entry key of a migrated document: one per document, so a second run rewrites the same items. */
function migratedKey(kind: DocumentKind, externalId: string): string {
  return `migrated#${kind}#${keyDigest(externalId)}`;
}

async function readFinished(workspaceId: string): Promise<Set<string>> {
  const Item = await getItem({ Key: keys.historyMigration(workspaceId), ConsistentRead: true });
  return new Set(Array.isArray(Item?.finished) ? (Item.finished as string[]) : []);
}

async function saveFinished(workspaceId: string, finished: ReadonlySet<string>): Promise<void> {
  await putItem({
    Item: {
      ...keys.historyMigration(workspaceId),
      type: 'historyMigration',
      finished: [...finished].sort(),
      updatedAt: new Date().toISOString(),
    },
  });
}

/** Every line item of a document, strongly consistent: line 0 with the document as staged, then the others. */
function readDocumentLines(pk: string): Promise<TableItem[]> {
  return queryAll({
    KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
    ExpressionAttributeValues: { ':pk': pk, ':prefix': 'LINE#' },
    ConsistentRead: true,
  });
}

/**
 * One document moved: its log entries first, per category its lines were keyed under (version 1 hides the line items,
 * version 0, from every reader at once), then the document item over line 0, then the other line items removed. A
 * run that dies between any two writes leaves what readers count unchanged, and the next run repeats the same writes.
 */
async function migrateDocument(workspaceId: string, pk: string): Promise<number> {
  const lines = (await readDocumentLines(pk)).sort((a, b) => Number(a.lineIndex) - Number(b.lineIndex));
  const lineZero = lines[0];
  if (!lineZero || typeof lineZero.lineItems === 'number' || typeof lineZero.document !== 'string') {
    // Lines left without a document of the older layout (its line 0 expired first, or a newer version replaced it):
    // they no longer count anywhere, and leaving them would keep the category's index partition from emptying.
    const strays = lines.filter((line) => typeof line.lineItems !== 'number');
    await deleteItems(strays.map((line) => ({ PK: String(line.PK), SK: String(line.SK) })));
    return 0;
  }
  const kind: DocumentKind = lineZero.type === 'quoteLine' ? 'quote' : 'order';
  const externalId = String(lineZero.externalId);
  const byCategory = new Map<string, TableItem[]>();
  for (const line of lines) {
    if (typeof line.category !== 'string') continue;
    byCategory.set(line.category, [...(byCategory.get(line.category) ?? []), line]);
  }
  const logItems = [...byCategory].flatMap(([category, categoryLines]) => {
    const entries = legacyEntriesOf(
      categoryLines.map((line) => Object.fromEntries(legacyLineProjection.map((name) => [name, line[name]]))),
    ).map((entry): LoggedDocument => ({ ...entry, version: 1 }));
    return historyLogItems(workspaceId, category, migratedKey(kind, externalId), entries);
  });
  await putItems(logItems);
  const customer = typeof lineZero.customerExternalId === 'string' ? lineZero.customerExternalId : null;
  const feeds: DocumentFeeds = {
    customer,
    lines: lines.map((line) => [
      String(line.productSku),
      typeof line.segment === 'string' ? line.segment : null,
      typeof line.category === 'string' ? line.category : null,
    ]),
  };
  await putItems([
    {
      ...keys.document(workspaceId, kind, externalId),
      type: `${kind}Document`,
      externalId,
      lineCount: lines.length,
      lineItems: 1,
      version: 1,
      document: lineZero.document,
      feeds: JSON.stringify(feeds),
      ...(typeof lineZero.batchId === 'string' ? { batchId: lineZero.batchId } : {}),
      ...(typeof lineZero.syncedAt === 'string' ? { syncedAt: lineZero.syncedAt } : {}),
      ...(typeof lineZero.expiresAt === 'number' ? { expiresAt: lineZero.expiresAt } : {}),
    },
  ]);
  await deleteItems(lines.slice(1).map((line) => ({ PK: String(line.PK), SK: String(line.SK) })));
  return lines.length;
}

/**
 * Moves every document that still has line items in the history index. Category by category, a page of the index at
 * a time; a category is marked finished once its index partition is empty, so a run that stops carries on where it
 * was. Drains may run meanwhile: one that writes a newer version of a document first makes the move a no-op for it.
 */
export async function migrateHistory(workspaceId: string, progress: MigrationProgress = {}): Promise<MigrationResult> {
  const finished = await readFinished(workspaceId);
  const categories = (await readAllCategoryBands(workspaceId)).map((entry) => entry.category).filter((category) => !finished.has(category));
  let documents = 0;
  let lines = 0;
  for (const category of categories.sort()) {
    let inCategory = 0;
    let idlePages = 0;
    for (;;) {
      if (progress.shouldStop?.()) return { categories: finished.size, documents, lines, done: false };
      // Each page is the first page: what the page before moved has left the index.
      const { Items } = await queryPage({
        IndexName: historyIndex.name,
        KeyConditionExpression: '#pk = :pk',
        ProjectionExpression: 'PK',
        ExpressionAttributeNames: { '#pk': historyIndex.partitionKey },
        ExpressionAttributeValues: { ':pk': historyKeys.categoryLines(workspaceId, category).partitionKey },
        Limit: 200,
      });
      const partitions = [...new Set((Items ?? []).map((item) => String(item.PK)))];
      if (partitions.length === 0) break;
      let moved = 0;
      await inParallel(partitions, DOCUMENTS_AT_ONCE, async (pk) => {
        const count = await migrateDocument(workspaceId, pk);
        if (count > 0) moved += 1;
        lines += count;
      });
      documents += moved;
      inCategory += moved;
      // The index is eventually consistent: a page of documents already moved is the index catching up.
      idlePages = moved === 0 ? idlePages + 1 : 0;
      if (idlePages > MAX_IDLE_PAGES)
        throw new Error(`the history index still lists ${partitions.length} documents of ${category} that were moved`);
      if (moved === 0) await new Promise((resolve) => setTimeout(resolve, 200));
    }
    finished.add(category);
    await saveFinished(workspaceId, finished);
    progress.onCategory?.(category, inCategory);
  }
  return { categories: finished.size, documents, lines, done: true };
}
