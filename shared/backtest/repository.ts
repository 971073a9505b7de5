// What the backtest reads from the table: every history line of a workspace, and today's items of the products it scores.
import { historyLineOf, historyProjection } from '../bands/items.ts';
import { readAllCategoryBands } from '../bands/repository.ts';
import { tableName } from '../config.ts';
import { getItems, inParallel } from '../table/bulk.ts';
import { table } from '../table/definition.ts';
import { historyKeys, keys } from '../table/keys.ts';
import { queryAll } from '../table/query.ts';
import type { BacktestProduct } from './backtest.ts';
import type { BacktestLine } from './split.ts';

const historyIndex = table.indexes[1];
/** Categories read at once: each is a paged Query of its own partition of the history index. */
const CATEGORIES_AT_ONCE = 4;
const lineProjection = [...historyProjection, 'category', 'decidedAtMs', 'currency', 'exchangeRate'] as const;
const productProjection = ['sku', 'costCents', 'currentPriceCents', 'floorCents', 'ceilingCents', 'mapCents'] as const;

function backtestLineOf(item: Record<string, unknown>, category: string): BacktestLine {
  return {
    ...historyLineOf(item),
    category,
    ...(typeof item.decidedAtMs === 'number' ? { decidedAtMs: item.decidedAtMs } : {}),
    ...(typeof item.currency === 'string' && item.currency !== '' ? { currency: item.currency } : {}),
    ...(typeof item.exchangeRate === 'number' ? { exchangeRate: item.exchangeRate } : {}),
  };
}

/**
 * Every history line of the workspace, category by category through the history index, as the bands job reads them.
 * The categories are those the bands job has written (every category that ever had a line has its bands item).
 */
export async function readWorkspaceHistory(
  workspaceId: string,
  onCategory?: (done: number, total: number, lines: number) => void,
): Promise<BacktestLine[]> {
  const categories = (await readAllCategoryBands(workspaceId)).map((entry) => entry.category).sort();
  const byCategory = new Map<string, BacktestLine[]>();
  let done = 0;
  let lines = 0;
  await inParallel(categories, CATEGORIES_AT_ONCE, async (category) => {
    const items = await queryAll({
      TableName: tableName(),
      IndexName: historyIndex.name,
      KeyConditionExpression: '#pk = :pk',
      ProjectionExpression: lineProjection.map((_, index) => `#p${index}`).join(', '),
      ExpressionAttributeNames: {
        '#pk': historyIndex.partitionKey,
        ...Object.fromEntries(lineProjection.map((name, index) => [`#p${index}`, name])),
      },
      ExpressionAttributeValues: { ':pk': historyKeys.categoryLines(workspaceId, category).partitionKey },
    });
    byCategory.set(
      category,
      items.map((item) => backtestLineOf(item, category)),
    );
    done += 1;
    lines += items.length;
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
