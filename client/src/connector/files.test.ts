// Reading export files: the CSV reader, the column mapping, documents grouped from their line rows, and params mapped back to lines.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import {
  decodeText,
  encodingOf,
  firstInvalidUtf8,
  jsonLines,
  kindOfFileName,
  LineSplitter,
  locate,
  parseCsv,
  readExportFile,
  readLimits,
  RecordError,
  recordsOfCsv,
  type SourcedRecord,
} from './files.ts';

async function* chunksOf(...chunks: string[]) {
  yield* chunks;
}

async function all<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

describe('the CSV reader', () => {
  it('reads quoted fields with embedded commas, escaped quotes and newlines, and numbers each row by its first line', async () => {
    const rows = await all(parseCsv(chunksOf('a,b,c\r\n1,"x, y","say ""hi"""\n2,"two\nlines",\n3,,last\n')));
    expect(rows).toEqual([
      { line: 1, fields: ['a', 'b', 'c'] },
      { line: 2, fields: ['1', 'x, y', 'say "hi"'] },
      { line: 3, fields: ['2', 'two\nlines', ''] },
      { line: 5, fields: ['3', '', 'last'] },
    ]);
  });

  it('reads the same rows however the text is cut into chunks', async () => {
    const text = 'a,b\r\n"q""uote","multi\r\nline"\r\n,\r\nlast,row';
    const whole = await all(parseCsv(chunksOf(text)));
    const byChar = await all(parseCsv(chunksOf(...text.split(''))));
    expect(byChar).toEqual(whole);
    expect(whole.map((row) => row.line)).toEqual([1, 2, 4, 5]);
  });

  it('reads any text the same however it is cut into chunks, quotes, CRLF and non-ASCII included', async () => {
    const outcome = (chunks: string[]) =>
      all(parseCsv(chunksOf(...chunks), 'f.csv')).then(
        (rows) => ({ rows }),
        (error: unknown) => ({ error: (error as Error).message }),
      );
    await fc.assert(
      fc.asyncProperty(
        fc.string({ unit: fc.constantFrom('a', 'b', ',', '"', '\n', '\r', 'é', '🙂'), maxLength: 60 }),
        fc.array(fc.nat(60), { maxLength: 8 }),
        async (text, cuts) => {
          const at = [...new Set(cuts.filter((cut) => cut < text.length))].sort((a, b) => a - b);
          const pieces = [0, ...at].map((start, index) => text.slice(start, at[index] ?? text.length));
          expect(await outcome(pieces)).toEqual(await outcome([text]));
        },
      ),
      { seed: 20_261_127, numRuns: 500 },
    );
  });

  it('skips a byte order mark and blank lines, and refuses a quote never closed', async () => {
    expect(await all(parseCsv(chunksOf('\uFEFFa\n\n1\n')))).toEqual([
      { line: 1, fields: ['a'] },
      { line: 3, fields: ['1'] },
    ]);
    await expect(all(parseCsv(chunksOf('a\n"open\n'), 'f.csv'))).rejects.toThrow('f.csv:2: a quoted field is never closed');
  });
});

describe('the CSV column mapping', () => {
  it('parses numbers and booleans for their fields, leaves empty cells out, and gathers attributes columns', async () => {
    const csv =
      'sku,name,costCents,currentPriceCents,mapCents,isActive,stockOnHand,attributes.finish,attributes.size\nB-1,007,120,1e3,,TRUE,-4,zinc,\n';
    const [product] = await all(recordsOfCsv('product', chunksOf(csv), 'products.csv'));
    expect(product).toEqual({
      record: {
        sku: 'B-1',
        name: '007',
        costCents: 120,
        currentPriceCents: 1000,
        isActive: true,
        stockOnHand: -4,
        attributes: { finish: 'zinc' },
      },
      file: 'products.csv',
      line: 2,
    });
  });

  it('passes a cell that is not a number on as text, for the schema to refuse by field', async () => {
    const [product] = await all(recordsOfCsv('product', chunksOf('sku,costCents\nB-1,twelve\n'), 'p.csv'));
    expect(product?.record).toEqual({ sku: 'B-1', costCents: 'twelve' });
  });

  it('groups consecutive line rows of a document into one record with lines, remembering each line row', async () => {
    const csv =
      'externalId,customerExternalId,currency,soldAt,productSku,quantity,costCents,soldPriceCents,attributes.note\n' +
      'O-1,C-1,USD,2026-01-01T00:00:00Z,A,2,10,20,rush\n' +
      'O-1,C-1,USD,2026-01-01T00:00:00Z,B,1.5,5,9,\n' +
      'O-2,,EUR,2026-01-02T00:00:00Z,A,1,10,21,\n';
    const orders = await all(recordsOfCsv('order', chunksOf(csv), 'orders.csv'));
    expect(orders).toEqual([
      {
        record: {
          externalId: 'O-1',
          customerExternalId: 'C-1',
          currency: 'USD',
          soldAt: '2026-01-01T00:00:00Z',
          lines: [
            { productSku: 'A', quantity: 2, costCents: 10, soldPriceCents: 20, attributes: { note: 'rush' } },
            { productSku: 'B', quantity: 1.5, costCents: 5, soldPriceCents: 9 },
          ],
        },
        file: 'orders.csv',
        line: 2,
        lineRows: [2, 3],
      },
      {
        record: {
          externalId: 'O-2',
          currency: 'EUR',
          soldAt: '2026-01-02T00:00:00Z',
          lines: [{ productSku: 'A', quantity: 1, costCents: 10, soldPriceCents: 21 }],
        },
        file: 'orders.csv',
        line: 4,
        lineRows: [4],
      },
    ]);
  });

  it('sends a quote line with an empty pricingDecisionId as null, which the schema requires be sent', async () => {
    const csv =
      'externalId,customerExternalId,outcome,createdAt,productSku,quantity,costCents,quotedPriceCents,pricingDecisionId\nQ-1,C-1,won,2026-01-01T00:00:00Z,A,1,10,20,\n';
    const [quote] = await all(recordsOfCsv('quote', chunksOf(csv), 'quotes.csv'));
    expect(quote?.record.lines).toEqual([{ productSku: 'A', quantity: 1, costCents: 10, quotedPriceCents: 20, pricingDecisionId: null }]);
  });

  it('refuses a document whose rows are apart, or whose own columns differ between its rows, naming the line', async () => {
    const head = 'externalId,currency,soldAt,productSku,quantity,costCents,soldPriceCents\n';
    const apart = `${head}O-1,USD,2026-01-01T00:00:00Z,A,1,1,2\nO-2,USD,2026-01-01T00:00:00Z,A,1,1,2\nO-1,USD,2026-01-01T00:00:00Z,B,1,1,2\n`;
    await expect(all(recordsOfCsv('order', chunksOf(apart), 'o.csv'))).rejects.toMatchObject({
      file: 'o.csv',
      line: 4,
      field: 'externalId',
    });
    const differ = `${head}O-1,USD,2026-01-01T00:00:00Z,A,1,1,2\nO-1,EUR,2026-01-01T00:00:00Z,B,1,1,2\n`;
    await expect(all(recordsOfCsv('order', chunksOf(differ), 'o.csv'))).rejects.toThrow(RecordError);
    await expect(all(recordsOfCsv('order', chunksOf(differ), 'o.csv'))).rejects.toMatchObject({ line: 3, field: 'currency' });
  });
});

describe('JSON Lines files', () => {
  it('reads one record per non-blank line with its line number, and refuses a line that is not JSON', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'export-'));
    const path = join(dir, 'customers.jsonl');
    writeFileSync(path, '{"externalId":"C-1","name":"A"}\r\n\n{"externalId":"C-2","name":"B"}');
    const records = await all(readExportFile({ entity: 'customer', path, format: 'jsonl' }));
    expect(records.map((sourced) => [sourced.line, sourced.record.externalId])).toEqual([
      [1, 'C-1'],
      [3, 'C-2'],
    ]);
    writeFileSync(path, '{"externalId":"C-1","name":"A"}\n{"externalId":\n');
    await expect(all(readExportFile({ entity: 'customer', path, format: 'jsonl' }))).rejects.toMatchObject({ line: 2 });
  });

  it('tells a file kind from the plural its name starts with', () => {
    expect(['products.csv', 'dir/Orders-2026.jsonl', 'customers.csv', 'quotes.jsonl', 'prices.csv'].map(kindOfFileName)).toEqual([
      'product',
      'order',
      'customer',
      'quote',
      undefined,
    ]);
  });
});

describe('a param mapped back to the file', () => {
  const records: SourcedRecord[] = Array.from({ length: 20 }, (_, index) => ({
    record: {},
    file: 'orders.csv',
    line: 100 + index * 3,
    lineRows: [100 + index * 3, 101 + index * 3],
  }));

  it('points records[17].lines[0].costCents at the row of that line and its column', () => {
    expect(locate('records[17].lines[1].costCents', records)).toEqual({ file: 'orders.csv', line: 152, field: 'costCents' });
    expect(locate('records[17].lines[0].costCents', records)).toEqual({ file: 'orders.csv', line: 151, field: 'costCents' });
  });

  it('points a document field at the document first row, and a JSON Lines record at its line with the whole path', () => {
    expect(locate('records[2].soldAt', records)).toEqual({ file: 'orders.csv', line: 106, field: 'soldAt' });
    const jsonl: SourcedRecord[] = [{ record: {}, file: 'q.jsonl', line: 7 }];
    expect(locate('records[0].lines[0].costCents', jsonl)).toEqual({ file: 'q.jsonl', line: 7, field: 'lines[0].costCents' });
    expect(locate('records[0]', jsonl)).toEqual({ file: 'q.jsonl', line: 7, field: undefined });
  });

  it('finds no place for a param that names no record', () => {
    expect(locate('entity', records)).toBeUndefined();
    expect(locate(undefined, records)).toBeUndefined();
    expect(locate('records[99].sku', records)).toBeUndefined();
  });
});

const CHUNK = 64 * 1024;

/**
 * An export too large to hold: `head`, then `body(0)`, `body(1)`… for ever, in chunks of about 64 KB. It counts the
 * characters the reader pulls, and ends the test once the reader has pulled far more than any limit allows.
 */
function endlessExport(head: string, body: (index: number) => string, guard = 4 * 1024 * 1024) {
  const counter = { pulled: 0 };
  async function* chunks() {
    let index = 0;
    let text = head;
    for (;;) {
      while (text.length < CHUNK) text += body(index++);
      if (counter.pulled > guard) throw new Error(`the reader pulled ${counter.pulled} characters and read on`);
      counter.pulled += text.length;
      yield text;
      text = '';
    }
  }
  return Object.assign(counter, { chunks: chunks() });
}

describe('what the reader holds at once', () => {
  it('stops at a quote never closed once its cell passes 256 KB, naming the line the quote opened on, after pulling the limit and a chunk', async () => {
    const source = endlessExport('sku,name\nA-1,ok\nB-2,"never closed\n', () => 'x'.repeat(1024));
    const error = await all(recordsOfCsv('product', source.chunks, 'products.csv')).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(RecordError);
    expect(error).toMatchObject({ file: 'products.csv', line: 3 });
    expect((error as Error).message).toBe('products.csv:3: a cell is over 256 KB: is the quote opened on line 3 ever closed?');
    expect(readLimits.cellBytes).toBe(256 * 1024);
    expect(source.pulled).toBeLessThanOrEqual(readLimits.cellBytes + 2 * CHUNK);
  });

  it('stops at a row of many cells once it passes 1 MB, naming the row', async () => {
    const source = endlessExport('sku,name\nA-1,', () => 'y,'.repeat(512));
    await expect(all(recordsOfCsv('product', source.chunks, 'p.csv'))).rejects.toThrow('p.csv:2: a row is over 1 MB');
    expect(source.pulled).toBeLessThanOrEqual(readLimits.lineBytes + 2 * CHUNK);
  });

  it('counts a cell in UTF-8 bytes, as the service counts a record', async () => {
    const limits = { ...readLimits, cellBytes: 8 };
    expect(await all(parseCsv(chunksOf('ééé,ab\n'), 'f.csv', limits))).toEqual([{ line: 1, fields: ['ééé', 'ab'] }]);
    await expect(all(parseCsv(chunksOf('a\nb\néééé,x\nééééx\n'), 'f.csv', limits))).rejects.toThrow('f.csv:4: a cell is over 8 bytes');
  });

  it('stops at a JSON Lines line once it passes 1 MB, naming its line, after pulling the limit and a chunk', async () => {
    const source = endlessExport('{"sku":"A-1"}\n{"sku":"', () => 'x'.repeat(1024));
    const error = await all(jsonLines(source.chunks, 'products.jsonl')).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ file: 'products.jsonl', line: 2, message: 'products.jsonl:2: a line is over 1 MB' });
    expect(source.pulled).toBeLessThanOrEqual(readLimits.lineBytes + 2 * CHUNK);
  });

  it('stops at the 1,001st row of one order, naming it, without reading the rows after it', async () => {
    const row = 'O-1,USD,2026-01-01T00:00:00Z,A,1,1,2\n';
    const source = endlessExport('externalId,currency,soldAt,productSku,quantity,costCents,soldPriceCents\n', () => row);
    const error = await all(recordsOfCsv('order', source.chunks, 'orders.csv')).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ file: 'orders.csv', line: 1002 });
    expect((error as Error).message).toBe('orders.csv:1002: order O-1 (from line 2) has more than 1,000 lines');
    // The rows of a chunk come together: what was pulled is the document's 1,001 rows and at most the rest of a chunk.
    expect(source.pulled).toBeLessThanOrEqual(1002 * row.length + CHUNK);
  });

  it('stops at the row that takes a document past its bytes, counting its own columns once', async () => {
    const head = 'externalId,currency,soldAt,productSku,quantity,costCents,soldPriceCents\n';
    const row = (sku: string) => `O-1,USD,2026-01-01T00:00:00Z,${sku},1,1,2\n`;
    // Its own cells are 26 bytes and each line's 4: the fourth line takes it to 42.
    const limits = { ...readLimits, documentBytes: 40 };
    const text = head + ['A', 'B', 'C', 'D'].map(row).join('');
    await expect(all(recordsOfCsv('order', chunksOf(text), 'o.csv', limits))).rejects.toThrow(
      'o.csv:5: order O-1 (from line 2) is over 40 bytes of cells',
    );
    const three = await all(recordsOfCsv('order', chunksOf(head + ['A', 'B', 'C'].map(row).join('')), 'o.csv', limits));
    expect(three[0]?.record.lines).toHaveLength(3);
  });
});

describe('finding line ends', () => {
  it('searches each character once however the text is cut, a long line in small chunks included', () => {
    const line = 'x'.repeat(200_000);
    const splitter = new LineSplitter('f.jsonl', readLimits.lineBytes);
    const lines: string[] = [];
    for (let start = 0; start < line.length; start += 100) lines.push(...splitter.push(line.slice(start, start + 100)));
    lines.push(...splitter.push('\nshort\n'), splitter.end());
    expect(lines).toEqual([line, 'short', '']);
    expect(splitter.scanned).toBe(line.length + '\nshort\n'.length);
  });

  it('reads a JSON Lines line cut into many small chunks searching no more than its length for line ends', async () => {
    const text = `{"sku":"${'x'.repeat(200_000)}"}\n`;
    const pieces = Array.from({ length: Math.ceil(text.length / 100) }, (_, index) => text.slice(index * 100, index * 100 + 100));
    // Every search for a line end, and how much of its string it covered; read before the spy is restored.
    const indexOf = vi.spyOn(String.prototype, 'indexOf');
    let records: SourcedRecord[];
    let searched = 0;
    try {
      records = await all(jsonLines(chunksOf(...pieces), 'p.jsonl'));
      indexOf.mock.calls.forEach(([search, from], call) => {
        const searchedIn = indexOf.mock.contexts[call] as unknown;
        if (search === '\n' && typeof searchedIn === 'string') searched += searchedIn.length - Number(from ?? 0);
      });
    } finally {
      indexOf.mockRestore();
    }
    expect(records.map((sourced) => sourced.line)).toEqual([1]);
    expect(searched).toBeGreaterThanOrEqual(text.length);
    expect(searched).toBeLessThanOrEqual(2 * text.length);
  });
});

const fixtures = join(import.meta.dirname, '../../../test/fixtures/export');

async function* bytesOf(...chunks: Array<number[] | string>) {
  for (const chunk of chunks) yield typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : Buffer.from(chunk);
}

describe('encodings', () => {
  it('reads a Windows-1252 export (what Excel writes as plain CSV) correctly with --encoding windows-1252', async () => {
    const path = join(fixtures, 'products-windows-1252.csv');
    const products = await all(readExportFile({ entity: 'product', path, format: 'csv', encoding: 'windows-1252' }));
    expect(products.map((sourced) => [sourced.line, sourced.record.name, sourced.record.brand])).toEqual([
      [2, 'Dübel 8 mm', 'Fischer'],
      [3, 'Schraube 5x40, verzinkt', 'Würth'],
      [4, 'Mutter M10 – Edelstahl', 'Würth'],
    ]);
  });

  it('refuses the same file read as UTF-8, naming its line and byte offset and suggesting --encoding windows-1252', async () => {
    const path = join(fixtures, 'products-windows-1252.csv');
    const error = await all(readExportFile({ entity: 'product', path, format: 'csv' })).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(RecordError);
    expect(error).toMatchObject({ file: path, line: 2 });
    expect((error as Error).message).toBe(
      `${path}:2: not UTF-8 at byte offset 63. The byte is 0xFC (ü in Windows-1252): the file looks like Windows-1252, as ` +
        `Excel's plain "CSV (Comma delimited)" writes it: try --encoding windows-1252.`,
    );
  });

  it('takes Latin-1 and ISO-8859-1 as names of Windows-1252, and refuses no other name but UTF-8', () => {
    expect(['latin1', 'ISO-8859-1', 'windows-1252', 'cp1252', 'UTF-8', 'utf8', 'utf-16', 'ascii'].map(encodingOf)).toEqual([
      'windows-1252',
      'windows-1252',
      'windows-1252',
      'windows-1252',
      'utf-8',
      'utf-8',
      undefined,
      undefined,
    ]);
  });

  it('reads UTF-8 with or without a byte order mark, a character cut between chunks included', async () => {
    const ue = [...Buffer.from('ü', 'utf8')];
    const withBom = await all(decodeText(bytesOf([0xef, 0xbb], [0xbf], 'a,D', [ue[0] as number], [ue[1] as number, 0x0a]), 'f.csv'));
    expect(withBom.join('')).toBe('a,Dü\n');
    expect((await all(decodeText(bytesOf('a,Dü\n'), 'f.csv'))).join('')).toBe('a,Dü\n');
  });

  it('refuses a byte that cannot be UTF-8 by its line and offset, however the file is cut into chunks', async () => {
    const text = [...Buffer.from('sku,name\nA,Dübel\nB,ok\nC,', 'utf8'), 0xe9, 0x74, 0xe9, 0x0a];
    const bad = text.length - 4;
    for (const cut of [1, 2, 3, 7, text.length]) {
      const chunks = Array.from({ length: Math.ceil(text.length / cut) }, (_, index) => text.slice(index * cut, index * cut + cut));
      const error = await all(decodeText(bytesOf(...chunks), 'f.csv')).catch((caught: unknown) => caught);
      expect(error, `cut ${cut}`).toMatchObject({ file: 'f.csv', line: 4 });
      expect((error as Error).message, `cut ${cut}`).toContain(
        `f.csv:4: not UTF-8 at byte offset ${bad}. The byte is 0xE9 (é in Windows-1252)`,
      );
    }
  });

  it('refuses a file torn inside its last character, and one whose continuation bytes are wrong', async () => {
    await expect(all(decodeText(bytesOf('a\nb\nD', [0xc3]), 'f.csv'))).rejects.toThrow(
      'f.csv:3: the file ends inside a character (at byte offset 5): was it cut short?',
    );
    // An overlong form and a surrogate are not UTF-8 either.
    await expect(all(decodeText(bytesOf('x', [0xc0, 0x80]), 'f.csv'))).rejects.toThrow('not UTF-8 at byte offset 1');
    await expect(all(decodeText(bytesOf('xy', [0xed, 0xa0, 0x80]), 'f.csv'))).rejects.toThrow('not UTF-8 at byte offset 2');
    expect(firstInvalidUtf8(Buffer.from('Dübel €5 🙂', 'utf8'))).toBeUndefined();
  });

  it('refuses --encoding windows-1252 on a UTF-8 file without a byte order mark, before garbling its names', async () => {
    const text = 'sku,name\nA,ok\nB,Dübel\n';
    await expect(all(decodeText(bytesOf(text), 'f.csv', 'windows-1252'))).rejects.toThrow(
      'f.csv:3: the text past ASCII here (byte offset 17) is UTF-8, which Windows-1252 would garble (ü as Ã¼): load the file without --encoding.',
    );
    expect((await all(decodeText(bytesOf('B,D', [0xfc, 0x62], '\n'), 'f.csv', 'windows-1252'))).join('')).toBe('B,Düb\n');
  });

  it('says a UTF-16 file is UTF-16, and refuses --encoding windows-1252 on a file that starts with a UTF-8 byte order mark', async () => {
    await expect(all(decodeText(bytesOf([0xff, 0xfe, 0x73, 0x00]), 'f.csv'))).rejects.toThrow('The file looks like UTF-16');
    await expect(all(decodeText(bytesOf([0xef, 0xbb, 0xbf, 0x61]), 'f.csv', 'windows-1252'))).rejects.toThrow(
      'f.csv:1: the file starts with a UTF-8 byte order mark, so it is UTF-8: load it without --encoding.',
    );
  });
});

describe('delimiters and the header row', () => {
  it('finds a semicolon delimiter from the header row of a BOM-marked export, with quoted semicolons in cells', async () => {
    const path = join(fixtures, 'customers-semicolon.csv');
    const customers = await all(readExportFile({ entity: 'customer', path, format: 'csv' }));
    expect(customers.map((sourced) => sourced.record)).toEqual([
      { externalId: 'K-100', name: 'Müller Bau GmbH', segment: 'Handwerk', country: 'DE' },
      { externalId: 'K-200', name: 'Schmidt; Söhne KG', segment: 'Industrie', country: 'AT' },
    ]);
  });

  it('finds a tab delimiter, and keeps commas inside cells of a tab-separated file', async () => {
    const csv = 'sku\tname\tcategory\tcostCents\tcurrentPriceCents\nT-1\tBolt, zinc\tTools\t100\t150\n';
    const [product] = await all(recordsOfCsv('product', chunksOf(csv), 'products.tsv.csv'));
    expect(product?.record).toEqual({ sku: 'T-1', name: 'Bolt, zinc', category: 'Tools', costCents: 100, currentPriceCents: 150 });
  });

  it('takes the delimiter it is given, and says which delimiter reads a header that the given one does not', async () => {
    const csv = 'sku;name;category;costCents;currentPriceCents\nS-1;Screw;Tools;1;2\n';
    const [product] = await all(recordsOfCsv('product', chunksOf(csv), 'p.csv', readLimits, ';'));
    expect(product?.record.sku).toBe('S-1');
    await expect(all(recordsOfCsv('product', chunksOf(csv), 'p.csv', readLimits, '\t'))).rejects.toThrow(
      "The header reads with ';': try --delimiter ;.",
    );
  });

  it('refuses a header in which no column is known as an unrecognised header, naming what it found and what it expects', async () => {
    const csv = 'Artikelnummer;Bezeichnung;Preis\nA-1;Dübel;25\n';
    const error = await all(recordsOfCsv('product', chunksOf(csv), 'products.csv')).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ file: 'products.csv', line: 1 });
    expect((error as Error).message).toBe(
      'products.csv:1: header row not recognised: found columns Artikelnummer;Bezeichnung;Preis; expected ' +
        'sku,name,category,costCents,currentPriceCents (the product columns in docs/connectors.md, named exactly).',
    );
    const orders = await all(recordsOfCsv('order', chunksOf('id,total\n1,2\n'), 'orders.csv')).catch((caught: unknown) => caught);
    expect((orders as Error).message).toContain(
      'found columns id, total; expected externalId,currency,soldAt,productSku,quantity,costCents,soldPriceCents',
    );
  });

  it('reads a header row of attributes columns only as recognised, and an empty file as no records', async () => {
    expect(await all(recordsOfCsv('product', chunksOf('attributes.colour\nred\n'), 'p.csv'))).toHaveLength(1);
    expect(await all(recordsOfCsv('product', chunksOf(''), 'p.csv'))).toEqual([]);
  });
});
