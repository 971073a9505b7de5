// The margin fold: what an order chunk changes in its products' monthly margins, guarded as the adherence fold is.
import { putItems, type TableItem } from '#platform/table/bulk.ts';
import type { Provenance } from '#shared/canonical/items.ts';
import {
  addContributions,
  foldMargins,
  type MarginContribution,
  orderContribution,
  orderContributionItem,
  readOrderContributions,
} from '#shared/recommendations/margins.ts';
import type { OrderRecord } from '#shared/records/schema.ts';

/** What a chunk changes in margins: each order's contribution item to write, and the sum of their changes. */
export interface MarginWork {
  readonly workspaceId: string;
  readonly contributions: TableItem[];
  readonly delta: MarginContribution;
}

/** Each order's new contribution against the one stored for it (one BatchGetItem): a corrected order adds its difference. */
export async function prepareOrderMargins(orders: readonly OrderRecord[], from: Provenance): Promise<MarginWork> {
  const stored = await readOrderContributions(
    from.workspaceId,
    orders.map((order) => order.externalId),
  );
  const changes: MarginContribution[] = [];
  const contributions: TableItem[] = [];
  for (const order of orders) {
    const contribution = orderContribution(order);
    // Each order's change alone, summed once below: adding each to the chunk's sum in turn copies the sum every time.
    changes.push(addContributions(contribution, stored.get(order.externalId) ?? {}, -1));
    contributions.push(orderContributionItem(from.workspaceId, order.externalId, contribution));
  }
  return { workspaceId: from.workspaceId, contributions, delta: sumMargins(changes) };
}

/**
 * Folds the chunk's delta into the months, then writes its contributions. The contributions are written last, so an
 * attempt that reads them again after a fault either computes the same delta (the fold did not finish) or finds every
 * month already holding it.
 */
export async function applyMargins(work: MarginWork, batchId: string, chunkSk: string): Promise<void> {
  await foldMargins(work.workspaceId, work.delta, batchId, chunkSk);
  await putItems(work.contributions);
}

/**
 * The sum of many contributions in one pass, as `addContributions` adds two (sums rounded as it rounds them, entries
 * that come to nothing dropped).
 */
function sumMargins(changes: readonly MarginContribution[]): MarginContribution {
  const sums = new Map<string, [number, number, number]>();
  for (const change of changes) {
    for (const [key, [revenue, cost, lines]] of Object.entries(change)) {
      const sum = sums.get(key) ?? [0, 0, 0];
      sums.set(key, [sum[0] + revenue, sum[1] + cost, sum[2] + lines]);
    }
  }
  // Through addContributions once, for its rounding and its dropping of entries that cancel out.
  return addContributions({}, Object.fromEntries(sums), 1);
}

/** Several order chunks' margins as one: folded at one checkpoint, under the marker of the last of them. */
export function mergeMargins(works: readonly MarginWork[]): MarginWork | undefined {
  const [first] = works;
  if (!first) return undefined;
  return {
    workspaceId: first.workspaceId,
    contributions: works.flatMap((work) => work.contributions),
    delta: sumMargins(works.map((work) => work.delta)),
  };
}
