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
  let delta: MarginContribution = {};
  const contributions: TableItem[] = [];
  for (const order of orders) {
    const contribution = orderContribution(order);
    delta = addContributions(addContributions(delta, contribution, 1), stored.get(order.externalId) ?? {}, -1);
    contributions.push(orderContributionItem(from.workspaceId, order.externalId, contribution));
  }
  return { workspaceId: from.workspaceId, contributions, delta };
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

/** Several order chunks' margins as one: folded at one checkpoint, under the marker of the last of them. */
export function mergeMargins(works: readonly MarginWork[]): MarginWork | undefined {
  const [first] = works;
  if (!first) return undefined;
  return {
    workspaceId: first.workspaceId,
    contributions: works.flatMap((work) => work.contributions),
    delta: works.reduce<MarginContribution>((sum, work) => addContributions(sum, work.delta, 1), {}),
  };
}
