// Hostile cursors on the console's list by size of change: forged ends are answered with a page of this workspace alone, and change nothing.
import { describe, expect, it } from 'vitest';
import { recommendationsPage } from '#edge/console/pages/recommendation-list.ts';
import { encodeCursor } from '#shared/recommendations/catalogue.ts';
import { skuSortKey } from '#platform/table/listing-sort-keys.ts';
import { changeSortKey } from '#shared/recommendations/listing.ts';
import { storeRecommendations } from '#shared/recommendations/repository.ts';
import type { Recommendation } from '#shared/recommendations/schema.ts';
import { workspaceItems, writesBetween } from './hostile-input-support.ts';
import { long, unusualStrings } from './hostile-input-values.ts';
import { newWorkspace } from './support.ts';

const forged = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

function product(sku: string, recommendedPriceCents: number): Recommendation {
  return {
    status: 'priced',
    sku,
    name: `Part ${sku}`,
    category: 'Tools',
    currency: 'USD',
    currentPriceCents: 1000,
    recommendedPriceCents,
    pricingDecisionId: `pd_${sku}`,
    updatedAt: '2026-11-01T00:00:00.000Z',
    floorCents: 1,
    rationale: 'r',
    reasonSummary: 's',
    drivers: [],
    confidence: 'low',
  };
}

describe("hostile cursors on the console's list by size of change", () => {
  it('answers each with a page of this workspace alone, and writes nothing', async () => {
    const seller = await newWorkspace('Hostile Size Seller');
    const other = await newWorkspace('Other Size Seller');
    await storeRecommendations(seller.workspaceId, [product('OWN-1', 1200), product('OWN-2', 700)]);
    await storeRecommendations(other.workspaceId, [product('SECRET-1', 1500), product('SECRET-2', 500)]);
    const secretTop = changeSortKey(50, 'SECRET-1');
    const secretBottom = changeSortKey(-50, 'SECRET-2');
    const cursors: string[] = [
      // Another workspace's rows, named by both ends: the list's partition is this workspace's whatever a cursor says.
      forged([0, 'SECRET-1', secretTop, 0, 'SECRET-2', secretBottom]),
      // Ends that name no row of the list by change, the wrong way round, or one end only.
      forged([0, 'OWN-1', skuSortKey('OWN-1'), 0, 'OWN-2', `N#${skuSortKey('OWN-2')}`]),
      forged([0, 'OWN-2', changeSortKey(-30, 'OWN-2'), 0, 'OWN-1', changeSortKey(20, 'OWN-1')]),
      forged([0, 'OWN-1', changeSortKey(20, 'OWN-1'), 0, 'OWN-1', changeSortKey(20, 'OWN-1')]),
      forged([0, '', '', 0, 'OWN-2', changeSortKey(-30, 'OWN-2')]),
      forged([0, 'OWN-1', changeSortKey(20, 'OWN-2'), 0, 'OWN-2', changeSortKey(-30, 'OWN-1')]),
      // Near misses of the shape: a bottom past the rows with a change, half a bottom, the wrong types, odd keys.
      forged([1, 'OWN-1', `N#${skuSortKey('OWN-1')}`, 0, 'OWN-2', changeSortKey(-30, 'OWN-2')]),
      forged([0, '', '', 0, 'OWN-2']),
      forged([0, '', '', 0, null, null]),
      forged([0, '', '', 9e15, 'OWN-2', changeSortKey(-30, 'OWN-2')]),
      forged([0, '', '', 0, 'OWN-2', `C9999999999999999#${skuSortKey('OWN-2')}`]),
      forged([0, '', '', 0, 'OWN-2', `C-000000000000001#${skuSortKey('OWN-2')}`]),
      forged([0, '', '', 0, long(600), changeSortKey(-30, 'OWN-2')]),
      ...unusualStrings.map((text) => forged([0, text, changeSortKey(5, text), 0, text, changeSortKey(-5, text)])),
      encodeCursor({ segment: 0, sku: 'OWN-1', sortKey: '\u0000', shown: 1, bottom: { sku: 'OWN-2', sortKey: '\uffff' } }),
    ];
    const queries = cursors.flatMap((after) => [
      new URLSearchParams({ sort: 'size-desc', after }).toString(),
      new URLSearchParams({ sort: 'size-desc', category: 'Tools', q: 'own', after }).toString(),
      new URLSearchParams({ sort: 'change-desc', after }).toString(),
    ]);
    const before = await workspaceItems(seller.workspaceId);
    for (const query of queries) {
      const view = await recommendationsPage.read({
        user: { userId: 'usr_hostile', email: 'hostile@example.com', workspaceId: seller.workspaceId, roles: ['pricing'] },
        params: {},
        query: new URLSearchParams(query),
        csrfToken: 'token',
        nowMs: Date.now(),
      });
      expect(view.title, query).toBe('Recommendations');
      expect(view.body.text, query).not.toContain('SECRET');
    }
    expect(writesBetween(before, await workspaceItems(seller.workspaceId))).toEqual([]);
  }, 180_000);
});
