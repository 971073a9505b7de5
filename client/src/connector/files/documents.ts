// Quote and order documents from their line rows: one document per run of rows with the same externalId.
import { OrderLineSchema, QuoteLineSchema } from '../../../../shared/records/schema.ts';
import { ATTRIBUTE_PREFIX, fieldsOf } from './cells.ts';
import { type ReadLimits, readLimits, sizeText } from './limits.ts';
import { RecordError, type SourcedRecord } from './sourced.ts';

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
