// Whether a recomputed recommendation's list rows are written again: only when what the lists show or sort by moved past the workspace's dead band.
import { type CatalogueRow, catalogueRow } from './catalogue.ts';
import type { Recommendation } from './schema.ts';

/**
 * The dead band of the lists, in percent, when the workspace sets none: a recommended price or an expected impact that
 * moved by no more than this (or one minor unit, whichever is larger) leaves the product's list rows as they are.
 */
export const DEFAULT_LIST_DEAD_BAND_PCT = 0.5;

/** JSON with its keys sorted: a stored row and a fresh one list their fields in different orders. */
function canonical(record: Record<string, unknown>): string {
  return JSON.stringify(Object.fromEntries(Object.entries(record).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))));
}

/** Whether a figure moved no further than the band: a share of where it was, or one minor unit. */
export function withinBand(before: number | undefined, after: number | undefined, bandPct: number): boolean {
  if (before === undefined || after === undefined) return before === after;
  return Math.abs(after - before) <= Math.max(1, (Math.abs(before) * bandPct) / 100);
}

/** A row's facts that are not figures: any change of them is shown at once. */
function rowFacts(row: CatalogueRow): string {
  const { recommendedPriceCents: _price, changePct: _change, expectedMarginChangeCents: _impact, ...facts } = row;
  return canonical({ ...facts, warnings: facts.warnings?.join(',') });
}

/**
 * Whether `fresh` must be written to the lists over the row they hold (`listed`, undefined when there is none). They
 * follow at once a change of SKU, name, category, currency, current price, confidence, status or warnings, and a move
 * of the recommended price or the expected impact (the lists' sort keys) past the band. Measured against the row as
 * listed, not the last recommendation stored, so that moves inside the band cannot add up to more than it.
 */
export function listMoved(listed: CatalogueRow | undefined, fresh: Recommendation, bandPct: number): boolean {
  if (listed === undefined) return true;
  const after = catalogueRow(fresh);
  return !(
    rowFacts(listed) === rowFacts(after) &&
    withinBand(listed.recommendedPriceCents, after.recommendedPriceCents, bandPct) &&
    withinBand(listed.expectedMarginChangeCents, after.expectedMarginChangeCents, bandPct)
  );
}

/** The catalogue row a stored list row holds: the fields catalogueRow writes, nothing of the keys or the search text. */
export function listedRow(item: Record<string, unknown>): CatalogueRow {
  const field = <T>(name: string): T | undefined => (item[name] === undefined || item[name] === null ? undefined : (item[name] as T));
  const optional = <T>(name: string) => (field<T>(name) === undefined ? {} : { [name]: field<T>(name) });
  return {
    sku: String(item.sku),
    ...optional<string>('name'),
    ...optional<string>('category'),
    currency: String(item.currency),
    currentPriceCents: Number(item.currentPriceCents),
    ...optional<number>('recommendedPriceCents'),
    changePct: field<number>('changePct') ?? null,
    ...optional<'high' | 'medium' | 'low'>('confidence'),
    ...optional<number>('expectedMarginChangeCents'),
    ...optional<string[]>('warnings'),
  };
}
