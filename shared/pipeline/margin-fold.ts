// The margin fold: what an order chunk changes in its products' monthly margins, folded at its checkpoint as the adherence fold is.
import type { StoredDocument } from '#shared/canonical/repository.ts';
import { addContributions, type MarginContribution, orderContribution } from '#shared/recommendations/margins.ts';
import type { OrderRecord } from '#shared/records/schema.ts';

/** What a chunk changes in margins: the sum of its orders' changes. */
export interface MarginWork {
  readonly workspaceId: string;
  readonly delta: MarginContribution;
}

/**
 * What an order's new version takes out of its products' months: what the version it replaces added. The stored
 * version is read anyway to version the document, and its text says what it added. A version this same chunk wrote
 * (an earlier attempt at it) replaced another already: what that one added was kept on it, so the attempt takes out
 * the same as the first. A duplicate from an earlier chunk of the batch takes out what it adds, and changes nothing.
 */
export function replacedContribution(previous: StoredDocument | undefined, chunkKey: string): MarginContribution {
  if (!previous) return {};
  if (previous.chunk === chunkKey) return previous.replacedMargin ? (JSON.parse(previous.replacedMargin) as MarginContribution) : {};
  return orderContribution(JSON.parse(previous.document) as OrderRecord);
}

/** An order's change to the months: its contribution less the one it replaces. */
export function orderMarginChange(order: OrderRecord, replaced: MarginContribution): MarginContribution {
  return addContributions(orderContribution(order), replaced, -1);
}

/**
 * The sum of many contributions in one pass, as `addContributions` adds two (sums rounded as it rounds them, entries
 * that come to nothing dropped).
 */
export function sumMargins(changes: readonly MarginContribution[]): MarginContribution {
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
  return { workspaceId: first.workspaceId, delta: sumMargins(works.map((work) => work.delta)) };
}
