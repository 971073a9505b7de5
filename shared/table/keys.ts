// The table's keys: every key builder, and beside them every access pattern with the call that serves it and its cost.
import { createHash } from 'node:crypto';
import { table } from './definition.ts';

export interface PrimaryKey {
  readonly PK: string;
  readonly SK: string;
}

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
  /** The workspace id is part of the partition key, so another workspace's batch id can never be found. */
  batch: (workspaceId: string, batchId: string): PrimaryKey => ({ PK: batchPartition(workspaceId, batchId), SK: 'BATCH' }),
  /**
   * Staged records live in their batch's partition, so the drain reads them back in staging order with one Query.
   * `seq` is the staging call's place in the batch, `part` the piece of a call too large for one item.
   */
  batchChunk: (workspaceId: string, batchId: string, seq: number, part: number): PrimaryKey => ({
    PK: batchPartition(workspaceId, batchId),
    SK: `${CHUNK_PREFIX}${pad(seq, 10)}#${pad(part, 3)}`,
  }),
  batchChunkPrefix: (workspaceId: string, batchId: string) => ({ PK: batchPartition(workspaceId, batchId), SKPrefix: CHUNK_PREFIX }),
  /** What one drained chunk touched; the pricing side recomputes from these instead of from the whole catalogue. */
  batchTouched: (workspaceId: string, batchId: string, chunkSk: string, part: number): PrimaryKey => ({
    PK: batchPartition(workspaceId, batchId),
    SK: `${TOUCHED_PREFIX}${chunkSk.slice(CHUNK_PREFIX.length)}#${pad(part, 3)}`,
  }),
  batchTouchedPrefix: (workspaceId: string, batchId: string) => ({ PK: batchPartition(workspaceId, batchId), SKPrefix: TOUCHED_PREFIX }),
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
  /** The newest rate seen for a currency, in units of the workspace's base currency. */
  fxRate: (workspaceId: string, currency: string): PrimaryKey => ({ PK: `WS#${workspaceId}#FX#${currency}`, SK: 'FX' }),
  /**
   * A customer's customer × SKU bands in one category: one item per customer and category, so a price call reads one
   * item for all the lines of a customer in a category, and a category's recompute writes only its own items.
   */
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
  /** The workspace band, the last fallback, combined from the category bands. */
  workspaceBands: (workspaceId: string): PrimaryKey => ({ PK: bandsPartition(workspaceId), SK: 'WORKSPACE' }),
  /** Held by the one job recomputing a workspace's bands. */
  bandsLease: (workspaceId: string): PrimaryKey => ({ PK: bandsPartition(workspaceId), SK: 'LEASE' }),
  /**
   * A price call by its Idempotency-Key: the in-progress marker, then the stored response and decision record. The
   * key's digest is in the partition key, so calls spread over partitions instead of one per workspace.
   */
  priceCall: (workspaceId: string, idempotencyKeyDigest: string): PrimaryKey => ({
    PK: priceCallPartition(workspaceId, idempotencyKeyDigest),
    SK: 'CALL',
  }),
  /** An earlier call under the same key, moved aside when the key is used again after its replay window. */
  archivedPriceCall: (workspaceId: string, idempotencyKeyDigest: string, callId: string): PrimaryKey => ({
    PK: priceCallPartition(workspaceId, idempotencyKeyDigest),
    SK: `CALL#${callId}`,
  }),
  /**
   * A product's current recommendation: the engine's price with no customer at quantity 1, with its bounds and
   * rationale. It sits in the product's partition, so the overview reads it with one GetItem.
   */
  recommendation: (workspaceId: string, sku: string): PrimaryKey => ({ PK: productPartition(workspaceId, sku), SK: 'RECOMMENDATION' }),
  /** An approved price, kept beside the product it prices, in the order approved. */
  approval: (workspaceId: string, sku: string, approvedAt: string, approvalId: string): PrimaryKey => ({
    PK: productPartition(workspaceId, sku),
    SK: `APPROVAL#${approvedAt}#${approvalId}`,
  }),
  /** One partition per write-back task: an ack or an extend names the task by id, so it finds it with no index. */
  writeback: (workspaceId: string, taskId: string): PrimaryKey => ({ PK: `WS#${workspaceId}#WRITEBACK#${taskId}`, SK: 'TASK' }),
  /**
   * Counts the claims of one connector in a window of seconds, those started and those running, so that claims made
   * at once take different slices of the claimable tasks instead of racing for the same first ones.
   */
  claimTicket: (workspaceId: string, connectorId: string, window: number): PrimaryKey => ({
    PK: `WS#${workspaceId}#CLAIMS#${connectorId}`,
    SK: `TICKET#${window}`,
  }),
  /** A workspace's request-rate window and priced lines in one calendar month (UTC). */
  usage: (workspaceId: string, month: string): PrimaryKey => ({ PK: `WS#${workspaceId}#USAGE#${month}`, SK: 'USAGE' }),
} as const;

export type DocumentKind = 'quote' | 'order';

const CHUNK_PREFIX = 'CHUNK#';
const CATEGORY_BANDS_PREFIX = 'CATEGORY#';
const TOUCHED_PREFIX = 'TOUCHED#';

function batchPartition(workspaceId: string, batchId: string): string {
  return `WS#${workspaceId}#BATCH#${batchId}`;
}

function productPartition(workspaceId: string, sku: string): string {
  return `WS#${workspaceId}#PRODUCT#${sku}`;
}

function bandsPartition(workspaceId: string): string {
  return `WS#${workspaceId}#BANDS`;
}

function priceCallPartition(workspaceId: string, idempotencyKeyDigest: string): string {
  return `WS#${workspaceId}#CALL#${idempotencyKeyDigest}`;
}

function documentPartition(workspaceId: string, kind: DocumentKind, externalId: string): string {
  return `WS#${workspaceId}#${kind.toUpperCase()}#${externalId}`;
}

function pad(value: number, width: number): string {
  return String(value).padStart(width, '0');
}

/**
 * A fixed-length stand-in for a caller's text inside a sort key: sort keys are capped at 1 KB, and ids may hold any
 * character, including the `#` that separates key parts. 96 bits make a collision vanishingly unlikely.
 */
export function keyDigest(text: string): string {
  return createHash('sha256').update(text).digest('base64url').slice(0, 16);
}

function lineDigest(kind: DocumentKind, externalId: string, index: number): string {
  return keyDigest(`${kind}#${externalId}#${index}`);
}

const [lookupIndex, historyIndex, claimableIndex] = table.indexes;

/** Alternate keys, written on the base item and served by the `lookup` index (KEYS_ONLY). */
export const lookupKeys = {
  apiKeyById: (keyId: string) => ({ [lookupIndex.partitionKey]: `APIKEYID#${keyId}`, [lookupIndex.sortKey]: 'APIKEY' }),
  productByExternalId: (workspaceId: string, externalId: string) => ({
    [lookupIndex.partitionKey]: `WS#${workspaceId}#PRODUCTEXT#${externalId}`,
    [lookupIndex.sortKey]: 'PRODUCT',
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
} as const;

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
    [claimableIndex.sortKey]: `${claimableAt}#${taskId}`,
  }),
  /** Everything claimable by `now` sorts at or below this: ISO times sort as text, and `~` after every id character. */
  claimableBy: (workspaceId: string, connectorId: string, now: string) => ({
    partitionKey: claimablePartition(workspaceId, connectorId),
    sortKeyAtMost: `${now}#~`,
  }),
} as const;

function claimablePartition(workspaceId: string, connectorId: string): string {
  return `WS#${workspaceId}#CLAIM#${connectorId}`;
}

export interface AccessPattern {
  readonly name: string;
  /** Who runs it: a route id, `admin`, or a worker. */
  readonly usedBy: readonly string[];
  readonly call: string;
  readonly key: string;
  /** In capacity units, at on-demand prices one read unit is one read request unit, one write unit one write request unit. */
  readonly cost: string;
}

/**
 * Every way the service touches the table. Items are under 1 KB unless the pattern says otherwise (chunks are tens of
 * KB). Eventually consistent reads cost 0.5 units per 4 KB, strongly consistent 1; writes 1 unit per KB, plus 1 per
 * index entry they change; transactional writes 2 per KB. docs/cost.md turns these into dollars.
 */
export const accessPatterns: readonly AccessPattern[] = [
  {
    name: 'Authenticate a request by its API key',
    usedBy: ['every /api/v1 and /v1 route'],
    call: 'GetItem, eventually consistent',
    key: 'apiKey(sha256(key))',
    cost: '0.5 RRU on a cache miss; cached per instance for 60 s, so 0 on most requests',
  },
  {
    name: "Read a key's workspace (status, features, limits)",
    usedBy: ['every /api/v1 and /v1 route'],
    call: 'GetItem, eventually consistent',
    key: 'workspace(workspaceId)',
    cost: '0.5 RRU on a cache miss; cached per instance for 60 s',
  },
  {
    name: 'Open an ingest batch',
    usedBy: ['openBatch'],
    call: 'PutItem with attribute_not_exists(PK)',
    key: 'batch(workspaceId, batchId)',
    cost: '1 WRU',
  },
  {
    name: 'Create a workspace',
    usedBy: ['admin workspace create'],
    call: 'PutItem with attribute_not_exists(PK)',
    key: 'workspace(workspaceId)',
    cost: '1 WRU',
  },
  {
    name: "Update a workspace's status, features or limits",
    usedBy: ['admin workspace update'],
    call: 'UpdateItem with attribute_exists(PK), ReturnValues ALL_NEW',
    key: 'workspace(workspaceId)',
    cost: '1 WRU',
  },
  {
    name: 'Create a connector',
    usedBy: ['admin connector create'],
    call: 'TransactWriteItems: ConditionCheck workspace exists + Put connector',
    key: 'workspace(workspaceId), connector(workspaceId, connectorId)',
    cost: '4 WRU (2 per item)',
  },
  {
    name: 'Read a connector',
    usedBy: ['admin key create'],
    call: 'GetItem, strongly consistent',
    key: 'connector(workspaceId, connectorId)',
    cost: '1 RRU',
  },
  {
    name: 'Create an API key',
    usedBy: ['admin key create'],
    call: 'TransactWriteItems: ConditionCheck workspace exists + Put key',
    key: 'workspace(workspaceId), apiKey(hash), with lookup key apiKeyById(keyId)',
    cost: '4 WRU, plus 1 WRU for the lookup index entry',
  },
  {
    name: 'Find an API key by its id',
    usedBy: ['admin key revoke'],
    call: 'Query on the lookup index (KEYS_ONLY)',
    key: 'apiKeyById(keyId)',
    cost: '0.5 RRU',
  },
  {
    name: 'Revoke an API key',
    usedBy: ['admin key revoke'],
    call: 'UpdateItem with attribute_exists(PK)',
    key: 'apiKey(hash)',
    cost: '1 WRU, plus 1 WRU for the lookup index entry',
  },
  {
    name: 'Stage: take the next chunk sequence number',
    usedBy: ['stageRecords'],
    call: 'UpdateItem ADD chunkSeq, conditional on owner, open, unexpired and entity order, ReturnValues ALL_NEW',
    key: 'batch(workspaceId, batchId)',
    cost: '1 WRU (the batch item is under 1 KB)',
  },
  {
    name: "Stage: count a call's records and write its chunk, all or nothing",
    usedBy: ['stageRecords'],
    call: 'TransactWriteItems: Update batch (ADD counts and entity, conditional on the cap) + Put chunk piece(s)',
    key: 'batch(workspaceId, batchId), batchChunk(workspaceId, batchId, seq, part)',
    cost: '2 WRU for the batch + 2 WRU per started KB of compressed chunk; 1,000 mixed records (~300 KB of JSON) ≈ 35 KB ≈ 72 WRU',
  },
  {
    name: 'Stage: count records skipped over the cap when none fit',
    usedBy: ['stageRecords'],
    call: 'UpdateItem ADD skippedOverCap, with the staging condition',
    key: 'batch(workspaceId, batchId)',
    cost: '1 WRU',
  },
  {
    name: 'Read a batch',
    usedBy: ['batchStatus', 'commitBatch', 'stageRecords (only to explain a refusal or a cap race)', 'drain'],
    call: 'GetItem, strongly consistent',
    key: 'batch(workspaceId, batchId)',
    cost: '1 RRU',
  },
  {
    name: 'Record that an open batch expired',
    usedBy: ['batchStatus', 'commitBatch'],
    call: 'UpdateItem open → failed, conditional on createdAt being over 24 h old',
    key: 'batch(workspaceId, batchId)',
    cost: '1 WRU, once per expired batch',
  },
  {
    name: 'Commit a batch',
    usedBy: ['commitBatch'],
    call: 'UpdateItem open → committed with jobId, conditional on owner, open and unexpired (after SQS SendMessage)',
    key: 'batch(workspaceId, batchId)',
    cost: '1 WRU, plus one SQS request',
  },
  {
    name: 'Drain: take, renew, release and end the lease; move the checkpoint',
    usedBy: ['drain'],
    call: 'UpdateItem, conditional on the job and the lease holder',
    key: 'batch(workspaceId, batchId)',
    cost: '1 WRU each: 1 to start, 1 per chunk applied, 1 to finish',
  },
  {
    name: 'Drain: read staged chunks after the checkpoint, in staging order',
    usedBy: ['drain'],
    call: 'Query SK BETWEEN cursor and the end of CHUNK#, strongly consistent, Limit 3',
    key: 'batchChunkPrefix(workspaceId, batchId)',
    cost: '1 RRU per 4 KB of compressed chunk (≈ 9 RRU per 1,000 records)',
  },
  {
    name: 'Drain: upsert products and customers',
    usedBy: ['drain'],
    call: 'BatchWriteItem PutRequest, 25 per call, unprocessed items retried with backoff',
    key: 'product(workspaceId, sku) with lookup key productByExternalId; customer(workspaceId, externalId)',
    cost: '1 WRU per started KB of item, plus 1 WRU for the lookup index entry of a product with an externalId',
  },
  {
    name: 'Drain: read the stored version of quotes and orders being replaced: its line count and the nodes it fed',
    usedBy: ['drain'],
    call: 'BatchGetItem of line 0, strongly consistent, projection externalId, lineCount, document, batchId, feeds, replacedFeeds',
    key: 'documentLine(workspaceId, kind, externalId, 0)',
    cost: '1 RRU per document (billed on the item, under 4 KB, whatever the projection)',
  },
  {
    name: 'Drain: read categories and segments not written earlier in the same drain',
    usedBy: ['drain'],
    call: 'BatchGetItem, strongly consistent, projection sku/category or externalId/segment; cached per drain',
    key: 'product(workspaceId, sku), customer(workspaceId, externalId)',
    cost: '1 RRU per item not already known; 0 when the batch carried the products and customers itself',
  },
  {
    name: 'Drain: write quote and order lines (the pricing history)',
    usedBy: ['drain'],
    call: 'BatchWriteItem PutRequest after DeleteRequests for lines a new version no longer has',
    key: 'documentLine(workspaceId, kind, externalId, index), with lookup key productLine and history key categoryLine',
    cost: '≈ 3 WRU per line under 1 KB: the item, its lookup index entry and its history index entry; a removed line the same. Line 0 also holds the document and the nodes it and the version before fed (~40 B per line each)',
  },
  {
    name: 'Drain: keep the newest FX rate per currency',
    usedBy: ['drain'],
    call: 'UpdateItem, conditional on asOfMs not being newer; one per currency per chunk',
    key: 'fxRate(workspaceId, currency)',
    cost: '1 WRU per currency per chunk, charged when the condition refuses too',
  },
  {
    name: 'Drain: write what a chunk touched',
    usedBy: ['drain'],
    call: 'PutItem per part (string sets, under 200 KB each)',
    key: 'batchTouched(workspaceId, batchId, chunkSk, part)',
    cost: '1 WRU per started KB; ≈ 15 WRU for 1,000 orders of 2 lines',
  },
  {
    name: 'Drain: read the bands a product being replaced carries, to keep them',
    usedBy: ['drain'],
    call: 'BatchGetItem, strongly consistent, projection sku and segmentBands',
    key: 'product(workspaceId, sku)',
    cost: '1 RRU per product in the batch (items under 4 KB), 1 for one not yet stored',
  },
  {
    name: 'Bands: every history line of one category',
    usedBy: ['drain (bands job)', 'admin bands rebuild'],
    call: 'Query on the history index (ALL), paged, projected to the fields pricing reads',
    key: 'historyKeys.categoryLines(workspaceId, category)',
    cost: '0.5 RRU per 4 KB of lines (~10 lines of ~400 B), billed on whole items: the projection saves transfer, not units',
  },
  {
    name: 'Bands: read what a drained batch touched',
    usedBy: ['drain (bands job)'],
    call: 'Query begins_with TOUCHED#, strongly consistent',
    key: 'batchTouchedPrefix(workspaceId, batchId)',
    cost: '1 RRU per 4 KB of compressed list, once per drain invocation that reaches the recompute',
  },
  {
    name: "Bands: write a category's bands, and each touched customer's bands in it",
    usedBy: ['drain (bands job)', 'admin bands rebuild'],
    call: 'BatchWriteItem PutRequest',
    key: 'categoryBands(workspaceId, category), customerBands(workspaceId, customer, category)',
    cost: '1 WRU per started KB: a category item is under 1 KB per 5 segments; a customer item ~45 B per SKU it bought',
  },
  {
    name: 'Bands: remove the bands of a customer left without lines in a category (a corrected document)',
    usedBy: ['drain (bands job)'],
    call: 'BatchWriteItem DeleteRequest',
    key: 'customerBands(workspaceId, customer, category)',
    cost: '1 WRU per started KB of the deleted item (~45 B per SKU), per customer that lost its last line there; the ledger charges 1',
  },
  {
    name: 'Bands: remove the segment × SKU bands of a product left without lines in its category',
    usedBy: ['drain (bands job)'],
    call: 'PartiQL UPDATE … REMOVE segmentBands WHERE … AND category = ?, in BatchExecuteStatement',
    key: 'product(workspaceId, sku)',
    cost: '1 WRU per started KB of the product item, per product that lost its last line in the category (refused, and charged, if it has moved category); the ledger charges from the parameters, a floor',
  },
  {
    name: "Bands: write a touched product's segment × SKU bands onto its item",
    usedBy: ['drain (bands job)', 'admin bands rebuild'],
    call: 'UpdateItem SET segmentBands, conditional on the product existing',
    key: 'product(workspaceId, sku)',
    cost: '1 WRU per started KB of the product item (the larger of before and after); no index entry changes',
  },
  {
    name: "Bands: take, renew and let go of the workspace's bands lease, one recompute at a time",
    usedBy: ['drain (bands job)', 'admin bands rebuild'],
    call: 'PutItem conditional on the lease being free, past its time or the caller’s; DeleteItem conditional on the owner',
    key: 'bandsLease(workspaceId)',
    cost: '1 WRU to take, 1 WRU to let go, per invocation of a bands job; a rebuild renews it every few minutes',
  },
  {
    name: 'Bands: combine the workspace band from every category',
    usedBy: ['drain (bands job)', 'admin bands rebuild'],
    call: 'Query begins_with CATEGORY# (strongly consistent: it follows the category writes at once), then PutItem',
    key: 'categoryBandsPrefix(workspaceId), workspaceBands(workspaceId)',
    cost: '1 RRU per 4 KB of category items + 1 WRU, once per drain',
  },
  {
    name: 'Bands: take and end the lease of a bands job; move its checkpoint',
    usedBy: ['drain (bands job)'],
    call: 'UpdateItem, conditional on the drained batch, its job and the lease holder',
    key: 'batch(workspaceId, batchId)',
    cost: '1 WRU each: 1 to start, 1 per category recomputed, 1 to finish',
  },
  {
    name: "Count a request against the workspace's per-second rate, and read the month's priced lines",
    usedBy: ['every /api/v1 route'],
    call: "UpdateItem ADD rateCount, conditional on the window being this second and not full, ReturnValues ALL_NEW; on the window's first request a second UpdateItem starts the window",
    key: 'usage(workspaceId, month)',
    cost: '1 WRU; 2 on the first request of each second; a refused request 1 WRU (the refused write, charged on the small item it returns)',
  },
  {
    name: 'Price call: charge its lines to the monthly quota',
    usedBy: ['priceLines'],
    call: 'UpdateItem ADD lines, conditional on the lines fitting; ADD of the negative count to refund a call that faulted',
    key: 'usage(workspaceId, month)',
    cost: '1 WRU (replays are answered before this and are never charged)',
  },
  {
    name: 'Price call: claim the Idempotency-Key',
    usedBy: ['priceLines'],
    call: 'PutItem, conditional on the key being unused or its marker past its deadline, ReturnValuesOnConditionCheckFailure ALL_OLD',
    key: 'priceCall(workspaceId, digest(Idempotency-Key))',
    cost: '1 WRU; a replay or an in-flight answer comes back through the refused condition, charged on the stored item: ~1 WRU per KB of compressed response',
  },
  {
    name: 'Price call in a month whose quota is spent: find the stored answer a retry replays',
    usedBy: ['priceLines'],
    call: 'GetItem (strongly consistent)',
    key: 'priceCall(workspaceId, digest(Idempotency-Key))',
    cost: '1 RRU per started 4 KB of the stored item: ~2 RRU for 100 lines; only once the month is spent',
  },
  {
    name: 'Price call: store the answer, which is also the record of its decisions',
    usedBy: ['priceLines'],
    call: 'UpdateItem SET response (brotli JSON), conditional on the call id',
    key: 'priceCall(workspaceId, digest(Idempotency-Key))',
    cost: '1 WRU per started KB of compressed response: ~8 WRU for 100 lines (~75 KB of JSON)',
  },
  {
    name: 'Price call: let the key go after an answer that is not a 200',
    usedBy: ['priceLines'],
    call: 'DeleteItem, conditional on the call id and the running state',
    key: 'priceCall(workspaceId, digest(Idempotency-Key))',
    cost: '1 WRU, only on a refusal after the claim (quota) or a fault',
  },
  {
    name: 'Price call: move an old call aside when its key is used again after 24 h',
    usedBy: ['priceLines'],
    call: 'PutItem of the old item under its call id, then PutItem conditional on the old call id',
    key: 'archivedPriceCall(workspaceId, digest, callId), priceCall(workspaceId, digest)',
    cost: '~1 WRU per KB of the old item + 1 WRU, once per reuse',
  },
  {
    name: 'Price call: find products by external id, for lines that name no sku',
    usedBy: ['priceLines'],
    call: 'Query on the lookup index (KEYS_ONLY), Limit 1, one per distinct external id, in parallel',
    key: 'lookupKeys.productByExternalId(workspaceId, externalId)',
    cost: '0.5 RRU each',
  },
  {
    name: 'Price call, round one: products, customers and the workspace band',
    usedBy: ['priceLines'],
    call: 'BatchGetItem, eventually consistent, deduplicated across the lines, 100 keys per call in parallel',
    key: 'product(workspaceId, sku) (with its segment × SKU bands), customer(workspaceId, externalId), workspaceBands(workspaceId)',
    cost: '0.5 RRU per item per started 4 KB, missing keys included: ~51 RRU for 100 products of one customer',
  },
  {
    name: 'Price call, round two: category bands, customer bands and uncached FX rates',
    usedBy: ['priceLines'],
    call: 'BatchGetItem, eventually consistent, one key per distinct category and customer × category',
    key: 'categoryBands(workspaceId, category), customerBands(workspaceId, customer, category), fxRate(workspaceId, currency)',
    cost: '0.5 RRU per item per started 4 KB: ~8 RRU for 100 products in 8 categories; FX rates are cached for 60 s',
  },
  {
    name: 'Find a pricing decision by its id',
    usedBy: ['admin decision show'],
    call: 'BatchGetItem of the call item and its archived copy, eventually consistent',
    key: 'priceCall(workspaceId, digest), archivedPriceCall(workspaceId, digest, callId)',
    cost: '0.5 RRU per 4 KB of each item that exists, 0.5 for one that does not',
  },
  {
    name: "Count a request against the workspace's overview rate",
    usedBy: ['getPrice', 'approvePrice'],
    call: 'UpdateItem ADD overviewCount, conditional on the overview window being this second and not full (as the /api/v1 rate, in its own attributes)',
    key: 'usage(workspaceId, month)',
    cost: '1 WRU; 2 on the first request of each second; a refused request 1 WRU',
  },
  {
    name: 'Bands job: recompute the recommendations of the products a batch touched, or all with history on a rebuild',
    usedBy: ['drain (bands job)', 'admin bands rebuild'],
    call: "The price call's two BatchGetItem rounds for 400 products at a time (no customer), then BatchWriteItem PutRequest; a checkpoint UpdateItem per page",
    key: 'product(workspaceId, sku), categoryBands, workspaceBands, fxRate; recommendation(workspaceId, sku)',
    cost: '~0.5 RRU per product (its item with its bands, under 4 KB) + 0.5 per category; 1 WRU per recommendation (~600 B); 1 WRU per page',
  },
  {
    name: 'Overview: compute and store the recommendation of a product that has none yet',
    usedBy: ['getPrice'],
    call: "The price call's BatchGetItem rounds for one product (no customer), then BatchWriteItem PutRequest; only after the read of the recommendation found nothing",
    key: 'product(workspaceId, sku), workspaceBands, categoryBands, fxRate; recommendation(workspaceId, sku)',
    cost: '~1.5 RRU (0.5 per item read, missing ones included) + 1 WRU when the product exists; an unknown SKU 1 RRU',
  },
  {
    name: "Overview: read a SKU's recommendation",
    usedBy: ['getPrice'],
    call: 'GetItem, eventually consistent',
    key: 'recommendation(workspaceId, sku)',
    cost: '0.5 RRU',
  },
  {
    name: 'Approve: the recommendation whose bounds the price must keep, as the product stands now',
    usedBy: ['approvePrice'],
    call: "GetItem of the stored one, strongly consistent, beside the price call's BatchGetItem rounds for the product (no customer); PutItem of the fresh one when its terms differ",
    key: 'recommendation(workspaceId, sku); product(workspaceId, sku), workspaceBands, categoryBands, fxRate',
    cost: '1 RRU + ~1.5 RRU; 1 WRU when a drain changed the product since its recommendation was stored',
  },
  {
    name: 'Approve (live key): list the connectors that receive write-backs',
    usedBy: ['approvePrice'],
    call: 'Query begins_with CONNECTOR#, eventually consistent',
    key: 'connectorPrefix(workspaceId)',
    cost: '0.5 RRU per 4 KB of connectors (~200 B each)',
  },
  {
    name: 'Approve: record the approval and its write-back tasks, all or nothing',
    usedBy: ['approvePrice'],
    call: 'TransactWriteItems of Puts conditional on attribute_not_exists(PK), 100 items per transaction',
    key: 'approval(workspaceId, sku, approvedAt, approvalId), writeback(workspaceId, taskId) with claimable key and lookup key openWriteback',
    cost: '2 WRU for the approval + per connector 2 WRU for its task (under 1 KB) and 2 WRU for its two index entries; a sandbox approval 2 WRU',
  },
  {
    name: "Approve (live key): find and cancel each connector's older open tasks for the SKU",
    usedBy: ['approvePrice'],
    call: 'Query on the lookup index (KEYS_ONLY) per connector, then UpdateItem per task found, conditional on it being pending and older than the approval',
    key: 'lookupKeys.openWritebacks(workspaceId, connectorId, sku), writeback(workspaceId, taskId)',
    cost: '0.5 RRU per connector; per task cancelled 1 WRU + 2 WRU for the two index entries removed; a task leased since 1 WRU, refused',
  },
  {
    name: "Claim: count the claim in and out of the connector's running claims",
    usedBy: ['claimWritebacks'],
    call: 'UpdateItem ADD started and running, ReturnValues UPDATED_NEW, then UpdateItem ADD running −1 (10-second windows, TTL one hour)',
    key: 'claimTicket(workspaceId, connectorId, window)',
    cost: '2 WRU per claim call',
  },
  {
    name: "Claim: read the connector's claimable tasks, the longest claimable first",
    usedBy: ['claimWritebacks'],
    call: 'Query on the claimable index (KEYS_ONLY), sort key up to now, Limit limit × max(10, claims running), at most 1,000; a second Query when it leased fewer than limit, unless the first read held every claimable task and tried them all',
    key: 'claimableKeys.claimableBy(workspaceId, connectorId, now)',
    cost: '0.5 RRU per 4 KB of index entries (~200 B each): 2.5 RRU for a window of 100 (limit 10), 12.5 for 500 (50 claims at once)',
  },
  {
    name: 'Claim: lease one task',
    usedBy: ['claimWritebacks'],
    call: 'UpdateItem conditional on its claimable sort key being the one the index showed, ReturnValues ALL_NEW',
    key: 'writeback(workspaceId, taskId)',
    cost: '1 WRU + 2 WRU for moving its claimable index entry (a key change is a delete and a put); a refused lease 1 WRU',
  },
  {
    name: 'Ack: read the tasks acknowledged',
    usedBy: ['ackWritebacks'],
    call: 'BatchGetItem, strongly consistent, 100 keys per call; a refused write reads its task again with GetItem',
    key: 'writeback(workspaceId, taskId)',
    cost: '1 RRU per task (under 4 KB)',
  },
  {
    name: "Ack applied: the task, the product's current price and its recommendation at that price, all or nothing",
    usedBy: ['ackWritebacks'],
    call: "The price call's BatchGetItem rounds for the products (no customer), then TransactWriteItems per task: Update task conditional on the caller's live lease, Update product conditional on it existing, Put recommendation",
    key: 'writeback(workspaceId, taskId), product(workspaceId, sku), recommendation(workspaceId, sku)',
    cost: '~1 RRU of reads per product; 2 WRU per item per started KB: ~2 task + 2–4 product + 2 recommendation, + 2 WRU for the two index entries removed ≈ 8–10 WRU',
  },
  {
    name: "Ack failed: finish the task with the connector's error",
    usedBy: ['ackWritebacks'],
    call: "UpdateItem conditional on the caller's live lease",
    key: 'writeback(workspaceId, taskId)',
    cost: '1–2 WRU (the error text is up to 1,000 characters) + 2 WRU for the two index entries removed',
  },
  {
    name: 'Extend a lease',
    usedBy: ['extendWriteback'],
    call: "UpdateItem conditional on the caller's live lease, ReturnValues ALL_NEW",
    key: 'writeback(workspaceId, taskId)',
    cost: '1 WRU + 2 WRU for moving the claimable index entry; refused 1 WRU',
  },
];
