// A file's bytes as text: UTF-8 checked as it is read, or Windows-1252, with advice when the bytes are not what was said.
import { createReadStream } from 'node:fs';
import { RecordError } from './sourced.ts';

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

/** Where in a file the reader is: the line the chunk starts on, and the byte offset of its start. */
interface ReadPlace {
  readonly file: string;
  readonly lines: number;
  readonly offset: number;
}

/** A UTF-8 byte order mark says the file is UTF-8, whatever encoding was given. */
function refuseUtf8ByteOrderMark(chunk: Buffer, file: string): void {
  if (chunk[0] === 0xef && chunk[1] === 0xbb && chunk[2] === 0xbf) {
    throw new RecordError(file, 1, undefined, 'the file starts with a UTF-8 byte order mark, so it is UTF-8: load it without --encoding.');
  }
}

/** Read as Windows-1252, the first chunk with bytes past ASCII is refused when they read as UTF-8. */
function refuseUtf8Text(chunk: Buffer, { file, lines, offset }: ReadPlace): void {
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

/** The error for the first byte of `chunk` (or of the character `carried` from the chunk before) that is not UTF-8. */
function notUtf8({ file, lines, offset }: ReadPlace, chunk: Buffer, carried: Buffer, start: Uint8Array): RecordError {
  const held = Buffer.concat([carried, chunk]);
  const bad = firstInvalidUtf8(held)?.index ?? 0;
  const line = lines + newlinesIn(chunk, bad - carried.length);
  const at = offset - carried.length + bad;
  return new RecordError(file, line, undefined, `not UTF-8 at byte offset ${at}. ${encodingHint(held[bad] as number, start)}`);
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
      if (!strict) refuseUtf8ByteOrderMark(chunk, file);
    }
    if (!looked && chunk.some((byte) => byte >= 0x80)) {
      looked = true;
      refuseUtf8Text(chunk, { file, lines, offset });
    }
    let text: string;
    try {
      text = decoder.decode(chunk, { stream: true });
    } catch {
      throw notUtf8({ file, lines, offset }, chunk, carried, start);
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
