// JSON Lines files: text split into lines at a bounded cost, one record per non-blank line.
import { type ReadLimits, readLimits, sizeText } from './limits.ts';
import { RecordError, type SourcedRecord } from './sourced.ts';

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
