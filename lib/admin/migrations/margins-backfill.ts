// Per-product monthly margins for orders drained before they were folded as orders drain: every stored order folded in once.
import { scanPage } from '#platform/table/commands.ts';
import { documentOf } from '#shared/canonical/items.ts';
import { applyMargins, prepareOrderMargins } from '#shared/pipeline/margin-fold.ts';
import type { OrderRecord } from '#shared/records/schema.ts';

/** Orders folded at once: one BatchGetItem of their stored contributions. */
const ORDERS_PER_STEP = 100;
/** The fold's run name: a month item records the last step of it taken, as it does per batch for a drain. */
const BACKFILL_RUN = 'margins-backfill';

/**
 * Every order document of the workspace (one Scan of the table, filtered to them), folded in steps of 100 in
 * external-id order, each step named by its last id. An order whose contribution is stored already adds nothing, and a
 * run that died mid-step repeats it without adding twice; run again, it writes nothing. Run before the drains start.
 */
export async function backfillMargins(workspaceId: string, syncedAt = new Date().toISOString()): Promise<{ orders: number }> {
  const orders: OrderRecord[] = [];
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const page = await scanPage({
      FilterExpression: '#type = :order AND begins_with(PK, :workspace)',
      ExpressionAttributeNames: { '#type': 'type' },
      ExpressionAttributeValues: { ':order': 'orderDocument', ':workspace': `WS#${workspaceId}#` },
      ExclusiveStartKey,
    });
    for (const item of page.Items ?? []) orders.push(documentOf(item) as OrderRecord);
    ExclusiveStartKey = page.LastEvaluatedKey;
  } while (ExclusiveStartKey);
  orders.sort((a, b) => (a.externalId < b.externalId ? -1 : 1));
  for (let start = 0; start < orders.length; start += ORDERS_PER_STEP) {
    const step = orders.slice(start, start + ORDERS_PER_STEP);
    const work = await prepareOrderMargins(step, { workspaceId, batchId: BACKFILL_RUN, syncedAt });
    await applyMargins(work, BACKFILL_RUN, (step[step.length - 1] as OrderRecord).externalId);
  }
  return { orders: orders.length };
}
