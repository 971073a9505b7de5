// Hostile query strings on the console's recommendations list: forged cursors, unusual categories and searches are answered with a page, and change nothing.
import { describe, expect, it } from 'vitest';
import { recommendationsPage } from '#edge/console/pages/recommendation-list.ts';
import { encodeCursor } from '#shared/recommendations/catalogue.ts';
import { storeRecommendations } from '#shared/recommendations/repository.ts';
import type { Recommendation } from '#shared/recommendations/schema.ts';
import { workspaceItems, writesBetween } from './hostile-input-support.ts';
import { long, unusualStrings } from './hostile-input-values.ts';
import { newWorkspace } from './support.ts';

const forged = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

function product(sku: string): Recommendation {
  return {
    status: 'priced',
    sku,
    name: `Part ${sku}`,
    category: 'Tools',
    currency: 'USD',
    currentPriceCents: 1000,
    recommendedPriceCents: 1100,
    pricingDecisionId: `pd_${sku}`,
    updatedAt: '2026-11-01T00:00:00.000Z',
    floorCents: 1,
    rationale: 'r',
    reasonSummary: 's',
    drivers: [],
    confidence: 'low',
  };
}

describe("hostile query strings on the console's recommendations list", () => {
  it('answers each with a page of this workspace alone, and writes nothing', async () => {
    const seller = await newWorkspace('Hostile List Seller');
    const other = await newWorkspace('Other List Seller');
    await storeRecommendations(seller.workspaceId, [product('OWN-1'), product('OWN-2')]);
    await storeRecommendations(other.workspaceId, [product('SECRET-1')]);
    const queries: string[] = [
      ...unusualStrings.flatMap((text) => [
        new URLSearchParams({ category: text }).toString(),
        new URLSearchParams({ q: text }).toString(),
        new URLSearchParams({ sort: text }).toString(),
        new URLSearchParams({ after: text }).toString(),
      ]),
      new URLSearchParams({ category: long(5000) }).toString(),
      new URLSearchParams({ q: long(5000) }).toString(),
      `after=${long(5000)}`,
      `after=${forged([0, 'SECRET-1', 'secret-011#SECRET-1', 0])}`,
      `after=${forged([1, '\ud800', 'x', 0])}`,
      `after=${forged([0, '', '', 0])}&sort=change-desc`,
      `after=${encodeCursor({ segment: 1, sku: 'X', sortKey: '\u0000', shown: 9e15 })}`,
      'sort=change-desc&after=%E0%A4%A',
      'category=Tools&category=Other&q=a&q=b',
    ];
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
      expect(view.body.text, query).not.toContain('SECRET-1');
    }
    expect(writesBetween(before, await workspaceItems(seller.workspaceId))).toEqual([]);
  }, 120_000);
});
