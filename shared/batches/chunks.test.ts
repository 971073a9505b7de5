// Unit tests of staged records at rest: the brotli JSON round trip and packing a call's records into pieces that fit an item.
import { describe, expect, it } from 'vitest';
import { sampleCatalogue } from '#lib/local/sample-catalogue.ts';
import { entityKinds } from '#shared/records/schema.ts';
import { compressRecords, decompressRecords, MAX_CALL_CHUNK_BYTES, MAX_CHUNK_BYTES, MAX_PIECE_ITEMS, packChunk } from './chunks.ts';

const size = { products: 1_000, customers: 1_000, quotes: 1_000, orders: 1_000 };

/** Bytes that do not compress, repeatable by seed (xorshift32). */
function noise(length: number, seed: number): Buffer {
  let state = seed >>> 0 || 1;
  const bytes = Buffer.alloc(length);
  for (let i = 0; i < length; i++) {
    state ^= state << 13;
    state >>>= 0;
    state ^= state >>> 17;
    state ^= state << 5;
    state >>>= 0;
    bytes[i] = state & 0xff;
  }
  return bytes;
}

/** Records holding random base64 text: brotli cannot shrink them below three quarters of their JSON. */
function incompressibleRecords(count: number, bytesEach: number): { id: number; blob: string }[] {
  return Array.from({ length: count }, (_, id) => ({ id, blob: noise(bytesEach, id + 1).toString('base64') }));
}

describe('the sample catalogue', () => {
  it('makes the same catalogue from the same seed and a different one from another seed', () => {
    const small = { products: 20, customers: 5, quotes: 25, orders: 50 };
    expect(sampleCatalogue(small, { seed: 7 })).toEqual(sampleCatalogue(small, { seed: 7 }));
    expect(sampleCatalogue(small, { seed: 7 })).not.toEqual(sampleCatalogue(small, { seed: 8 }));
  });
});

describe('compressing records', () => {
  const catalogue = sampleCatalogue(size, { seed: 11 });

  it.each(entityKinds)('gives back 1,000 %s records exactly as they went in', (kind) => {
    const records = catalogue[kind];
    expect(records).toHaveLength(1_000);
    expect(decompressRecords(compressRecords(records))).toEqual(records);
  });

  it.each(entityKinds)('stores 1,000 %s records in well under a third of their JSON size', (kind) => {
    const records = catalogue[kind];
    const jsonBytes = Buffer.byteLength(JSON.stringify(records), 'utf8');
    expect(compressRecords(records).byteLength / jsonBytes).toBeLessThan(0.3);
  });

  it('keeps text outside ASCII and an empty list intact', () => {
    const records = [{ name: 'Schraube M6 – Edelstahl', note: '螺丝 🔩', attributes: { '': null, nested: { a: [1, 2.5, true] } } }];
    expect(decompressRecords(compressRecords(records))).toEqual(records);
    expect(decompressRecords(compressRecords([]))).toEqual([]);
  });

  it('reads records back from a plain Uint8Array as well as a Buffer', () => {
    const data = compressRecords([{ sku: 'A' }]);
    expect(decompressRecords(new Uint8Array(data))).toEqual([{ sku: 'A' }]);
  });
});

describe('packing a chunk', () => {
  it('keeps a piece under 300 KB and a call under 3.5 MB', () => {
    expect(MAX_CHUNK_BYTES).toBe(300 * 1024);
    expect(MAX_CALL_CHUNK_BYTES).toBe(3.5 * 1024 * 1024);
  });

  it('packs an ordinary call into one piece with its count and JSON size', () => {
    const records = sampleCatalogue(size, { seed: 3 }).order;
    const pieces = packChunk(records);
    expect(pieces).toHaveLength(1);
    const [piece] = pieces ?? [];
    expect(piece?.count).toBe(1_000);
    expect(piece?.jsonBytes).toBe(Buffer.byteLength(JSON.stringify(records), 'utf8'));
    expect(piece?.data.byteLength).toBeLessThanOrEqual(MAX_CHUNK_BYTES);
    expect(decompressRecords(piece?.data ?? Buffer.alloc(0))).toEqual(records);
  });

  it('packs no records into one empty piece', () => {
    const pieces = packChunk([]);
    expect(pieces?.map((piece) => ({ count: piece.count, jsonBytes: piece.jsonBytes }))).toEqual([{ count: 0, jsonBytes: 2 }]);
  });

  it('splits incompressible records into several pieces that each fit, in record order', () => {
    const records = incompressibleRecords(60, 10_000);
    const jsonBytes = Buffer.byteLength(JSON.stringify(records), 'utf8');
    expect(jsonBytes).toBeGreaterThan(700 * 1024);
    expect(compressRecords(records).byteLength).toBeGreaterThan(MAX_CHUNK_BYTES);

    const pieces = packChunk(records) ?? [];
    expect(pieces.length).toBeGreaterThan(1);
    for (const piece of pieces) {
      expect(piece.data.byteLength).toBeLessThanOrEqual(MAX_CHUNK_BYTES);
      expect(piece.count).toBeGreaterThan(0);
    }
    expect(pieces.reduce((sum, piece) => sum + piece.count, 0)).toBe(records.length);

    const decompressed = pieces.map((piece) => decompressRecords(piece.data));
    decompressed.forEach((part, index) => {
      expect(part).toHaveLength(pieces[index]?.count ?? -1);
      expect(pieces[index]?.jsonBytes).toBe(Buffer.byteLength(JSON.stringify(part), 'utf8'));
    });
    expect(decompressed.flat()).toEqual(records);
  });

  it('gives up when a single record cannot fit an item', () => {
    expect(packChunk(incompressibleRecords(1, 400 * 1024))).toBeUndefined();
  });

  it('gives up on the whole call when one of its records cannot fit, wherever it stands', () => {
    const small = incompressibleRecords(4, 1_000);
    const huge = { id: 99, blob: noise(400 * 1024, 99).toString('base64') };
    expect(packChunk([...small, huge])).toBeUndefined();
    expect(packChunk([huge, ...small])).toBeUndefined();
  });

  describe('by the items its records write', () => {
    const linesOf = (record: unknown) => (record as { lines?: unknown[] }).lines?.length ?? 0;
    const order = (lines: number, id: number) => ({
      externalId: `O-${id}`,
      lines: Array.from({ length: lines }, (_, index) => ({ productSku: 'A', quantity: index + 1, costCents: 1, soldPriceCents: 2 })),
    });

    it(`cuts a call before the document that would take a piece past ${MAX_PIECE_ITEMS} items, and never splits a document`, () => {
      const orders = [order(1_000, 1), order(1_000, 2), order(1_000, 3), order(1, 4), order(999, 5), order(2, 6)];
      const pieces = packChunk(orders, linesOf) ?? [];
      expect(pieces.map((piece) => piece.count)).toEqual([3, 3]);
      expect(pieces.flatMap((piece) => decompressRecords(piece.data))).toEqual(orders);
    });

    it('counts a record without lines as one item', () => {
      const products = Array.from({ length: MAX_PIECE_ITEMS + 1 }, (_, index) => ({ sku: `P-${index}` }));
      expect(packChunk(products, linesOf)?.map((piece) => piece.count)).toEqual([MAX_PIECE_ITEMS, 1]);
    });

    it('packs the heaviest legal call, 10 MB of order lines, into pieces one transaction can write', () => {
      const orders = [];
      let bytes = 0;
      for (let id = 0; bytes < 10 * 1024 * 1024 - 100_000; id++) {
        const next = order(1_000, id);
        bytes += Buffer.byteLength(JSON.stringify(next), 'utf8') + 1;
        orders.push(next);
      }
      const pieces = packChunk(orders, linesOf) ?? [];
      expect(pieces.length).toBeLessThanOrEqual(99);
      expect(pieces.reduce((sum, piece) => sum + piece.data.byteLength, 0)).toBeLessThanOrEqual(MAX_CALL_CHUNK_BYTES);
      for (const piece of pieces) {
        expect(piece.data.byteLength).toBeLessThanOrEqual(MAX_CHUNK_BYTES);
        expect(piece.count * 1_000).toBeLessThanOrEqual(MAX_PIECE_ITEMS);
      }
    });
  });
});
