// Unit tests of the history log: its compact items, and which lines count once versions, removals and expiry are applied.
import { describe, expect, it } from 'vitest';
import { keys } from '#platform/table/keys.ts';
import { currentLines, historyLogItems, LOG_ITEM_MAX_BYTES, type LogEntry, type LoggedDocument, logEntriesOf } from './history-log.ts';

const NOW_MS = Date.parse('2026-06-01T00:00:00Z');
const LATER = Math.floor(NOW_MS / 1000) + 86_400;

function quote(documentId: string, version: number, skus: readonly string[], fields: Partial<LoggedDocument> = {}): LoggedDocument {
  return {
    kind: 'quote',
    documentId,
    version,
    expiresAt: LATER,
    customerExternalId: 'C-1',
    segment: 'smb',
    atMs: NOW_MS - 86_400_000,
    outcome: 'won',
    lines: skus.map((productSku, index) => ({ productSku, quantity: index + 1, costCents: 100, priceCents: 150 + index })),
    ...fields,
  };
}

describe('history log items', () => {
  it('round-trips every field of a document entry and of a removal', () => {
    const entries: LogEntry[] = [
      quote('Q-1', 2, ['SKU-1', 'SKU-2'], { decidedAtMs: NOW_MS, currency: 'EUR', exchangeRate: 1.08 }),
      { ...quote('O-1', 1, ['SKU-1']), kind: 'order', outcome: undefined, sourceQuoteExternalId: 'Q-1', customerExternalId: undefined },
      { kind: 'quote', documentId: 'Q-2', version: 3, expiresAt: LATER },
    ];
    const items = historyLogItems('ws-1', 'Fasteners', 'batch-1#CHUNK#1', entries);
    expect(items).toHaveLength(1);
    const [decoded] = [logEntriesOf(items[0] ?? {})];
    expect(decoded?.[0]).toEqual(entries[0]);
    expect(decoded?.[1]).toEqual({
      kind: 'order',
      documentId: 'O-1',
      version: 1,
      expiresAt: LATER,
      customerExternalId: undefined,
      segment: 'smb',
      atMs: NOW_MS - 86_400_000,
      sourceQuoteExternalId: 'Q-1',
      lines: [{ productSku: 'SKU-1', quantity: 1, costCents: 100, priceCents: 150 }],
    });
    expect(decoded?.[2]).toEqual(entries[2]);
  });

  it('keys a chunk’s items by the chunk, so that a redelivered chunk rewrites the same items', () => {
    const once = historyLogItems('ws-1', 'Fasteners', 'batch-1#CHUNK#1', [quote('Q-1', 1, ['SKU-1'])]);
    const again = historyLogItems('ws-1', 'Fasteners', 'batch-1#CHUNK#1', [quote('Q-1', 1, ['SKU-1'])]);
    expect(again).toEqual(once);
    expect(once[0]).toMatchObject(keys.historyLog('ws-1', 'Fasteners', keys.historyLogEntry('batch-1#CHUNK#1', 0)));
  });

  it('cuts a chunk’s entries into items below the item size limit, in order', () => {
    const skus = Array.from({ length: 1000 }, (_, index) => `SKU-${'x'.repeat(80)}-${index}`);
    const entries = Array.from({ length: 12 }, (_, index) => quote(`Q-${index}`, 1, skus));
    const items = historyLogItems('ws-1', 'Fasteners', 'batch-1#CHUNK#1', entries);
    expect(items.length).toBeGreaterThan(1);
    for (const item of items) expect(Buffer.byteLength(String(item.entries))).toBeLessThanOrEqual(LOG_ITEM_MAX_BYTES);
    expect(items.flatMap(logEntriesOf).map((entry) => entry.documentId)).toEqual(entries.map((entry) => entry.documentId));
  });

  it('spreads one category’s chunks over several partitions', () => {
    const partitions = new Set(
      Array.from(
        { length: 64 },
        (_, index) => historyLogItems('ws-1', 'Fasteners', `batch-1#CHUNK#${index}`, [quote('Q', 1, ['S'])])[0]?.PK,
      ),
    );
    expect(partitions.size).toBeGreaterThan(8);
  });

  it('lets the item go only when its last entry has expired', () => {
    const [item] = historyLogItems('ws-1', 'Fasteners', 'k', [
      quote('Q-1', 1, ['S'], { expiresAt: 100 }),
      quote('Q-2', 1, ['S'], { expiresAt: 300 }),
    ]);
    expect(item?.expiresAt).toBe(300);
  });
});

describe('the lines that count in a category', () => {
  it('counts only the highest version of a document', () => {
    const lines = currentLines('Fasteners', [quote('Q-1', 2, ['NEW']), quote('Q-1', 1, ['OLD-1', 'OLD-2'])], NOW_MS);
    expect(lines.map((line) => line.productSku)).toEqual(['NEW']);
  });

  it('counts no line of a document whose highest version is a removal', () => {
    const removal: LogEntry = { kind: 'quote', documentId: 'Q-1', version: 2, expiresAt: LATER };
    expect(currentLines('Fasteners', [quote('Q-1', 1, ['OLD']), removal], NOW_MS)).toEqual([]);
  });

  it('hides lines of the older layout (version 0) behind any logged version', () => {
    const lines = currentLines('Fasteners', [quote('Q-1', 0, ['LEGACY']), quote('Q-1', 1, ['LOGGED']), quote('Q-2', 0, ['KEPT'])], NOW_MS);
    expect(lines.map((line) => line.productSku)).toEqual(['LOGGED', 'KEPT']);
  });

  it('counts a version drained twice within a batch once', () => {
    expect(currentLines('Fasteners', [quote('Q-1', 1, ['A']), quote('Q-1', 1, ['A'])], NOW_MS)).toHaveLength(1);
  });

  it('drops the lines of an expired document', () => {
    const expired = quote('Q-1', 1, ['A'], { expiresAt: Math.floor(NOW_MS / 1000) - 1 });
    expect(currentLines('Fasteners', [expired, quote('Q-2', 1, ['B'])], NOW_MS).map((line) => line.documentId)).toEqual(['Q-2']);
  });

  it('gives the same lines in the same order whatever order the entries were read in', () => {
    const entries = [quote('Q-2', 1, ['B']), quote('Q-1', 1, ['A', 'C']), { ...quote('O-1', 1, ['D']), kind: 'order' as const }];
    const forward = currentLines('Fasteners', entries, NOW_MS);
    expect(currentLines('Fasteners', [...entries].reverse(), NOW_MS)).toEqual(forward);
    expect(forward.map((line) => `${line.documentId}:${line.productSku}`)).toEqual(['O-1:D', 'Q-1:A', 'Q-1:C', 'Q-2:B']);
  });

  it('gives each line its document’s fields and the category', () => {
    const [line] = currentLines('Fasteners', [quote('Q-1', 1, ['A'], { decidedAtMs: 5, currency: 'EUR', exchangeRate: 1.1 })], NOW_MS);
    expect(line).toEqual({
      kind: 'quote',
      documentId: 'Q-1',
      productSku: 'A',
      customerExternalId: 'C-1',
      segment: 'smb',
      quantity: 1,
      costCents: 100,
      priceCents: 150,
      atMs: NOW_MS - 86_400_000,
      outcome: 'won',
      category: 'Fasteners',
      decidedAtMs: 5,
      currency: 'EUR',
      exchangeRate: 1.1,
    });
  });
});
