// A workspace's per-second request rates (/api/v1 and the overview): a fixed one-second window spread over shards, each its own partition.
import { BoundedMap } from '#platform/caches.ts';
import { positiveNumber } from '#platform/config.ts';
import { batchGetItems, updateItem } from '#platform/table/commands.ts';
import { keys } from '#platform/table/keys.ts';
import type { Workspace } from './schema.ts';
import { rateLimited } from './usage.ts';

/**
 * The writes a second one shard takes at most (RATE_SHARD_WRITES, which tests lower to spread a small limit): 40% of
 * the 1,000 a partition key allows, so that the rate's items stay under half their limit at any rate a workspace is
 * given, up to the most shards.
 */
export const RATE_SHARD_WRITES = 400;

function shardWrites(): number {
  return Math.floor(positiveNumber(process.env.RATE_SHARD_WRITES) ?? RATE_SHARD_WRITES) || RATE_SHARD_WRITES;
}
/** A rate above this many shards' worth (12,800 a second) is still held, its shards then run hotter than 40%. */
export const MAX_RATE_SHARDS = 32;
/** Rate windows are read only within their second; a day's expiry lets the table drop those of a workspace gone quiet. */
const RATE_RETENTION_SECONDS = 86_400;

/** Each surface has its own rate and its own windows. */
export type RateMeter = 'api' | 'overview';

type RateLimits = Pick<Workspace, 'workspaceId' | 'rateLimit' | 'overviewRateLimit'>;

const limitOf = (workspace: RateLimits, meter: RateMeter) => (meter === 'api' ? workspace.rateLimit : workspace.overviewRateLimit);

/** How many items a limit is spread over: one per 400 requests a second of it, from 1 to 32. */
export function rateShards(limit: number): number {
  return Math.min(MAX_RATE_SHARDS, Math.max(1, Math.ceil(limit / shardWrites())));
}

/** What shard `shard` of `shards` admits in a second: the limit divided as evenly as whole requests allow. */
export function shardShare(limit: number, shards: number, shard: number): number {
  return Math.floor(limit / shards) + (shard < limit % shards ? 1 : 0);
}

/**
 * The second this instance last found every shard of a workspace's window full, by workspace and meter: until that
 * second ends it refuses without a call, so that traffic over the limit costs the table one refused write and one
 * read of the shards per instance and second, not one per request.
 */
const fullSeconds = new BoundedMap<string, number>(10_000);

/** For tests that replay a second another test of the same process found full. */
export function forgetFullWindows(): void {
  fullSeconds.clear();
}

/** The stamp a rate shard carried (./bands-stamp.ts), as the write that counted a request returned it. */
export function bandsStampOf(shard: Record<string, unknown> | undefined): number | undefined {
  const at = shard?.bandsAt;
  return typeof at === 'number' && Number.isFinite(at) ? at : undefined;
}

/** An admitted request: when the workspace's bands last changed, as the shard that counted it knew (`api` only). */
export interface Admitted {
  readonly bandsAt: number | undefined;
}

/** A request counted, with the bands stamp its shard carried (./bands-stamp.ts), or a shard found full. */
type Counted = Admitted | 'full';

/**
 * Counts one request in one shard's window: one write in the usual case, two on the shard's first request of a
 * second. A request stamped a moment before another instance opened the next second's window counts in that window,
 * rather than being refused for arriving late.
 */
async function countInShard(workspaceId: string, meter: RateMeter, shard: number, share: number, second: number): Promise<Counted> {
  const Key = keys.rateShard(workspaceId, meter, shard);
  for (let attempt = 0; attempt < 3; attempt++) {
    const counted = await updateItem({
      Key,
      UpdateExpression: 'ADD #count :one',
      ConditionExpression: '#second >= :second AND #count < :share',
      ExpressionAttributeNames: { '#second': 'second', '#count': 'count' },
      ExpressionAttributeValues: { ':one': 1, ':second': second, ':share': share },
      // The shard's whole item comes back at no cost in units: it carries the workspace's bands stamp.
      ReturnValues: 'ALL_NEW',
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
    });
    if (!counted.refused) return { bandsAt: bandsStampOf(counted.attributes) };
    const storedSecond = counted.stored?.second;
    if (typeof storedSecond === 'number' && storedSecond >= second) return 'full';
    // A new window: only if the stored one is older, so that two first requests of a second do not both reset it.
    const opened = await updateItem({
      Key,
      UpdateExpression: 'SET #second = :second, #count = :one, expiresAt = :expires',
      ConditionExpression: 'attribute_not_exists(#second) OR #second < :second',
      ExpressionAttributeNames: { '#second': 'second', '#count': 'count' },
      ExpressionAttributeValues: { ':one': 1, ':second': second, ':expires': second + RATE_RETENTION_SECONDS },
      ReturnValues: 'ALL_NEW',
    });
    if (!opened.refused) return { bandsAt: bandsStampOf(opened.attributes) };
  }
  return 'full';
}

/** The shards with room left in this second, as one strongly consistent read of them all finds them: emptiest first. */
async function shardsWithRoom(workspaceId: string, meter: RateMeter, limit: number, shards: number, second: number) {
  const stored = await batchGetItems(
    Array.from({ length: shards }, (_, shard) => keys.rateShard(workspaceId, meter, shard)),
    { ConsistentRead: true },
  );
  const counts = new Map(stored.map((item) => [String(item.PK), item]));
  return Array.from({ length: shards }, (_, shard) => {
    const item = counts.get(keys.rateShard(workspaceId, meter, shard).PK);
    const used = item && typeof item.second === 'number' && item.second >= second ? Number(item.count ?? 0) : 0;
    return { shard, room: shardShare(limit, shards, shard) - used };
  })
    .filter((candidate) => candidate.room > 0)
    .sort((a, b) => b.room - a.room);
}

/**
 * Counts a request against the workspace's rate, after authentication and before any input is read. The second's
 * limit is divided over the rate's shards; a request draws one at random and costs one write there. Only when that
 * shard is full are the others read, and tried emptiest first: a request is refused only once every shard was full,
 * so no second admits more than the limit, and a second that refuses any request admitted all of it.
 */
export async function admitRequest(workspace: RateLimits, nowMs: number, meter: RateMeter = 'api'): Promise<Admitted> {
  const second = Math.floor(nowMs / 1000);
  const limit = limitOf(workspace, meter);
  const memo = `${workspace.workspaceId}|${meter}`;
  if (fullSeconds.get(memo) === second) throw rateLimited(limit);
  const shards = rateShards(limit);
  const drawn = Math.floor(Math.random() * shards);
  const first = await countInShard(workspace.workspaceId, meter, drawn, shardShare(limit, shards, drawn), second);
  if (first !== 'full') return first;
  if (shards > 1) {
    for (const { shard } of await shardsWithRoom(workspace.workspaceId, meter, limit, shards, second)) {
      const counted = await countInShard(workspace.workspaceId, meter, shard, shardShare(limit, shards, shard), second);
      if (counted !== 'full') return counted;
    }
  }
  fullSeconds.set(memo, second);
  throw rateLimited(limit);
}
