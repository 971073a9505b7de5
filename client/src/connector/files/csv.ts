// RFC 4180 rows from text, and named cells from them under the header row.
import { type ReadLimits, readLimits, sizeText, utf8Bytes } from './limits.ts';
import { RecordError } from './sourced.ts';

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
