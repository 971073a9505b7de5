// Reading a seller's export files (CSV or JSON Lines) as a stream of canonical records, as importers know it: the parts live in files/.
export { cellValue, fieldsOf } from './files/cells.ts';
export { csvDelimiter, csvDelimiters, recordsOfCsv } from './files/csv-export.ts';
export { type CsvRow, csvRecords, parseCsv } from './files/csv.ts';
export { groupDocuments } from './files/documents.ts';
export { decodeText, encodingOf, firstInvalidUtf8, type TextEncoding, textChunks } from './files/encoding.ts';
export { type ExportFile, type FileFormat, formatOf, kindOfFileName, readExportFile } from './files/export-file.ts';
export { jsonLines, LineSplitter } from './files/json-lines.ts';
export { type ReadLimits, readLimits, sizeText } from './files/limits.ts';
export { locate, RecordError, type SourcedRecord } from './files/sourced.ts';
