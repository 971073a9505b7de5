// A product's monthly margins as orders drain: folded once per order version, whatever a drain repeats, and backfilled for orders drained before.
import { DeleteCommand, GetCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { backfillMargins } from '#lib/admin/migrations/margins-backfill.ts';
import { tableName } from '#platform/config.ts';
import { tableClient } from '#platform/table/client.ts';
import { keys } from '#platform/table/keys.ts';
import { BACKFILL_RUN, foldMargins, foldMarginSteps, readProductMargins } from '#shared/recommendations/margins.ts';
import type { OrderRecord } from '#shared/records/schema.ts';
import { committedBatch, dieOnceAt } from './drain-support.ts';
import { drain, LAMP, SHADE } from './prices-support.ts';
import { newWorkspace } from './support.ts';
import { withTableHolding } from './table-of-its-own.ts';

function order(
  externalId: string,
  soldAt: string,
  lines: Array<[sku: string, quantity: number, cost: number, price: number]>,
): OrderRecord {
  return {
    externalId,
    customerExternalId: 'C-1',
    currency: 'USD',
    soldAt,
    lines: lines.map(([productSku, quantity, costCents, soldPriceCents]) => ({ productSku, quantity, costCents, soldPriceCents })),
  } as OrderRecord;
}

const customer = [{ externalId: 'C-1', name: 'Buyer', segment: 'smb' }];

describe("a product's monthly margins", () => {
  it('are folded from its orders as they drain, and a corrected order replaces what it added', async () => {
    const seller = await newWorkspace('Margins Seller');
    await drain(seller, {
      product: [LAMP, SHADE],
      customer,
      order: [
        order('O-1', '2026-09-10T10:00:00Z', [['LAMP', 10, 600, 1000]]),
        order('O-2', '2026-10-02T10:00:00Z', [
          ['LAMP', 1, 750, 1000],
          ['SHADE', 2, 400, 800],
        ]),
      ],
    });
    expect(await readProductMargins(seller.workspaceId, 'LAMP')).toEqual([
      { month: '2026-09', marginPct: 40, lines: 1 },
      { month: '2026-10', marginPct: 25, lines: 1 },
    ]);

    await drain(seller, { order: [order('O-1', '2026-09-10T10:00:00Z', [['LAMP', 10, 800, 1000]])] });
    expect(await readProductMargins(seller.workspaceId, 'LAMP')).toEqual([
      { month: '2026-09', marginPct: 20, lines: 1 },
      { month: '2026-10', marginPct: 25, lines: 1 },
    ]);
    expect(await readProductMargins(seller.workspaceId, 'SHADE')).toEqual([{ month: '2026-10', marginPct: 50, lines: 1 }]);
  }, 60_000);

  it('count a step once when a drain that died after folding part of it runs it again', async () => {
    const seller = await newWorkspace('Retried Margins Seller');
    const delta = { '2026-09 LAMP': [10_000, 6_000, 1], '2026-09 SHADE': [1_000, 300, 1] } as const;

    // The first attempt folds LAMP's month and dies before SHADE's.
    await foldMargins(seller.workspaceId, { '2026-09 LAMP': delta['2026-09 LAMP'] }, 'batch-1', 'CHUNK#0001');
    await foldMargins(seller.workspaceId, delta, 'batch-1', 'CHUNK#0001');
    await foldMargins(seller.workspaceId, delta, 'batch-1', 'CHUNK#0001');

    expect(await readProductMargins(seller.workspaceId, 'LAMP')).toEqual([{ month: '2026-09', marginPct: 40, lines: 1 }]);
    expect(await readProductMargins(seller.workspaceId, 'SHADE')).toEqual([{ month: '2026-09', marginPct: 70, lines: 1 }]);
  });

  it.each([3, 4, 5])(
    'count an order sent twice in a batch once, and its correction later in the batch instead, when the drain dies after chunk %i',
    async (dieAfter) => {
      // Three order chunks of 20: O-1 in the first, again as it was in the second, corrected in the third.
      const fillers = (from: number) =>
        Array.from({ length: 19 }, (_, index) => order(`F-${from + index}`, '2026-10-02T10:00:00Z', [['SHADE', 1, 300, 1000]]));
      const first = order('O-1', '2026-09-10T10:00:00Z', [['LAMP', 10, 600, 1000]]);
      const batch = await committedBatch({
        product: [LAMP, SHADE],
        customer,
        quote: [],
        order: [
          first,
          ...fillers(0),
          { ...first },
          ...fillers(19),
          order('O-1', '2026-09-10T10:00:00Z', [['LAMP', 10, 800, 1000]]),
          ...fillers(38),
        ],
      });
      // Chunks 1 and 2 are the products and customers; each order chunk's documents are written before its checkpoint.
      await expect(batch.run(1, { checkpointEveryMs: 600_000, afterChunkWritten: dieOnceAt(dieAfter) })).rejects.toThrow(
        'the invocation died',
      );
      expect(await batch.run(2, { checkpointEveryMs: 600_000 })).toMatchObject({ outcome: 'drained' });

      expect(await readProductMargins(batch.workspace.workspaceId, 'LAMP')).toEqual([{ month: '2026-09', marginPct: 20, lines: 1 }]);
      expect(await readProductMargins(batch.workspace.workspaceId, 'SHADE')).toEqual([{ month: '2026-10', marginPct: 70, lines: 57 }]);
    },
    240_000,
  );

  it('hold what a batch staged again after a drain given up before its checkpoint really changes', async () => {
    const sold = (cost: number) => order('O-1', '2026-09-10T10:00:00Z', [['LAMP', 10, cost, 1000]]);
    const only = (orders: OrderRecord[]) => ({ product: [], customer: [], quote: [], order: orders });
    const first = await committedBatch({ product: [LAMP, SHADE], customer, quote: [], order: [sold(600)] });
    expect(await first.run(1, {})).toMatchObject({ outcome: 'drained' });
    const lamp = () => readProductMargins(first.workspace.workspaceId, 'LAMP');
    expect(await lamp()).toEqual([{ month: '2026-09', marginPct: 40, lines: 1 }]);

    // The correction's document is written, and its drain stops for good before the checkpoint that folds it.
    const abandoned = await committedBatch(only([sold(800)]), undefined, first.workspace);
    const dies = {
      checkpointEveryMs: 600_000,
      afterChunkWritten: () => {
        throw new Error('the invocation died');
      },
    };
    await expect(abandoned.run(1, dies)).rejects.toThrow('the invocation died');
    expect(await lamp()).toEqual([{ month: '2026-09', marginPct: 40, lines: 1 }]);
    // Every attempt dies there, and the third (on the fresh copy the queue's third receipt hands off) gives the batch
    // up: it reads failed, and the connector stages its records again.
    await expect(abandoned.run(2, dies)).rejects.toThrow('the invocation died');
    expect(await abandoned.run(1, dies)).toMatchObject({ outcome: 'failed' });
    expect(await lamp()).toEqual([{ month: '2026-09', marginPct: 40, lines: 1 }]);

    // The connector stages the same records into a new batch.
    const again = await committedBatch(only([sold(800)]), undefined, first.workspace);
    expect(await again.run(1, {})).toMatchObject({ outcome: 'drained' });
    expect(await lamp()).toEqual([{ month: '2026-09', marginPct: 20, lines: 1 }]);
  });

  it('take each chunk of a checkpoint once, however an attempt after a fault groups the chunks', async () => {
    const seller = await newWorkspace('Regrouped Margins Seller');
    const step = (chunk: number, cost: number, sku = 'LAMP') => ({
      step: `CHUNK#000${chunk}`,
      delta: { [`2026-09 ${sku}`]: [1_000, cost, 1] as const },
    });
    // The first attempt takes in chunks 1 to 3 at one checkpoint and dies before saving it; the next groups 1 to 2,
    // then 3 to 5, as its own timing has it.
    expect(await foldMarginSteps(seller.workspaceId, 'batch-1', [step(1, 600), step(2, 700), step(3, 800, 'SHADE')])).toBe(2);
    expect(await foldMarginSteps(seller.workspaceId, 'batch-1', [step(1, 600), step(2, 700)])).toBe(0);
    expect(await foldMarginSteps(seller.workspaceId, 'batch-1', [step(3, 800, 'SHADE'), step(4, 500), step(5, 400, 'SHADE')])).toBe(2);

    // LAMP took chunks 1, 2 and 4 once each; SHADE chunks 3 and 5.
    expect(await readProductMargins(seller.workspaceId, 'LAMP')).toEqual([{ month: '2026-09', marginPct: 40, lines: 3 }]);
    expect(await readProductMargins(seller.workspaceId, 'SHADE')).toEqual([{ month: '2026-09', marginPct: 40, lines: 2 }]);
  });

  it("write a month once per checkpoint, dropping the markers of ended drains and keeping the backfill's", async () => {
    const seller = await newWorkspace('Marked Margins Seller');
    const delta = { '2026-09 LAMP': [1_000, 600, 1] as const };
    await foldMargins(seller.workspaceId, delta, BACKFILL_RUN, 'O-9');
    await foldMarginSteps(seller.workspaceId, 'batch-1', [{ step: 'CHUNK#0001', delta }]);
    await foldMarginSteps(seller.workspaceId, 'batch-2', [
      { step: 'CHUNK#0001', delta },
      { step: 'CHUNK#0002', delta },
    ]);
    const { Item } = await tableClient().send(
      new GetCommand({ TableName: tableName(), Key: keys.productMargin(seller.workspaceId, 'LAMP', '2026-09'), ConsistentRead: true }),
    );
    expect(
      Object.keys(Item ?? {})
        .filter((name) => name.startsWith('m_'))
        .sort(),
    ).toEqual(['m_batch-2', `m_${BACKFILL_RUN}`]);
    expect(Item).toMatchObject({ revenue: 4_000, cost: 2_400, lines: 4, 'm_batch-2': 'CHUNK#0002' });
    // The backfill run again refuses the step it took.
    await foldMargins(seller.workspaceId, delta, BACKFILL_RUN, 'O-9');
    expect(await readProductMargins(seller.workspaceId, 'LAMP')).toEqual([{ month: '2026-09', marginPct: 40, lines: 4 }]);
  });

  it('take both of two batches that create the same new months at once, and each batch only once', async () => {
    const seller = await newWorkspace('Racing Margins Seller');
    const skus = Array.from({ length: 30 }, (_, index) => `SKU-${index}`);
    const delta = Object.fromEntries(skus.map((sku) => [`2026-09 ${sku}`, [1000, 600, 1] as const]));
    // Neither batch's marker stands in the other's way, and repeating a step adds nothing.
    await Promise.all([
      foldMargins(seller.workspaceId, delta, 'batch-a', 'CHUNK#0001'),
      foldMargins(seller.workspaceId, delta, 'batch-b', 'CHUNK#0001'),
    ]);
    await foldMargins(seller.workspaceId, delta, 'batch-a', 'CHUNK#0001');
    for (const sku of [skus[0], skus[29]]) {
      expect(await readProductMargins(seller.workspaceId, sku ?? '')).toEqual([{ month: '2026-09', marginPct: 40, lines: 2 }]);
    }
  });

  it('are backfilled once from the orders a workspace drained before they were kept', async () => {
    const seller = await newWorkspace('Backfilled Margins Seller');
    await drain(seller, { product: [LAMP], customer, order: [order('O-1', '2026-08-10T10:00:00Z', [['LAMP', 4, 500, 1000]])] });
    // As an earlier release left it: no month items.
    const { Items = [] } = await tableClient().send(
      new QueryCommand({
        TableName: tableName(),
        KeyConditionExpression: 'PK = :pk AND begins_with(SK, :margin)',
        ExpressionAttributeValues: { ':pk': keys.product(seller.workspaceId, 'LAMP').PK, ':margin': 'MARGIN#' },
      }),
    );
    for (const item of Items) await tableClient().send(new DeleteCommand({ TableName: tableName(), Key: { PK: item.PK, SK: item.SK } }));
    // An earlier release kept no chunk on the document either.
    await tableClient().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.document(seller.workspaceId, 'order', 'O-1'),
        UpdateExpression: 'REMOVE #chunk',
        ExpressionAttributeNames: { '#chunk': 'chunk' },
      }),
    );
    expect(await readProductMargins(seller.workspaceId, 'LAMP')).toEqual([]);

    // The backfill Scans a table that holds this workspace as it is now, and nothing else the run wrote.
    await withTableHolding({ workspaceIds: [seller.workspaceId] }, async () => {
      expect(await backfillMargins(seller.workspaceId)).toEqual({ orders: 1 });
      expect(await backfillMargins(seller.workspaceId)).toEqual({ orders: 1 });
      expect(await readProductMargins(seller.workspaceId, 'LAMP')).toEqual([{ month: '2026-08', marginPct: 50, lines: 1 }]);
    });
  });
});
