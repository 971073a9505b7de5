// Per-product monthly margins for orders drained before they were folded as orders drain: every stored order folded in once.
import { putItems } from '#platform/table/bulk.ts';
import { scanPage } from '#platform/table/commands.ts';
import { documentOf } from '#shared/canonical/items.ts';
import { sumMargins } from '#shared/pipeline/margin-fold.ts';
import {
  addContributions,
  BACKFILL_RUN,
  foldMargins,
  orderContribution,
  orderContributionItem,
  readOrderContributions,
} from '#shared/recommendations/margins.ts';
import type { OrderRecord } from '#shared/records/schema.ts';

/** Orders folded at once: one BatchGetItem of their stored contributions. */
const ORDERS_PER_STEP = 100;

/**
 * Every order document of the workspace that no drain wrote with its chunk (one Scan of the table, filtered to them),
 * folded in steps of 100 in external-id order, each step named by its last id. An order whose contribution is kept
 * already adds nothing, and a run that died mid-step repeats it without adding twice; run again, it writes nothing.
 * Run before the drains start.
 */
export async function backfillMargins(workspaceId: string): Promise<{ orders: number }> {
  const orders: OrderRecord[] = [];
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const page = await scanPage({
      FilterExpression: '#type = :order AND begins_with(PK, :workspace)',
      ExpressionAttributeNames: { '#type': 'type' },
      ExpressionAttributeValues: { ':order': 'orderDocument', ':workspace': `WS#${workspaceId}#` },
      ExclusiveStartKey,
    });
    // A version a drain wrote with its chunk was folded by that drain.
    for (const item of page.Items ?? []) if (item.chunk === undefined) orders.push(documentOf(item) as OrderRecord);
    ExclusiveStartKey = page.LastEvaluatedKey;
  } while (ExclusiveStartKey);
  orders.sort((a, b) => (a.externalId < b.externalId ? -1 : 1));
  for (let start = 0; start < orders.length; start += ORDERS_PER_STEP) {
    const step = orders.slice(start, start + ORDERS_PER_STEP);
    await foldStep(workspaceId, step, (step[step.length - 1] as OrderRecord).externalId);
  }
  return { orders: orders.length };
}

/**
 * One step: each order's contribution against the one an earlier release's drain or this backfill kept for it (one
 * BatchGetItem), folded into the months, then kept. Kept last, so that a step that died is repeated to the same delta,
 * and the months refuse what they took.
 */
async function foldStep(workspaceId: string, orders: readonly OrderRecord[], step: string): Promise<void> {
  const kept = await readOrderContributions(
    workspaceId,
    orders.map((order) => order.externalId),
  );
  const delta = sumMargins(orders.map((order) => addContributions(orderContribution(order), kept.get(order.externalId) ?? {}, -1)));
  await foldMargins(workspaceId, delta, BACKFILL_RUN, step);
  await putItems(orders.map((order) => orderContributionItem(workspaceId, order.externalId, orderContribution(order))));
}
