// A CSV export's records: its delimiter found from the header row, then its rows as records or as documents.
import { type EntityKind, OrderLineSchema, QuoteLineSchema, recordSchemas } from '../../../../shared/records/schema.ts';
import { ATTRIBUTE_PREFIX, fieldsOf } from './cells.ts';
import { csvRecords, parseCsv } from './csv.ts';
import { groupDocuments } from './documents.ts';
import { type ReadLimits, readLimits } from './limits.ts';
import { RecordError, type SourcedRecord } from './sourced.ts';

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
