// A connector's recent batches, newest first, as the console lists them.
import * as v from 'valibot';
import { listingKeys } from '#platform/table/index-keys.ts';
import { queryListing } from '#platform/table/query.ts';
import { expired } from './rules.ts';
import { type Batch, BatchSchema } from './schema.ts';

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
