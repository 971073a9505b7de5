// What a price a person typed is worth before they confirm it: its margin, and the expected impact of moving to it from the current price, by the same win model as the recommendation's.
import { readPricingSnapshot } from '#shared/prices/inputs.ts';
import { pricingSettings } from '#shared/pricing/settings.ts';
import type { Workspace } from '#shared/workspaces/schema.ts';
import { estimateImpact } from './impact.ts';
import type { Impact } from './schema.ts';

export interface PriceWorth {
  /** (price − cost) / price, a fraction; undefined for a product with no cost. */
  readonly margin: number | undefined;
  /** Moving from the current price to this one, per quote (and per month at the product's quote rate). */
  readonly impact: Impact;
}

/**
 * The worth of approving `priceCents` for a product: one pricing snapshot of the product (the reads a price call with
 * one line makes), and the impact estimated at that price as the recommendation's is at its own. Undefined for a
 * product the workspace does not hold.
 */
export async function priceWorth(
  workspace: Pick<Workspace, 'workspaceId' | 'baseCurrency' | 'pricing'>,
  sku: string,
  priceCents: number,
  nowMs: number,
): Promise<PriceWorth | undefined> {
  const snapshot = await readPricingSnapshot(workspace.workspaceId, [{ productSku: sku, quantity: 1 }], workspace.baseCurrency, nowMs);
  const product = snapshot.products.get(sku);
  if (!product) return undefined;
  const margin = product.costCents > 0 && priceCents > 0 ? (priceCents - product.costCents) / priceCents : undefined;
  return { margin, impact: estimateImpact(product, priceCents, snapshot, pricingSettings(workspace.pricing), nowMs) };
}
