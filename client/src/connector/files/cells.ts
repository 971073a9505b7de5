// CSV cells as a record's fields: numbers and booleans read from text, `attributes.NAME` columns gathered.

const NUMBER_TEXT = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

function isNumberField(name: string): boolean {
  return name.endsWith('Cents') || name === 'quantity' || name === 'exchangeRate' || name === 'stockOnHand';
}

/**
 * A cell as the record's field holds it. Text that is not a number (or boolean) is passed on as text, so that the
 * service's schema refuses it with the field's own message rather than the loader guessing.
 */
export function cellValue(name: string, text: string): unknown {
  const trimmed = text.trim();
  if (isNumberField(name) && NUMBER_TEXT.test(trimmed)) return Number(trimmed);
  if ((name === 'isActive' || name === 'inStock') && /^(true|false)$/i.test(trimmed)) return trimmed.toLowerCase() === 'true';
  return text;
}

export const ATTRIBUTE_PREFIX = 'attributes.';

/** The fields of cells: empty cells left out, `attributes.NAME` columns gathered into `attributes` (as text). */
export function fieldsOf(cells: Iterable<[string, string]>): Record<string, unknown> {
  const record: Record<string, unknown> = {};
  let attributes: Record<string, string> | undefined;
  for (const [name, text] of cells) {
    if (text === '') continue;
    if (name.startsWith(ATTRIBUTE_PREFIX)) {
      attributes ??= {};
      attributes[name.slice(ATTRIBUTE_PREFIX.length)] = text;
    } else {
      record[name] = cellValue(name, text);
    }
  }
  if (attributes) record.attributes = attributes;
  return record;
}
