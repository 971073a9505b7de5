// Adherence in the table: each quote's attribution item, and the monthly aggregates a report reads.
import { getItems, type TableItem } from '#platform/table/bulk.ts';
import { packJson, unpackJson } from '#platform/table/packed.ts';
import { queryAll } from '#platform/table/query.ts';
import { keys } from '#platform/table/keys.ts';
import { type Contribution, contributionOf, type Dimension, type OrderPart, type QuotePart } from './attribution.ts';
import type { AdherenceReport } from './schema.ts';
import { buildReport } from './report.ts';
import { pricingSettings } from '#shared/pricing/settings.ts';
import { getWorkspace } from '#shared/workspaces/repository.ts';

const DAY_MS = 86_400_000;
/** A quote's attribution is kept as long as its history lines, so that a late revision still finds what to replace. */
const ATTRIBUTION_RETENTION_DAYS = 400;

/** A quote's attribution as stored: its parts, and what it added to the aggregates. */
export interface StoredAttribution {
  readonly quote?: QuotePart;
  readonly order?: OrderPart;
  readonly contribution: Contribution;
}

/** The stored attributions of some quotes, read consistently: a chunk replaces what the chunk before wrote. */
export async function readAttributions(workspaceId: string, quoteIds: readonly string[]): Promise<Map<string, StoredAttribution>> {
  const items = await getItems(
    quoteIds.map((id) => keys.quoteAdherence(workspaceId, id)),
    { consistent: true },
  );
  return new Map(items.map((item) => [String(item.quoteExternalId), storedAttribution(item)]));
}

/** An item as either layout keeps it: its parts packed in one attribute, or (written before that) as JSON text apiece. */
export function storedAttribution(item: TableItem): StoredAttribution {
  if (item.packed instanceof Uint8Array) {
    const packed = unpackJson(item.packed) as Partial<StoredAttribution>;
    return { quote: packed.quote, order: packed.order, contribution: packed.contribution ?? {} };
  }
  const parse = <T>(text: unknown): T | undefined => (typeof text === 'string' ? (JSON.parse(text) as T) : undefined);
  return {
    quote: parse<QuotePart>(item.quote),
    order: parse<OrderPart>(item.order),
    contribution: parse<Contribution>(item.contribution) ?? {},
  };
}

/**
 * A quote's attribution item, and what it adds to the aggregates; kept as long as its history lines from `syncedAt`.
 * Its parts are packed (platform/table/packed.ts): as JSON text they were 1.5–2 KB, two write units on every drain
 * that touched the quote or its order, and packed they fit in one.
 */
export function attributionItem(
  workspaceId: string,
  quoteId: string,
  quote: QuotePart | undefined,
  order: OrderPart | undefined,
  syncedAt: string,
) {
  const contribution = contributionOf(quote, order);
  const item: TableItem = {
    ...keys.quoteAdherence(workspaceId, quoteId),
    type: 'quoteAdherence',
    quoteExternalId: quoteId,
    packed: packJson({ ...(quote ? { quote } : {}), ...(order ? { order } : {}), contribution }),
    expiresAt: Math.floor((Date.parse(syncedAt) + ATTRIBUTION_RETENTION_DAYS * DAY_MS) / 1000),
  };
  return { item, contribution };
}

/**
 * One dimension's aggregate items over whole months: a Query of each shard and of the partition the aggregates had
 * before they were sharded, a page per 1 MB, with the counters of each group and month added up across them.
 */
export async function readAdherenceAggregates(
  workspaceId: string,
  dimension: Dimension,
  fromMonth: string,
  toMonth: string,
): Promise<TableItem[]> {
  const range = keys.adherenceMonths(workspaceId, dimension, fromMonth, toMonth);
  const parts = await Promise.all(
    range.PKs.map((pk) =>
      queryAll({
        KeyConditionExpression: 'PK = :pk AND SK BETWEEN :from AND :to',
        ExpressionAttributeValues: { ':pk': pk, ':from': range.SKFrom, ':to': range.SKTo },
      }),
    ),
  );
  return sumAggregates(parts.flat());
}

/**
 * Items of one group and month, from the shards and the older partition, as one: their counters added, the rest (its
 * dimension, month and group, and the batches' markers, which guard writes and are never read) from the first.
 */
export function sumAggregates(items: readonly TableItem[]): TableItem[] {
  const bySortKey = new Map<string, TableItem>();
  for (const item of items) {
    const sortKey = String(item.SK);
    const sum = bySortKey.get(sortKey);
    if (!sum) {
      bySortKey.set(sortKey, { ...item });
      continue;
    }
    for (const [name, value] of Object.entries(item)) {
      if (typeof value !== 'number' || name.startsWith('m_')) continue;
      sum[name] = (typeof sum[name] === 'number' ? (sum[name] as number) : 0) + value;
    }
  }
  return [...bySortKey.values()].sort((a, b) => String(a.SK).localeCompare(String(b.SK)));
}

/** The report of a period: three dimensions read (overall, confidence, and the one asked for), whatever the history's size. */
export async function readAdherenceReport(
  workspaceId: string,
  period: { readonly fromMonth: string; readonly toMonth: string },
  by: 'segment' | 'category' | 'reason' | undefined,
): Promise<AdherenceReport> {
  const read = (dimension: Dimension) => readAdherenceAggregates(workspaceId, dimension, period.fromMonth, period.toMonth);
  const [workspace, overall, confidence, groups] = await Promise.all([
    getWorkspace(workspaceId),
    read('overall'),
    read('confidence'),
    by ? read(by) : Promise.resolve([]),
  ]);
  return buildReport({
    workspaceId,
    ...period,
    bandPct: pricingSettings(workspace?.pricing).adherenceBandPct,
    overall,
    confidence,
    ...(by ? { by, groups } : {}),
  });
}
