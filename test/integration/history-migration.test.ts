// Moving a workspace's documents from a line item per line to one item per document and the history log, as an operator runs it.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, inject, it, vi } from 'vitest';
import { projectRoot } from '#lib/stack/project.ts';
import { readAllCategoryBands, readCategoryLines } from '#shared/bands/repository.ts';
import { rebuildBands } from '#shared/bands/recompute.ts';
import type { DocumentRecord } from '#shared/canonical/items.ts';
import { migrateHistory } from '#lib/admin/migrations/history.ts';
import { tableName } from '#platform/config.ts';
import { defaultPricingSettings } from '#shared/pricing/settings.ts';
import { tableClient } from '#platform/table/client.ts';
import { table } from '#platform/table/definition.ts';
import { historyKeys } from '#platform/table/index-keys.ts';
import { keys } from '#platform/table/keys.ts';
import { commitBatch, openBatchWith, stageCatalogue, waitForBands } from './ingest-support.ts';
import { writeLegacyDocuments } from './legacy-layout.ts';
import { newWorkspace, type TestWorkspace } from './support.ts';

// A migration and the drains beside it run whole here: on a busy machine they take longer than the project's default
// allows, and how long they take is no part of what these tests check.
vi.setConfig({ testTimeout: 240_000 });

const run = promisify(execFile);
const historyIndex = table.indexes[1];
const CATEGORIES: Record<string, string> = { 'M-1': 'Cables', 'M-2': 'Cables', 'M-3': 'Switches' };
const SEGMENTS: Record<string, string> = { 'MC-1': 'smb', 'MC-2': 'enterprise' };
const context = { categoryOf: (sku: string) => CATEGORIES[sku], segmentOf: (customer: string) => SEGMENTS[customer] };

/** A workspace whose catalogue drained normally, and whose quotes and orders are in the older layout. */
async function workspaceWithLegacyHistory(): Promise<TestWorkspace> {
  const workspace = await newWorkspace();
  const key = workspace.keys.connector;
  const batchId = await openBatchWith(key);
  await stageCatalogue(key, batchId, {
    product: Object.entries(CATEGORIES).map(([sku, category]) => ({
      sku,
      name: sku,
      category,
      costCents: 100,
      currentPriceCents: 160,
      currency: 'USD',
    })),
    customer: Object.entries(SEGMENTS).map(([externalId, segment]) => ({ externalId, name: externalId, segment, currency: 'USD' })),
    quote: [],
    order: [],
  });
  await commitBatch(key, batchId);
  await waitForBands(key, batchId);
  const now = Date.now();
  const documents = Array.from({ length: 30 }, (_, index): DocumentRecord => {
    const at = new Date(now - index * 86_400_000).toISOString();
    if (index % 3 === 0) {
      return {
        kind: 'order',
        record: {
          externalId: `MO-${index}`,
          customerExternalId: 'MC-1',
          currency: 'USD',
          soldAt: at,
          lines: [
            { productSku: 'M-1', quantity: 1 + index, costCents: 100, soldPriceCents: 140 + index },
            { productSku: 'M-3', quantity: 2, costCents: 300, soldPriceCents: 420 },
          ],
        },
      };
    }
    return {
      kind: 'quote',
      record: {
        externalId: `MQ-${index}`,
        customerExternalId: index % 2 === 0 ? 'MC-1' : 'MC-2',
        outcome: index % 4 === 0 ? 'lost' : 'won',
        createdAt: at,
        lines: [
          { productSku: 'M-2', quantity: 3, costCents: 100, quotedPriceCents: 130 + index, pricingDecisionId: null },
          { productSku: 'M-1', quantity: 1, costCents: 100, quotedPriceCents: 150, pricingDecisionId: null },
        ],
      },
    };
  });
  await writeLegacyDocuments(documents, context, {
    workspaceId: workspace.workspaceId,
    batchId: 'before',
    syncedAt: new Date(now).toISOString(),
  });
  return workspace;
}

async function linesAndBands(workspaceId: string) {
  const lines = [
    ...(await readCategoryLines(workspaceId, 'Cables', Date.now())),
    ...(await readCategoryLines(workspaceId, 'Switches', Date.now())),
  ];
  await rebuildBands(workspaceId, defaultPricingSettings, new Date('2026-11-01T00:00:00Z'));
  const bands = (await readAllCategoryBands(workspaceId)).map((entry) => ({ category: entry.category, band: entry.band }));
  return { lines: lines.map((line) => JSON.stringify(line)).sort(), bands };
}

async function legacyIndexEntries(workspaceId: string, category: string): Promise<number> {
  const { Items } = await tableClient().send(
    new QueryCommand({
      TableName: tableName(),
      IndexName: historyIndex.name,
      KeyConditionExpression: '#pk = :pk',
      ExpressionAttributeNames: { '#pk': historyIndex.partitionKey },
      ExpressionAttributeValues: { ':pk': historyKeys.categoryLines(workspaceId, category).partitionKey },
    }),
  );
  return Items?.length ?? 0;
}

describe('history migrate', () => {
  it('moves every document into one item and the history log, leaving the lines and bands the same', async () => {
    const workspace = await workspaceWithLegacyHistory();
    const before = await linesAndBands(workspace.workspaceId);
    expect(before.lines).toHaveLength(60);

    const result = await migrateHistory(workspace.workspaceId);
    expect(result).toEqual({ categories: 2, documents: 30, lines: 60, done: true });
    expect(await legacyIndexEntries(workspace.workspaceId, 'Cables')).toBe(0);
    expect(await legacyIndexEntries(workspace.workspaceId, 'Switches')).toBe(0);
    expect(await linesAndBands(workspace.workspaceId)).toEqual(before);
    const { Items } = await tableClient().send(
      new QueryCommand({
        TableName: tableName(),
        KeyConditionExpression: 'PK = :pk',
        ExpressionAttributeValues: { ':pk': keys.document(workspace.workspaceId, 'quote', 'MQ-1').PK },
        ConsistentRead: true,
      }),
    );
    expect(Items?.map((item) => [item.type, item.lineCount, item.lineItems, item.version])).toEqual([['quoteDocument', 2, 1, 1]]);
  });

  it('stops when asked, carries on from where it was when run again, and changes nothing on a third run', async () => {
    const workspace = await workspaceWithLegacyHistory();
    const before = await linesAndBands(workspace.workspaceId);
    let pages = 0;
    const stopped = await migrateHistory(workspace.workspaceId, { shouldStop: () => ++pages > 1 });
    expect(stopped.done).toBe(false);
    expect(await linesAndBands(workspace.workspaceId)).toEqual(before);

    const resumed = await migrateHistory(workspace.workspaceId);
    expect(resumed.done).toBe(true);
    expect(stopped.documents + resumed.documents).toBe(30);
    expect(await migrateHistory(workspace.workspaceId)).toEqual({ categories: 2, documents: 0, lines: 0, done: true });
    expect(await linesAndBands(workspace.workspaceId)).toEqual(before);
  });

  it('runs from the admin CLI and prints what it moved', async () => {
    const workspace = await workspaceWithLegacyHistory();
    const { stdout } = await run(
      process.execPath,
      ['bin/admin.ts', 'history', 'migrate', '--workspace', workspace.workspaceId, '--json', '--stack', inject('stackFile')],
      {
        cwd: projectRoot,
      },
    );
    expect(JSON.parse(stdout)).toEqual({ categories: 2, documents: 30, lines: 60, done: true });
  });
});
