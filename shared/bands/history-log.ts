// The history log: the quote and order lines of each drained chunk, per category, written once in compact form and read back whole by the bands job and the backtest.
import type { HistoryLine } from '#shared/pricing/model.ts';
import type { TableItem } from '#platform/table/bulk.ts';
import type { DocumentKind } from '#platform/table/key-parts.ts';
import { keys } from '#platform/table/keys.ts';

/**
 * A line as the log gives it back: what the bands read, and what the backtest reads besides (the category, the
 * decision date, the currency and rate).
 */
export interface CategoryLine extends HistoryLine {
  readonly category: string;
  readonly decidedAtMs?: number;
  readonly currency?: string;
  readonly exchangeRate?: number;
}

/** One document's lines in one category, as a version of it was drained. */
export interface LoggedDocument {
  readonly kind: DocumentKind;
  readonly documentId: string;
  /** Counts the versions of the document the drain has written: the highest version in a category is the one that counts. */
  readonly version: number;
  /** Epoch seconds after which the lines no longer count (the retention period). */
  readonly expiresAt: number;
  readonly customerExternalId: string | undefined;
  /** The customer's segment when the line was drained; '' for none. */
  readonly segment: string;
  readonly atMs: number;
  readonly outcome?: 'open' | 'won' | 'lost';
  readonly sourceQuoteExternalId?: string;
  readonly decidedAtMs?: number;
  readonly currency?: string;
  readonly exchangeRate?: number;
  readonly lines: ReadonlyArray<{
    readonly productSku: string;
    readonly quantity: number;
    readonly costCents: number;
    readonly priceCents: number;
  }>;
}

/**
 * A version of a document that has no lines in the category any more (a correction moved or removed them): it hides
 * every lower version there. It lives as long as the lines it hides.
 */
export interface LoggedRemoval {
  readonly kind: DocumentKind;
  readonly documentId: string;
  readonly version: number;
  readonly expiresAt: number;
  readonly lines?: undefined;
}

export type LogEntry = LoggedDocument | LoggedRemoval;

function isRemoval(entry: LogEntry): entry is LoggedRemoval {
  return entry.lines === undefined;
}

/** Tuples rather than objects: the log is a tenth of the size of line items with their attribute names. */
type EncodedLine = [sku: string, quantity: number, costCents: number, priceCents: number];
type EncodedDocument = [
  kind: 'q' | 'o',
  documentId: string,
  version: number,
  expiresAt: number,
  customer: string | null,
  segment: string,
  atMs: number,
  outcome: string | null,
  sourceQuote: string | null,
  decidedAtMs: number | null,
  currency: string | null,
  exchangeRate: number | null,
  lines: EncodedLine[],
];
type EncodedRemoval = [kind: 'q' | 'o', documentId: string, version: number, expiresAt: number];
type EncodedEntry = EncodedDocument | EncodedRemoval;

function encodeEntry(entry: LogEntry): EncodedEntry {
  const kind = entry.kind === 'quote' ? 'q' : 'o';
  if (isRemoval(entry)) return [kind, entry.documentId, entry.version, entry.expiresAt];
  return [
    kind,
    entry.documentId,
    entry.version,
    entry.expiresAt,
    entry.customerExternalId ?? null,
    entry.segment,
    entry.atMs,
    entry.outcome ?? null,
    entry.sourceQuoteExternalId ?? null,
    entry.decidedAtMs ?? null,
    entry.currency ?? null,
    entry.exchangeRate ?? null,
    entry.lines.map((line) => [line.productSku, line.quantity, line.costCents, line.priceCents]),
  ];
}

function decodeEntry(encoded: EncodedEntry): LogEntry {
  const kind: DocumentKind = encoded[0] === 'q' ? 'quote' : 'order';
  const [, documentId, version, expiresAt] = encoded;
  if (encoded.length === 4) return { kind, documentId, version, expiresAt };
  const [, , , , customer, segment, atMs, outcome, source, decidedAtMs, currency, exchangeRate, lines] = encoded;
  return {
    kind,
    documentId,
    version,
    expiresAt,
    customerExternalId: customer ?? undefined,
    segment,
    atMs,
    ...(outcome === null ? {} : { outcome: outcome as 'open' | 'won' | 'lost' }),
    ...(source === null ? {} : { sourceQuoteExternalId: source }),
    ...(decidedAtMs === null ? {} : { decidedAtMs }),
    ...(currency === null ? {} : { currency }),
    ...(exchangeRate === null ? {} : { exchangeRate }),
    lines: lines.map(([productSku, quantity, costCents, priceCents]) => ({ productSku, quantity, costCents, priceCents })),
  };
}

/** Below DynamoDB's 400 KB item limit with room for the keys and the other attributes. */
export const LOG_ITEM_MAX_BYTES = 350_000;

/**
 * A chunk's log items for one category: its entries in order, cut into parts below the item limit. The same entries
 * under the same chunk key give the same items, so a redelivered chunk overwrites what an earlier attempt wrote.
 */
export function historyLogItems(workspaceId: string, category: string, chunkKey: string, entries: readonly LogEntry[]): TableItem[] {
  const parts: EncodedEntry[][] = [];
  let part: EncodedEntry[] = [];
  let bytes = 0;
  for (const entry of entries) {
    const encoded = encodeEntry(entry);
    const size = Buffer.byteLength(JSON.stringify(encoded)) + 1;
    if (part.length > 0 && bytes + size > LOG_ITEM_MAX_BYTES) {
      parts.push(part);
      part = [];
      bytes = 0;
    }
    part.push(encoded);
    bytes += size;
  }
  if (part.length > 0) parts.push(part);
  return parts.map((encoded, index) => ({
    ...keys.historyLog(workspaceId, category, keys.historyLogEntry(chunkKey, index)),
    type: 'historyLog',
    category,
    entries: JSON.stringify(encoded),
    // The item goes once every entry in it has expired: a removal outlives the lines it hides, so nothing reappears.
    expiresAt: Math.max(...encoded.map((entry) => entry[3])),
  }));
}

/** The entries of a log item read back. */
export function logEntriesOf(item: TableItem): LogEntry[] {
  return (JSON.parse(String(item.entries)) as EncodedEntry[]).map(decodeEntry);
}

/**
 * The lines that count in a category, from its log entries and any lines still in the older layout (version 0): of
 * each document, only its highest version, and none if that version is a removal; expired entries are dropped, as
 * DynamoDB's TTL would have dropped them some time later. Lines come out in a fixed order (kind, document, line),
 * whatever order the shards were read in.
 */
export function currentLines(category: string, entries: Iterable<LogEntry>, nowMs: number): CategoryLine[] {
  const nowSeconds = Math.floor(nowMs / 1000);
  const newest = new Map<string, LogEntry>();
  for (const entry of entries) {
    const key = `${entry.kind}#${entry.documentId}`;
    const seen = newest.get(key);
    // Two entries of one version are the same document drained twice within a batch: the later holds the same lines.
    if (!seen || entry.version >= seen.version) newest.set(key, entry);
  }
  const documents = [...newest.entries()]
    .filter((pair): pair is [string, LoggedDocument] => !isRemoval(pair[1]) && pair[1].expiresAt > nowSeconds)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return documents.flatMap(([, document]) =>
    document.lines.map((line) => ({
      kind: document.kind,
      documentId: document.documentId,
      productSku: line.productSku,
      customerExternalId: document.customerExternalId,
      segment: document.segment,
      quantity: line.quantity,
      costCents: line.costCents,
      priceCents: line.priceCents,
      atMs: document.atMs,
      ...(document.kind === 'quote' && document.outcome ? { outcome: document.outcome } : {}),
      ...(document.sourceQuoteExternalId === undefined ? {} : { sourceQuoteExternalId: document.sourceQuoteExternalId }),
      category,
      ...(document.decidedAtMs === undefined ? {} : { decidedAtMs: document.decidedAtMs }),
      ...(document.currency === undefined ? {} : { currency: document.currency }),
      ...(document.exchangeRate === undefined ? {} : { exchangeRate: document.exchangeRate }),
    })),
  );
}
