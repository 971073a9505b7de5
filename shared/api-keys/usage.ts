// When a key was last used: kept on its listing item to within a few minutes, at most one write per key in that time.
import { keys } from '#platform/table/keys.ts';
import { BoundedMap } from '#platform/caches.ts';
import { logger } from '#platform/observability.ts';
import { updateItem } from '#platform/table/commands.ts';

/**
 * How fresh a key's last-used time is kept. A key serving a thousand requests a second would otherwise cost a write
 * per request; with this, it costs at most one successful write per key in this time, whatever the traffic.
 */
export const LAST_USE_RESOLUTION_MS = 5 * 60_000;

/** A stored last-used time at or before this (ISO, so that the table compares it as text) is written again. */
export function lastUseStaleFrom(nowMs: number): string {
  return new Date(nowMs - LAST_USE_RESOLUTION_MS).toISOString();
}

/**
 * What one instance remembers of the writes it tried, so that within the resolution a key costs it no call at all:
 * the table's condition alone would still charge a refused write per request.
 */
export class KeyUseThrottle {
  readonly #triedAt: BoundedMap<string, number>;

  constructor(limit = 10_000) {
    this.#triedAt = new BoundedMap(limit);
  }

  /** True (and remembered) when this instance has not tried to write this key's use within the resolution. */
  claim(keyId: string, nowMs: number): boolean {
    const tried = this.#triedAt.get(keyId);
    if (tried !== undefined && tried > nowMs - LAST_USE_RESOLUTION_MS) return false;
    this.#triedAt.set(keyId, nowMs);
    return true;
  }

  forget(): void {
    this.#triedAt.clear();
  }
}

/**
 * Writes the key's last use where the stored time is older than the resolution: one conditional UpdateItem. Refused
 * (1 WRU, nothing changed) when another instance wrote it within the resolution, or the key has no listing item.
 */
export async function writeLastUse(workspaceId: string, keyId: string, nowMs: number): Promise<'written' | 'refused'> {
  const updated = await updateItem({
    Key: keys.apiKeyListing(workspaceId, keyId),
    UpdateExpression: 'SET lastUsedAt = :now',
    ConditionExpression: 'attribute_exists(PK) AND (attribute_not_exists(lastUsedAt) OR lastUsedAt <= :stale)',
    ExpressionAttributeValues: {
      ':now': new Date(nowMs).toISOString(),
      ':stale': lastUseStaleFrom(nowMs),
    },
  });
  return updated.refused ? 'refused' : 'written';
}

const throttle = new KeyUseThrottle();

/**
 * Records that the key authenticated a request. Skipped without a call when this instance tried within the
 * resolution; a failure is logged, never thrown: the request it serves does not depend on it.
 */
export async function recordKeyUse(workspaceId: string, keyId: string, nowMs = Date.now()): Promise<'skipped' | 'written' | 'refused'> {
  if (!throttle.claim(keyId, nowMs)) return 'skipped';
  try {
    return await writeLastUse(workspaceId, keyId, nowMs);
  } catch (error) {
    logger.warn('key last use not recorded', { keyId, error: error as Error });
    return 'skipped';
  }
}

/** For tests that inject time and must start from an instance that has tried nothing. */
export function forgetKeyUseAttempts(): void {
  throttle.forget();
}
