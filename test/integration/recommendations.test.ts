// Storing recommendations a page at a time against DynamoDB Local: where a refresh stops when asked, that it resumes there, and that it writes the lists again only where they moved.
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { tableName } from '#platform/config.ts';
import { refreshRecommendations } from '#shared/recommendations/repository.ts';
import { tableClient } from '#platform/table/client.ts';
import { keys } from '#platform/table/keys.ts';
import { recommendationOfItem } from '#shared/recommendations/repository.ts';
import { getWorkspace } from '#shared/workspaces/repository.ts';
import { drain } from './prices-support.ts';
import { newWorkspace } from './support.ts';

/** A product's recommendation as the service reads it, or one of its list rows as stored. */
async function stored(workspaceId: string, sku: string, key = keys.recommendation(workspaceId, sku)) {
  const { Item } = await tableClient().send(new GetCommand({ TableName: tableName(), Key: key, ConsistentRead: true }));
  return Item?.type === 'recommendation' ? recommendationOfItem(Item) : Item;
}

describe('refreshing recommendations', () => {
  it('stops between pages when asked, reports the last product of each page stored, and resumes after it', async () => {
    const seller = await newWorkspace('Paged Seller');
    const skus = ['P-1', 'P-2', 'P-3', 'P-4', 'P-5'];
    await drain(seller, {
      product: skus.map((sku) => ({ sku, name: sku, category: 'Paged', costCents: 100, currentPriceCents: 150 })),
    });
    const workspace = await getWorkspace(seller.workspaceId);
    if (!workspace) throw new Error('the test workspace is missing');
    const nowMs = Date.now() + 60_000;

    const checkpoints: string[] = [];
    const first = await refreshRecommendations(workspace, skus, nowMs, {
      pageSize: 2,
      shouldStop: () => checkpoints.length >= 2,
      afterPage: async (lastSku) => {
        checkpoints.push(lastSku);
      },
    });
    // Nothing the lists show moved since the drain's own bands job: no row is written again.
    expect(first).toEqual({ done: false, products: 4, listed: 0 });
    expect(checkpoints).toEqual(['P-2', 'P-4']);
    expect(await stored(seller.workspaceId, 'P-4')).toMatchObject({ updatedAt: new Date(nowMs).toISOString() });
    expect(await stored(seller.workspaceId, 'P-5')).not.toMatchObject({ updatedAt: new Date(nowMs).toISOString() });

    const cursor = checkpoints[checkpoints.length - 1] as string;
    const rest = await refreshRecommendations(
      workspace,
      skus.filter((sku) => sku > cursor),
      nowMs,
      { pageSize: 2 },
    );
    expect(rest).toEqual({ done: true, products: 1, listed: 0 });
    expect(await stored(seller.workspaceId, 'P-5')).toMatchObject({ updatedAt: new Date(nowMs).toISOString(), recommendedPriceCents: 150 });
  });

  it('writes a product’s item each time and its list rows again only when what they show moved', async () => {
    const seller = await newWorkspace('Dead Band Seller');
    const product = { sku: 'DB-1', name: 'DB-1', category: 'Band', costCents: 100, currentPriceCents: 150 };
    await drain(seller, { product: [product] });
    const workspace = await getWorkspace(seller.workspaceId);
    if (!workspace) throw new Error('the test workspace is missing');
    const rowKey = (ordering: 'sku' | 'impact') => keys.recommendationRow(seller.workspaceId, 'DB-1', ordering);
    const rowsBefore = [
      await stored(seller.workspaceId, 'DB-1', rowKey('sku')),
      await stored(seller.workspaceId, 'DB-1', rowKey('impact')),
    ];
    expect(rowsBefore[0]).toMatchObject({ currentPriceCents: 150, recommendedPriceCents: 150 });

    const later = Date.now() + 60_000;
    expect(await refreshRecommendations(workspace, ['DB-1'], later)).toEqual({ done: true, products: 1, listed: 0 });
    expect(await stored(seller.workspaceId, 'DB-1')).toMatchObject({ updatedAt: new Date(later).toISOString() });
    expect([await stored(seller.workspaceId, 'DB-1', rowKey('sku')), await stored(seller.workspaceId, 'DB-1', rowKey('impact'))]).toEqual(
      rowsBefore,
    );

    // A new current price is shown at once, in every ordering.
    await drain(seller, { product: [{ ...product, currentPriceCents: 180 }] });
    expect(await stored(seller.workspaceId, 'DB-1', rowKey('sku'))).toMatchObject({ currentPriceCents: 180, recommendedPriceCents: 180 });
    expect(await stored(seller.workspaceId, 'DB-1', rowKey('impact'))).toMatchObject({ currentPriceCents: 180 });
  });
});
