// The rate limit of redelivery: how many redeliveries one endpoint may be asked for in a sliding minute.
import * as v from 'valibot';
import { ApiError } from '#platform/errors.ts';
import { getItem, putItem } from '#platform/table/commands.ts';
import { keys } from '#platform/table/keys.ts';

/** Redeliveries one endpoint may be asked for in any REDELIVERY_WINDOW_MS. */
export const MAX_REDELIVERIES_PER_WINDOW = 20;
export const REDELIVERY_WINDOW_MS = 60_000;

const WindowSchema = v.object({ askedAt: v.array(v.number()), version: v.number() });

/** Whether one more redelivery fits the window; the times still in it (with this one, when admitted); when to retry if not. */
export function admitRedelivery(
  askedAt: readonly number[],
  nowMs: number,
): { readonly admitted: boolean; readonly kept: number[]; readonly retryAfterSeconds: number } {
  const kept = askedAt.filter((at) => at > nowMs - REDELIVERY_WINDOW_MS).sort((a, b) => a - b);
  if (kept.length < MAX_REDELIVERIES_PER_WINDOW) return { admitted: true, kept: [...kept, nowMs], retryAfterSeconds: 0 };
  // The oldest in the window leaves it first: one place is free again then.
  const oldest = kept[kept.length - MAX_REDELIVERIES_PER_WINDOW] ?? nowMs;
  return { admitted: false, kept, retryAfterSeconds: Math.max(1, Math.ceil((oldest + REDELIVERY_WINDOW_MS - nowMs) / 1000)) };
}

export function redeliveryLimited(retryAfterSeconds: number): ApiError {
  return new ApiError(
    'rate_limited',
    `An endpoint may be asked for at most ${MAX_REDELIVERIES_PER_WINDOW} redeliveries a minute. Retry after the Retry-After delay.`,
    { headers: { 'Retry-After': String(retryAfterSeconds) } },
  );
}

/** Tries to write the window over what was read this many times; losing every time reads as a full window. */
const WRITE_TRIES = 3;

/**
 * Counts a redelivery against the endpoint's window, or throws 429 when the window is full. The window is one small
 * item, read and written whole over the version read, and expires a minute after its last use.
 */
export async function takeRedelivery(workspaceId: string, endpointId: string, nowMs: number): Promise<void> {
  const key = keys.webhookRedeliveries(workspaceId, endpointId);
  for (let tries = 0; tries < WRITE_TRIES; tries++) {
    const item = await getItem({ Key: key, ConsistentRead: true });
    const stored = item ? v.parse(WindowSchema, item) : undefined;
    const { admitted, kept, retryAfterSeconds } = admitRedelivery(stored?.askedAt ?? [], nowMs);
    if (!admitted) throw redeliveryLimited(retryAfterSeconds);
    const written = await putItem({
      Item: {
        ...key,
        type: 'webhookRedeliveries',
        askedAt: kept,
        version: (stored?.version ?? 0) + 1,
        expiresAt: Math.ceil((nowMs + REDELIVERY_WINDOW_MS) / 1000),
      },
      ConditionExpression: stored ? 'version = :version' : 'attribute_not_exists(PK)',
      ...(stored ? { ExpressionAttributeValues: { ':version': stored.version } } : {}),
    });
    if (!written.refused) return;
  }
  throw redeliveryLimited(1);
}
