// The admin CLI's `bands rebuild`: a workspace's bands recomputed from its history, and the recommendations that follow them.
import { type AdminCommand, existingWorkspace, type Result } from '#lib/admin/command.ts';

/** How long `bands rebuild` waits for a bands job of the workspace that is running to finish. */
const REBUILD_WAIT_MS = 60_000;

export const bandsCommands: readonly AdminCommand[] = [
  {
    name: 'bands rebuild',
    usage: `  bands rebuild --workspace W           recompute every band of the workspace from its history, and the
                                        recommendations of the products with history`,
    options: ['workspace'],
    prepare(args) {
      const workspaceId = args.required('workspace');
      return () => rebuild(workspaceId);
    },
  },
];

async function rebuild(workspaceId: string): Promise<Result> {
  const workspace = await existingWorkspace(workspaceId);
  const { rebuildBands } = await import('#shared/bands/recompute.ts');
  const { BandsLeaseHeld } = await import('#shared/bands/lease.ts');
  const { pricingSettings } = await import('#shared/pricing/settings.ts');
  // A bands job after a drain may be running: wait for it a while rather than refuse at once.
  const waitUntil = Date.now() + REBUILD_WAIT_MS;
  let result;
  for (;;) {
    try {
      result = await rebuildBands(workspaceId, pricingSettings(workspace.pricing), new Date());
      break;
    } catch (error) {
      if (!(error instanceof BandsLeaseHeld) || Date.now() > waitUntil) throw error;
      await new Promise((resolve) => setTimeout(resolve, 1_000));
    }
  }
  // Price calls drop the bands they cached at once, rather than at their time to live.
  const { stampBandsChange } = await import('#shared/workspaces/bands-stamp.ts');
  await stampBandsChange(workspace, Date.now());
  // A rebuild follows a change of pricing settings as often as not: the recommendations of every product with
  // history follow the bands.
  const { refreshRecommendations } = await import('#shared/recommendations/repository.ts');
  const { pricedSkus, ...counts } = result;
  // Every row too: a rebuild is also how an operator puts the lists right.
  const refreshed = await refreshRecommendations(workspace, [...new Set(pricedSkus)].sort(), Date.now(), { rewrite: true });
  return {
    json: { ...counts, recommendations: refreshed.products },
    text: `Rebuilt the bands of ${result.categories} categories from ${result.lines} history lines (${result.products} products, ${result.customers} customer items), and ${refreshed.products} recommendations`,
  };
}
