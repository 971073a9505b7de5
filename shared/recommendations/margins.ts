// A product's realised margins over time: its order lines summed per UTC month as orders drain, read back for the console's chart.
import { getItems, inParallel, putItems, type TableItem, WRITE_CONCURRENCY } from '#platform/table/bulk.ts';
import { updateItem } from '#platform/table/commands.ts';
import { keys } from '#platform/table/keys.ts';
import { queryAll } from '#platform/table/query.ts';
import type { OrderRecord } from '#shared/records/schema.ts';

export interface MarginPoint {
  /** YYYY-MM, UTC. */
  readonly month: string;
  /** (revenue − cost) / revenue of the month's order lines, in percent to 2 decimals. */
  readonly marginPct: number;
  readonly lines: number;
}

/** Revenue and cost in the base currency's minor units, and the line count. */
export type MarginSums = readonly [revenue: number, cost: number, lines: number];

/**
 * What orders add to products' months, keyed by `monthKey`: an order's own, or the sum of a chunk's changes. Amounts
 * are kept to 4 decimals so that a version taken out again leaves exactly nothing.
 */
export type MarginContribution = Record<string, MarginSums>;

const MONTH_LENGTH = 7;
const monthKey = (month: string, sku: string) => `${month} ${sku}`;
export const monthKeyParts = (key: string) => ({ month: key.slice(0, MONTH_LENGTH), sku: key.slice(MONTH_LENGTH + 1) });
const round = (value: number) => Math.round(value * 10_000) / 10_000;

/** An order's lines summed per product in its UTC month, in the base currency at the order's rate. */
export function orderContribution(order: OrderRecord): MarginContribution {
  const atMs = Date.parse(order.soldAt);
  if (!Number.isFinite(atMs)) return {};
  const month = new Date(atMs).toISOString().slice(0, MONTH_LENGTH);
  const rate = order.exchangeRate ?? 1;
  const sums: Record<string, [number, number, number]> = {};
  for (const line of order.lines) {
    const key = monthKey(month, line.productSku);
    const entry = sums[key] ?? [0, 0, 0];
    entry[0] = round(entry[0] + line.soldPriceCents * line.quantity * rate);
    entry[1] = round(entry[1] + line.costCents * line.quantity * rate);
    entry[2] += 1;
    sums[key] = entry;
  }
  return sums;
}

/** Adds `sign` times each contribution to `into`; entries that come to nothing are dropped. */
export function addContributions(into: MarginContribution, from: MarginContribution, sign: 1 | -1): MarginContribution {
  const sums: Record<string, MarginSums> = { ...into };
  for (const [key, [revenue, cost, lines]] of Object.entries(from)) {
    const [r, c, l] = sums[key] ?? [0, 0, 0];
    const next: MarginSums = [round(r + sign * revenue), round(c + sign * cost), l + sign * lines];
    if (next[0] === 0 && next[1] === 0 && next[2] === 0) delete sums[key];
    else sums[key] = next;
  }
  return sums;
}

/**
 * What each order added, as an earlier release's drain kept it beside the order, and as the backfill keeps it: the
 * backfill folds an order only for what is not kept. Today's drain reads what a version added from its document.
 */
export async function readOrderContributions(workspaceId: string, orderIds: readonly string[]): Promise<Map<string, MarginContribution>> {
  const items = await getItems(
    orderIds.map((id) => keys.orderMargin(workspaceId, id)),
    { consistent: true },
  );
  return new Map(items.map((item) => [String(item.orderExternalId), JSON.parse(String(item.contribution)) as MarginContribution]));
}

export function orderContributionItem(workspaceId: string, orderId: string, contribution: MarginContribution): TableItem {
  return {
    ...keys.orderMargin(workspaceId, orderId),
    type: 'orderMargin',
    orderExternalId: orderId,
    contribution: JSON.stringify(contribution),
  };
}

/**
 * Folds a change into the products' months. Each month item records, per run (a batch), the last step (a chunk)
 * folded into it and takes a step only after it: a run that dies anywhere and repeats the step adds nothing twice.
 */
export async function foldMargins(workspaceId: string, delta: MarginContribution, run: string, step: string): Promise<void> {
  const marker = `${MARKER_PREFIX}${run}`;
  await inParallel(Object.entries(delta), WRITE_CONCURRENCY, async ([key, [revenue, cost, lines]]) => {
    const { month, sku } = monthKeyParts(key);
    // A refused condition is a step this month already took: nothing to add.
    await updateItem({
      Key: keys.productMargin(workspaceId, sku, month),
      UpdateExpression: 'SET #type = :type, #month = :month, #marker = :step ADD revenue :revenue, cost :cost, #lines :lines',
      ConditionExpression: 'attribute_not_exists(#marker) OR #marker < :step',
      ExpressionAttributeNames: { '#type': 'type', '#month': 'month', '#marker': marker, '#lines': 'lines' },
      ExpressionAttributeValues: {
        ':type': 'productMargin',
        ':month': month,
        ':step': step,
        ':revenue': revenue,
        ':cost': cost,
        ':lines': lines,
      },
    });
  });
}

/** One step of a run (a chunk of a batch) and what it changes in the months. */
export interface MarginStep {
  readonly step: string;
  readonly delta: MarginContribution;
}

const MARKER_PREFIX = 'm_';
/** The backfill's run: its month items record its last step as they do a drain's, and a drain's write keeps that marker. */
export const BACKFILL_RUN = 'margins-backfill';
const BACKFILL_MARKER = `${MARKER_PREFIX}${BACKFILL_RUN}`;

/**
 * Folds a run's steps into the months as the drain does at a checkpoint: every month the steps touch read at once
 * (strongly consistent BatchGetItem), summed in memory and written back whole (BatchWriteItem), once per month. Each
 * month takes only the steps after the run's marker on it, so a step folded once is never folded again, however the
 * next attempt groups the steps. Written whole, unguarded: only the holder of the workspace's drain turn may call it,
 * so no other drain writes these months between the read and the write. The markers of other batches' drains, which
 * have ended, are dropped; the backfill's is kept.
 */
export async function foldMarginSteps(workspaceId: string, run: string, steps: readonly MarginStep[]): Promise<number> {
  const marker = `${MARKER_PREFIX}${run}`;
  const touched = [...new Set(steps.flatMap((step) => Object.keys(step.delta)))];
  const months = touched.map((key) => {
    const { month, sku } = monthKeyParts(key);
    return { key, month, itemKey: keys.productMargin(workspaceId, sku, month) };
  });
  const itemId = (item: { readonly PK?: unknown; readonly SK?: unknown }) => `${String(item.PK)} ${String(item.SK)}`;
  const stored = new Map(
    (
      await getItems(
        months.map((month) => month.itemKey),
        { consistent: true },
      )
    ).map((item) => [itemId(item), item] as const),
  );
  const writes: TableItem[] = [];
  for (const { key, month, itemKey } of months) {
    const item = stored.get(itemId(itemKey));
    const taken = item?.[marker] === undefined ? undefined : String(item[marker]);
    const fresh = steps.filter((step) => (taken === undefined || step.step > taken) && step.delta[key] !== undefined);
    const last = fresh.at(-1);
    if (!last) continue;
    let [revenue, cost, lines] = [Number(item?.revenue ?? 0), Number(item?.cost ?? 0), Number(item?.lines ?? 0)];
    for (const step of fresh) {
      const [r, c, l] = step.delta[key] as MarginSums;
      [revenue, cost, lines] = [round(revenue + r), round(cost + c), lines + l];
    }
    const kept = item?.[BACKFILL_MARKER] === undefined ? {} : { [BACKFILL_MARKER]: item[BACKFILL_MARKER] };
    writes.push({ ...itemKey, type: 'productMargin', month, revenue, cost, lines, ...kept, [marker]: last.step });
  }
  await putItems(writes);
  return writes.length;
}

/** A product's months, oldest first: one Query of its partition's month items (~100 B each). */
export async function readProductMargins(workspaceId: string, sku: string): Promise<MarginPoint[]> {
  const range = keys.productMargins(workspaceId, sku);
  const items = await queryAll({
    KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
    ExpressionAttributeValues: { ':pk': range.PK, ':prefix': range.SKPrefix },
  });
  return items.flatMap((item) => {
    const revenue = Number(item.revenue);
    if (!(revenue > 0)) return [];
    const cost = Number(item.cost);
    return [{ month: String(item.month), marginPct: Math.round(((revenue - cost) / revenue) * 10_000) / 100, lines: Number(item.lines) }];
  });
}
