// The keys of the table's indexes: alternate keys on base items, history lines, claimable tasks and listings.
import { createHash } from 'node:crypto';
import { table } from './definition.ts';
import { type DocumentKind, hashShard, keyDigest, lineDigest } from './key-parts.ts';

const [lookupIndex, historyIndex, claimableIndex] = table.indexes;

/** Alternate keys, written on the base item and served by the `lookup` index (KEYS_ONLY). */
export const lookupKeys = {
  apiKeyById: (keyId: string) => ({ [lookupIndex.partitionKey]: apiKeyIdPartition(keyId), [lookupIndex.sortKey]: 'APIKEY' }),
  apiKeysWithId: (keyId: string) => ({ partitionKey: apiKeyIdPartition(keyId) }),
  /** On a key's listing item: an operator finds a leaked key by its last four in every workspace with one Query. */
  apiKeyByLastFour: (lastFour: string, workspaceId: string, keyId: string) => ({
    [lookupIndex.partitionKey]: apiKeyLastFourPartition(lastFour),
    [lookupIndex.sortKey]: `${workspaceId}#${keyId}`,
  }),
  apiKeysWithLastFour: (lastFour: string) => ({ partitionKey: apiKeyLastFourPartition(lastFour) }),
  productByExternalId: (workspaceId: string, externalId: string) => ({
    [lookupIndex.partitionKey]: productExternalIdPartition(workspaceId, externalId),
    [lookupIndex.sortKey]: 'PRODUCT',
  }),
  productsWithExternalId: (workspaceId: string, externalId: string) => ({
    partitionKey: productExternalIdPartition(workspaceId, externalId),
  }),
  /** Every history line of a product; the sort key starts with the customer, so one customer's lines are a prefix. */
  productLine: (
    workspaceId: string,
    sku: string,
    customerExternalId: string | null,
    kind: DocumentKind,
    externalId: string,
    index: number,
  ) => ({
    [lookupIndex.partitionKey]: productLinesPartition(workspaceId, sku),
    [lookupIndex.sortKey]: `${customerLinesPrefix(customerExternalId)}${lineDigest(kind, externalId, index)}`,
  }),
  productLines: (workspaceId: string, sku: string) => ({ partitionKey: productLinesPartition(workspaceId, sku) }),
  customerProductLines: (workspaceId: string, sku: string, customerExternalId: string | null) => ({
    partitionKey: productLinesPartition(workspaceId, sku),
    sortKeyPrefix: customerLinesPrefix(customerExternalId),
  }),
  /**
   * A connector's open (pending or leased) write-back tasks for one SKU: what a new approval of the SKU supersedes.
   * Removed with the claimable key when the task ends.
   */
  openWriteback: (workspaceId: string, connectorId: string, sku: string, taskId: string) => ({
    [lookupIndex.partitionKey]: openWritebacksPartition(workspaceId, connectorId, sku),
    [lookupIndex.sortKey]: taskId,
  }),
  openWritebacks: (workspaceId: string, connectorId: string, sku: string) => ({
    partitionKey: openWritebacksPartition(workspaceId, connectorId, sku),
  }),
  /**
   * A webhook event not yet handed to the delivery queue, for the sweeper; removed once its fan-out ran. Spread over
   * a few partitions by event id, so that a burst of events never throttles the index, and through it the table.
   */
  undispatchedEvent: (eventId: string, createdAt: string, workspaceId: string) => ({
    [lookupIndex.partitionKey]: undispatchedPartition(outboxShard(eventId)),
    [lookupIndex.sortKey]: `${createdAt}#${workspaceId}#${eventId}`,
  }),
  undispatchedEvents: (shard: number) => ({ partitionKey: undispatchedPartition(shard) }),
  /**
   * A live approval waiting for a second approver, for the sweeper to end once its wait has run out; removed when the
   * wait ends. Waits are few (a large move, with the setting on), so one partition holds every workspace's.
   */
  waitingApproval: (waitingUntil: string, workspaceId: string, approvalId: string) => ({
    [lookupIndex.partitionKey]: WAITING_APPROVALS_PARTITION,
    [lookupIndex.sortKey]: `${waitingUntil}#${workspaceId}#${approvalId}`,
  }),
  waitingApprovals: () => ({ partitionKey: WAITING_APPROVALS_PARTITION }),
  /**
   * A committed batch not yet drained, on its place in its workspace's drain order, for the sweeper to find one whose
   * message was lost, oldest commit first; removed with that place when the batch ends. Commits are few (a batch is
   * up to millions of records), so one partition holds every workspace's.
   */
  undrainedBatch: (committedAt: string, workspaceId: string, batchId: string) => ({
    [lookupIndex.partitionKey]: UNDRAINED_BATCHES_PARTITION,
    [lookupIndex.sortKey]: `${committedAt}#${workspaceId}#${batchId}`,
  }),
  undrainedBatches: () => ({ partitionKey: UNDRAINED_BATCHES_PARTITION }),
  /** The batch an undrained sort key names: the commit time holds no `#`. */
  undrainedBatchOf: (sortKey: unknown): { committedAt: string; workspaceId: string; batchId: string } => {
    const [committedAt, workspaceId, batchId] = String(sortKey).split('#');
    return { committedAt: committedAt as string, workspaceId: workspaceId as string, batchId: batchId as string };
  },
  /** The names of the lookup keys, for an update that takes an item off its list. */
  lookupAttributes: [lookupIndex.partitionKey, lookupIndex.sortKey] as const,
  /** The event an undispatched sort key names: the creation time holds no `#`, so the parts after it are the workspace and the event. */
  undispatchedEventOf: (sortKey: unknown): { workspaceId: string; eventId: string } => {
    const [, workspaceId, eventId] = String(sortKey).split('#');
    return { workspaceId: workspaceId as string, eventId: eventId as string };
  },
} as const;

/** Partitions of undispatched webhook events; the sweeper reads each. */
export const OUTBOX_SHARDS = 8;

function outboxShard(eventId: string): number {
  return createHash('sha256').update(eventId).digest().readUInt8(0) % OUTBOX_SHARDS;
}

const WAITING_APPROVALS_PARTITION = 'APPROVALWAIT';
const UNDRAINED_BATCHES_PARTITION = 'UNDRAINED';

function undispatchedPartition(shard: number): string {
  return `WHOUTBOX#${shard}`;
}

function apiKeyIdPartition(keyId: string): string {
  return `APIKEYID#${keyId}`;
}

function apiKeyLastFourPartition(lastFour: string): string {
  return `APIKEYLAST4#${lastFour}`;
}

function productExternalIdPartition(workspaceId: string, externalId: string): string {
  return `WS#${workspaceId}#PRODUCTEXT#${externalId}`;
}

function openWritebacksPartition(workspaceId: string, connectorId: string, sku: string): string {
  return `WS#${workspaceId}#WBOPEN#${connectorId}#${sku}`;
}

function productLinesPartition(workspaceId: string, sku: string): string {
  return `WS#${workspaceId}#SKU#${sku}`;
}

function customerLinesPrefix(customerExternalId: string | null): string {
  return `LINE#${keyDigest(customerExternalId ?? '')}#`;
}

/** History lines by the product's category and the customer's segment, served by the `history` index (ALL). */
export const historyKeys = {
  categoryLine: (workspaceId: string, category: string, segment: string, kind: DocumentKind, externalId: string, index: number) => ({
    [historyIndex.partitionKey]: categoryPartition(workspaceId, category),
    [historyIndex.sortKey]: `${segmentPrefix(segment)}${lineDigest(kind, externalId, index)}`,
  }),
  categoryLines: (workspaceId: string, category: string) => ({ partitionKey: categoryPartition(workspaceId, category) }),
  categorySegmentLines: (workspaceId: string, category: string, segment: string) => ({
    partitionKey: categoryPartition(workspaceId, category),
    sortKeyPrefix: segmentPrefix(segment),
  }),
} as const;

function categoryPartition(workspaceId: string, category: string): string {
  return `WS#${workspaceId}#CAT#${category}`;
}

function segmentPrefix(segment: string): string {
  return `${keyDigest(segment)}#`;
}

/**
 * A claimable write-back task, served by the `claimable` index (KEYS_ONLY): one partition per connector, sorted by
 * the moment the task became claimable, its creation or the end of its last lease. A claim reads the sort keys up to
 * now, so a task under a live lease is never in what it reads.
 */
export const claimableKeys = {
  task: (workspaceId: string, connectorId: string, claimableAt: string, taskId: string) => ({
    [claimableIndex.partitionKey]: claimablePartition(workspaceId, connectorId),
    [claimableIndex.sortKey]: claimableSortKey(claimableAt, taskId),
  }),
  /** The sort key alone: a lease or an extension moves it to the lease's end. */
  sortKey: (claimableAt: string, taskId: string) => claimableSortKey(claimableAt, taskId),
  /** The task a sort key the index showed belongs to. */
  taskIdOf: (sortKey: string): string => sortKey.slice(sortKey.indexOf('#') + 1),
  /** Everything claimable by `now` sorts at or below this: ISO times sort as text, and `~` after every id character. */
  claimableBy: (workspaceId: string, connectorId: string, now: string) => ({
    partitionKey: claimablePartition(workspaceId, connectorId),
    sortKeyAtMost: `${now}#~`,
  }),
} as const;

/** ISO times hold no `#`, so the first one ends the time. */
function claimableSortKey(claimableAt: string, taskId: string): string {
  return `${claimableAt}#${taskId}`;
}

function claimablePartition(workspaceId: string, connectorId: string): string {
  return `WS#${workspaceId}#CLAIM#${connectorId}`;
}

const listingIndex = table.indexes[3];
const openTasksIndex = table.indexes[4];

/**
 * Lists the console reads, served by the `listing` index (ALL): a workspace's recommendations sorted by SKU, and each
 * connector's batches and write-back tasks sorted by creation, so that a connector's newest are a Query read backwards.
 */
export const listingKeys = {
  recommendation: (workspaceId: string, sku: string) => ({
    [listingIndex.partitionKey]: `WS#${workspaceId}#RECOMMENDATIONS`,
    [listingIndex.sortKey]: sku,
  }),
  recommendations: (workspaceId: string) => ({ partitionKey: `WS#${workspaceId}#RECOMMENDATIONS` }),
  /**
   * A recommendation's row in one ordering of the console's list, the whole workspace's or one category's: in the
   * ordering's shard the SKU hashes to (RECOMMENDATION_ROW_SHARDS), so that a workspace's ingest spreads its rewrites.
   * The sort key is the ordering's (listing-sort-keys.ts).
   */
  recommendationRow: (workspaceId: string, ordering: string, category: string | undefined, sku: string, sortKey: string) => ({
    [listingIndex.partitionKey]: recommendationRowsPartition(workspaceId, ordering, category, hashShard(sku, RECOMMENDATION_ROW_SHARDS)),
    [listingIndex.sortKey]: sortKey,
  }),
  /**
   * Every partition of one ordering, which a reader merges by sort key: its shards, then the one partition the ordering
   * had before it was sharded, where rows written before stay until they are rewritten (a row is in exactly one).
   */
  recommendationRows: (workspaceId: string, ordering: string, category: string | undefined) => ({
    partitionKeys: [
      ...Array.from({ length: RECOMMENDATION_ROW_SHARDS }, (_, shard) =>
        recommendationRowsPartition(workspaceId, ordering, category, shard),
      ),
      recommendationRowsPartition(workspaceId, ordering, category, undefined),
    ],
  }),
  batch: (workspaceId: string, connectorId: string, createdAt: string, batchId: string) => ({
    [listingIndex.partitionKey]: connectorBatchesPartition(workspaceId, connectorId),
    [listingIndex.sortKey]: `${createdAt}#${batchId}`,
  }),
  batches: (workspaceId: string, connectorId: string) => ({ partitionKey: connectorBatchesPartition(workspaceId, connectorId) }),
  /** A batch's place in its connector's list, as the list's cursor carries it: `<createdAt>#<batchId>`. */
  batchPlace: (item: Record<string, unknown>): string => String(item[listingIndex.sortKey]),
  /**
   * Where a page of a connector's batches starts reading: the index's key and the base item's, both of which a Query of
   * an index needs to go on from. ISO times hold no `#`, so the first one ends the time.
   */
  batchesAfter: (workspaceId: string, connectorId: string, place: string, baseKey: (batchId: string) => Record<string, string>) => {
    const batchId = place.slice(place.indexOf('#') + 1);
    return {
      ...baseKey(batchId),
      [listingIndex.partitionKey]: connectorBatchesPartition(workspaceId, connectorId),
      [listingIndex.sortKey]: place,
    };
  },
  writeback: (workspaceId: string, connectorId: string, createdAt: string, taskId: string) => ({
    [listingIndex.partitionKey]: connectorWritebacksPartition(workspaceId, connectorId),
    [listingIndex.sortKey]: `${createdAt}#${taskId}`,
  }),
  writebacks: (workspaceId: string, connectorId: string) => ({ partitionKey: connectorWritebacksPartition(workspaceId, connectorId) }),
  /**
   * A live approval waiting for a second approver, in its workspace's list sorted by the wait's end: what the console's
   * landing page lists. Written with the sweeper's entry (lookupKeys.waitingApproval) and removed with it.
   */
  waitingApproval: (workspaceId: string, waitingUntil: string, approvalId: string) => ({
    [listingIndex.partitionKey]: waitingApprovalsPartition(workspaceId),
    [listingIndex.sortKey]: `${waitingUntil}#${approvalId}`,
  }),
  waitingApprovals: (workspaceId: string) => ({ partitionKey: waitingApprovalsPartition(workspaceId) }),
  /** The names of the listing keys, for an update that takes an item off its list. */
  listingAttributes: [listingIndex.partitionKey, listingIndex.sortKey] as const,
} as const;

function waitingApprovalsPartition(workspaceId: string): string {
  return `WS#${workspaceId}#APPROVALWAITS`;
}

/**
 * Shards of each ordering of the console's list. At 5,000 ingest records a second a workspace rewrites ~1,000 rows a
 * second in each ordering: 8 shards hold a shard to ~125 WRU a second, an eighth of a partition key's 1,000 (4 would
 * be a quarter, with little room above the profile), while a page reads one Query per shard (and one of the partition
 * before the shards), each a few rows, so that a page costs ~5 RRU rather than ~3 (docs/architecture.md, Scaling).
 */
export const RECOMMENDATION_ROW_SHARDS = 8;

/**
 * The shard follows the ordering and comes before the category, so that no category's name (which may hold `#S1`)
 * makes the key of another category's shard, nor of the partition before the shards (`shard` undefined).
 */
function recommendationRowsPartition(
  workspaceId: string,
  ordering: string,
  category: string | undefined,
  shard: number | undefined,
): string {
  const sharded = shard === undefined ? '' : `#S${shard}`;
  return `WS#${workspaceId}#RECROWS#${ordering}${sharded}${category === undefined ? '' : `#CAT#${category}`}`;
}

function connectorBatchesPartition(workspaceId: string, connectorId: string): string {
  return `WS#${workspaceId}#BATCHES#${connectorId}`;
}

function connectorWritebacksPartition(workspaceId: string, connectorId: string): string {
  return `WS#${workspaceId}#WRITEBACKS#${connectorId}`;
}

/** Partitions of open write-back tasks; the sweeper reads the oldest of each. */
export const OPEN_TASK_SHARDS = 8;

/**
 * An open (pending or leased) write-back task of any workspace, served by the `openTasks` index (KEYS_ONLY): the shard
 * is its partition, the task's own `createdAt` its sort key, so the oldest of every partition is the oldest task not
 * yet applied. Spread by task id, so that a bulk approval's tasks never crowd one partition of the index. The index
 * entry names the task by its primary key.
 */
export const openTaskKeys = {
  task: (shard: number) => ({ [openTasksIndex.partitionKey]: String(shard) }),
  shard: (shard: number) => ({ partitionKey: String(shard) }),
  /** The partition a task's entry takes, by its id. */
  shardOf: (taskId: string) => hashShard(taskId, OPEN_TASK_SHARDS),
  /** The attribute that puts a task on the index, which closing it removes. */
  attribute: openTasksIndex.partitionKey,
  sortKey: openTasksIndex.sortKey,
} as const;
