// Recomputing bands: after a drain, for the categories its batch touched; on demand, for every category of a workspace.
import { randomUUID } from 'node:crypto';
import { orderLinesReferences } from '#shared/canonical/data-warnings.ts';
import { combineBands, computeCategoryBands, poolWinModels } from '#shared/pricing/bands.ts';
import { recentQuoteLines } from '#shared/pricing/quote-rate.ts';
import type { PricingSettings } from '#shared/pricing/settings.ts';
import { segmentWinLifts } from '#shared/pricing/win-lift.ts';
import { releaseBandsLease, takeBandsLease } from './lease.ts';
import { categoryListMarkups, keepMarkups, readKeptMarkups } from './list-markups.ts';
import {
  type BandWrites,
  readAllCategoryBands,
  readCategoryLines,
  writeCategoryBands,
  writePooledWinModels,
  writeWorkspaceBand,
} from './repository.ts';

/** What a drained batch touched, as its touched lists hold it: products, customers and JSON-array node ids. */
export interface Touched {
  readonly products: ReadonlySet<string>;
  readonly customers: ReadonlySet<string>;
  readonly nodes: ReadonlySet<string>;
}

/** The categories to recompute, in a fixed order so that a recompute can resume after the last one it finished. */
export interface BandScope {
  readonly categories: readonly string[];
  readonly writes: BandWrites;
  /** Products whose list price or cost may have moved since the last run: their markups are read again. */
  readonly listPriceMayHaveMoved: (sku: string) => boolean;
}

const CATEGORIES_AT_ONCE = 2;

const pairKey = (customer: string, sku: string) => JSON.stringify([customer, sku]);

/** A category in which no line was added or removed. */
const NO_LINES_TOUCHED = { products: new Set<string>(), customers: new Set<string>() } as const;

/**
 * A batch's scope: every category one of its lines or products is in. Within those, only the bands of products and
 * customer × SKU pairs it touched are written; bands elsewhere only change as their evidence ages, and ageing scales
 * every weight of a node alike, which moves neither its percentiles nor its n_eff.
 */
export function touchedScope(touched: Touched): BandScope {
  const categories = new Set<string>();
  const products = new Set(touched.products);
  const pairs = new Set<string>();
  const lines = new Map<string, { products: Set<string>; customers: Set<string> }>();
  const linesIn = (category: string) => {
    let entry = lines.get(category);
    if (!entry) {
      entry = { products: new Set(), customers: new Set() };
      lines.set(category, entry);
    }
    return entry;
  };
  const catalogue = new Set<string>();
  for (const text of touched.nodes) {
    const node = JSON.parse(text) as [string, string, string?];
    if (node[0] === 'category') categories.add(node[1]);
    else if (node[0] === 'productRecord') catalogue.add(node[1]);
    else if (node[2] === undefined) continue;
    else if (node[0] === 'segmentCategory') categories.add(node[2]);
    else if (node[0] === 'segmentSku') products.add(node[2]);
    else if (node[0] === 'customerSku') pairs.add(pairKey(node[1], node[2]));
    else if (node[0] === 'categorySku') linesIn(node[1]).products.add(node[2]);
    else if (node[0] === 'categoryCustomer') linesIn(node[1]).customers.add(node[2]);
  }
  return {
    categories: [...categories].sort(),
    writes: {
      product: (sku) => products.has(sku),
      // A customer whose lines in the category changed is rewritten whole, so that a SKU it no longer buys there goes.
      customer: (customer, skus, category) =>
        (lines.get(category)?.customers.has(customer) ?? false) || [...skus.keys()].some((sku) => pairs.has(pairKey(customer, sku))),
      linesTouchedIn: (category) => lines.get(category) ?? NO_LINES_TOUCHED,
    },
    listPriceMayHaveMoved: (sku) => catalogue.has(sku),
  };
}

/**
 * A full rebuild writes every band of every category known to the workspace. It removes none: the bands a product or
 * customer lost along with its lines go when the batch that removed the lines is recomputed.
 */
export async function rebuildScope(workspaceId: string): Promise<BandScope> {
  const stored = await readAllCategoryBands(workspaceId);
  return {
    categories: stored.map((entry) => entry.category).sort(),
    writes: { product: () => true, customer: () => true, linesTouchedIn: () => NO_LINES_TOUCHED },
    listPriceMayHaveMoved: () => true,
  };
}

export interface RecomputeProgress {
  /** Categories after this one are still to do; undefined to start from the first. */
  readonly after?: string | undefined;
  /** Asked before each category: true stops the recompute there, to be resumed later. */
  readonly shouldStop?: () => boolean;
  /** Called after each category is written, to checkpoint it. */
  readonly afterCategory?: (category: string) => Promise<void>;
}

export interface RecomputeResult {
  readonly done: boolean;
  readonly categories: number;
  readonly lines: number;
  readonly products: number;
  readonly customers: number;
  /** The products with history in the categories this call recomputed: their prices may have moved. */
  readonly pricedSkus: readonly string[];
}

/** One category's bands from its history, written with its products' order-lines references and quote rates, and its kept list markups. */
async function recomputeCategory(workspaceId: string, category: string, settings: PricingSettings, scope: BandScope, now: Date) {
  const [lines, kept] = await Promise.all([
    readCategoryLines(workspaceId, category, now.getTime()),
    readKeptMarkups(workspaceId, category),
  ]);
  const skus = [...new Set(lines.map((line) => line.productSku))];
  const listed = await categoryListMarkups(workspaceId, category, skus, kept, scope.listPriceMayHaveMoved, now.getTime());
  const bands = computeCategoryBands(lines, settings, now.getTime(), listed.markups);
  const [written] = await Promise.all([
    writeCategoryBands(
      workspaceId,
      category,
      { bands, orderLines: orderLinesReferences(lines), recentQuotes: recentQuoteLines(lines, now.getTime()) },
      scope.writes,
      now.toISOString(),
    ),
    keepMarkups(listed.keep),
  ]);
  return { category, lines: lines.length, skus: [...bands.segmentSkus.keys()], ...written };
}

/** Recomputes the scope's categories, then the workspace band from all categories; stops early when asked to. */
export async function recomputeBands(
  workspaceId: string,
  settings: PricingSettings,
  scope: BandScope,
  now: Date,
  progress: RecomputeProgress = {},
): Promise<RecomputeResult> {
  const result = { done: false, categories: 0, lines: 0, products: 0, customers: 0, pricedSkus: [] as string[] };
  const remaining = scope.categories.filter((category) => progress.after === undefined || category > progress.after);
  // Two categories at a time: one's history is read while the other's bands are written. Checkpoints stay in order.
  for (let start = 0; start < remaining.length; start += CATEGORIES_AT_ONCE) {
    if (progress.shouldStop?.()) return result;
    const group = remaining.slice(start, start + CATEGORIES_AT_ONCE);
    const done = await Promise.all(group.map((category) => recomputeCategory(workspaceId, category, settings, scope, now)));
    for (const written of done) {
      result.categories += 1;
      result.lines += written.lines;
      result.products += written.products;
      result.customers += written.customers;
      result.pricedSkus.push(...written.skus);
      await progress.afterCategory?.(written.category);
    }
  }
  if (scope.categories.length > 0) {
    const at = now.toISOString();
    const stored = await readAllCategoryBands(workspaceId);
    const parts = stored.flatMap((entry) => (entry.band ? [entry.band] : []));
    // The categories' slopes are pooled once all of them are fitted: the read that combines the workspace band serves.
    const pooled = poolWinModels(new Map(stored.map((entry) => [entry.category, entry.segments])), settings.winModelMinQuotes);
    // The lifts read every category's segments as they stand once pooled: the changed ones as pooling left them.
    const lifts = segmentWinLifts(new Map(stored.map((entry) => [entry.category, pooled.get(entry.category) ?? entry.segments])), settings);
    await Promise.all([
      writeWorkspaceBand(workspaceId, combineBands(parts, now.getTime(), settings), at, lifts),
      writePooledWinModels(
        workspaceId,
        new Map(
          stored.flatMap((entry) => {
            const segments = pooled.get(entry.category);
            return segments ? [[entry.category, { ...entry, segments }] as const] : [];
          }),
        ),
        at,
      ),
    ]);
  }
  return { ...result, done: true };
}

/** A rebuild holds the workspace's bands lease this long at a time, renewing it every third of that. */
const REBUILD_LEASE_MS = 5 * 60_000;

/**
 * Recomputes every band of a workspace under its bands lease, which it renews on a timer, however long a category
 * takes: a bands job that arrives meanwhile waits its turn. Throws BandsLeaseHeld while another job holds the lease,
 * and stops at the next category if a renewal ever fails.
 */
export async function rebuildBands(workspaceId: string, settings: PricingSettings, now: Date): Promise<RecomputeResult> {
  const owner = randomUUID();
  await takeBandsLease(workspaceId, owner, Date.now() + REBUILD_LEASE_MS, Date.now());
  let lost: unknown;
  const renewal = setInterval(() => {
    takeBandsLease(workspaceId, owner, Date.now() + REBUILD_LEASE_MS, Date.now()).catch((error: unknown) => {
      lost ??= error;
    });
  }, REBUILD_LEASE_MS / 3);
  try {
    return await recomputeBands(workspaceId, settings, await rebuildScope(workspaceId), now, {
      afterCategory: async () => {
        if (lost) throw lost;
      },
    });
  } finally {
    clearInterval(renewal);
    await releaseBandsLease(workspaceId, owner);
  }
}
