// Recommendation items: computed for a set of products from one pricing snapshot, stored beside each product, read by the overview.
import * as v from 'valibot';
import { getItems, putItems, type TableItem } from '#platform/table/bulk.ts';
import { newId } from '#platform/ids.ts';
import { pricingSettings } from '#shared/pricing/settings.ts';
import { readPricingSnapshot } from '#shared/prices/inputs.ts';
import { getItem } from '#platform/table/commands.ts';
import { packJson, unpackJson } from '#platform/table/packed.ts';
import { keys } from '#platform/table/keys.ts';
import type { Workspace } from '#shared/workspaces/schema.ts';
import type { CatalogueRow } from './catalogue.ts';
import { DEFAULT_LIST_DEAD_BAND_PCT, listedRow, listMoved } from './list-moves.ts';
import { noteCategories, recommendationRows } from './listing.ts';
import { recommendProduct } from './recommend.ts';
import { type Recommendation, RecommendationSchema } from './schema.ts';

/** Products per snapshot: one round of BatchGetItems for them, and their items written before the next round is read. */
export const RECOMMENDATIONS_PER_PAGE = 400;

/**
 * The recommendations of these products as they stand now, read in one snapshot. `currentPrices` stands in for the
 * stored current price of a product whose new one is being written in the same step (an applied write-back).
 */
export async function computeRecommendations(
  workspace: Pick<Workspace, 'workspaceId' | 'baseCurrency' | 'pricing'>,
  skus: readonly string[],
  nowMs: number,
  currentPrices: ReadonlyMap<string, number> = new Map(),
): Promise<Recommendation[]> {
  if (skus.length === 0) return [];
  const snapshot = await readPricingSnapshot(
    workspace.workspaceId,
    skus.map((sku) => ({ productSku: sku, quantity: 1 })),
    workspace.baseCurrency,
    nowMs,
  );
  const context = {
    baseCurrency: workspace.baseCurrency,
    settings: pricingSettings(workspace.pricing),
    nowMs,
    decisionId: () => newId('pd'),
  };
  const recommendations: Recommendation[] = [];
  for (const sku of skus) {
    const product = snapshot.products.get(sku);
    if (!product) continue;
    const current = currentPrices.get(sku);
    const recommendation = recommendProduct(
      current === undefined ? product : { ...product, currentPriceCents: current },
      snapshot,
      context,
    );
    // The data as it stands decides, whatever the engine made of it: a product held for a check is shown as such.
    recommendations.push(product.warnings?.length ? { ...recommendation, warnings: product.warnings } : recommendation);
  }
  return recommendations;
}

/**
 * A recommendation's item: the recommendation packed whole (platform/table/packed.ts). Its fields as attributes made an
 * item of 1.5–3 KB, two or three write units on every store; packed it is about a third of that. Nothing reads a
 * field of it in the table: the lists read the rows, and every other reader takes the whole recommendation.
 */
export function recommendationItem(workspaceId: string, recommendation: Recommendation): Record<string, unknown> {
  return { ...keys.recommendation(workspaceId, recommendation.sku), type: 'recommendation', packed: packJson(recommendation) };
}

/** A recommendation item as either layout keeps it: packed whole, or (written before that) its fields as attributes. */
export function recommendationOfItem(item: TableItem): Recommendation {
  return v.parse(RecommendationSchema, item.packed instanceof Uint8Array ? unpackJson(item.packed) : item);
}

/** A recommendation and its rows in the console's lists, written together whenever it is stored. */
export function recommendationItems(workspaceId: string, recommendation: Recommendation): Record<string, unknown>[] {
  return [recommendationItem(workspaceId, recommendation), ...recommendationRows(workspaceId, recommendation)];
}

/** Stores recommendations with their rows, and names their categories in the workspace's category list. */
export async function storeRecommendations(workspaceId: string, recommendations: readonly Recommendation[]): Promise<void> {
  await putItems(recommendations.flatMap((recommendation) => recommendationItems(workspaceId, recommendation)));
  await noteCategories(
    workspaceId,
    recommendations.flatMap((recommendation) => (recommendation.category === undefined ? [] : [recommendation.category])),
  );
}

/** Each product's row in the list by SKU as it stands: what its rows show, written last of them (the marker). */
async function listedRows(workspaceId: string, skus: readonly string[]): Promise<Map<string, CatalogueRow>> {
  const items = await getItems(
    skus.map((sku) => keys.recommendationRow(workspaceId, sku, 'sku')),
    { consistent: true },
  );
  return new Map(items.map((item) => [String(item.sku), listedRow(item)]));
}

/**
 * Stores recommendations, each item always, a product's list rows only when what they show moved past the
 * workspace's dead band (list-moves.ts). The row by SKU is written after the product's other rows: a run cut between
 * them leaves it as it was, so the next run sees the rows as unwritten and writes them all again.
 */
export async function storeMovedRecommendations(
  workspace: Pick<Workspace, 'workspaceId' | 'pricing'>,
  recommendations: readonly Recommendation[],
): Promise<{ listed: number }> {
  const { workspaceId } = workspace;
  const bandPct = pricingSettings(workspace.pricing).listDeadBandPct ?? DEFAULT_LIST_DEAD_BAND_PCT;
  const listed = await listedRows(
    workspaceId,
    recommendations.map((recommendation) => recommendation.sku),
  );
  const moved = recommendations.filter((recommendation) => listMoved(listed.get(recommendation.sku), recommendation, bandPct));
  const isMarker = (row: Record<string, unknown>, sku: string) => {
    const marker = keys.recommendationRow(workspaceId, sku, 'sku');
    return row.PK === marker.PK && row.SK === marker.SK;
  };
  const rows = moved.map((recommendation) => ({ sku: recommendation.sku, rows: recommendationRows(workspaceId, recommendation) }));
  await putItems(rows.flatMap(({ sku, rows: all }) => all.filter((row) => !isMarker(row, sku))));
  await putItems([
    ...rows.flatMap(({ sku, rows: all }) => all.filter((row) => isMarker(row, sku))),
    ...recommendations.map((recommendation) => recommendationItem(workspaceId, recommendation)),
  ]);
  await noteCategories(
    workspaceId,
    moved.flatMap((recommendation) => (recommendation.category === undefined ? [] : [recommendation.category])),
  );
  return { listed: moved.length };
}

/**
 * Recomputes and stores the recommendations of these products, a page at a time; `shouldStop` is asked between pages.
 * The lists are written again only where they moved (storeMovedRecommendations), unless `rewrite` asks for every row,
 * as a rebuild or a backfill of the lists does.
 */
export async function refreshRecommendations(
  workspace: Pick<Workspace, 'workspaceId' | 'baseCurrency' | 'pricing'>,
  skus: readonly string[],
  nowMs: number,
  progress: { shouldStop?: () => boolean; afterPage?: (lastSku: string) => Promise<void>; pageSize?: number; rewrite?: boolean } = {},
): Promise<{ done: boolean; products: number; listed: number }> {
  const pageSize = progress.pageSize ?? RECOMMENDATIONS_PER_PAGE;
  let products = 0;
  let listed = 0;
  for (let start = 0; start < skus.length; start += pageSize) {
    if (progress.shouldStop?.()) return { done: false, products, listed };
    const page = skus.slice(start, start + pageSize);
    const recommendations = await computeRecommendations(workspace, page, nowMs);
    if (progress.rewrite) {
      await storeRecommendations(workspace.workspaceId, recommendations);
      listed += recommendations.length;
    } else {
      listed += (await storeMovedRecommendations(workspace, recommendations)).listed;
    }
    products += recommendations.length;
    await progress.afterPage?.(page[page.length - 1] as string);
  }
  return { done: true, products, listed };
}

/** The overview's one read. Strongly consistent for an approval, which must check the bounds as they are now. */
async function getRecommendation(workspaceId: string, sku: string, consistent = false): Promise<Recommendation | undefined> {
  const item = await getItem({ Key: keys.recommendation(workspaceId, sku), ConsistentRead: consistent });
  return item ? recommendationOfItem(item) : undefined;
}

/**
 * A product's recommendation, computed and stored on the spot when it has none yet: a product drained before
 * recommendations were kept, or whose first bands job has not ended. Costs the extra reads only then.
 */
export async function findRecommendation(
  workspace: Pick<Workspace, 'workspaceId' | 'baseCurrency' | 'pricing'>,
  sku: string,
  nowMs: number,
  consistent = false,
): Promise<Recommendation | undefined> {
  const stored = await getRecommendation(workspace.workspaceId, sku, consistent);
  if (stored) return stored;
  const [computed] = await computeRecommendations(workspace, [sku], nowMs);
  if (computed) await storeRecommendations(workspace.workspaceId, [computed]);
  return computed;
}

/** What an approval is checked against: the price and every bound, in one currency, and the data warnings it must confirm. */
function sameTerms(a: Recommendation, b: Recommendation): boolean {
  if (a.status !== b.status || a.currency !== b.currency || a.currentPriceCents !== b.currentPriceCents) return false;
  if (JSON.stringify(a.warnings ?? []) !== JSON.stringify(b.warnings ?? [])) return false;
  if (a.status === 'unpriced' || b.status === 'unpriced') return true;
  return a.recommendedPriceCents === b.recommendedPriceCents && a.floorCents === b.floorCents && a.ceilingCents === b.ceilingCents;
}

/**
 * The recommendation as the product and its bands stand now, for an approval: a drain may have changed the product's
 * bounds or currency since the stored one was computed, and its bands job not yet ended. The stored one is kept (with
 * the decision id the overview showed) when its terms are the same; otherwise the fresh one is stored and used.
 */
export async function currentRecommendation(
  workspace: Pick<Workspace, 'workspaceId' | 'baseCurrency' | 'pricing'>,
  sku: string,
  nowMs: number,
): Promise<Recommendation | undefined> {
  const [stored, [fresh]] = await Promise.all([
    getRecommendation(workspace.workspaceId, sku, true),
    computeRecommendations(workspace, [sku], nowMs),
  ]);
  if (!fresh) return undefined;
  if (stored && sameTerms(stored, fresh)) return stored;
  await storeRecommendations(workspace.workspaceId, [fresh]);
  return fresh;
}
