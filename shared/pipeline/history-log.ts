// The history log a drained chunk feeds: each document version's lines per category, and removals for categories it left.
import type { LogEntry, LoggedDocument } from '#shared/bands/history-log.ts';
import {
  type DocumentFeeds,
  documentDate,
  type DocumentRecord,
  historyExpiresAt,
  type LineContext,
  linePriceCents,
  type Provenance,
} from '#shared/canonical/items.ts';

/** What a version of a document replaced, as its history log entries need it. */
export interface Replaced {
  readonly feeds: DocumentFeeds;
  /** When the replaced version's lines expire: a removal entry hiding them lives as long. */
  readonly expiresAt: number | undefined;
}

/**
 * A version of a document in the history log, per category its lines are in: one entry with those lines. A category
 * the version it replaced had lines in, and this one has none, gets a removal entry, so that the older lines stop
 * counting there. Lines of products not yet known have no category and stay out of the log until re-synced.
 */
export function documentLogEntries(
  document: DocumentRecord,
  context: LineContext,
  from: Provenance,
  version: number,
  replaced?: Replaced,
): Map<string, LogEntry> {
  const { kind, record } = document;
  const customer = record.customerExternalId ?? undefined;
  const segment = (customer === undefined ? undefined : context.segmentOf(customer)) ?? '';
  const expiresAt = historyExpiresAt(document, from);
  const byCategory = new Map<string, LoggedDocument['lines'][number][]>();
  for (const [index, line] of record.lines.entries()) {
    const category = context.categoryOf(line.productSku);
    if (category === undefined) continue;
    let lines = byCategory.get(category);
    if (!lines) {
      lines = [];
      byCategory.set(category, lines);
    }
    lines.push({
      productSku: line.productSku,
      quantity: line.quantity,
      costCents: line.costCents,
      priceCents: linePriceCents(document, index),
    });
  }
  const entries = new Map<string, LogEntry>();
  const header = {
    kind,
    documentId: record.externalId,
    version,
    expiresAt,
    customerExternalId: customer,
    segment,
    atMs: Date.parse(documentDate(document)),
    ...(document.kind === 'quote'
      ? {
          outcome: document.record.outcome,
          ...(document.record.decidedAt ? { decidedAtMs: Date.parse(document.record.decidedAt) } : {}),
        }
      : document.record.sourceQuoteExternalId
        ? { sourceQuoteExternalId: document.record.sourceQuoteExternalId }
        : {}),
    ...(record.currency ? { currency: record.currency } : {}),
    ...(record.exchangeRate === undefined || record.exchangeRate === null ? {} : { exchangeRate: record.exchangeRate }),
  };
  for (const [category, lines] of byCategory) entries.set(category, { ...header, lines });
  for (const [, , category] of replaced?.feeds.lines ?? []) {
    if (category === null || entries.has(category)) continue;
    entries.set(category, { kind, documentId: record.externalId, version, expiresAt: Math.max(replaced?.expiresAt ?? 0, expiresAt) });
  }
  return entries;
}
