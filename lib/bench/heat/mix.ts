// The per-request call mix the heat model loads the table with: for each request kind, the catalogue patterns it makes, on which key, how many items and units each (counted on the local stack: see test/integration/heat-model.test.ts).
import type { LoadProfile, RequestKind } from './model.ts';
import { everyApiRequest, OUTBOX } from './mix-steps.ts';
import { webhookDelivery } from './mix-webhooks.ts';

export { webhookDelivery };

/**
 * A price call's stored answer, brotli-compressed: the call item is written at 1 WRU per started KB. On the sample
 * catalogue a call item holds about 1.1 KB besides its lines and 28 B per line (10 lines 2 WRU, 100 lines 4 WRU); richer
 * evidence makes it larger, so this is the check's catalogue, not a bound.
 */
export const RESPONSE_BYTES = { perCall: 1_100, perLine: 28 } as const;

/** Tasks a claim leases, at the connector kit's default limit. */
export const TASKS_PER_CLAIM = 10;

const withCustomer = (profile: LoadProfile) => profile.customerShare;
const BANDS = 'Price call: the workspace band and the category bands, kept per instance';

export const priceCall: RequestKind = {
  id: 'price',
  describe: 'a price call',
  rate: (profile) => profile.priceCallsPerSecond,
  steps: [
    ...everyApiRequest('window'),
    // Once per leased block of lines, as the catalogue's spread says: a warm instance spends its block without a call.
    { pattern: 'Price call: take a block of lines from the monthly quota', key: 'usage', items: 1, writeUnits: 1 },
    { pattern: 'Price call: claim the Idempotency-Key', key: 'priceCall', items: 1, writeUnits: 1 },
    {
      pattern: 'Price call: store the answer, which is also the record of its decisions',
      key: 'priceCall',
      items: 1,
      writeUnits: (profile) => Math.ceil((RESPONSE_BYTES.perCall + profile.linesPerCall * RESPONSE_BYTES.perLine) / 1024),
    },
    {
      pattern: 'Price call, round one: products and customers',
      key: 'product',
      items: (profile) => profile.linesPerCall,
      readUnits: 0.5,
    },
    { pattern: 'Price call, round one: products and customers', key: 'customer', items: withCustomer, readUnits: 0.5 },
    // Kept per instance, as the catalogue's spread says: the bands partition takes each item once per instance in its time.
    { pattern: BANDS, key: 'workspaceBands', items: 1, readUnits: 0.5 },
    { pattern: BANDS, key: 'categoryBands', items: (profile) => profile.categoriesPerCall, readUnits: 0.5 },
    {
      pattern: 'Price call, round two: customer bands and uncached FX rates',
      key: 'customerBands',
      items: (profile) => profile.categoriesPerCall * profile.customerShare,
      readUnits: 0.5,
    },
  ],
};

const perThousand = (value: number) => value / 1000;
const STAGE = "Stage: count a call's records and write its chunk, all or nothing";

/**
 * A thousand ingest records of the bench's mix (20% products, 5% customers, 25% quotes of 1–5 lines, 50% orders of 1–3),
 * staged 1,000 to a call, drained and followed by its bands job: the units each pattern's key takes, per record, as the
 * local stack counts them. Products, customers and documents spread over keys of their own; the batch, the bands, the
 * adherence aggregates and the console's lists are the keys ingest concentrates.
 */
export const ingestRecords: RequestKind = {
  id: 'ingest',
  describe: 'an ingest record',
  rate: (profile) => profile.ingestRecordsPerSecond,
  steps: [
    // One staging call per 1,000 records.
    ...everyApiRequest('count').map((step) =>
      (step.per ?? 'unit') === 'unit' ? { ...step, items: (typeof step.items === 'number' ? step.items : 0) / 1000 } : step,
    ),
    // Staging as the bench stages the mix (four calls for its 2,000 records): each call takes its sequence number and
    // adds its counts on the batch item, and writes its chunk on one of the batch's chunk partitions.
    { pattern: STAGE, key: 'batch', items: perThousand(4), writeUnits: 2 },
    { pattern: STAGE, key: 'batchChunk', items: perThousand(2), writeUnits: 79 / 2 },
    // The drain reads the chunks on their partitions; the batch item, what each chunk touched and the batch's own chunk
    // partition (empty, for a batch staged since the shards) on the batch's, the drain's and the bands job's reads.
    {
      pattern: 'Drain: read staged chunks after the checkpoint, in staging order',
      key: 'batchChunkPrefix',
      items: perThousand(4),
      readUnits: 10 / 4,
    },
    { pattern: 'Read a batch', key: 'batch', items: perThousand(1), readUnits: 5.5 },
    // Leases and checkpoints, the drain's and the bands job's, and what each chunk touched.
    {
      pattern: 'Drain: take, renew, release and end the lease; move the checkpoint',
      key: 'batch',
      items: perThousand(1),
      writeUnits: 17,
    },
    { pattern: 'Drain: write what a chunk touched', key: 'batchTouched', items: perThousand(2), writeUnits: 16.5 / 2 },
    // The workspace's drain order, once per batch of the mix's 2,000 records: the place the commit writes (2 units in
    // its transaction) and the drain deletes, the places before it read once, the turn taken and let go.
    {
      pattern: "Drain order: a committed batch's place, from its commit until it ends",
      key: 'drainQueued',
      items: perThousand(1),
      writeUnits: 1.5,
    },
    {
      pattern: 'Drain order: the batches committed before this one that have not ended',
      key: 'drainQueuedBefore',
      items: perThousand(0.5),
      readUnits: 1,
    },
    { pattern: "Drain order: take and let go of the workspace's drain turn", key: 'drainTurn', items: perThousand(1), writeUnits: 1 },
    // As counted on the catalogue dated back from 2026-11-01: how many month items a fold writes depends on the months
    // its quotes fall in.
    {
      pattern: "Fold a chunk's adherence change into the monthly aggregates, once per chunk",
      key: 'adherenceAggregate',
      items: perThousand(233.5),
      writeUnits: 1,
    },
    {
      pattern: "Drain: log a chunk's quote and order lines per category (the pricing history)",
      key: 'historyLog',
      items: perThousand(8),
      writeUnits: 188 / 8,
    },
    {
      pattern: 'Bands: every history line of one category',
      key: 'historyLogShard',
      items: perThousand(64),
      readUnits: 51 / 64,
    },
    // Each touched category's kept list markups, read, and kept again after a full read (the mix's eight categories,
    // once per job of 2,000 records: ~50 products, under 2 KB, each).
    { pattern: 'Bands: the list markups a category’s last run kept', key: 'listMarkups', items: perThousand(4), readUnits: 1 },
    { pattern: 'Bands: keep a category’s list markups for its next run', key: 'listMarkups', items: perThousand(4), writeUnits: 2 },
    {
      pattern: 'Bands: combine the workspace band from every category, and pool the win models’ slopes across them',
      key: 'workspaceBands',
      items: perThousand(14),
      readUnits: 3.8 / 14,
      writeUnits: 17 / 14,
    },
    ...(['sku', 'change', 'impact'] as const).map((ordering) => ({
      pattern: "Listing index: keep a recommendation's rows, a batch and a write-back task in their lists",
      key: 'listingKeys.recommendationRow',
      args: { ordering, category: undefined },
      items: perThousand(200),
      writeUnits: 1,
    })),
    ...(['category-sku', 'category-change', 'category-impact'] as const).map((ordering) => ({
      pattern: "Listing index: keep a recommendation's rows, a batch and a write-back task in their lists",
      key: 'listingKeys.recommendationRow',
      args: { ordering },
      items: perThousand(200),
      writeUnits: 1,
    })),
    {
      pattern: 'Drain: upsert products and customers',
      key: 'product',
      items: perThousand(3278.5),
      readUnits: 399.5 / 3278.5,
      writeUnits: 2487.5 / 3278.5,
    },
    { pattern: 'Drain: upsert products and customers', key: 'customer', items: perThousand(431), writeUnits: 436 / 431 },
    { pattern: 'Drain: upsert products and customers', key: 'lookupKeys.productByExternalId', items: perThousand(200), writeUnits: 1 },
    { pattern: 'Drain: keep the newest FX rate per currency', key: 'fxRate', items: perThousand(1), writeUnits: 1 },
  ],
};

export const claim: RequestKind = {
  id: 'claim',
  describe: 'a write-back claim',
  rate: (profile) => profile.claimsPerSecond,
  steps: [
    ...everyApiRequest('count'),
    { pattern: "Claim: count the claim in and out of the connector's running claims", key: 'claimTicket', items: 2, writeUnits: 1 },
    // Nearly always empty: what a cut approval left, which the claim writes out first.
    {
      pattern: "Claim: read the workspace's unfinished publications, to write them out first",
      key: 'unfinishedPublications',
      items: 1,
      readUnits: 0.5,
    },
    {
      pattern: "Claim: read the connector's claimable tasks, the longest claimable first",
      key: 'claimableKeys.claimableBy',
      items: 1,
      readUnits: 2.5,
    },
    // A lease moves its task's entry within the connector's claimable list: a delete and a put there.
    {
      pattern: "Claim: read the connector's claimable tasks, the longest claimable first",
      key: 'claimableKeys.claimableBy',
      items: TASKS_PER_CLAIM,
      writeUnits: 2,
    },
    { pattern: 'Claim: lease one task', key: 'writeback', items: TASKS_PER_CLAIM, writeUnits: 1 },
    // Each lease is checked against its SKU's latest approval; a task published while none of its SKU was leased waits for none.
    {
      pattern:
        "Claim: whether a leased task is still its SKU's turn: not superseded, and no live lease of the connector on an older task of the SKU",
      key: 'latestApproval',
      items: TASKS_PER_CLAIM,
      readUnits: 1,
    },
    // The listing index projects the whole task, so a lease rewrites its entry there too.
    {
      pattern: "Listing index: keep a recommendation's rows, a batch and a write-back task in their lists",
      key: 'listingKeys.writeback',
      items: TASKS_PER_CLAIM,
      writeUnits: 1,
    },
  ],
};

const APPROVE = 'Approve: record the approval, its turn, its tasks and the cancels of the tasks it supersedes, all or nothing';

const IDEMPOTENT_CLAIM = 'Creating call with an Idempotency-Key: claim the key';
const IDEMPOTENT_ANSWER = 'Creating call with an Idempotency-Key: store the answer';

/**
 * An approval by a live key of a SKU approved for the first time, with an Idempotency-Key as the client sends one, to a
 * workspace with one connector: `price.approved` and `writeback.created`, and one task. A SKU approved before reads its
 * last tasks (1 RRU each) instead of the Query for open ones, and cancels those still pending (4 WRU each).
 */
export const approval: RequestKind = {
  id: 'approval',
  describe: 'an approval (live key, one connector)',
  rate: (profile) => profile.approvalsPerSecond,
  steps: [
    // The overview's routes count against the overview's rate, not the API's.
    ...everyApiRequest('none'),
    {
      pattern: "Count a request against the workspace's overview rate",
      key: 'rateShard',
      args: { meter: 'overview' },
      items: 1,
      writeUnits: 1,
    },
    { pattern: IDEMPOTENT_CLAIM, key: 'idempotentCall', items: 1, writeUnits: 1 },
    { pattern: IDEMPOTENT_ANSWER, key: 'idempotentCall', items: 1, writeUnits: 2 },
    {
      pattern: 'Approve: the recommendation whose bounds the price must keep, as the product stands now',
      key: 'recommendation',
      items: 1,
      readUnits: 1,
    },
    {
      pattern: 'Approve: the recommendation whose bounds the price must keep, as the product stands now',
      key: 'product',
      items: 1,
      readUnits: 0.5,
    },
    {
      pattern: 'Approve: the recommendation whose bounds the price must keep, as the product stands now',
      key: 'workspaceBands',
      items: 2,
      readUnits: 0.5,
    },
    { pattern: 'Approve (live key): list the connectors that receive write-backs', key: 'connectorPrefix', items: 1, readUnits: 0.5 },
    {
      pattern: "Approve (live key): read the SKU's latest approval, whose turn the approval takes",
      key: 'latestApproval',
      items: 1,
      readUnits: 1,
    },
    {
      pattern: 'Approve (live key): read the tasks of the approval before, to cancel those still pending',
      key: 'lookupKeys.openWritebacks',
      items: 1,
      readUnits: 0.5,
    },
    { pattern: APPROVE, key: 'approval', items: 1, writeUnits: 2 },
    { pattern: APPROVE, key: 'latestApproval', items: 1, writeUnits: 2 },
    { pattern: APPROVE, key: 'writeback', items: 1, writeUnits: 2 },
    // The task's index entries are standard writes, outside the transaction: claimable, open for its SKU, open for the
    // alarm on tasks that wait, listed.
    { pattern: APPROVE, key: 'claimableKeys.task', items: 1, writeUnits: 1 },
    { pattern: APPROVE, key: 'lookupKeys.openWriteback', items: 1, writeUnits: 1 },
    { pattern: APPROVE, key: 'openTaskKeys.task', items: 1, writeUnits: 1 },
    { pattern: APPROVE, key: 'listingKeys.writeback', items: 1, writeUnits: 1 },
    { pattern: OUTBOX, key: 'webhookEvent', items: 2, writeUnits: 2 },
    { pattern: OUTBOX, key: 'lookupKeys.undispatchedEvent', items: 2, writeUnits: 1 },
  ],
};

/** Every request kind a profile loads the table with. */
export const requestKinds: readonly RequestKind[] = [priceCall, ingestRecords, claim, approval, webhookDelivery];
