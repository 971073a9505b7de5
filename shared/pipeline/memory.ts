// What a drain remembers between chunks, and the lookups that fill it: the categories and segments lines are keyed by.
import { BoundedMap } from '#platform/caches.ts';
import type { Provenance } from '#shared/canonical/items.ts';
import { readCategories, readSegments } from '#shared/canonical/repository.ts';
import { DEFAULT_DATA_WARNING_FACTOR } from '#shared/canonical/data-warnings.ts';
import { pricingSettings } from '#shared/pricing/settings.ts';
import { getWorkspace } from '#shared/workspaces/repository.ts';

/**
 * What a drain remembers between chunks: categories and segments it wrote or read, null for one that does not exist.
 * Products and customers are staged before the quotes and orders that name them, so most lookups are hits.
 */
export class DrainMemory {
  readonly categories = new BoundedMap<string, string | null>(50_000);
  readonly segments = new BoundedMap<string, string | null>(50_000);
  /** The workspace's adherence band, read once per drain invocation. */
  bandPct: Promise<number> | undefined;
  /** The workspace's data-warning factor and base currency, read once per drain invocation. */
  warningRules: Promise<DataWarningRules> | undefined;
  /** The batch's checkpoint as this attempt last saved it: the chunks at or before it are folded. */
  checkpoint: string | undefined;
  /** Other batches' checkpoints once drained or failed (null for a batch no longer stored), by batch id. */
  readonly finishedCursors = new BoundedMap<string, string | null>(10_000);

  constructor(checkpoint?: string) {
    this.checkpoint = checkpoint;
  }
}

export function adherenceBandPct(from: Provenance, memory: DrainMemory): Promise<number> {
  memory.bandPct ??= getWorkspace(from.workspaceId).then((workspace) => pricingSettings(workspace?.pricing).adherenceBandPct);
  return memory.bandPct;
}

/** What a product's data warnings are judged by: the workspace's factor, and the currency of a product that names none. */
export interface DataWarningRules {
  readonly factor: number;
  readonly baseCurrency: string;
}

export function dataWarningRules(from: Provenance, memory: DrainMemory): Promise<DataWarningRules> {
  memory.warningRules ??= getWorkspace(from.workspaceId).then((workspace) => ({
    factor: pricingSettings(workspace?.pricing).dataWarningFactor ?? DEFAULT_DATA_WARNING_FACTOR,
    baseCurrency: workspace?.baseCurrency ?? 'USD',
  }));
  return memory.warningRules;
}

/** The last record for each key, in the order the keys were first seen. */
export function lastByKey<T>(records: readonly T[], keyOf: (record: T) => string): T[] {
  const latest = new Map<string, T>();
  for (const record of records) latest.set(keyOf(record), record);
  return [...latest.values()];
}

export async function fillCategories(from: Provenance, skus: Iterable<string>, memory: DrainMemory): Promise<void> {
  const missing = [...new Set(skus)].filter((sku) => !memory.categories.has(sku));
  if (missing.length === 0) return;
  const found = await readCategories(from.workspaceId, missing);
  for (const sku of missing) memory.categories.set(sku, found.get(sku) ?? null);
}

export async function fillSegments(from: Provenance, customerIds: Iterable<string>, memory: DrainMemory): Promise<void> {
  const missing = [...new Set(customerIds)].filter((id) => !memory.segments.has(id));
  if (missing.length === 0) return;
  const found = await readSegments(from.workspaceId, missing);
  for (const id of missing) memory.segments.set(id, found.get(id) ?? null);
}
