// The adherence fold: what a quote or order chunk changes in its quotes' attributions and the monthly aggregates.
import { inParallel, putItems, type TableItem, WRITE_CONCURRENCY } from '#platform/table/bulk.ts';
import { updateItem } from '#platform/table/commands.ts';
import { keys } from '#platform/table/keys.ts';
import {
  attributeQuote,
  type Contribution,
  contributionDelta,
  type GuidedDecision,
  orderPart,
  sumContributions,
} from '#shared/adherence/attribution.ts';
import { attributionItem, readAttributions } from '#shared/adherence/repository.ts';
import type { Provenance } from '#shared/canonical/items.ts';
import { DECISION_RETENTION_DAYS, findDecisions } from '#shared/prices/calls.ts';
import type { OrderRecord, QuoteRecord } from '#shared/records/schema.ts';

/** What a chunk changes in adherence: the attribution items to write, and the sum of their changes to the aggregates. */
export interface AdherenceWork {
  readonly workspaceId: string;
  readonly attributions: TableItem[];
  readonly delta: Contribution;
}

/** The guided price, confidence and stance of a stored result line; undefined for a refused line. */
function guidedDecision(line: unknown, pricedAt: string): GuidedDecision | undefined {
  const priced = line as {
    ok?: boolean;
    priceCents?: number;
    currency?: string;
    confidence?: string;
    explanation?: { stance?: string };
  };
  if (priced.ok !== true || typeof priced.priceCents !== 'number' || typeof priced.currency !== 'string') return undefined;
  return {
    priceCents: priced.priceCents,
    currency: priced.currency,
    confidence: priced.confidence ?? 'low',
    ...(priced.explanation?.stance ? { stance: priced.explanation.stance } : {}),
    pricedAtMs: Date.parse(pricedAt),
  };
}

/**
 * Joins a chunk's quotes to their decisions (one BatchGetItem of the calls they name) and to the orders stored on
 * their attribution. Expiry is judged at the batch's commit, so an attempt run again judges the same.
 */
export async function prepareQuoteAdherence(
  quotes: readonly QuoteRecord[],
  from: Provenance,
  context: { segmentOf(customer: string): string | undefined; categoryOf(sku: string): string | undefined; readonly bandPct: number },
): Promise<AdherenceWork> {
  const ids = quotes.flatMap((quote) => quote.lines.flatMap((line) => (line.pricingDecisionId ? [line.pricingDecisionId] : [])));
  const [stored, decisions] = await Promise.all([
    readAttributions(
      from.workspaceId,
      quotes.map((quote) => quote.externalId),
    ),
    findDecisions(from.workspaceId, ids),
  ]);
  const deltas: Contribution[] = [];
  const attributions: TableItem[] = [];
  for (const record of quotes) {
    const previous = stored.get(record.externalId);
    const quote = attributeQuote(record, {
      segment: context.segmentOf(record.customerExternalId),
      categoryOf: context.categoryOf,
      decisionOf: (id) => {
        const decision = decisions.get(id);
        return decision && guidedDecision(decision.line, decision.pricedAt);
      },
      bandPct: context.bandPct,
      nowMs: Date.parse(from.syncedAt),
      retentionDays: DECISION_RETENTION_DAYS,
    });
    const { item, contribution } = attributionItem(from.workspaceId, record.externalId, quote, previous?.order, from.syncedAt);
    attributions.push(item);
    deltas.push(contributionDelta(previous?.contribution ?? {}, contribution));
  }
  return { workspaceId: from.workspaceId, attributions, delta: sumContributions(deltas) };
}

/** An order that names a quote closes its loop: the quote's lines count as won, at the order's prices. */
export async function prepareOrderAdherence(orders: readonly OrderRecord[], from: Provenance): Promise<AdherenceWork> {
  const naming = new Map<string, OrderRecord>();
  // Of two orders naming one quote, the later staged is the one that counts.
  for (const order of orders) if (order.sourceQuoteExternalId) naming.set(order.sourceQuoteExternalId, order);
  if (naming.size === 0) return { workspaceId: from.workspaceId, attributions: [], delta: {} };
  const stored = await readAttributions(from.workspaceId, [...naming.keys()]);
  const deltas: Contribution[] = [];
  const attributions: TableItem[] = [];
  for (const [quoteId, order] of naming) {
    const previous = stored.get(quoteId);
    const { item, contribution } = attributionItem(from.workspaceId, quoteId, previous?.quote, orderPart(order), from.syncedAt);
    attributions.push(item);
    deltas.push(contributionDelta(previous?.contribution ?? {}, contribution));
  }
  return { workspaceId: from.workspaceId, attributions, delta: sumContributions(deltas) };
}

/** The quotes whose attribution a chunk reads and rewrites: a later chunk naming any of them waits for this one. */
export function adherenceDocuments(quoteIds: Iterable<string>): string[] {
  return [...quoteIds].map((id) => `adherence#${id}`);
}

/**
 * Folds a chunk's delta into the aggregates, then writes its attributions. Each aggregate item records, per batch,
 * the last chunk folded into it, and takes a chunk only after it: a drain that dies anywhere and runs the chunk again
 * adds nothing twice. The attributions are written last, so an attempt that reads them again after a fault either
 * computes the same delta (the fold did not finish) or finds every item already holding it.
 */
export async function applyAdherence(work: AdherenceWork, batchId: string, chunkSk: string): Promise<void> {
  const marker = `m_${batchId}`;
  await inParallel(Object.entries(work.delta), WRITE_CONCURRENCY, async ([suffix, counters]) => {
    const names: Record<string, string> = { '#type': 'type', '#marker': marker, '#month': 'month', '#value': 'value' };
    const values: Record<string, unknown> = {
      ':type': 'adherenceAggregate',
      ':sk': chunkSk,
      ...prefixed(keys.adherenceAggregateParts(suffix)),
    };
    const adds = Object.entries(counters).map(([name, value], index) => {
      names[`#a${index}`] = name;
      values[`:a${index}`] = value;
      return `#a${index} :a${index}`;
    });
    // A refused condition is a chunk this aggregate already took: nothing to add.
    await updateItem({
      Key: keys.adherenceAggregate(work.workspaceId, suffix),
      UpdateExpression: `SET #type = :type, dimension = :dimension, #month = :month, #value = :value, #marker = :sk ADD ${adds.join(', ')}`,
      ConditionExpression: 'attribute_not_exists(#marker) OR #marker < :sk',
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: values,
    });
  });
  await putItems(work.attributions);
}

function prefixed(fields: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(fields).map(([name, value]) => [`:${name}`, value]));
}

/** Several chunks' adherence as one: folded at one checkpoint, under the marker of the last of them. */
export function mergeAdherence(works: readonly AdherenceWork[]): AdherenceWork | undefined {
  const [first] = works;
  if (!first) return undefined;
  return {
    workspaceId: first.workspaceId,
    attributions: works.flatMap((work) => work.attributions),
    delta: sumContributions(works.map((work) => work.delta)),
  };
}
