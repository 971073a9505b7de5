// What the reader holds of a file at once, and the sizes it counts against those limits.
import { MAX_LINES_PER_DOCUMENT } from '../../../../shared/records/schema.ts';
import { MAX_RECORD_BYTES } from '../../../../shared/records/stage-request.ts';

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
export function utf8Bytes(unit: number): number {
  if (unit < 0x80) return 1;
  if (unit < 0x800 || (unit >= 0xd800 && unit <= 0xdfff)) return 2;
  return 3;
}
