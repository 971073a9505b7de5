// The admin CLI's `listing backfill`: the one-off listing in the console of what was written before its lists.
import type { AdminCommand } from '#lib/admin/command.ts';

export const listingCommands: readonly AdminCommand[] = [
  {
    name: 'listing backfill',
    usage: `  listing backfill [--workspace W]      lists in the console's Recommendations, Batches and Write-backs what was
                                        written before them: one Scan of the table, every recommendation recomputed;
                                        run once after upgrading`,
    options: ['workspace'],
    prepare({ values }) {
      return async () => {
        const { backfillListings } = await import('#lib/admin/migrations/listing-backfill.ts');
        const done = await backfillListings(values.workspace ? { workspaceId: values.workspace } : {});
        return {
          json: done,
          text: `Listed ${done.products} products' recommendations, ${done.batches} batches and ${done.tasks} write-back tasks`,
        };
      };
    },
  },
];
