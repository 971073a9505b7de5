// A record as the reader hands it on, with the file and line it came from, and the error that names such a place.

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
