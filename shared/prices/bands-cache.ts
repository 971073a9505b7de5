// The bands items every price call reads (the workspace band, the category bands), kept per instance for a few seconds or until the bands change.
import { BoundedMap, ExpiringCache } from '#platform/caches.ts';
import { keys } from '#platform/table/keys.ts';
import type { PrimaryKey } from '#platform/table/key-parts.ts';

/**
 * How long an instance serves a bands item before reading it again (PRICE_BANDS_CACHE_SECONDS; 0 reads every call,
 * as local mode does). Every price call reads the workspace band and its categories' bands, all on the workspace's
 * bands partition: kept this long, that partition takes (1 + categories) reads per instance in this time rather than
 * per call. A price call sees new bands sooner: the bands job stamps the workspace's rate shards when it has written
 * them (shared/workspaces/bands-stamp.ts), the request's rate write brings the stamp back, and items read before it
 * are read again. The time to live bounds the delay only where a stamp is lost (a rate shard expired by the table).
 */
export const DEFAULT_BANDS_CACHE_SECONDS = 5;
/** Entries per instance: a workspace band and its categories' bands each, for the workspaces an instance serves. */
export const BANDS_CACHE_ENTRIES = 2_000;

export function bandsCacheSeconds(): number {
  const configured = Number(process.env.PRICE_BANDS_CACHE_SECONDS);
  return process.env.PRICE_BANDS_CACHE_SECONDS !== undefined && Number.isFinite(configured) && configured >= 0
    ? configured
    : DEFAULT_BANDS_CACHE_SECONDS;
}

type Item = Record<string, unknown>;

/**
 * A bands item as read, `null` for one the table did not have (a workspace whose bands are not computed yet is not
 * read each call), with the workspace's bands stamp this instance knew when it read it.
 */
interface Entry {
  readonly item: Item | null;
  readonly stamp: number;
}

let cache: { readonly ttlMs: number; readonly items: ExpiringCache<Entry> } | undefined;

/** The newest bands stamp this instance has seen per workspace, from the rate shards its requests wrote. */
const stamps = new BoundedMap<string, number>(BANDS_CACHE_ENTRIES);

/** The cache, rebuilt when its setting changed (a test sets it): undefined when it is off. */
function bandsCache(): ExpiringCache<Entry> | undefined {
  const ttlMs = bandsCacheSeconds() * 1000;
  if (ttlMs === 0) return undefined;
  if (cache?.ttlMs !== ttlMs) cache = { ttlMs, items: new ExpiringCache({ ttlMs, missTtlMs: ttlMs, limit: BANDS_CACHE_ENTRIES }) };
  return cache.items;
}

export function forgetCachedBands(): void {
  cache?.items.clear();
  stamps.clear();
}

/** Notes a workspace's bands stamp as an admitted request found it: bands cached before a newer stamp are read again. */
export function noteBandsStamp(workspaceId: string, bandsAt: number | undefined): void {
  if (bandsAt !== undefined && bandsAt > (stamps.get(workspaceId) ?? 0)) stamps.set(workspaceId, bandsAt);
}

const idOf = (key: { PK: unknown; SK: unknown }) => `${String(key.PK)}\u0000${String(key.SK)}`;

function isBandsKey(key: PrimaryKey): boolean {
  const { PK, SKPrefix } = keys.categoryBandsPrefix(workspaceOfBandsKey(key));
  return key.PK === PK && (key.SK === keys.workspaceBands(workspaceOfBandsKey(key)).SK || key.SK.startsWith(SKPrefix));
}

/** The bands partition is `WS#<workspace>#…`: the workspace a key would be the bands of, if it is one. */
function workspaceOfBandsKey(key: PrimaryKey): string {
  return /^WS#([^#]+)/.exec(key.PK)?.[1] ?? '';
}

/**
 * A round's keys split: the bands items the cache holds fresh (those the table had), the keys to read, and the keys
 * whose cached bands a newer stamp has replaced. Those are read strongly consistent (1 RRU, not 0.5, once per instance
 * and bands change): an eventually consistent read just after the stamp could still return the bands it replaced.
 */
export function fromBandsCache(
  itemKeys: readonly PrimaryKey[],
  nowMs: number,
): { cached: Item[]; toRead: PrimaryKey[]; toReadConsistent: PrimaryKey[] } {
  const items = bandsCache();
  if (!items) return { cached: [], toRead: [...itemKeys], toReadConsistent: [] };
  const cached: Item[] = [];
  const toRead: PrimaryKey[] = [];
  const toReadConsistent: PrimaryKey[] = [];
  for (const key of itemKeys) {
    const hit = isBandsKey(key) ? items.peek(idOf(key), nowMs) : undefined;
    if (hit === undefined) toRead.push(key);
    else if (hit.stamp < (stamps.get(workspaceOfBandsKey(key)) ?? 0)) toReadConsistent.push(key);
    else if (hit.item !== null) cached.push(hit.item);
  }
  return { cached, toRead, toReadConsistent };
}

/** Keeps the bands items of a round that was read, and the bands keys the table did not have. */
export function keepBands(readKeys: readonly PrimaryKey[], found: readonly Item[], nowMs: number): void {
  const items = bandsCache();
  if (!items) return;
  const byId = new Map(found.map((item) => [idOf(item as { PK: unknown; SK: unknown }), item]));
  for (const key of readKeys) {
    if (!isBandsKey(key)) continue;
    items.set(idOf(key), { item: byId.get(idOf(key)) ?? null, stamp: stamps.get(workspaceOfBandsKey(key)) ?? 0 }, nowMs);
  }
}

/** The cache as the snapshot reader takes it: handed in by the price call, so that the bands job's bundle carries none of it. */
export interface BandsCache {
  readonly take: typeof fromBandsCache;
  readonly keep: typeof keepBands;
}

export const instanceBandsCache: BandsCache = { take: fromBandsCache, keep: keepBands };
