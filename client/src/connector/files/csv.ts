// RFC 4180 rows from text, and named cells from them under the header row.
import { type ReadLimits, readLimits, sizeText, utf8Bytes } from './limits.ts';
import { RecordError } from './sourced.ts';

export interface CsvRow {
  /** The file line the row starts on (1-based); a quoted newline makes a row span several. */
  readonly line: number;
  readonly fields: string[];
}

/** The reader's place in the text: the row and cell being read, the quote it is in, and the line it is on. */
class CsvReader {
  private fields: string[] = [];
  private field = '';
  private fieldBytes = 0;
  private rowBytes = 0;
  private quoted = false;
  // After a closing quote a second quote is an escaped one; anything else ends the quoted part.
  private quoteSeen = false;
  private skipLf = false;
  private line = 1;
  private rowLine = 1;
  private quoteLine = 1;
  private rowStarted = false;
  // A cell's characters are taken from the chunk a run at a time: a string grown a character at a time costs V8 a
  // node per character, 32 times the text.
  private text = '';
  private runStart = -1;

  private readonly file: string;
  private readonly limits: ReadLimits;
  private readonly delimiter: string;

  constructor(file: string, limits: ReadLimits, delimiter: string) {
    this.file = file;
    this.limits = limits;
    this.delimiter = delimiter;
  }

  /** The rows a chunk of text ends, in order. */
  *read(text: string): Generator<CsvRow> {
    this.text = text;
    this.runStart = -1;
    for (let index = 0; index < text.length; index++) {
      const char = text[index] as string;
      if (this.skipLf) {
        this.skipLf = false;
        if (char === '\n') continue;
      }
      if (this.quoted && this.readQuoted(char, index)) continue;
      const row = this.readUnquoted(char, index);
      if (row) yield row;
    }
    this.flush(text.length);
  }

  /** The last row, which no line end closed; a quote still open is refused. */
  *end(): Generator<CsvRow> {
    if (this.quoted && !this.quoteSeen) throw new RecordError(this.file, this.quoteLine, undefined, 'a quoted field is never closed');
    if (this.rowStarted || this.field !== '' || this.fields.length > 0) {
      const row = this.endRow();
      if (row) yield row;
    }
  }

  /** A character inside quotes; false for the one after the closing quote, which is read as unquoted. */
  private readQuoted(char: string, index: number): boolean {
    if (this.quoteSeen) {
      this.quoteSeen = false;
      if (char === '"') {
        this.field += '"';
        this.count(0x22, true);
        return true;
      }
      this.quoted = false;
      return false;
    }
    if (char === '"') {
      this.flush(index);
      this.quoteSeen = true;
      this.count(0x22, false);
    } else {
      if (char === '\n') this.line++;
      this.append(index);
    }
    return true;
  }

  /** A character outside quotes; the row it ends, if it ends one. */
  private readUnquoted(char: string, index: number): CsvRow | undefined {
    if (!this.rowStarted) {
      this.rowStarted = true;
      this.rowLine = this.line;
    }
    if (char === '"' && this.field === '' && this.runStart < 0) {
      this.quoted = true;
      this.quoteLine = this.line;
      this.count(0x22, false);
    } else if (char === this.delimiter) {
      this.flush(index);
      this.fields.push(this.field);
      this.field = '';
      this.fieldBytes = 0;
      this.count(this.delimiter.charCodeAt(0), false);
    } else if (char === '\n' || char === '\r') {
      this.flush(index);
      this.line++;
      if (char === '\r') this.skipLf = true;
      return this.endRow();
    } else {
      this.append(index);
    }
    return undefined;
  }

  private flush(end: number): void {
    if (this.runStart < 0) return;
    this.field += this.text.slice(this.runStart, end);
    this.runStart = -1;
  }

  private append(index: number): void {
    if (this.runStart < 0) this.runStart = index;
    this.count(this.text.charCodeAt(index), true);
  }

  private endRow(): CsvRow | undefined {
    this.fields.push(this.field);
    const row = { line: this.rowLine, fields: this.fields };
    this.fields = [];
    this.field = '';
    this.fieldBytes = 0;
    this.rowBytes = 0;
    this.rowStarted = false;
    // A blank line is no row: exports often end with one.
    return row.fields.length === 1 && row.fields[0] === '' ? undefined : row;
  }

  /** Counts a character of the row, and of its cell when `inCell`; stops at the first limit passed. */
  private count(unit: number, inCell: boolean): void {
    const bytes = utf8Bytes(unit);
    this.rowBytes += bytes;
    if (inCell) this.fieldBytes += bytes;
    const { cellBytes, lineBytes } = this.limits;
    if (this.fieldBytes > cellBytes) {
      const why = this.quoted ? `: is the quote opened on line ${this.quoteLine} ever closed?` : '';
      throw new RecordError(
        this.file,
        this.quoted ? this.quoteLine : this.rowLine,
        undefined,
        `a cell is over ${sizeText(cellBytes)}${why}`,
      );
    }
    if (this.rowBytes > lineBytes) throw new RecordError(this.file, this.rowLine, undefined, `a row is over ${sizeText(lineBytes)}`);
  }
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
  const reader = new CsvReader(file, limits, delimiter);
  let first = true;
  for await (const chunk of chunks) {
    const text = first && chunk.charCodeAt(0) === 0xfeff ? chunk.slice(1) : chunk;
    first = false;
    yield* reader.read(text);
  }
  yield* reader.end();
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
