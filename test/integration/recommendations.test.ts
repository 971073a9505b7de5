// Storing recommendations a page at a time against DynamoDB Local: where a refresh stops when asked, and that it resumes there.
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { tableName } from '#platform/config.ts';
import { refreshRecommendations } from '#shared/recommendations/repository.ts';
import { tableClient } from '#platform/table/client.ts';
import { keys } from '#platform/table/keys.ts';
import { getWorkspace } from '#shared/workspaces/repository.ts';
import { drain } from './prices-support.ts';
import { newWorkspace } from './support.ts';

async function stored(workspaceId: string, sku: string) {
  const { Item } = await tableClient().send(
    new GetCommand({ TableName: tableName(), Key: keys.recommendation(workspaceId, sku), ConsistentRead: true }),
  );
  return Item;
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
    expect(first).toEqual({ done: false, products: 4 });
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
    expect(rest).toEqual({ done: true, products: 1 });
    expect(await stored(seller.workspaceId, 'P-5')).toMatchObject({ updatedAt: new Date(nowMs).toISOString(), recommendedPriceCents: 150 });
  });
});
