// Reading a seller's export files (CSV or JSON Lines) as a stream of canonical records, each with its file and line.
import { createReadStream } from 'node:fs';
import { basename, extname } from 'node:path';
import {
  entityKinds,
  type EntityKind,
  MAX_LINES_PER_DOCUMENT,
  OrderLineSchema,
  QuoteLineSchema,
  recordSchemas,
} from '../../../shared/records/schema.ts';
import { MAX_RECORD_BYTES } from '../../../shared/records/stage-request.ts';

export type FileFormat = 'csv' | 'jsonl';

export interface ExportFile {
  readonly entity: EntityKind;
  readonly path: string;
  readonly format: FileFormat;
  /** Default UTF-8. */
  readonly encoding?: TextEncoding;
  /** A CSV file's delimiter; found from its header row when not given. */
  readonly delimiter?: string;
}

/** A record as read, with where it came from; `lineRows` holds the CSV row of each of a document's lines. */
export interface SourcedRecord {
  readonly record: Record<string, unknown>;
  readonly file: string;
  readonly line: number;
  readonly lineRows?: readonly number[];
}

/** A problem at a place in a file: the loader stops on it and names the place. */
export class RecordError extends Error {
  override readonly name = 'RecordError';
  readonly file: string;
  readonly line: number;
  readonly field: string | undefined;

  constructor(file: string, line: number, field: string | undefined, message: string) {
    super(`${file}:${line}: ${message}`);
    this.file = file;
    this.line = line;
    this.field = field;
  }
}

/**
 * What the reader holds of a file at once. Past any of these it stops at the cell, line or document, naming the file and
 * line, rather than reading on: a quote never closed or a file with no line ends would otherwise be held whole.
 */
export interface ReadLimits {
  /** UTF-8 bytes of one CSV cell: a record holds its cells, and the service takes at most 256 KB of JSON a record. */
  readonly cellBytes: number;
  /** UTF-8 bytes of one CSV row (over however many lines its quotes span) or one JSON Lines line. */
  readonly lineBytes: number;
  /** UTF-8 bytes of the cells a CSV quote or order keeps over all its rows: its own columns once, its line columns per row. */
  readonly documentBytes: number;
  /** Rows of one CSV quote or order: the service's lines per document. */
  readonly documentLines: number;
}

// A row and a document get room above the record's 256 KB for what JSON drops (column names, zero padding, escapes).
export const readLimits: ReadLimits = {
  cellBytes: MAX_RECORD_BYTES,
  lineBytes: 4 * MAX_RECORD_BYTES,
  documentBytes: 4 * MAX_RECORD_BYTES,
  documentLines: MAX_LINES_PER_DOCUMENT,
};

/** `262144` as `256 KB`, as the service states its own limit. */
export function sizeText(bytes: number): string {
  if (bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)} MB`;
  if (bytes % 1024 === 0) return `${bytes / 1024} KB`;
  return `${bytes} bytes`;
}

/** The UTF-8 bytes of one UTF-16 code unit: a surrogate is half of a four-byte character. */
function utf8Bytes(unit: number): number {
  if (unit < 0x80) return 1;
  if (unit < 0x800 || (unit >= 0xd800 && unit <= 0xdfff)) return 2;
  return 3;
}

export function formatOf(path: string): FileFormat | undefined {
  const extension = extname(path).toLowerCase();
  if (extension === '.csv') return 'csv';
  if (extension === '.jsonl') return 'jsonl';
  return undefined;
}

const kindByPrefix: ReadonlyArray<readonly [string, EntityKind]> = entityKinds.map((kind) => [`${kind}s`, kind] as const);

/** `products.csv`, `customers-2026.jsonl`: a positional file's kind is the plural its name starts with. */
export function kindOfFileName(path: string): EntityKind | undefined {
  const name = basename(path).toLowerCase();
  return kindByPrefix.find(([prefix]) => name.startsWith(prefix))?.[1];
}

/** How a file's bytes are read as text: UTF-8 (checked), or Windows-1252 for what Excel's plain "CSV" writes. */
export type TextEncoding = 'utf-8' | 'windows-1252';

/**
 * The encoding a `--encoding` label names. Latin-1 and ISO-8859-1 are read as Windows-1252, their superset, as the
 * WHATWG encoding standard (and every browser) reads them: the two differ only where Latin-1 has control characters.
 */
export function encodingOf(label: string): TextEncoding | undefined {
  const name = label.trim().toLowerCase();
  if (name === 'utf-8' || name === 'utf8') return 'utf-8';
  if (['windows-1252', 'cp1252', 'latin1', 'latin-1', 'iso-8859-1', 'iso8859-1'].includes(name)) return 'windows-1252';
  return undefined;
}

/** Where the first byte that cannot be UTF-8 is, or where an unfinished character starts (`torn`), or undefined. */
export function firstInvalidUtf8(bytes: Uint8Array): { index: number; torn: boolean } | undefined {
  for (let index = 0; index < bytes.length;) {
    const lead = bytes[index] as number;
    if (lead < 0x80) {
      index++;
      continue;
    }
    const need = lead >= 0xc2 && lead <= 0xdf ? 1 : lead >= 0xe0 && lead <= 0xef ? 2 : lead >= 0xf0 && lead <= 0xf4 ? 3 : 0;
    if (need === 0) return { index, torn: false };
    for (let k = 1; k <= need; k++) {
      if (index + k >= bytes.length) return { index, torn: true };
      const next = bytes[index + k] as number;
      // The second byte of some leads is narrower: no overlong forms, no surrogates, nothing past U+10FFFF.
      const low = k === 1 && lead === 0xe0 ? 0xa0 : k === 1 && lead === 0xf0 ? 0x90 : 0x80;
      const high = k === 1 && lead === 0xed ? 0x9f : k === 1 && lead === 0xf4 ? 0x8f : 0xbf;
      if (next < low || next > high) return { index, torn: false };
    }
    index += need + 1;
  }
  return undefined;
}

/** The bytes at the end of `bytes` that start a character not yet finished (0 to 3), in text already checked. */
function unfinishedTail(bytes: Uint8Array): number {
  for (let back = 1; back <= Math.min(3, bytes.length); back++) {
    const byte = bytes[bytes.length - back] as number;
    if ((byte & 0xc0) === 0x80) continue;
    if (byte < 0xc0) return 0;
    const length = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : 2;
    return length > back ? back : 0;
  }
  return 0;
}

function newlinesIn(bytes: Buffer, end = bytes.length): number {
  let count = 0;
  for (let at = bytes.indexOf(0x0a); at >= 0 && at < end; at = bytes.indexOf(0x0a, at + 1)) count++;
  return count;
}

const windows1252 = new TextDecoder('windows-1252');

/** Whether bytes past ASCII are all whole UTF-8 characters (a last one cut by the chunk's end aside). */
function readsAsUtf8(bytes: Uint8Array): boolean {
  const invalid = firstInvalidUtf8(bytes);
  return invalid === undefined || (invalid.torn && invalid.index > bytes.length - 4 && invalid.index > 0);
}

/** What a byte that is not UTF-8 most likely means, as advice the operator can act on. */
function encodingHint(byte: number, atStart: Uint8Array): string {
  if ((atStart[0] === 0xff && atStart[1] === 0xfe) || (atStart[0] === 0xfe && atStart[1] === 0xff)) {
    return 'The file looks like UTF-16 (it starts with its byte order mark): save it as UTF-8 (Excel: "CSV UTF-8").';
  }
  const character = windows1252.decode(Uint8Array.of(byte));
  const shown = /\p{Cc}/u.test(character) ? '' : ` (${character} in Windows-1252)`;
  return (
    `The byte is 0x${byte.toString(16).toUpperCase().padStart(2, '0')}${shown}: the file looks like Windows-1252, as ` +
    `Excel's plain "CSV (Comma delimited)" writes it: try --encoding windows-1252.`
  );
}

/**
 * Text of a file's bytes. UTF-8 is checked as it is read: the first byte that is not UTF-8 stops the reader with its
 * line and byte offset, rather than becoming U+FFFD in a stored name. A UTF-8 byte order mark is dropped.
 */
export async function* decodeText(
  bytes: AsyncIterable<Buffer>,
  file: string,
  encoding: TextEncoding = 'utf-8',
  onBytes: (bytes: number) => void = () => {},
): AsyncGenerator<string> {
  const strict = encoding === 'utf-8';
  const decoder = new TextDecoder(encoding, { fatal: strict });
  let offset = 0;
  let lines = 1;
  // The bytes of a character cut by the end of the last chunk: the decoder holds them until the next.
  let carried: Buffer = Buffer.alloc(0);
  let start: Buffer | undefined;
  // Read as Windows-1252, the first chunk with bytes past ASCII is checked once for what UTF-8 read wrongly looks like.
  let looked = strict;
  for await (const chunk of bytes) {
    onBytes(chunk.length);
    if (!start) {
      start = chunk;
      if (!strict && chunk[0] === 0xef && chunk[1] === 0xbb && chunk[2] === 0xbf) {
        throw new RecordError(
          file,
          1,
          undefined,
          'the file starts with a UTF-8 byte order mark, so it is UTF-8: load it without --encoding.',
        );
      }
    }
    if (!looked && chunk.some((byte) => byte >= 0x80)) {
      looked = true;
      const wide = chunk.findIndex((byte) => byte >= 0x80);
      if (readsAsUtf8(chunk)) {
        throw new RecordError(
          file,
          lines + newlinesIn(chunk, wide),
          undefined,
          `the text past ASCII here (byte offset ${offset + wide}) is UTF-8, which Windows-1252 would garble (ü as Ã¼): load the file without --encoding.`,
        );
      }
    }
    let text: string;
    try {
      text = decoder.decode(chunk, { stream: true });
    } catch {
      const held = Buffer.concat([carried, chunk]);
      const bad = firstInvalidUtf8(held)?.index ?? 0;
      const line = lines + newlinesIn(chunk, bad - carried.length);
      const at = offset - carried.length + bad;
      throw new RecordError(file, line, undefined, `not UTF-8 at byte offset ${at}. ${encodingHint(held[bad] as number, start)}`);
    }
    if (strict) {
      const tail = chunk.length >= 3 ? chunk.subarray(chunk.length - 3) : Buffer.concat([carried, chunk]);
      carried = Buffer.from(tail.subarray(tail.length - unfinishedTail(tail)));
    }
    lines += newlinesIn(chunk);
    offset += chunk.length;
    if (text) yield text;
  }
  let rest: string;
  try {
    rest = decoder.decode();
  } catch {
    const at = offset - carried.length;
    throw new RecordError(file, lines, undefined, `the file ends inside a character (at byte offset ${at}): was it cut short?`);
  }
  if (rest) yield rest;
}

/** Decoded text chunks of a file; `onBytes` hears the raw bytes read, for progress against the file's size. */
export function textChunks(
  path: string,
  onBytes: (bytes: number) => void = () => {},
  encoding: TextEncoding = 'utf-8',
): AsyncGenerator<string> {
  return decodeText(createReadStream(path) as AsyncIterable<Buffer>, path, encoding, onBytes);
}

export interface CsvRow {
  /** The file line the row starts on (1-based); a quoted newline makes a row span several. */
  readonly line: number;
  readonly fields: string[];
}

/**
 * RFC 4180 rows from text chunks: quoted fields, `""` for a quote, commas and newlines inside quotes, CRLF or LF. A
 * cell or row past its limit stops the reader there, so that a quote never closed costs no more than the limit.
 */
export async function* parseCsv(
  chunks: AsyncIterable<string>,
  file = 'input',
  limits: ReadLimits = readLimits,
  delimiter = ',',
): AsyncGenerator<CsvRow> {
  let fields: string[] = [];
  let field = '';
  let fieldBytes = 0;
  let rowBytes = 0;
  let quoted = false;
  // After a closing quote a second quote is an escaped one; anything else ends the quoted part.
  let quoteSeen = false;
  let skipLf = false;
  let line = 1;
  let rowLine = 1;
  let quoteLine = 1;
  let first = true;
  let rowStarted = false;

  const endRow = (): CsvRow | undefined => {
    fields.push(field);
    const row = { line: rowLine, fields };
    fields = [];
    field = '';
    fieldBytes = 0;
    rowBytes = 0;
    rowStarted = false;
    // A blank line is no row: exports often end with one.
    return row.fields.length === 1 && row.fields[0] === '' ? undefined : row;
  };

  /** Counts a character of the row, and of its cell when `inCell`; stops at the first limit passed. */
  const count = (unit: number, inCell: boolean) => {
    const bytes = utf8Bytes(unit);
    rowBytes += bytes;
    if (inCell) fieldBytes += bytes;
    if (fieldBytes > limits.cellBytes) {
      const why = quoted ? `: is the quote opened on line ${quoteLine} ever closed?` : '';
      throw new RecordError(file, quoted ? quoteLine : rowLine, undefined, `a cell is over ${sizeText(limits.cellBytes)}${why}`);
    }
    if (rowBytes > limits.lineBytes) {
      throw new RecordError(file, rowLine, undefined, `a row is over ${sizeText(limits.lineBytes)}`);
    }
  };

  for await (const chunk of chunks) {
    let text = chunk;
    if (first) {
      first = false;
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    }
    // A cell's characters are taken from the chunk a run at a time: a string grown a character at a time costs V8 a
    // node per character, 32 times the text.
    let runStart = -1;
    const flush = (end: number) => {
      if (runStart < 0) return;
      field += text.slice(runStart, end);
      runStart = -1;
    };
    const append = (index: number) => {
      if (runStart < 0) runStart = index;
      count(text.charCodeAt(index), true);
    };
    for (let index = 0; index < text.length; index++) {
      const char = text[index] as string;
      if (skipLf) {
        skipLf = false;
        if (char === '\n') continue;
      }
      if (quoted) {
        if (quoteSeen) {
          quoteSeen = false;
          if (char === '"') {
            field += '"';
            count(0x22, true);
            continue;
          }
          quoted = false;
          // Falls through: the character after the closing quote is read as unquoted.
        } else {
          if (char === '"') {
            flush(index);
            quoteSeen = true;
            count(0x22, false);
          } else {
            if (char === '\n') line++;
            append(index);
          }
          continue;
        }
      }
      if (!rowStarted) {
        rowStarted = true;
        rowLine = line;
      }
      if (char === '"' && field === '' && runStart < 0) {
        quoted = true;
        quoteLine = line;
        count(0x22, false);
      } else if (char === delimiter) {
        flush(index);
        fields.push(field);
        field = '';
        fieldBytes = 0;
        count(delimiter.charCodeAt(0), false);
      } else if (char === '\n' || char === '\r') {
        flush(index);
        line++;
        if (char === '\r') skipLf = true;
        const row = endRow();
        if (row) yield row;
      } else {
        append(index);
      }
    }
    flush(text.length);
  }
  if (quoted && !quoteSeen) throw new RecordError(file, quoteLine, undefined, 'a quoted field is never closed');
  if (rowStarted || field !== '' || fields.length > 0) {
    const row = endRow();
    if (row) yield row;
  }
}

/** Named cells of each data row, from the header row; a row with more cells than the header is refused. */
export async function* csvRecords(rows: AsyncIterable<CsvRow>, file: string): AsyncGenerator<{ line: number; cells: Map<string, string> }> {
  let header: string[] | undefined;
  for await (const row of rows) {
    if (!header) {
      header = row.fields.map((name) => name.trim());
      const duplicate = header.find((name, index) => header?.indexOf(name) !== index);
      if (duplicate !== undefined) throw new RecordError(file, row.line, duplicate, `the column ${duplicate} appears twice in the header`);
      continue;
    }
    if (row.fields.length > header.length) {
      throw new RecordError(file, row.line, undefined, `the row has ${row.fields.length} cells, the header ${header.length}`);
    }
    const cells = new Map<string, string>();
    header.forEach((name, index) => cells.set(name, row.fields[index] ?? ''));
    yield { line: row.line, cells };
  }
}

const NUMBER_TEXT = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

function isNumberField(name: string): boolean {
  return name.endsWith('Cents') || name === 'quantity' || name === 'exchangeRate' || name === 'stockOnHand';
}

/**
 * A cell as the record's field holds it. Text that is not a number (or boolean) is passed on as text, so that the
 * service's schema refuses it with the field's own message rather than the loader guessing.
 */
export function cellValue(name: string, text: string): unknown {
  const trimmed = text.trim();
  if (isNumberField(name) && NUMBER_TEXT.test(trimmed)) return Number(trimmed);
  if ((name === 'isActive' || name === 'inStock') && /^(true|false)$/i.test(trimmed)) return trimmed.toLowerCase() === 'true';
  return text;
}

const ATTRIBUTE_PREFIX = 'attributes.';

/** The fields of cells: empty cells left out, `attributes.NAME` columns gathered into `attributes` (as text). */
export function fieldsOf(cells: Iterable<[string, string]>): Record<string, unknown> {
  const record: Record<string, unknown> = {};
  let attributes: Record<string, string> | undefined;
  for (const [name, text] of cells) {
    if (text === '') continue;
    if (name.startsWith(ATTRIBUTE_PREFIX)) {
      attributes ??= {};
      attributes[name.slice(ATTRIBUTE_PREFIX.length)] = text;
    } else {
      record[name] = cellValue(name, text);
    }
  }
  if (attributes) record.attributes = attributes;
  return record;
}

const lineFields: Readonly<Record<'quote' | 'order', ReadonlySet<string>>> = {
  quote: new Set(Object.keys(QuoteLineSchema.entries).filter((name) => name !== 'attributes')),
  order: new Set(Object.keys(OrderLineSchema.entries).filter((name) => name !== 'attributes')),
};

function isLineColumn(entity: 'quote' | 'order', name: string): boolean {
  return lineFields[entity].has(name) || name.startsWith(ATTRIBUTE_PREFIX);
}

/** The UTF-8 bytes of a row's cells that a document keeps. */
function cellBytes(cells: Iterable<readonly [string, string]>): number {
  let bytes = 0;
  for (const [, text] of cells) bytes += Buffer.byteLength(text, 'utf8');
  return bytes;
}

/**
 * Quote and order rows are one per line: consecutive rows with the same `externalId` are one document, its own
 * columns taken from its first row and its line columns from every row. A document's rows must be together, and its
 * own columns the same on each, so that a sorted-wrong or edited export is refused rather than half-merged. A
 * document past the lines or bytes a document may have stops the reader at the row that passes it.
 */
export async function* groupDocuments(
  entity: 'quote' | 'order',
  rows: AsyncIterable<{ line: number; cells: Map<string, string> }>,
  file: string,
  limits: ReadLimits = readLimits,
): AsyncGenerator<SourcedRecord> {
  let current:
    { id: string; line: number; own: Map<string, string>; lines: Record<string, unknown>[]; rows: number[]; bytes: number } | undefined;
  const seen = new Set<string>();
  const finish = (): SourcedRecord | undefined => {
    if (!current) return undefined;
    const record = { ...fieldsOf(current.own), lines: current.lines };
    return { record, file, line: current.line, lineRows: current.rows };
  };
  for await (const { line, cells } of rows) {
    const own = new Map<string, string>();
    const lineCells: Array<[string, string]> = [];
    for (const [name, text] of cells) {
      if (isLineColumn(entity, name)) lineCells.push([name, text]);
      else own.set(name, text);
    }
    const lineRecord = fieldsOf(lineCells);
    // Must be sent even when null (schema.ts): an empty cell says the line had no decision.
    if (entity === 'quote' && !('pricingDecisionId' in lineRecord)) lineRecord.pricingDecisionId = null;
    const id = own.get('externalId') ?? '';
    if (current && current.id === id) {
      for (const [name, text] of own) {
        if ((current.own.get(name) ?? '') !== text) {
          throw new RecordError(file, line, name, `${name} differs from the first row of ${entity} ${id} (line ${current.line})`);
        }
      }
      const since = `${entity} ${id} (from line ${current.line})`;
      if (current.lines.length >= limits.documentLines) {
        throw new RecordError(file, line, undefined, `${since} has more than ${limits.documentLines.toLocaleString('en-US')} lines`);
      }
      current.bytes += cellBytes(lineCells);
      if (current.bytes > limits.documentBytes) {
        throw new RecordError(file, line, undefined, `${since} is over ${sizeText(limits.documentBytes)} of cells`);
      }
      current.lines.push(lineRecord);
      current.rows.push(line);
      continue;
    }
    const done = finish();
    if (done) yield done;
    if (id !== '' && seen.has(id)) {
      throw new RecordError(file, line, 'externalId', `the rows of ${entity} ${id} are not together: sort the file by externalId`);
    }
    seen.add(id);
    current = { id, line, own, lines: [lineRecord], rows: [line], bytes: cellBytes(own) + cellBytes(lineCells) };
  }
  const done = finish();
  if (done) yield done;
}

/**
 * Lines of text chunks. Each chunk is searched for line ends once, from where the last search ended, so that a long
 * line cut into many chunks costs its length and no more; a line past `maxBytes` stops it there.
 */
export class LineSplitter {
  /** Characters searched for line ends so far: each character once, however the text is cut. */
  scanned = 0;
  /** Lines ended so far; the one being read is the next. */
  lines = 0;
  private parts: string[] = [];
  private bytes = 0;
  private readonly file: string;
  private readonly maxBytes: number;

  constructor(file: string, maxBytes: number) {
    this.file = file;
    this.maxBytes = maxBytes;
  }

  /** The lines a chunk ends, in order, without their `\n`; a line over the limit throws when it is reached. */
  *push(chunk: string): Generator<string> {
    let start = 0;
    for (;;) {
      const end = chunk.indexOf('\n', start);
      this.scanned += (end < 0 ? chunk.length : end + 1) - start;
      if (end < 0) break;
      this.hold(chunk.slice(start, end));
      start = end + 1;
      yield this.take();
    }
    this.hold(chunk.slice(start));
  }

  /** The last line, which no line end closed. */
  end(): string {
    return this.take();
  }

  private hold(part: string) {
    if (part === '') return;
    this.bytes += Buffer.byteLength(part, 'utf8');
    if (this.bytes > this.maxBytes) {
      throw new RecordError(this.file, this.lines + 1, undefined, `a line is over ${sizeText(this.maxBytes)}`);
    }
    this.parts.push(part);
  }

  private take(): string {
    const text = this.parts.join('');
    this.parts = [];
    this.bytes = 0;
    this.lines++;
    return text;
  }
}

/** JSON Lines: one record per non-blank line, as the API takes it. */
export async function* jsonLines(
  chunks: AsyncIterable<string>,
  file: string,
  limits: ReadLimits = readLimits,
): AsyncGenerator<SourcedRecord> {
  const splitter = new LineSplitter(file, limits.lineBytes);
  const parse = (text: string): SourcedRecord | undefined => {
    const line = splitter.lines;
    if (text.trim() === '') return undefined;
    let record: unknown;
    try {
      record = JSON.parse(text);
    } catch (error) {
      throw new RecordError(file, line, undefined, `not JSON: ${(error as Error).message}`);
    }
    if (typeof record !== 'object' || record === null || Array.isArray(record)) {
      throw new RecordError(file, line, undefined, 'not a JSON object');
    }
    return { record: record as Record<string, unknown>, file, line };
  };
  let first = true;
  for await (const chunk of chunks) {
    const text = first && chunk.charCodeAt(0) === 0xfeff ? chunk.slice(1) : chunk;
    first = false;
    for (const line of splitter.push(text)) {
      const sourced = parse(line.replace(/\r$/, ''));
      if (sourced) yield sourced;
    }
  }
  const last = parse(splitter.end());
  if (last) yield last;
}

/** An export file's records, in file order, streamed. */
export function readExportFile(
  file: ExportFile,
  onBytes?: (bytes: number) => void,
  limits: ReadLimits = readLimits,
): AsyncGenerator<SourcedRecord> {
  const chunks = textChunks(file.path, onBytes, file.encoding);
  if (file.format === 'jsonl') return jsonLines(chunks, file.path, limits);
  return recordsOfCsv(file.entity, chunks, file.path, limits, file.delimiter);
}

/** The delimiters a header row is tried with, in order of preference when two read it equally well. */
export const csvDelimiters = [',', ';', '\t'] as const;

/** The columns a kind's CSV may have: its fields, its lines' fields for a quote or an order, and `attributes.NAME`. */
function columnsOf(entity: EntityKind): { known: ReadonlySet<string>; required: string[] } {
  const own = Object.entries(recordSchemas[entity].entries).filter(([name]) => name !== 'lines' && name !== 'attributes');
  const line = entity === 'quote' ? QuoteLineSchema.entries : entity === 'order' ? OrderLineSchema.entries : {};
  const all = [...own, ...Object.entries(line).filter(([name]) => name !== 'attributes')];
  // An empty cell leaves a field out (or, for a nullable one, sends null): a column is needed only for a field that must be there.
  const required = all.filter(([, schema]) => schema.type !== 'optional' && schema.type !== 'nullable').map(([name]) => name);
  return { known: new Set(all.map(([name]) => name)), required };
}

function isKnownColumn(known: ReadonlySet<string>, name: string): boolean {
  return known.has(name) || (name.startsWith(ATTRIBUTE_PREFIX) && name.length > ATTRIBUTE_PREFIX.length);
}

async function headerCells(line: string, delimiter: string): Promise<string[]> {
  async function* text() {
    yield line;
  }
  try {
    for await (const row of parseCsv(text(), 'header', readLimits, delimiter)) return row.fields.map((name) => name.trim());
  } catch {
    // A header that does not parse with this delimiter reads no column with it.
  }
  return [];
}

function delimiterName(delimiter: string): string {
  return delimiter === '\t' ? 'tab' : `'${delimiter}'`;
}

/**
 * The delimiter of a CSV file, from its header row: the one of `,`, `;` and tab that reads the most known columns, or
 * the one given. A header in which none is known is refused as such, rather than as the first record's missing field.
 */
export async function csvDelimiter(entity: EntityKind, header: string, file: string, given?: string): Promise<string> {
  const { known, required } = columnsOf(entity);
  const tried = await Promise.all(
    (given === undefined ? csvDelimiters : [given, ...csvDelimiters.filter((other) => other !== given)]).map(async (delimiter) => {
      const cells = await headerCells(header, delimiter);
      return { delimiter, cells, knownCount: cells.filter((name) => isKnownColumn(known, name)).length };
    }),
  );
  const best = tried.reduce((top, next) => (next.knownCount > top.knownCount ? next : top));
  const chosen = given === undefined ? best : (tried[0] as (typeof tried)[number]);
  if (chosen.knownCount > 0) return chosen.delimiter;
  const shown = chosen.cells.slice(0, 12).join(', ') + (chosen.cells.length > 12 ? ', …' : '');
  const retry =
    given !== undefined && best.knownCount > 0
      ? ` The header reads with ${delimiterName(best.delimiter)}: try --delimiter ${best.delimiter === '\t' ? 'tab' : best.delimiter}.`
      : '';
  throw new RecordError(
    file,
    1,
    undefined,
    `header row not recognised: found columns ${shown || '(none)'}; expected ${required.join(',')} (the ${entity} columns in ` +
      `docs/connectors.md, named exactly).${retry}`,
  );
}

/** The first line of a file's text (up to `maxBytes`), and the whole text again, to be read from its start. */
async function peekFirstLine(chunks: AsyncIterable<string>, maxBytes: number): Promise<{ line: string; text: AsyncIterable<string> }> {
  const iterator = chunks[Symbol.asyncIterator]();
  const held: string[] = [];
  let length = 0;
  let ended = false;
  for (;;) {
    const next = await iterator.next();
    if (next.done) {
      ended = true;
      break;
    }
    held.push(next.value);
    length += next.value.length;
    if (/[\r\n]/.test(next.value) || length > maxBytes) break;
  }
  const line =
    held
      .join('')
      .replace(/^\uFEFF/, '')
      .split(/\r?\n|\r/, 1)[0] ?? '';
  async function* text(): AsyncGenerator<string> {
    yield* held;
    if (ended) return;
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) yield next.value;
  }
  return { line, text: text() };
}

export async function* recordsOfCsv(
  entity: EntityKind,
  chunks: AsyncIterable<string>,
  file: string,
  limits: ReadLimits = readLimits,
  delimiter?: string,
): AsyncGenerator<SourcedRecord> {
  const { line, text } = await peekFirstLine(chunks, limits.lineBytes);
  // An empty file, or one whose first line is blank, has no header to read a delimiter from.
  const chosen = line.trim() === '' ? (delimiter ?? ',') : await csvDelimiter(entity, line, file, delimiter);
  const rows = csvRecords(parseCsv(text, file, limits, chosen), file);
  if (entity === 'quote' || entity === 'order') {
    yield* groupDocuments(entity, rows, file, limits);
    return;
  }
  for await (const { line: row, cells } of rows) yield { record: fieldsOf(cells), file, line: row };
}

/** Where a stage error's `param` (`records[17].lines[0].costCents`) points in the files of the records it was about. */
export function locate(
  param: string | undefined,
  records: readonly SourcedRecord[],
): { file: string; line: number; field: string | undefined } | undefined {
  const match = /^records\[(\d+)\](?:\.(.*))?$/.exec(param ?? '');
  if (!match) return undefined;
  const sourced = records[Number(match[1])];
  if (!sourced) return undefined;
  const field = match[2];
  const inLine = field === undefined ? undefined : /^lines\[(\d+)\](?:\.(.*))?$/.exec(field);
  // A CSV document's line is its own row, and its field the column there.
  if (inLine && sourced.lineRows) {
    const row = sourced.lineRows[Number(inLine[1])];
    if (row !== undefined) return { file: sourced.file, line: row, field: inLine[2] ?? field };
  }
  return { file: sourced.file, line: sourced.line, field };
}
