// What DynamoDB bills for an item, in bytes and write units: the item-size rules of its developer guide.
import type { AttributeValue } from '@aws-sdk/client-dynamodb';

const KB = 1024;

function utf8Length(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}

/** DynamoDB stores a number in about one byte per two significant digits, plus one. */
function numberSize(text: string): number {
  const digits = text
    .replace(/^-/, '')
    .replace(/[eE].*$/, '')
    .replace('.', '')
    .replace(/^0+/, '')
    .replace(/0+$/, '');
  return Math.ceil(Math.max(digits.length, 1) / 2) + 1;
}

function binaryLength(value: Uint8Array | string): number {
  return typeof value === 'string' ? utf8Length(value) : value.byteLength;
}

/** The size DynamoDB bills for one attribute value, by the rules in its developer guide. */
export function attributeValueSize(value: AttributeValue): number {
  if (value.S !== undefined) return utf8Length(value.S);
  if (value.N !== undefined) return numberSize(value.N);
  if (value.B !== undefined) return binaryLength(value.B);
  if (value.BOOL !== undefined || value.NULL !== undefined) return 1;
  if (value.SS !== undefined) return value.SS.reduce((sum, s) => sum + utf8Length(s), 0);
  if (value.NS !== undefined) return value.NS.reduce((sum, n) => sum + numberSize(n), 0);
  if (value.BS !== undefined) return value.BS.reduce((sum, b) => sum + binaryLength(b), 0);
  if (value.L !== undefined) return 3 + value.L.reduce((sum, element) => sum + 1 + attributeValueSize(element), 0);
  if (value.M !== undefined) return 3 + Object.values(value.M).length + itemSize(value.M);
  return 0;
}

/** Bytes of a marshalled item: attribute names plus values. */
export function itemSize(item: Record<string, AttributeValue>): number {
  let size = 0;
  for (const [name, value] of Object.entries(item)) size += utf8Length(name) + attributeValueSize(value);
  return size;
}

/** A standard write costs one unit per started KB. */
export function writeUnitsForSize(bytes: number): number {
  return Math.max(1, Math.ceil(bytes / KB));
}

/** A transactional write costs two units per started KB of each item. */
export function transactionalWriteUnitsForSize(bytes: number): number {
  return 2 * writeUnitsForSize(bytes);
}
