// When a workspace's bands last changed, stamped on its rate shards: every API request writes one, so a price call learns of new bands without a read.
import { updateItem } from '#platform/table/commands.ts';
import { keys } from '#platform/table/keys.ts';
import { rateShards } from './rate.ts';

/**
 * Stamps the moment a workspace's bands were written on each `api` rate shard its limit uses, after the bands and
 * before the batch says its prices are fresh. The stamp only moves forward, so a job run again, or two jobs, never
 * take it back. 1 WRU a shard (one at the default limit): price calls' caches then drop those bands at once, rather
 * than at their time to live. A shard added by a raised limit carries no stamp until the next bands job; requests
 * counted there fall back to the time to live.
 */
export async function stampBandsChange(workspace: { workspaceId: string; rateLimit: number }, atMs: number): Promise<void> {
  await Promise.all(
    Array.from({ length: rateShards(workspace.rateLimit) }, (_, shard) =>
      updateItem({
        Key: keys.rateShard(workspace.workspaceId, 'api', shard),
        UpdateExpression: 'SET bandsAt = :at',
        ConditionExpression: 'attribute_not_exists(bandsAt) OR bandsAt < :at',
        ExpressionAttributeValues: { ':at': atMs },
      }),
    ),
  );
}
