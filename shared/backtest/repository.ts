// What the backtest reads from the table: every history line of a workspace, and today's items of the products it scores.
import { readAllCategoryBands, readCategoryLines } from '#shared/bands/repository.ts';
import { getItems, inParallel } from '#platform/table/bulk.ts';
import { keys } from '#platform/table/keys.ts';
import type { BacktestProduct } from './holdout.ts';
import type { BacktestLine } from './split.ts';

/** Categories read at once: each is a paged Query of its history log's shards. */
const CATEGORIES_AT_ONCE = 4;
const productProjection = ['sku', 'costCents', 'currentPriceCents', 'floorCents', 'ceilingCents', 'mapCents'] as const;

/**
 * Every history line of the workspace, category by category, as the bands job reads them. The categories are those
 * the bands job has written (every category that ever had a line has its bands item).
 */
export async function readWorkspaceHistory(
  workspaceId: string,
  onCategory?: (done: number, total: number, lines: number) => void,
  nowMs = Date.now(),
): Promise<BacktestLine[]> {
  const categories = (await readAllCategoryBands(workspaceId)).map((entry) => entry.category).sort();
  const byCategory = new Map<string, BacktestLine[]>();
  let done = 0;
  let lines = 0;
  await inParallel(categories, CATEGORIES_AT_ONCE, async (category) => {
    const found = await readCategoryLines(workspaceId, category, nowMs);
    byCategory.set(category, found);
    done += 1;
    lines += found.length;
    onCategory?.(done, categories.length, lines);
  });
  // In category order, whatever order the reads finished in: the bootstrap's draws follow the order of the lines.
  return categories.flatMap((category) => byCategory.get(category) ?? []);
}

/** Today's product items of these SKUs; a SKU no longer in the catalogue is missing from the map. */
export async function readBacktestProducts(workspaceId: string, skus: readonly string[]): Promise<Map<string, BacktestProduct>> {
  const items = await getItems(
    skus.map((sku) => keys.product(workspaceId, sku)),
    {
      consistent: false,
      projection: productProjection.map((_, index) => `#p${index}`).join(', '),
      names: Object.fromEntries(productProjection.map((name, index) => [`#p${index}`, name])),
    },
  );
  const products = new Map<string, BacktestProduct>();
  for (const item of items) {
    const optional = (name: 'floorCents' | 'ceilingCents' | 'mapCents') => (typeof item[name] === 'number' ? { [name]: item[name] } : {});
    products.set(String(item.sku), {
      sku: String(item.sku),
      costCents: Number(item.costCents),
      currentPriceCents: Number(item.currentPriceCents),
      ...optional('floorCents'),
      ...optional('ceilingCents'),
      ...optional('mapCents'),
    });
  }
  return products;
}
