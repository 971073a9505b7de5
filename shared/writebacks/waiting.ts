// How long the oldest write-back task not yet applied has waited, over every workspace: what the sweeper reports each minute for the alarm on tasks that wait.
import { queryPage } from '#platform/table/commands.ts';
import { table } from '#platform/table/definition.ts';
import { OPEN_TASK_SHARDS, openTaskKeys } from '#platform/table/index-keys.ts';

const openTasksIndex = table.indexes[4];

/**
 * Seconds since the creation of the oldest open (pending or leased) task of any workspace; 0 when none is open. One
 * Query of one key per partition of the index, oldest first: 8 reads of 0.5 RRU, whatever the number of tasks.
 */
export async function oldestOpenTaskSeconds(nowMs: number): Promise<number> {
  const oldest = await Promise.all(
    Array.from({ length: OPEN_TASK_SHARDS }, async (_, shard) => {
      const { Items = [] } = await queryPage({
        IndexName: openTasksIndex.name,
        KeyConditionExpression: '#pk = :pk',
        ExpressionAttributeNames: { '#pk': openTasksIndex.partitionKey },
        ExpressionAttributeValues: { ':pk': openTaskKeys.shard(shard).partitionKey },
        Limit: 1,
      });
      const [first] = Items;
      return first ? Date.parse(String(first[openTaskKeys.sortKey])) : undefined;
    }),
  );
  const times = oldest.filter((time): time is number => time !== undefined && Number.isFinite(time));
  return times.length === 0 ? 0 : Math.max(0, (nowMs - Math.min(...times)) / 1000);
}
