// The bands a price call reads, through the instance's cache against DynamoDB Local: kept for their time to live, never for the bands job.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { writeWorkspaceBand } from '#shared/bands/repository.ts';
import type { Band } from '#shared/pricing/model.ts';
import { forgetCachedBands, instanceBandsCache } from '#shared/prices/bands-cache.ts';
import { readPricingSnapshot } from '#shared/prices/inputs.ts';
import { newWorkspace } from './support.ts';

function bandWithTarget(target: number): Band {
  return {
    floor: target / 2,
    target,
    stretch: target * 1.5,
    nEff: 10,
    medianQuantity: 1,
    cov: 0.1,
    newestAtMs: 0,
    sumW: 10,
    sumW2: 10,
    asOfMs: 0,
  };
}

const lines = [{ productSku: 'sku-1', quantity: 1 }];
const AT = Date.now();

describe('the bands cache of price calls', () => {
  const previous = process.env.PRICE_BANDS_CACHE_SECONDS;
  beforeEach(() => {
    process.env.PRICE_BANDS_CACHE_SECONDS = '60';
    forgetCachedBands();
  });
  afterEach(() => {
    if (previous === undefined) delete process.env.PRICE_BANDS_CACHE_SECONDS;
    else process.env.PRICE_BANDS_CACHE_SECONDS = previous;
    forgetCachedBands();
  });

  it('prices with the workspace band it read until its time to live is over, then with the new one', async () => {
    const { workspaceId } = await newWorkspace();
    await writeWorkspaceBand(workspaceId, bandWithTarget(0.2), new Date(AT).toISOString());
    const first = await readPricingSnapshot(workspaceId, lines, 'EUR', AT, { cachedBands: instanceBandsCache });
    expect(first.workspaceBand?.target).toBe(0.2);
    await writeWorkspaceBand(workspaceId, bandWithTarget(0.3), new Date(AT).toISOString());
    const cached = await readPricingSnapshot(workspaceId, lines, 'EUR', AT + 59_999, { cachedBands: instanceBandsCache });
    expect(cached.workspaceBand?.target).toBe(0.2);
    const expired = await readPricingSnapshot(workspaceId, lines, 'EUR', AT + 60_000, { cachedBands: instanceBandsCache });
    expect(expired.workspaceBand?.target).toBe(0.3);
  });

  it('gives the bands job, which reads without the cache, the band it has just written', async () => {
    const { workspaceId } = await newWorkspace();
    await writeWorkspaceBand(workspaceId, bandWithTarget(0.2), new Date(AT).toISOString());
    await readPricingSnapshot(workspaceId, lines, 'EUR', AT, { cachedBands: instanceBandsCache });
    await writeWorkspaceBand(workspaceId, bandWithTarget(0.3), new Date(AT).toISOString());
    const fresh = await readPricingSnapshot(workspaceId, lines, 'EUR', AT + 1, {});
    expect(fresh.workspaceBand?.target).toBe(0.3);
  });
});
