// Items written before the listing index, put in the console's lists: every product's recommendation recomputed, and batches and tasks given their list keys.
import { refreshRecommendations } from '#shared/recommendations/repository.ts';
import { scanPage, updateItem } from '#platform/table/commands.ts';
import { keys } from '#platform/table/keys.ts';
import { listingKeys } from '#platform/table/index-keys.ts';
import { getWorkspace } from '#shared/workspaces/repository.ts';

const PRODUCT_KEY = /^WS#([^#]+)#PRODUCT#(.+)$/;

export interface ListingBackfill {
  readonly products: number;
  readonly batches: number;
  readonly tasks: number;
}

async function addListKeys(key: { PK: string; SK: string }, list: Record<string, string>): Promise<boolean> {
  const [[pkName, pk], [skName, sk]] = Object.entries(list) as [[string, string], [string, string]];
  const listed = await updateItem({
    Key: key,
    UpdateExpression: 'SET #listPk = :pk, #listSk = :sk',
    // An item deleted or listed since the Scan read it is left as it is.
    ConditionExpression: 'attribute_exists(PK) AND attribute_not_exists(#listPk)',
    ExpressionAttributeNames: { '#listPk': pkName, '#listSk': skName },
    ExpressionAttributeValues: { ':pk': pk, ':sk': sk },
  });
  return !listed.refused;
}

/**
 * One Scan of the whole table. Every product's recommendation is recomputed and stored, which lists it with its name
 * and category (a product never recommended is listed too); a batch or task not listed yet gets its list keys. Run
 * once after upgrading; again, it recomputes the recommendations and writes nothing else. With a workspace, only its
 * items are taken, though the Scan still reads the whole table.
 */
export async function backfillListings(options: { workspaceId?: string; nowMs?: number } = {}): Promise<ListingBackfill> {
  const nowMs = options.nowMs ?? Date.now();
  const only = options.workspaceId === undefined ? '' : ' AND begins_with(PK, :workspace)';
  const skusByWorkspace = new Map<string, string[]>();
  let batches = 0;
  let tasks = 0;
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const page = await scanPage({
      FilterExpression: `(#type = :product OR ((#type = :batch OR #type = :writeback) AND attribute_not_exists(listPk)))${only}`,
      ExpressionAttributeNames: { '#type': 'type' },
      ExpressionAttributeValues: {
        ':product': 'product',
        ':batch': 'batch',
        ':writeback': 'writeback',
        ...(options.workspaceId === undefined ? {} : { ':workspace': `WS#${options.workspaceId}#` }),
      },
      ExclusiveStartKey,
    });
    for (const item of page.Items ?? []) {
      const workspaceId = String(item.workspaceId);
      if (item.type === 'product') {
        const match = PRODUCT_KEY.exec(String(item.PK));
        if (!match) continue;
        const [, owner = '', sku = ''] = match;
        skusByWorkspace.set(owner, [...(skusByWorkspace.get(owner) ?? []), sku]);
      } else if (item.type === 'batch') {
        const list = listingKeys.batch(workspaceId, String(item.connectorId), String(item.createdAt), String(item.batchId));
        if (await addListKeys(keys.batch(workspaceId, String(item.batchId)), list)) batches += 1;
      } else {
        const list = listingKeys.writeback(workspaceId, String(item.connectorId), String(item.createdAt), String(item.taskId));
        if (await addListKeys(keys.writeback(workspaceId, String(item.taskId)), list)) tasks += 1;
      }
    }
    ExclusiveStartKey = page.LastEvaluatedKey;
  } while (ExclusiveStartKey);
  let products = 0;
  for (const [workspaceId, skus] of skusByWorkspace) {
    const workspace = await getWorkspace(workspaceId);
    if (!workspace) continue;
    // Every row: a product listed before an ordering existed has its row by SKU and lacks the newer ones.
    products += (await refreshRecommendations(workspace, [...skus].sort(), nowMs, { rewrite: true })).products;
  }
  return { products, batches, tasks };
}
