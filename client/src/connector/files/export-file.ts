// An export file as the loader is given it (kind, path, format, encoding, delimiter), and its records streamed in file order.
import { basename, extname } from 'node:path';
import { entityKinds, type EntityKind } from '../../../../shared/records/schema.ts';
import { recordsOfCsv } from './csv-export.ts';
import { textChunks, type TextEncoding } from './encoding.ts';
import { jsonLines } from './json-lines.ts';
import { type ReadLimits, readLimits } from './limits.ts';
import type { SourcedRecord } from './sourced.ts';

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
