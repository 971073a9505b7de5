// Preparing a quote or order chunk: each document's new version, the history log it feeds, its adherence work and its orders' margin changes.
import type { TableItem } from '#platform/table/bulk.ts';
import type { DocumentKind, PrimaryKey } from '#platform/table/key-parts.ts';
import { keys } from '#platform/table/keys.ts';
import { historyLogItems, type LogEntry } from '#shared/bands/history-log.ts';
import {
  type DocumentFeeds,
  type DocumentRecord,
  documentItem,
  feedsOf,
  fxObservation,
  type LineContext,
  newestRates,
  type Provenance,
  TouchedSet,
} from '#shared/canonical/items.ts';
import { readStoredDocuments, type StoredDocument } from '#shared/canonical/repository.ts';
import type { OrderRecord, QuoteRecord } from '#shared/records/schema.ts';
import { type AdherenceWork, adherenceDocuments, prepareOrderAdherence, prepareQuoteAdherence } from './adherence-fold.ts';
import { documentLogEntries } from './history-log.ts';
import { type FoldedChunk, foldedChunks, orderMarginChange, replacedContribution, sumMargins } from './margin-fold.ts';
import type { MarginContribution } from '#shared/recommendations/margins.ts';
import { adherenceBandPct, type DrainMemory, fillCategories, fillSegments, lastByKey } from './memory.ts';
import type { PreparedChunk } from './prepared-chunk.ts';

const customersOf = (records: ReadonlyArray<QuoteRecord | OrderRecord>) =>
  records.flatMap((record) => (record.customerExternalId ? [record.customerExternalId] : []));
const skusOf = (records: ReadonlyArray<QuoteRecord | OrderRecord>) =>
  records.flatMap((record) => record.lines.map((line) => line.productSku));

/** The stored versions of a chunk's documents, and the categories and segments their lines, old and new, are keyed by. */
async function readDocumentContext(
  latest: readonly DocumentRecord[],
  kind: DocumentKind,
  from: Provenance,
  memory: DrainMemory,
): Promise<{ stored: Map<string, StoredDocument>; context: LineContext }> {
  const records = latest.map((document) => document.record);
  const [stored] = await Promise.all([
    readStoredDocuments(
      from.workspaceId,
      kind,
      records.map((record) => record.externalId),
    ),
    fillCategories(from, skusOf(records), memory),
    fillSegments(from, customersOf(records), memory),
  ]);
  // A stored version written before line 0 kept its feeds is read from its text, with today's categories and segments.
  const textOnly = [...stored.values()].flatMap((document) =>
    document.feeds ? [] : [JSON.parse(document.document) as QuoteRecord | OrderRecord],
  );
  await Promise.all([fillCategories(from, skusOf(textOnly), memory), fillSegments(from, customersOf(textOnly), memory)]);
  const context = {
    categoryOf: (sku: string) => memory.categories.get(sku) ?? undefined,
    segmentOf: (customer: string) => memory.segments.get(customer) ?? undefined,
  };
  return { stored, context };
}

/**
 * The version a document is written as, and the feeds of the one it replaced. A corrected document takes its old lines
 * out of the nodes they fed, so those are touched too. The same text stored by the same batch is this version, written
 * by an earlier attempt at this drain: what it replaced is kept on it, and so is its version. The same text from an
 * earlier batch is a resend, whose lines may now be keyed under other categories.
 */
function versionOf(
  document: DocumentRecord,
  previous: StoredDocument | undefined,
  context: LineContext,
  from: Provenance,
): { version: number; replaced: DocumentFeeds | undefined } {
  if (!previous) return { version: 1, replaced: undefined };
  const rerun = previous.batchId === from.batchId && previous.document === JSON.stringify(document.record);
  if (rerun) return { version: Math.max(previous.version, 1), replaced: previous.replacedFeeds };
  return {
    version: previous.version + 1,
    replaced: previous.feeds ?? feedsOf(JSON.parse(previous.document) as QuoteRecord | OrderRecord, context),
  };
}

/** Each document's item and its log entries by category, and the stale line items of the older layout to remove. */
function writeDocuments(
  latest: readonly DocumentRecord[],
  kind: DocumentKind,
  read: { stored: Map<string, StoredDocument>; context: LineContext },
  from: Provenance,
  chunk: { readonly key: string; readonly folded: FoldedChunk },
  touched: TouchedSet,
) {
  const { stored, context } = read;
  const deletes: PrimaryKey[] = [];
  const puts: TableItem[] = [];
  const logEntries = new Map<string, LogEntry[]>();
  const marginChanges: MarginContribution[] = [];
  for (const document of latest) {
    const { externalId } = document.record;
    const previous = stored.get(externalId);
    // A document stored in the older layout has a line item per line: those past line 0 go (line 0 is overwritten).
    for (let index = 1; index < (previous?.lineItems ?? 0); index++) {
      deletes.push(keys.documentLine(from.workspaceId, kind, externalId, index));
    }
    const { version, replaced } = versionOf(document, previous, context, from);
    if (replaced) touched.addFeeds(replaced);
    touched.addFeeds(feedsOf(document.record, context));
    let replacedMargin: string | undefined;
    if (document.kind === 'order') {
      const before = replacedContribution(previous, chunk.folded);
      marginChanges.push(orderMarginChange(document.record, before));
      if (Object.keys(before).length > 0) replacedMargin = JSON.stringify(before);
    }
    puts.push(documentItem(document, context, from, version, replaced, { chunk: chunk.key, replacedMargin }));
    const entries = documentLogEntries(document, context, from, version, replaced && { feeds: replaced, expiresAt: previous?.expiresAt });
    for (const [category, entry] of entries) {
      const list = logEntries.get(category);
      if (list) list.push(entry);
      else logEntries.set(category, [entry]);
    }
  }
  const margins = kind === 'order' ? { workspaceId: from.workspaceId, delta: sumMargins(marginChanges) } : undefined;
  return { puts, deletes, logEntries, margins };
}

async function adherenceWork(
  kind: DocumentKind,
  latest: readonly DocumentRecord[],
  from: Provenance,
  context: LineContext,
  memory: DrainMemory,
): Promise<AdherenceWork> {
  if (kind === 'quote') {
    const quotes = latest.map((document) => document.record as QuoteRecord);
    return prepareQuoteAdherence(quotes, from, { ...context, bandPct: await adherenceBandPct(from, memory) });
  }
  return prepareOrderAdherence(
    latest.map((document) => document.record as OrderRecord),
    from,
  );
}

/** The quotes whose attribution the chunk rewrites: its own quotes, or those its orders name. */
function attributedQuotes(latest: readonly DocumentRecord[]): string[] {
  return latest.flatMap((document) =>
    document.kind === 'quote'
      ? [document.record.externalId]
      : document.record.sourceQuoteExternalId
        ? [document.record.sourceQuoteExternalId]
        : [],
  );
}

/** A chunk of quotes or of orders; the chunk marker names it among every batch's, and its history log items are keyed by it. */
export async function prepareDocuments(
  documents: readonly DocumentRecord[],
  from: Provenance,
  memory: DrainMemory,
  chunkMarker: string,
): Promise<PreparedChunk> {
  const latest = lastByKey(documents, (document) => document.record.externalId);
  const touched = new TouchedSet();
  const kind: DocumentKind | undefined = latest[0]?.kind;
  if (!kind) return { puts: [], deletes: [], rates: [], touched, documents: new Set() };
  const read = await readDocumentContext(latest, kind, from, memory);
  const folded =
    kind === 'order'
      ? await foldedChunks(
          from,
          [...read.stored.values()].map((document) => document.chunk),
          memory,
        )
      : () => true;
  const { puts, deletes, logEntries, margins } = writeDocuments(latest, kind, read, from, { key: chunkMarker, folded }, touched);
  for (const [category, entries] of logEntries) puts.push(...historyLogItems(from.workspaceId, category, chunkMarker, entries));
  const adherence = await adherenceWork(kind, latest, from, read.context, memory);
  const externalIds = latest.map((document) => document.record.externalId);
  return {
    puts,
    deletes,
    rates: newestRates(latest.flatMap((document) => fxObservation(document) ?? [])),
    touched,
    documents: new Set([...externalIds.map((id) => `${kind}#${id}`), ...adherenceDocuments(attributedQuotes(latest))]),
    adherence,
    ...(margins ? { margins } : {}),
  };
}
