// A connector's batches, newest first: the console's recent ones, and the API's list a page at a time, by status.
import * as v from 'valibot';
import { ApiError } from '#platform/errors.ts';
import { decodeCursor, encodeCursor, readPageLimit } from '#platform/pages.ts';
import { table } from '#platform/table/definition.ts';
import { listingKeys } from '#platform/table/index-keys.ts';
import { keys } from '#platform/table/keys.ts';
import { queryListing, queryListPage } from '#platform/table/query.ts';
import type { BatchOwner } from './repository.ts';
import { expired, expiryCutoff, statusView } from './rules.ts';
import { type Batch, type BatchesQuerySchema, BatchSchema, type BatchStatus, BatchStatusSchema } from './schema.ts';
import { type BatchEntry, DEFAULT_BATCHES_PAGE, MAX_BATCHES_PAGE } from './views.ts';

/** Batches the console shows per connector: enough to see a sync's recent history, one Query of one page. */
export const RECENT_BATCHES = 20;

/**
 * The connector's newest batches, read from the listing index (eventually consistent, so a batch opened a moment ago
 * may show a moment later). An open batch past its life reads as failed, as its status route says.
 */
export async function recentBatches(workspaceId: string, connectorId: string, now: Date, limit = RECENT_BATCHES): Promise<Batch[]> {
  const items = await queryListing(listingKeys.batches(workspaceId, connectorId), { limit, newestFirst: true });
  return items.map((item) => expired(v.parse(BatchSchema, item), now));
}

export interface BatchListing {
  readonly limit: number;
  readonly startingAfter?: string;
  readonly status?: BatchStatus;
}

/** The list's query checked: a bad `limit`, `status` or cursor is `invalid_request` naming it. */
export function readBatchListing(query: v.InferOutput<typeof BatchesQuerySchema>): BatchListing {
  const { limit: limitText, starting_after: startingAfter, status } = query ?? {};
  const limit = readPageLimit(limitText, { default: DEFAULT_BATCHES_PAGE, max: MAX_BATCHES_PAGE });
  if (status !== undefined && !v.is(BatchStatusSchema, status)) {
    throw new ApiError('invalid_request', `status must be one of ${BatchStatusSchema.options.join(', ')}.`, { param: 'status' });
  }
  return { limit, ...(startingAfter === undefined ? {} : { startingAfter }), ...(status === undefined ? {} : { status }) };
}

/** What a cursor names: a batch's creation moment and id, its place in its connector's list. */
const CURSOR_PATTERN = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z#[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * The stored status a filter reads, with expiry: expiry is read, not written, so an open batch past its life is
 * stored `open` and listed `failed` until its status is first read.
 */
function statusFilter(status: BatchStatus, now: Date) {
  const names = { '#status': 'status' };
  const cutoff = expiryCutoff(now);
  if (status === 'open') {
    return { FilterExpression: '#status = :open AND createdAt > :cutoff', names, values: { ':open': 'open', ':cutoff': cutoff } };
  }
  if (status === 'failed') {
    return {
      FilterExpression: '#status = :failed OR (#status = :open AND createdAt <= :cutoff)',
      names,
      values: { ':failed': 'failed', ':open': 'open', ':cutoff': cutoff },
    };
  }
  return { FilterExpression: '#status = :status', names, values: { ':status': status } };
}

export interface BatchPage {
  readonly entries: BatchEntry[];
  /** Where the next page starts (opaque: `starting_after`), or undefined when this page is the last. */
  readonly next?: string;
}

const listingIndex = table.indexes[3];

/**
 * A page of the connector's batches, newest first, from the listing index: eventually consistent, so a batch opened
 * or changed a moment ago may show as it was a moment before. A status is a filter on the read, so a page of a rare
 * status may come back short, with `next` to read on from.
 */
export async function listBatches(owner: BatchOwner, listing: BatchListing, now = new Date()): Promise<BatchPage> {
  const { workspaceId, connectorId } = owner;
  const place = listing.startingAfter === undefined ? undefined : decodeCursor(listing.startingAfter, CURSOR_PATTERN);
  const filter = listing.status === undefined ? undefined : statusFilter(listing.status, now);
  const page = await queryListPage(
    {
      IndexName: listingIndex.name,
      KeyConditionExpression: '#pk = :pk',
      ExpressionAttributeNames: { '#pk': listingIndex.partitionKey, ...filter?.names },
      ExpressionAttributeValues: { ':pk': listingKeys.batches(workspaceId, connectorId).partitionKey, ...filter?.values },
      ...(filter ? { FilterExpression: filter.FilterExpression } : {}),
      ScanIndexForward: false,
    },
    {
      limit: listing.limit,
      start:
        place === undefined
          ? undefined
          : listingKeys.batchesAfter(workspaceId, connectorId, place, (id) => ({ ...keys.batch(workspaceId, id) })),
    },
  );
  const entries = page.items.map((item) => {
    const batch = expired(v.parse(BatchSchema, item), now);
    return { batchId: batch.batchId, ...statusView(batch) };
  });
  const next = page.lastKey === undefined ? undefined : encodeCursor(listingKeys.batchPlace(page.lastKey));
  return { entries, ...(next === undefined ? {} : { next }) };
}

/** One batch of an operator's list of a workspace: its connector beside its status. */
export type WorkspaceBatchEntry = BatchEntry & { readonly connectorId: string };

/**
 * A workspace's newest batches across the connectors named, newest first: one page of each connector's list, merged.
 * Batches are listed per connector (the API's list is a connector's own), so an operator's view of a workspace reads
 * each connector's first page and keeps the newest `limit`.
 */
export async function workspaceBatches(
  workspaceId: string,
  connectorIds: readonly string[],
  listing: Omit<BatchListing, 'startingAfter'>,
  now = new Date(),
): Promise<WorkspaceBatchEntry[]> {
  const pages = await Promise.all(
    connectorIds.map(async (connectorId) => {
      const { entries } = await listBatches({ workspaceId, connectorId }, listing, now);
      return entries.map((entry) => ({ connectorId, ...entry }));
    }),
  );
  return pages
    .flat()
    .sort((a, b) => b.createdAt.localeCompare(a.createdAt) || b.batchId.localeCompare(a.batchId))
    .slice(0, listing.limit);
}
