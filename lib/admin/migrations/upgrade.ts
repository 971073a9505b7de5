// Brings a workspace written by an earlier release up to this one's layout: every one-off migration, each idempotent, in order.
import { backfillApiKeyListings } from '#shared/api-keys/repository.ts';
import { migrateHistory } from './history.ts';
import { backfillListings } from './listing-backfill.ts';
import { backfillMargins } from './margins-backfill.ts';

/**
 * Keys' listing items, the console's listings (every recommendation with its rows and the category list), the history
 * log, then the products' monthly margins; running it again changes nothing.
 */
export async function upgradeWorkspace(workspaceId: string): Promise<void> {
  await backfillApiKeyListings();
  await backfillListings({ workspaceId });
  await migrateHistory(workspaceId);
  await backfillMargins(workspaceId);
}
