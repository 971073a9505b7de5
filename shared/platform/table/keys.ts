// The table's keys, the one module callers import: the base table's key builders here (a batch's in batch-keys.ts, spread in), the console's and the indexes' beside it; access-patterns.ts says how each key is read and written, and at what cost.
import { batchKeys } from './batch-keys.ts';
import { type DocumentKind, hashShard, keyDigest, pad, type PrimaryKey } from './key-parts.ts';

export const keys = {
  /** The tenant record; connectors share its partition. */
  workspace: (workspaceId: string): PrimaryKey => ({ PK: `WS#${workspaceId}`, SK: 'WORKSPACE' }),
  connector: (workspaceId: string, connectorId: string): PrimaryKey => ({ PK: `WS#${workspaceId}`, SK: `CONNECTOR#${connectorId}` }),
  connectorPrefix: (workspaceId: string) => ({ PK: `WS#${workspaceId}`, SKPrefix: 'CONNECTOR#' }),
  /**
   * Keyed by the SHA-256 of the key, so the one lookup on every request is a GetItem and the plaintext is never
   * stored. Each key is its own partition: authentication spreads evenly.
   */
  apiKey: (keyHash: string): PrimaryKey => ({ PK: `APIKEY#${keyHash}`, SK: 'APIKEY' }),
  /**
   * A workspace's API key as its listing shows it (grant, dates, no hash of the key): one item per key in the
   * workspace's partition, written with the key itself, so that listing a workspace's keys is one Query. Kept here,
   * not with the console's keys, because an API request writes the key's last use on it.
   */
  apiKeyListing: (workspaceId: string, keyId: string): PrimaryKey => ({ PK: `WS#${workspaceId}`, SK: `${API_KEY_LISTING_PREFIX}${keyId}` }),
  apiKeyListingPrefix: (workspaceId: string) => ({ PK: `WS#${workspaceId}`, SKPrefix: API_KEY_LISTING_PREFIX }),
  ...batchKeys,
  /** One partition per product, so that price requests for a large catalogue spread over many partitions. */
  product: (workspaceId: string, sku: string): PrimaryKey => ({ PK: productPartition(workspaceId, sku), SK: 'PRODUCT' }),
  customer: (workspaceId: string, externalId: string): PrimaryKey => ({ PK: `WS#${workspaceId}#CUSTOMER#${externalId}`, SK: 'CUSTOMER' }),
  /**
   * A quote or an order is the set of its line items in one partition: line 0 carries the whole header and the line
   * count, so one strongly consistent read of line 0 says which lines an update must remove.
   */
  documentLine: (workspaceId: string, kind: DocumentKind, externalId: string, index: number): PrimaryKey => ({
    PK: documentPartition(workspaceId, kind, externalId),
    SK: `LINE#${pad(index, 5)}`,
  }),
  documentLines: (workspaceId: string, kind: DocumentKind, externalId: string) => ({
    PK: documentPartition(workspaceId, kind, externalId),
    SKPrefix: 'LINE#',
  }),
  /**
   * A quote or order stored whole, its lines embedded: the item at line 0's key, so that one read finds a document in
   * either layout (an item with `lineItems` 1 has no other line items; one without it is the older layout, a line item
   * per line, which a correction removes).
   */
  document: (workspaceId: string, kind: DocumentKind, externalId: string): PrimaryKey => ({
    PK: documentPartition(workspaceId, kind, externalId),
    SK: `LINE#${pad(0, 5)}`,
  }),
  /**
   * One drained chunk's quote and order lines of one category, compact (bands/history-log.ts): what the bands job and
   * the backtest read. A chunk's items are keyed by the chunk, so a redelivered chunk rewrites the same items, and a
   * category's items are spread over HISTORY_LOG_SHARDS partitions by that key, so that no partition takes more than
   * a sixteenth of a category's history writes.
   */
  historyLog: (workspaceId: string, category: string, entryKey: string): PrimaryKey => ({
    PK: historyLogPartition(workspaceId, category, historyLogShard(entryKey)),
    SK: `${HISTORY_LOG_PREFIX}${entryKey}`,
  }),
  /** A history log item's entry key: its chunk's (a drained chunk's marker, batch-keys.ts), then its part of the entries. */
  historyLogEntry: (chunkKey: string, part: number): string => `${chunkKey}#${pad(part, 3)}`,
  historyLogShard: (workspaceId: string, category: string, shard: number) => ({
    PK: historyLogPartition(workspaceId, category, shard),
    SKPrefix: HISTORY_LOG_PREFIX,
  }),
  /** Where `history migrate` has got to in a workspace: the categories it finished. */
  historyMigration: (workspaceId: string): PrimaryKey => ({ PK: bandsPartition(workspaceId), SK: 'HISTORY_MIGRATION' }),
  /**
   * What a quote contributes to the adherence aggregates, beside its lines: its lines joined to their decisions, the
   * order that named it, and the counters it added, which a revision or the order subtracts before adding its own.
   */
  quoteAdherence: (workspaceId: string, quoteExternalId: string): PrimaryKey => ({
    PK: documentPartition(workspaceId, 'quote', quoteExternalId),
    SK: 'ADHERENCE',
  }),
  /**
   * The adherence counters of one dimension's group in one UTC month, on one of the workspace's ADHERENCE_SHARDS
   * partitions by a hash of its sort key, so that one workspace's ingest spreads its folds rather than heat one key.
   */
  adherenceAggregate: (workspaceId: string, suffix: string): PrimaryKey => ({
    PK: adherenceShardPartition(workspaceId, adherenceShard(suffix)),
    SK: suffix,
  }),
  /** An aggregate's sort key (also the name a quote's contribution keeps it by): dimension, UTC month, group. */
  adherenceAggregateSortKey: (dimension: string, month: string, value: string): string => `${dimension}#${month}#${value}`,
  /** An aggregate's sort key read back: its dimension, month and group (a group may itself hold '#'). */
  adherenceAggregateParts: (suffix: string): { dimension: string; month: string; value: string } => {
    const [dimension = '', month = '', ...value] = suffix.split('#');
    return { dimension, month, value: value.join('#') };
  },
  /**
   * The aggregates of one dimension from `fromMonth` to `toMonth` (YYYY-MM, both included): one Query of each shard,
   * and of the one partition the aggregates had before they were sharded, whose counters a reader adds to the shards'.
   */
  adherenceMonths: (workspaceId: string, dimension: string, fromMonth: string, toMonth: string) => ({
    PKs: [
      adherencePartition(workspaceId),
      ...Array.from({ length: ADHERENCE_SHARDS }, (_, shard) => adherenceShardPartition(workspaceId, shard)),
    ],
    SKFrom: `${dimension}#${fromMonth}#`,
    // '$' sorts right after '#', so every group of the last month is in whatever its name.
    SKTo: `${dimension}#${toMonth}$`,
  }),
  /** The newest rate seen for a currency, in units of the workspace's base currency. */
  fxRate: (workspaceId: string, currency: string): PrimaryKey => ({ PK: `WS#${workspaceId}#FX#${currency}`, SK: 'FX' }),
  /** A customer's bands in one category: a price call reads one item per customer and category, a recompute its own. */
  customerBands: (workspaceId: string, customerExternalId: string, category: string): PrimaryKey => ({
    PK: `WS#${workspaceId}#CUSTOMER#${customerExternalId}`,
    SK: `BANDS#${keyDigest(category)}`,
  }),
  /** A category's band with its segment × category bands and win models; all categories share one partition. */
  categoryBands: (workspaceId: string, category: string): PrimaryKey => ({
    PK: bandsPartition(workspaceId),
    SK: `${CATEGORY_BANDS_PREFIX}${keyDigest(category)}`,
  }),
  categoryBandsPrefix: (workspaceId: string) => ({ PK: bandsPartition(workspaceId), SKPrefix: CATEGORY_BANDS_PREFIX }),
  /** A category's list markups, kept by its bands job for the next: a partition apart from the one price calls read. */
  listMarkups: (workspaceId: string, category: string): PrimaryKey => ({
    PK: `WS#${workspaceId}#LISTMARKUPS`,
    SK: `CATEGORY#${keyDigest(category)}`,
  }),
  /** The workspace band, the last fallback, combined from the category bands. */
  workspaceBands: (workspaceId: string): PrimaryKey => ({ PK: bandsPartition(workspaceId), SK: 'WORKSPACE' }),
  /** Held by the one job recomputing a workspace's bands. */
  bandsLease: (workspaceId: string): PrimaryKey => ({ PK: bandsPartition(workspaceId), SK: 'LEASE' }),
  /** A price call by its Idempotency-Key (marker, then answer and decision): its digest spreads calls over partitions. */
  priceCall: (workspaceId: string, idempotencyKeyDigest: string): PrimaryKey => ({
    PK: priceCallPartition(workspaceId, idempotencyKeyDigest),
    SK: 'CALL',
  }),
  /**
   * A call of another creating operation by its Idempotency-Key (the route id names the operation): the marker, then the
   * stored answer, kept for the replay window. The operation is in the key, so one key on two operations never meets.
   */
  idempotentCall: (workspaceId: string, operation: string, idempotencyKeyDigest: string): PrimaryKey => ({
    PK: `WS#${workspaceId}#IDEM#${operation}#${idempotencyKeyDigest}`,
    SK: 'CALL',
  }),
  /** An earlier call under the same key, moved aside when the key is used again after its replay window. */
  archivedPriceCall: (workspaceId: string, idempotencyKeyDigest: string, callId: string): PrimaryKey => ({
    PK: priceCallPartition(workspaceId, idempotencyKeyDigest),
    SK: `CALL#${callId}`,
  }),
  /** A product's recommendation (no customer, quantity 1) in its partition: the overview reads it with one GetItem. */
  recommendation: (workspaceId: string, sku: string): PrimaryKey => ({ PK: productPartition(workspaceId, sku), SK: 'RECOMMENDATION' }),
  /** A recommendation's slim row in one of the console's orderings (recommendations/listing.ts), beside the recommendation. */
  recommendationRow: (workspaceId: string, sku: string, ordering: string): PrimaryKey => ({
    PK: productPartition(workspaceId, sku),
    SK: `RECROW#${ordering}`,
  }),
  /** Every category the workspace's recommendations have named: the console's category filter, one item. */
  recommendationCategories: (workspaceId: string): PrimaryKey => ({ PK: `WS#${workspaceId}`, SK: 'RECOMMENDATION_CATEGORIES' }),
  /** A product's order lines summed in one UTC month, folded in as orders drain; a product's months are one Query. */
  productMargin: (workspaceId: string, sku: string, month: string): PrimaryKey => ({
    PK: productPartition(workspaceId, sku),
    SK: `${MARGIN_PREFIX}${month}`,
  }),
  productMargins: (workspaceId: string, sku: string) => ({ PK: productPartition(workspaceId, sku), SKPrefix: MARGIN_PREFIX }),
  /** What an order added to its products' monthly margins, as the margins backfill (and an earlier release's drain) kept it. */
  orderMargin: (workspaceId: string, orderExternalId: string): PrimaryKey => ({
    PK: documentPartition(workspaceId, 'order', orderExternalId),
    SK: 'MARGIN',
  }),
  /** An approved price, kept beside the product it prices, in the order approved. */
  approval: (workspaceId: string, sku: string, approvedAt: string, approvalId: string): PrimaryKey => ({
    PK: productPartition(workspaceId, sku),
    SK: `APPROVAL#${approvedAt}#${approvalId}`,
  }),
  /** A product's approvals, which sort by their moments: its approval history. */
  approvalPrefix: (workspaceId: string, sku: string) => ({ PK: productPartition(workspaceId, sku), SKPrefix: 'APPROVAL#' }),
  /** The latest live approval of a product, which every live approval of it advances in turn. */
  latestApproval: (workspaceId: string, sku: string): PrimaryKey => ({ PK: productPartition(workspaceId, sku), SK: 'LATEST_APPROVAL' }),
  /** One partition per write-back task: an ack or an extend names the task by id, so it finds it with no index. */
  writeback: (workspaceId: string, taskId: string): PrimaryKey => ({ PK: `WS#${workspaceId}#WRITEBACK#${taskId}`, SK: 'TASK' }),
  /** An approval's tasks left after its first transaction; the workspace's claims read the partition (nearly always empty). */
  unfinishedPublication: (workspaceId: string, approvalId: string): PrimaryKey => ({ PK: `WS#${workspaceId}#UNPUBLISHED`, SK: approvalId }),
  unfinishedPublications: (workspaceId: string) => ({ PK: `WS#${workspaceId}#UNPUBLISHED`, SKPrefix: 'apv_' }),
  /**
   * Counts the claims of one connector in a window of seconds, those started and those running, so that claims made
   * at once take different slices of the claimable tasks instead of racing for the same first ones.
   */
  claimTicket: (workspaceId: string, connectorId: string, window: number): PrimaryKey => ({
    PK: `WS#${workspaceId}#CLAIMS#${connectorId}`,
    SK: `TICKET#${window}`,
  }),
  /** A webhook event, written with the change it reports (the outbox), kept 30 days; a partition per event, never contended. */
  webhookEvent: (workspaceId: string, eventId: string): PrimaryKey => ({ PK: `WS#${workspaceId}#WHEVENT#${eventId}`, SK: 'EVENT' }),
  /** One endpoint's deliveries, newest event last; each attempt sorts beside its delivery, under `ATTEMPT#`. */
  webhookDelivery: (workspaceId: string, endpointId: string, eventTimestamp: string, eventId: string): PrimaryKey => ({
    PK: webhookDeliveriesPartition(workspaceId, endpointId),
    SK: `${WEBHOOK_DELIVERY_PREFIX}${eventTimestamp}#${eventId}`,
  }),
  webhookDeliveryPrefix: (workspaceId: string, endpointId: string) => ({
    PK: webhookDeliveriesPartition(workspaceId, endpointId),
    SKPrefix: WEBHOOK_DELIVERY_PREFIX,
  }),
  webhookAttempt: (workspaceId: string, endpointId: string, eventTimestamp: string, eventId: string, seq: number): PrimaryKey => ({
    PK: webhookDeliveriesPartition(workspaceId, endpointId),
    SK: `${WEBHOOK_ATTEMPT_PREFIX}${eventTimestamp}#${eventId}#${pad(seq, 3)}`,
  }),
  webhookAttemptPrefix: (workspaceId: string, endpointId: string, eventTimestamp: string, eventId: string) => ({
    PK: webhookDeliveriesPartition(workspaceId, endpointId),
    SKPrefix: `${WEBHOOK_ATTEMPT_PREFIX}${eventTimestamp}#${eventId}#`,
  }),
  /** A webhook endpoint: a workspace's (at most 20) share one partition, so listing them to fan an event out is one Query. */
  webhookEndpoint: (workspaceId: string, endpointId: string): PrimaryKey => ({
    PK: webhooksPartition(workspaceId),
    SK: `${WEBHOOK_ENDPOINT_PREFIX}${endpointId}`,
  }),
  webhookEndpointPrefix: (workspaceId: string) => ({ PK: webhooksPartition(workspaceId), SKPrefix: WEBHOOK_ENDPOINT_PREFIX }),
  /** How many endpoints the workspace has: a create takes one under the cap, in the same transaction as its put. */
  webhookEndpointCount: (workspaceId: string): PrimaryKey => ({ PK: webhooksPartition(workspaceId), SK: 'ENDPOINTS' }),
  /** The workspace's delivery attempts in flight, each a lease with its expiry: one small item, read and written whole. */
  webhookInFlight: (workspaceId: string): PrimaryKey => ({ PK: webhooksPartition(workspaceId), SK: 'INFLIGHT' }),
  /** Where the workspace's next webhook message takes its place on the shared queue (shared/webhooks/fair-share.ts). */
  webhookLine: (workspaceId: string): PrimaryKey => ({ PK: webhooksPartition(workspaceId), SK: 'LINE' }),
  /** When an endpoint's recent redeliveries were asked for: the rate limit's sliding window. */
  webhookRedeliveries: (workspaceId: string, endpointId: string): PrimaryKey => ({
    PK: webhooksPartition(workspaceId),
    SK: `REDELIVERIES#${endpointId}`,
  }),
  /** A workspace's priced lines in one calendar month (UTC), which instances take in leased blocks. */
  usage: (workspaceId: string, month: string): PrimaryKey => ({ PK: `WS#${workspaceId}#USAGE#${month}`, SK: 'USAGE' }),
  /**
   * One of the items a workspace's per-second request rate is spread over (shared/workspaces/rate.ts): each its own
   * partition, so that the rate's writes are divided over as many partition keys.
   */
  rateShard: (workspaceId: string, meter: string, shard: number): PrimaryKey => ({
    PK: `WS#${workspaceId}#USAGE#RATE#${meter}#${shard}`,
    SK: 'RATE',
  }),
  /**
   * What a route or worker cost a workspace in one UTC day: one item per workspace × day × route, so that each stays
   * a fixed handful of counters (1 WRU to add to) and a report of days is one Query of one partition.
   */
  costLedger: (workspaceId: string, day: string, route: string): PrimaryKey => ({
    PK: costPartition(workspaceId),
    SK: `${COST_DAY_PREFIX}${day}#${route}`,
  }),
  /** The ledger items of the days from `fromDay` to `toDay` (YYYY-MM-DD, both included), in order. */
  costLedgerDays: (workspaceId: string, fromDay: string, toDay: string) => ({
    PK: costPartition(workspaceId),
    SKFrom: `${COST_DAY_PREFIX}${fromDay}#`,
    // '~' sorts after every route id, so the last day's routes are all in.
    SKTo: `${COST_DAY_PREFIX}${toDay}#~`,
  }),
} as const;

const API_KEY_LISTING_PREFIX = 'APIKEY#';
const COST_DAY_PREFIX = 'DAY#';

function costPartition(workspaceId: string): string {
  return `WS#${workspaceId}#COST`;
}

const CATEGORY_BANDS_PREFIX = 'CATEGORY#';
const WEBHOOK_ENDPOINT_PREFIX = 'ENDPOINT#';
const WEBHOOK_DELIVERY_PREFIX = 'DELIVERY#';
const WEBHOOK_ATTEMPT_PREFIX = 'ATTEMPT#';

function webhookDeliveriesPartition(workspaceId: string, endpointId: string): string {
  return `WS#${workspaceId}#WHDELIVERIES#${endpointId}`;
}

const webhooksPartition = (workspaceId: string): string => `WS#${workspaceId}#WEBHOOKS`;

const MARGIN_PREFIX = 'MARGIN#';

function productPartition(workspaceId: string, sku: string): string {
  return `${productPartitionPrefix(workspaceId)}${sku}`;
}

function productPartitionPrefix(workspaceId: string): string {
  return `WS#${workspaceId}#PRODUCT#`;
}

/** The SKU of a product-partition key of the workspace, as `keys.product` built it; undefined for any other key. */
export function skuOfProductKey(workspaceId: string, pk: unknown): string | undefined {
  const prefix = productPartitionPrefix(workspaceId);
  return typeof pk === 'string' && pk.startsWith(prefix) ? pk.slice(prefix.length) : undefined;
}

function bandsPartition(workspaceId: string): string {
  return `WS#${workspaceId}#BANDS`;
}

function priceCallPartition(workspaceId: string, idempotencyKeyDigest: string): string {
  return `WS#${workspaceId}#CALL#${idempotencyKeyDigest}`;
}

/** The Idempotency-Key digest of a price call's partition key, as `keys.priceCall` built it; undefined for any other key. */
export function digestOfPriceCallKey(workspaceId: string, pk: unknown): string | undefined {
  const prefix = priceCallPartition(workspaceId, '');
  return typeof pk === 'string' && pk.startsWith(prefix) ? pk.slice(prefix.length) : undefined;
}

/** The one partition of a workspace's adherence aggregates before they were sharded: read, never written. */
function adherencePartition(workspaceId: string): string {
  return `WS#${workspaceId}#ADHERENCE`;
}

/** Partitions a workspace's adherence aggregates are spread over (docs/decisions.md). */
export const ADHERENCE_SHARDS = 8;

function adherenceShard(suffix: string): number {
  return hashShard(suffix, ADHERENCE_SHARDS);
}

function adherenceShardPartition(workspaceId: string, shard: number): string {
  return `${adherencePartition(workspaceId)}#${pad(shard, 2)}`;
}

function documentPartition(workspaceId: string, kind: DocumentKind, externalId: string): string {
  return `WS#${workspaceId}#${kind.toUpperCase()}#${externalId}`;
}

/** Partitions of one category's history log. */
export const HISTORY_LOG_SHARDS = 16;
const HISTORY_LOG_PREFIX = 'LOG#';

function historyLogShard(entryKey: string): number {
  return hashShard(entryKey, HISTORY_LOG_SHARDS);
}

function historyLogPartition(workspaceId: string, category: string, shard: number): string {
  return `WS#${workspaceId}#HLOG#${keyDigest(category)}#${pad(shard, 2)}`;
}
