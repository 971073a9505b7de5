// Items written before the console's listing index: the backfill puts a workspace's recommendations, batches and tasks in the console's lists.
import { DeleteCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { recentBatches } from '#shared/batches/listing.ts';
import { tableName } from '#platform/config.ts';
import { backfillListings } from '#lib/admin/migrations/listing-backfill.ts';
import { orderings } from '#shared/recommendations/listing.ts';
import { readCataloguePage } from '#shared/recommendations/listing-pages.ts';
import { tableClient } from '#platform/table/client.ts';
import { table } from '#platform/table/definition.ts';
import { listingKeys } from '#platform/table/index-keys.ts';
import { keys } from '#platform/table/keys.ts';
import { recentTasks } from '#shared/writebacks/listing.ts';
import { openBatchWith } from '#test/integration/ingest-support.ts';
import { drain, LAMP, SHADE } from '#test/integration/prices-support.ts';
import { newWorkspace } from '#test/integration/support.ts';
import { withTableHolding } from '#test/integration/table-of-its-own.ts';
import { readWorkspaceItems } from '#test/integration/workspace-items.ts';
import { approve } from '#test/integration/writebacks-support.ts';
import { storeRecommendationUnpacked } from '#test/integration/legacy-layout.ts';

/** What an item written before the index looks like: no list keys, and a recommendation without name or category. */
async function unlist(key: { PK: string; SK: string }, recommendation = false): Promise<void> {
  await tableClient().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: key,
      UpdateExpression: `REMOVE listPk, listSk${recommendation ? ', #name, category' : ''}`,
      ...(recommendation ? { ExpressionAttributeNames: { '#name': 'name' } } : {}),
    }),
  );
}

/** The console's list as a person first sees it. */
async function listed(workspaceId: string) {
  return (await readCataloguePage(workspaceId, { sort: 'sku' })).rows;
}

/** A product's rows in the console's lists, which an earlier release did not write. */
async function removeRows(workspaceId: string, sku: string): Promise<void> {
  for (const ordering of orderings) {
    await tableClient().send(new DeleteCommand({ TableName: tableName(), Key: keys.recommendationRow(workspaceId, sku, ordering) }));
  }
}

/** The kinds of list row stored beside a product's recommendation. */
async function rowsBeside(workspaceId: string, sku: string): Promise<string[]> {
  const { PK } = keys.recommendationRow(workspaceId, sku, 'sku');
  const page = await tableClient().send(
    new QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: 'PK = :pk AND begins_with(SK, :rows)',
      ExpressionAttributeValues: { ':pk': PK, ':rows': 'RECROW#' },
    }),
  );
  return (page.Items ?? []).map((item) => String(item.SK).slice('RECROW#'.length)).sort();
}

describe('the listing backfill', () => {
  it("lists a workspace's products, batches and tasks written before the listing index, and only that workspace's", async () => {
    const workspace = await newWorkspace('Backfilled Seller');
    await drain(workspace, { product: [LAMP, SHADE] });
    const batchId = await openBatchWith(workspace.keys.connector);
    const approved = await approve(workspace.keys.pwLive, { sku: 'LAMP', price: 15 });
    expect(approved.status, approved.text).toBe(200);
    const taskId = approved.json.published_to[0].writeback_id as string;

    await storeRecommendationUnpacked(workspace.workspaceId, 'LAMP', ['name', 'category']);
    await tableClient().send(new DeleteCommand({ TableName: tableName(), Key: keys.recommendation(workspace.workspaceId, 'SHADE') }));
    await removeRows(workspace.workspaceId, 'LAMP');
    await removeRows(workspace.workspaceId, 'SHADE');
    await tableClient().send(new DeleteCommand({ TableName: tableName(), Key: keys.recommendationCategories(workspace.workspaceId) }));
    await unlist(keys.batch(workspace.workspaceId, batchId));
    await unlist(keys.writeback(workspace.workspaceId, taskId));
    expect(await listed(workspace.workspaceId)).toEqual([]);
    // Another workspace's batch, written before the index too, which a backfill of the first leaves as it is.
    const other = await newWorkspace('Other Seller');
    const otherBatchId = await openBatchWith(other.keys.connector);
    await unlist(keys.batch(other.workspaceId, otherBatchId));
    expect((await recentBatches(workspace.workspaceId, workspace.connectorId, new Date())).map((batch) => batch.batchId)).not.toContain(
      batchId,
    );

    // The backfill Scans a table that holds these two workspaces as they are now, and nothing else the run wrote.
    await withTableHolding({ workspaceIds: [workspace.workspaceId, other.workspaceId] }, async () => {
      const done = await backfillListings({ workspaceId: workspace.workspaceId });
      expect(done).toEqual({ products: 2, batches: 1, tasks: 1 });
      const page = await readCataloguePage(workspace.workspaceId, { sort: 'sku' });
      expect(page.categories).toEqual(['Lighting']);
      expect(page.rows.map((row) => [row.sku, row.name, row.category])).toEqual([
        ['LAMP', 'Desk lamp', 'Lighting'],
        ['SHADE', 'Lamp shade', 'Lighting'],
      ]);
      expect((await recentBatches(workspace.workspaceId, workspace.connectorId, new Date())).map((batch) => batch.batchId)).toContain(
        batchId,
      );
      expect((await recentTasks(workspace.workspaceId, workspace.connectorId)).map((task) => task.taskId)).toEqual([taskId]);
      // One row per ordering, and none for the sort by size, which reads the rows by change.
      for (const sku of ['LAMP', 'SHADE']) expect(await rowsBeside(workspace.workspaceId, sku)).toEqual([...orderings].sort());
      expect(orderings).not.toContain('size');

      expect(await backfillListings({ workspaceId: workspace.workspaceId })).toEqual({ products: 2, batches: 0, tasks: 0 });
      expect((await recentBatches(other.workspaceId, other.connectorId, new Date())).map((batch) => batch.batchId)).not.toContain(
        otherBatchId,
      );
    });
  });

  it("moves a product's rows from the partition its ordering had before the shards into their shards, listed all along", async () => {
    const workspace = await newWorkspace('Unsharded Seller');
    await drain(workspace, { product: [LAMP, SHADE] });
    const listPk = table.indexes[3].partitionKey;
    // LAMP's rows as the release before the shards wrote them: each in its ordering's one partition.
    for (const ordering of orderings) {
      const key = keys.recommendationRow(workspace.workspaceId, 'LAMP', ordering);
      const before = listingKeys.recommendationRows(
        workspace.workspaceId,
        ordering,
        ordering.startsWith('category-') ? 'Lighting' : undefined,
      );
      await tableClient().send(
        new UpdateCommand({
          TableName: tableName(),
          Key: key,
          UpdateExpression: 'SET #listPk = :before',
          ExpressionAttributeNames: { '#listPk': listPk },
          ExpressionAttributeValues: { ':before': before.partitionKeys.at(-1) },
        }),
      );
    }
    const unsharded = async () =>
      (await readWorkspaceItems(workspace.workspaceId)).filter(
        (item) => item.type === 'recommendationRow' && !/#RECROWS#[a-z-]+#S\d/.test(String(item[listPk])),
      );
    expect((await unsharded()).map((item) => item.sku)).toEqual(orderings.map(() => 'LAMP'));
    expect((await listed(workspace.workspaceId)).map((row) => row.sku)).toEqual(['LAMP', 'SHADE']);

    await withTableHolding({ workspaceIds: [workspace.workspaceId] }, async () => {
      expect(await backfillListings({ workspaceId: workspace.workspaceId })).toEqual({ products: 2, batches: 0, tasks: 0 });
      expect(await unsharded()).toEqual([]);
      expect((await listed(workspace.workspaceId)).map((row) => row.sku)).toEqual(['LAMP', 'SHADE']);
    });
  });
});
