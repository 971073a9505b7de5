// Identifiers: the caller's text that becomes part of a table key, and the one bound on its length.
import * as v from 'valibot';

/**
 * At most 255 characters, counted as Unicode code points (what JSON Schema's maxLength counts, and what most
 * languages call a character). A code point is at most 4 bytes of UTF-8, so an identifier is at most 1,020 bytes:
 * under DynamoDB's 2,048-byte partition keys with room for the prefixes the service adds, and even under its
 * 1,024-byte sort keys, which today hold only digests of caller text.
 */
export const MAX_IDENTIFIER_LENGTH = 255;

/** Code points, not UTF-16 code units: an emoji is one character here, as it is to the caller. */
export function codePointLength(text: string): number {
  let length = 0;
  for (let index = 0; index < text.length; index++) {
    const unit = text.charCodeAt(index);
    // A high surrogate followed by a low one is one code point; a lone surrogate counts as one on its own.
    if (unit >= 0xd800 && unit <= 0xdbff && index + 1 < text.length) {
      const next = text.charCodeAt(index + 1);
      if (next >= 0xdc00 && next <= 0xdfff) index++;
    }
    length++;
  }
  return length;
}

/** Every code point takes one or two code units, so most strings are decided by their length alone, without a count. */
export function withinIdentifierLength(text: string): boolean {
  if (text.length <= MAX_IDENTIFIER_LENGTH) return true;
  if (text.length > 2 * MAX_IDENTIFIER_LENGTH) return false;
  return codePointLength(text) <= MAX_IDENTIFIER_LENGTH;
}

const identifierMessage = `a non-empty string of at most ${MAX_IDENTIFIER_LENGTH} characters`;
const keyTextMessage = `a string of at most ${MAX_IDENTIFIER_LENGTH} characters`;

/** A sku, an external id, a customer id: 1 to 255 characters. */
export const IdentifierSchema = v.pipe(
  v.string(identifierMessage),
  v.minLength(1, identifierMessage),
  v.check(withinIdentifierLength, identifierMessage),
);

/**
 * Other caller text that becomes part of a key (category, segment, currency) or names a document that does
 * (sourceQuoteExternalId): the same bound, but the contract lets it be empty.
 */
export const KeyTextSchema = v.pipe(v.string(keyTextMessage), v.check(withinIdentifierLength, keyTextMessage));
