// Guidance adherence attribution: what one quote (and the order that names it) contributes to the running aggregates.
import { keys } from '#platform/table/keys.ts';
import type { OrderRecord, QuoteRecord } from '#shared/records/schema.ts';

export const dimensions = ['overall', 'segment', 'category', 'reason', 'confidence'] as const;
export type Dimension = (typeof dimensions)[number];

/** Where a quote line sits against its guidance; `unguided` carries no decision id, `unattributed` one the service does not know. */
export const adherenceBands = ['within', 'above', 'below', 'unguided', 'unattributed'] as const;
export type AdherenceBand = (typeof adherenceBands)[number];

/** Per band: lines, decided (won or lost), won, realised revenue and cost, leakage — money in base-currency cents. */
export const adherenceMetrics = ['n', 'd', 'w', 'r', 'c', 'l'] as const;
export type AdherenceMetric = (typeof adherenceMetrics)[number];

/** The value a line without one is grouped under. */
export const NONE = '(none)';
/** Free-text reasons are grouped by their first characters, lower-cased, so that an item's groups stay bounded in size. */
const REASON_LENGTH = 40;

/** The decision a quote line names, as stored when the line was priced. */
export interface GuidedDecision {
  readonly priceCents: number;
  readonly currency: string;
  readonly confidence: string;
  readonly stance?: string;
  readonly pricedAtMs: number;
}

/** A quote line joined to its decision at drain time: everything its contribution is computed from. */
export interface AttributedLine {
  readonly sku: string;
  readonly quantity: number;
  readonly quotedCents: number;
  readonly costCents: number;
  readonly band: AdherenceBand;
  readonly reason: string;
  readonly decisionId?: string;
  readonly guidedCents?: number;
  readonly confidence?: string;
  readonly stance?: string;
}

export interface QuotePart {
  readonly quoteId: string;
  /** The UTC month (YYYY-MM) of the quote's creation: the period its lines are reported in. */
  readonly month: string;
  readonly outcome: QuoteRecord['outcome'];
  readonly segment: string;
  /** Units of the base currency per unit of the quote's currency; 1 when the quote is in the base currency. */
  readonly rate: number;
  readonly lines: ReadonlyArray<AttributedLine & { readonly category: string }>;
}

/** The order that names the quote: it closes the loop, won at its own prices. */
export interface OrderPart {
  readonly orderId: string;
  readonly rate: number;
  readonly lines: ReadonlyArray<{
    readonly sku: string;
    readonly quantity: number;
    readonly priceCents: number;
    readonly costCents: number;
  }>;
}

/** Counters by aggregate item (`dimension#month#value`), by attribute (`band_metric`). */
export type Contribution = Record<string, Record<string, number>>;

const DAY_MS = 86_400_000;

export function monthOf(iso: string): string {
  return new Date(Date.parse(iso)).toISOString().slice(0, 7);
}

export function normalizedReason(reason: string | null | undefined): string {
  const text = (reason ?? '').trim().toLowerCase().replace(/\s+/g, ' ').slice(0, REASON_LENGTH);
  return text === '' ? NONE : text;
}

/** Where a quoted price sits against the guided one: within ± bandPct percent of it, above or below. */
export function bandOf(quotedCents: number, guidedCents: number, bandPct: number): 'within' | 'above' | 'below' {
  const room = (guidedCents * bandPct) / 100;
  if (quotedCents > guidedCents + room) return 'above';
  if (quotedCents < guidedCents - room) return 'below';
  return 'within';
}

/** A rate usable for conversion, or 1: a document without one is taken to be in the base currency. */
function usableRate(rate: number | null | undefined): number {
  return rate !== null && rate !== undefined && rate > 0 ? rate : 1;
}

/**
 * Joins a quote's lines to their decisions. A line whose id is unknown, older than the retention, or priced in
 * another currency than the quote's is unattributed: never compared against a guess.
 */
export function attributeQuote(
  record: QuoteRecord,
  context: {
    readonly segment: string | undefined;
    categoryOf(sku: string): string | undefined;
    decisionOf(id: string): GuidedDecision | undefined;
    readonly bandPct: number;
    readonly nowMs: number;
    readonly retentionDays: number;
  },
): QuotePart {
  return {
    quoteId: record.externalId,
    month: monthOf(record.createdAt),
    outcome: record.outcome,
    segment: context.segment || NONE,
    rate: usableRate(record.exchangeRate),
    lines: record.lines.map((line) => {
      const base = {
        sku: line.productSku,
        quantity: line.quantity,
        quotedCents: line.quotedPriceCents,
        costCents: line.costCents,
        reason: normalizedReason(line.salespersonPriceReason),
        category: context.categoryOf(line.productSku) || NONE,
      };
      if (!line.pricingDecisionId) return { ...base, band: 'unguided' as const };
      const decision = context.decisionOf(line.pricingDecisionId);
      const expired = decision !== undefined && context.nowMs - decision.pricedAtMs > context.retentionDays * DAY_MS;
      const otherCurrency = decision !== undefined && !!record.currency && record.currency !== decision.currency;
      if (!decision || expired || otherCurrency) return { ...base, band: 'unattributed' as const, decisionId: line.pricingDecisionId };
      return {
        ...base,
        band: bandOf(line.quotedPriceCents, decision.priceCents, context.bandPct),
        decisionId: line.pricingDecisionId,
        guidedCents: decision.priceCents,
        confidence: decision.confidence,
        ...(decision.stance ? { stance: decision.stance } : {}),
      };
    }),
  };
}

export function orderPart(record: OrderRecord): OrderPart {
  return {
    orderId: record.externalId,
    rate: usableRate(record.exchangeRate),
    lines: record.lines.map((line) => ({
      sku: line.productSku,
      quantity: line.quantity,
      priceCents: line.soldPriceCents,
      costCents: line.costCents,
    })),
  };
}

function add(into: Contribution, item: string, attribute: string, value: number): void {
  if (value === 0) return;
  const counters = (into[item] ??= {});
  counters[attribute] = (counters[attribute] ?? 0) + value;
}

/**
 * What a quote contributes, with the order that names it if one does: each line counts in the overall group and in
 * its segment, category, reason and (when guided) confidence groups. An order matches the quote's lines by SKU, in
 * order; a won quote without an order is realised at its own prices.
 */
export function contributionOf(quote: QuotePart | undefined, order: OrderPart | undefined): Contribution {
  const contribution: Contribution = {};
  if (!quote) return contribution;
  const orderLines = [...(order?.lines ?? [])];
  const won = order !== undefined || quote.outcome === 'won';
  const decided = won || quote.outcome === 'lost';
  for (const line of quote.lines) {
    const matched = orderLines.findIndex((candidate) => candidate.sku === line.sku);
    const sold = matched >= 0 ? orderLines.splice(matched, 1)[0] : undefined;
    const realised = !won
      ? undefined
      : sold && order
        ? { quantity: sold.quantity, priceCents: sold.priceCents, costCents: sold.costCents, rate: order.rate }
        : { quantity: line.quantity, priceCents: line.quotedCents, costCents: line.costCents, rate: quote.rate };
    const revenue = realised ? Math.round(realised.quantity * realised.priceCents * realised.rate) : 0;
    const cost = realised ? Math.round(realised.quantity * realised.costCents * realised.rate) : 0;
    const leakage =
      realised && line.band === 'below' && line.guidedCents !== undefined
        ? Math.max(0, Math.round(realised.quantity * (line.guidedCents - realised.priceCents) * realised.rate))
        : 0;
    const groups: Array<[Dimension, string]> = [
      ['overall', ''],
      ['segment', quote.segment],
      ['category', line.category],
      ['reason', line.reason],
    ];
    if (line.confidence) groups.push(['confidence', line.confidence]);
    for (const [dimension, value] of groups) {
      const item = keys.adherenceAggregateSortKey(dimension, quote.month, value);
      add(contribution, item, `${line.band}_n`, 1);
      add(contribution, item, `${line.band}_d`, decided ? 1 : 0);
      add(contribution, item, `${line.band}_w`, won ? 1 : 0);
      add(contribution, item, `${line.band}_r`, revenue);
      add(contribution, item, `${line.band}_c`, cost);
      add(contribution, item, `${line.band}_l`, leakage);
    }
  }
  return contribution;
}

/** What replaces `before` with `after` in the aggregates: their difference, without the counters that do not change. */
export function contributionDelta(before: Contribution, after: Contribution): Contribution {
  const delta: Contribution = {};
  for (const [item, counters] of Object.entries(after)) for (const [name, value] of Object.entries(counters)) add(delta, item, name, value);
  for (const [item, counters] of Object.entries(before))
    for (const [name, value] of Object.entries(counters)) add(delta, item, name, -value);
  for (const [item, counters] of Object.entries(delta)) {
    for (const [name, value] of Object.entries(counters)) if (value === 0) delete counters[name];
    if (Object.keys(counters).length === 0) delete delta[item];
  }
  return delta;
}

/** Sums the deltas of many documents into one per aggregate item, so that a chunk updates each item once. */
export function sumContributions(deltas: Iterable<Contribution>): Contribution {
  const total: Contribution = {};
  for (const delta of deltas)
    for (const [item, counters] of Object.entries(delta))
      for (const [name, value] of Object.entries(counters)) add(total, item, name, value);
  return contributionDelta({}, total);
}
