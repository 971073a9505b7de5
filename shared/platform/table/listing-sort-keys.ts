// The sort keys of the console's recommendation orderings on the listing index (listingKeys.recommendationRow puts them there): by SKU as a person orders them, or by a number then the SKU, with the rows without a number last. Built and read back only here.

/** SKUs as a person orders them (CLIP-2 before CLIP-10), as text that sorts so: each run of digits led by its length. */
export function skuSortKey(sku: string): string {
  const natural = sku.toLowerCase().replace(/\d+/g, (digits) => {
    const significant = digits.replace(/^0+(?=\d)/, '');
    return `${String(Math.min(significant.length, 99)).padStart(2, '0')}${significant}`;
  });
  return `${natural}#${sku}`;
}

/** Offsets a whole number so that every value this ordering holds is a non-negative integer of NUMBER_DIGITS digits. */
const NUMBER_OFFSET = 1e15;
const NUMBER_DIGITS = 16;
const NUMBER_PREFIX = 'C';
/** Rows without a number to sort by (unpriced, no current price, no estimate) sort after every number: 'N' > 'C'. */
export const NO_NUMBER_PREFIX = 'N#';

/**
 * A row's key in an ordering by a whole number (a change in hundredths of a point, an impact in ten-thousandths),
 * clamped to what the digits hold; rows of equal number sort by SKU.
 */
export function numberSortKey(value: number, sku: string): string {
  const offset = Math.min(Math.max(value + NUMBER_OFFSET, 0), 2 * NUMBER_OFFSET - 1);
  return `${NUMBER_PREFIX}${String(offset).padStart(NUMBER_DIGITS, '0')}#${skuSortKey(sku)}`;
}

/** A row's key in an ordering by a number when it has none: after every number, by SKU. */
export function noNumberSortKey(sku: string): string {
  return `${NO_NUMBER_PREFIX}${skuSortKey(sku)}`;
}

const numberKeyPattern = new RegExp(`^${NUMBER_PREFIX}(\\d{${NUMBER_DIGITS}})#`);

/**
 * A key of an ordering by a number read back: the number, and the SKU key that follows it; undefined for a row
 * without a number, or a text that is no such key (a cursor may carry anything).
 */
export function numberSortKeyParts(sortKey: string): { value: number; skuKey: string } | undefined {
  const match = numberKeyPattern.exec(sortKey);
  if (!match?.[1]) return undefined;
  return { value: Number(match[1]) - NUMBER_OFFSET, skuKey: sortKey.slice(match[0].length) };
}
