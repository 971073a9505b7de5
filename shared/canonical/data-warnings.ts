// Data warnings: a product whose batch moved its cost or current price too far, from its last values or from its recent order lines, or left its price below cost, is held until the data is checked.
import * as v from 'valibot';
import { formatMinorUnits } from '#shared/pricing/currency.ts';
import type { HistoryLine } from '#shared/pricing/model.ts';

/**
 * `cost_jump`: the cost moved past the factor, either way, from the value it was last in line at, or lies past it from
 * the unit cost of the product's recent order lines. `price_jump`: the same for the current price and the unit price
 * the recent order lines sold at. `price_below_cost`: the current price is under the cost.
 */
export const dataWarningCodes = ['cost_jump', 'price_jump', 'price_below_cost'] as const;
export type DataWarningCode = (typeof dataWarningCodes)[number];

export const DataWarningSchema = v.strictObject({
  code: v.picklist(dataWarningCodes),
  /** Names both values, in major units with the currency. */
  message: v.string(),
});
export type DataWarning = v.InferOutput<typeof DataWarningSchema>;

/** The service's default factor: a move to more than 3 times, or less than a third of, the value it was in line at. */
export const DEFAULT_DATA_WARNING_FACTOR = 3;

/** What a product's values are judged against: the values last in line, in their currency. */
export interface WarningBasis {
  readonly costCents: number;
  readonly currentPriceCents: number;
  /** The product's currency ('' for none, the workspace's base currency): values in another currency do not compare. */
  readonly currency: string;
}

/**
 * What the product's recent order lines say its cost and price are: the medians of the unit cost and of the unit
 * price sold at, over its last order lines in one currency, as its last bands job found them. A median, so that one
 * mistyped order line moves neither.
 */
export const OrderLinesReferenceSchema = v.object({
  /** The order documents' currency, '' for the workspace's base currency. */
  currency: v.string(),
  /** 0 when none of the lines carries a cost. */
  costCents: v.number(),
  priceCents: v.number(),
  lines: v.number(),
});
export type OrderLinesReference = v.InferOutput<typeof OrderLinesReferenceSchema>;

/** The most recent order lines of a product its reference is taken over. */
export const ORDER_LINES_REFERENCE_SIZE = 20;

function median(values: readonly number[]): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[middle] as number)
    : Math.round(((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2);
}

/**
 * A product's reference from its history lines: its last order lines (by sale date, then document id), in the currency
 * of the newest, up to ORDER_LINES_REFERENCE_SIZE of them. Undefined for a product no order line names.
 */
export function orderLinesReference(lines: readonly (HistoryLine & { readonly currency?: string })[]): OrderLinesReference | undefined {
  const orders = lines
    .filter((line) => line.kind === 'order' && line.priceCents > 0)
    .sort((a, b) => b.atMs - a.atMs || (a.documentId < b.documentId ? 1 : a.documentId > b.documentId ? -1 : 0));
  const newest = orders[0];
  if (!newest) return undefined;
  const currencyOf = (line: { readonly currency?: string }) => line.currency ?? '';
  const recent = orders.filter((line) => currencyOf(line) === currencyOf(newest)).slice(0, ORDER_LINES_REFERENCE_SIZE);
  return {
    currency: currencyOf(newest),
    costCents: median(recent.flatMap((line) => (line.costCents > 0 ? [line.costCents] : []))),
    priceCents: median(recent.map((line) => line.priceCents)),
    lines: recent.length,
  };
}

/** Each product's reference from a category's history lines, for the products any order line names. */
export function orderLinesReferences(lines: readonly (HistoryLine & { readonly currency?: string })[]): Map<string, OrderLinesReference> {
  const bySku = new Map<string, (HistoryLine & { readonly currency?: string })[]>();
  for (const line of lines) {
    if (line.kind !== 'order') continue;
    const list = bySku.get(line.productSku) ?? [];
    list.push(line);
    bySku.set(line.productSku, list);
  }
  const references = new Map<string, OrderLinesReference>();
  for (const [sku, list] of bySku) {
    const reference = orderLinesReference(list);
    if (reference) references.set(sku, reference);
  }
  return references;
}

/** The product as stored before the batch: its values, and the basis it carries while it is held. */
export interface StoredProductValues extends WarningBasis {
  readonly basis?: WarningBasis;
  /** Its recent order lines' cost and price, kept on the product by its last bands job; absent before any. */
  readonly orderLines?: OrderLinesReference;
  /** The price an applied write-back set, kept until the next batch replaces the item: a person approved it. */
  readonly writtenBackPriceCents?: number;
}

export interface ProductValues {
  readonly costCents: number;
  readonly currentPriceCents: number;
  readonly currency?: string | undefined;
}

export interface WarningJudgement {
  readonly warnings: DataWarning[];
  /** Kept on the product while a jump holds it: what the next batch's values are judged against. Absent when none holds it. */
  readonly basis?: WarningBasis;
}

/** Whether two amounts lie more than `factor` apart, either way. A 0 (no cost, no price) has no ratio to judge. */
function jumps(value: number, from: number, factor: number): boolean {
  if (value <= 0 || from <= 0) return false;
  return value > from * factor || from > value * factor;
}

function shown(cents: number, currency: string): string {
  return `${formatMinorUnits(cents, currency)} ${currency}`;
}

function ratioText(value: number, from: number): string {
  const ratio = value / from;
  return ratio >= 1 ? `${Number(ratio.toFixed(1))} times` : `1/${Number((1 / ratio).toFixed(1))} of`;
}

/** How each judged value's warning reads: what it is, and what it is judged against. */
const judgedValues = {
  costCents: {
    code: 'cost_jump',
    label: 'cost',
    inLineAt: 'the cost it was in line at',
    onOrders: (lines: number) => (lines === 1 ? 'the cost on its last order line' : `the median cost on its last ${lines} order lines`),
  },
  currentPriceCents: {
    code: 'price_jump',
    label: 'current price',
    inLineAt: 'the price it was in line at',
    onOrders: (lines: number) =>
      lines === 1 ? 'the price its last order line sold at' : `the median price its last ${lines} order lines sold at`,
  },
} as const;

/** What one value is judged against: the value it was in line at, and its recent order lines' (either may be unknown). */
interface JudgedAgainst {
  readonly inLine: number | undefined;
  readonly orders: { readonly value: number; readonly lines: number } | undefined;
}

/** A value's warning, if it lies past the factor from the value it was in line at or, failing that, from its order lines. */
function judgeValue(field: keyof typeof judgedValues, value: number, against: JudgedAgainst, factor: number, currency: string) {
  const rule = judgedValues[field];
  const from =
    against.inLine !== undefined && jumps(value, against.inLine, factor)
      ? { value: against.inLine, text: rule.inLineAt }
      : against.orders && jumps(value, against.orders.value, factor)
        ? { value: against.orders.value, text: rule.onOrders(against.orders.lines) }
        : undefined;
  if (!from) return undefined;
  const message = `${rule.label} ${shown(value, currency)} is ${ratioText(value, from.value)} ${from.text}, ${shown(from.value, currency)}: past the ${factor}× a batch may move it without a check.`;
  return { code: rule.code, message } satisfies DataWarning;
}

/**
 * Judges a product's new values. Each is compared with the stored product's basis when it carries one (the values last
 * in line, kept while a jump holds it), else with the stored values; so a later batch that brings a value back in line
 * clears its warning, and one that repeats the jump keeps it. A first record of a product has nothing to jump from;
 * a product whose currency changed neither. `baseCurrency` names the amounts of a product that names no currency.
 * A value in line with those is still held when it lies past the factor from its recent order lines (in the same
 * currency): a drift over several batches, or a value first set where there was none, shows there. A current price an
 * approved write-back set is in line with both: a person confirmed it.
 */
export function judgeProductData(
  next: ProductValues,
  stored: StoredProductValues | undefined,
  factor: number,
  baseCurrency: string,
): WarningJudgement {
  const currency = next.currency || baseCurrency;
  const held = stored?.basis ?? stored;
  const approved = stored?.writtenBackPriceCents !== undefined && stored.writtenBackPriceCents === stored.currentPriceCents;
  const from = held && approved ? { ...held, currentPriceCents: stored.currentPriceCents } : held;
  const inLine = from !== undefined && from.currency === (next.currency ?? '') ? from : undefined;
  const orders = stored?.orderLines && (stored.orderLines.currency || baseCurrency) === currency ? stored.orderLines : undefined;
  const approvedNow = approved && next.currentPriceCents === stored.currentPriceCents;
  const costWarning = judgeValue(
    'costCents',
    next.costCents,
    { inLine: inLine?.costCents, orders: orders && { value: orders.costCents, lines: orders.lines } },
    factor,
    currency,
  );
  const priceWarning = judgeValue(
    'currentPriceCents',
    next.currentPriceCents,
    { inLine: inLine?.currentPriceCents, orders: orders && !approvedNow ? { value: orders.priceCents, lines: orders.lines } : undefined },
    factor,
    currency,
  );
  const warnings: DataWarning[] = [costWarning, priceWarning].filter((warning) => warning !== undefined);
  if (next.costCents > 0 && next.currentPriceCents > 0 && next.currentPriceCents < next.costCents) {
    warnings.push({
      code: 'price_below_cost',
      message: `current price ${shown(next.currentPriceCents, currency)} is below the cost ${shown(next.costCents, currency)}.`,
    });
  }
  if (!costWarning && !priceWarning) return { warnings };
  // A held value is judged next time against the value before it, in line as far as is known (0 when none was: nothing
  // to jump from), so that a later batch bringing it back clears it rather than jumping from the held one.
  return {
    warnings,
    basis: {
      costCents: costWarning ? (inLine?.costCents ?? 0) : next.costCents,
      currentPriceCents: priceWarning ? (inLine?.currentPriceCents ?? 0) : next.currentPriceCents,
      currency: next.currency ?? '',
    },
  };
}

/** A stored product's order-lines reference, read defensively: one written before references existed has none. */
export function orderLinesOf(item: { readonly orderLines?: unknown }): OrderLinesReference | undefined {
  const parsed = v.safeParse(OrderLinesReferenceSchema, item.orderLines);
  return parsed.success ? parsed.output : undefined;
}

/** The warnings a stored item carries, read defensively: an item written before warnings existed has none. */
export function warningsOf(item: { readonly warnings?: unknown }): DataWarning[] {
  const parsed = v.safeParse(v.array(DataWarningSchema), item.warnings);
  return parsed.success ? parsed.output : [];
}

/** The basis a stored product carries while held, or undefined. */
export function basisOf(item: { readonly warningBasis?: unknown }): WarningBasis | undefined {
  const basis = item.warningBasis as Partial<WarningBasis> | undefined;
  if (typeof basis?.costCents !== 'number' || typeof basis.currentPriceCents !== 'number') return undefined;
  return { costCents: basis.costCents, currentPriceCents: basis.currentPriceCents, currency: String(basis.currency ?? '') };
}
