// Data warnings: a product whose batch moved its cost or current price too far, or left its price below cost, is held until the data is checked.
import * as v from 'valibot';
import { formatMinorUnits } from '#shared/pricing/currency.ts';

/**
 * `cost_jump`: the cost moved past the factor, either way, from the value it was last in line at. `price_jump`: the
 * same for the current price. `price_below_cost`: the current price is under the cost.
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

/** The product as stored before the batch: its values, and the basis it carries while it is held. */
export interface StoredProductValues extends WarningBasis {
  readonly basis?: WarningBasis;
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

/**
 * Judges a product's new values. Each is compared with the stored product's basis when it carries one (the values last
 * in line, kept while a jump holds it), else with the stored values; so a later batch that brings a value back in line
 * clears its warning, and one that repeats the jump keeps it. A first record of a product has nothing to jump from;
 * a product whose currency changed neither. `baseCurrency` names the amounts of a product that names no currency.
 */
export function judgeProductData(
  next: ProductValues,
  stored: StoredProductValues | undefined,
  factor: number,
  baseCurrency: string,
): WarningJudgement {
  const currency = next.currency || baseCurrency;
  const held = stored?.basis ?? stored;
  // A current price an approved write-back set is in line, whatever the basis held: a person confirmed it.
  const from =
    held && stored?.writtenBackPriceCents !== undefined && stored.writtenBackPriceCents === stored.currentPriceCents
      ? { ...held, currentPriceCents: stored.currentPriceCents }
      : held;
  const comparable = from !== undefined && from.currency === (next.currency ?? '');
  const warnings: DataWarning[] = [];
  const costJumps = comparable && jumps(next.costCents, from.costCents, factor);
  const priceJumps = comparable && jumps(next.currentPriceCents, from.currentPriceCents, factor);
  const limit = `past the ${factor}× a batch may move it without a check`;
  if (costJumps) {
    warnings.push({
      code: 'cost_jump',
      message: `cost ${shown(next.costCents, currency)} is ${ratioText(next.costCents, from.costCents)} the cost it was in line at, ${shown(from.costCents, currency)}: ${limit}.`,
    });
  }
  if (priceJumps) {
    warnings.push({
      code: 'price_jump',
      message: `current price ${shown(next.currentPriceCents, currency)} is ${ratioText(next.currentPriceCents, from.currentPriceCents)} the price it was in line at, ${shown(from.currentPriceCents, currency)}: ${limit}.`,
    });
  }
  if (next.costCents > 0 && next.currentPriceCents > 0 && next.currentPriceCents < next.costCents) {
    warnings.push({
      code: 'price_below_cost',
      message: `current price ${shown(next.currentPriceCents, currency)} is below the cost ${shown(next.costCents, currency)}.`,
    });
  }
  if (!costJumps && !priceJumps) return { warnings };
  return {
    warnings,
    basis: {
      costCents: costJumps ? from.costCents : next.costCents,
      currentPriceCents: priceJumps ? from.currentPriceCents : next.currentPriceCents,
      currency: next.currency ?? '',
    },
  };
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
