// Price calls by Idempotency-Key, kept by the shared store (shared/idempotency): the stored answer replays and serves as the decision record.
import { getItems } from '#platform/table/bulk.ts';
import { digestOfPriceCallKey, keys } from '#platform/table/keys.ts';
import {
  abandonCall as abandonKeyedCall,
  beginCall as beginKeyedCall,
  type CallRef,
  type CallStart,
  completeCall as completeKeyedCall,
  decompressAnswer,
  findReplay as findKeyedReplay,
  type IdempotentOperation,
  KeyLost,
  type KeyPlace,
  type Replay,
  type StoredCall,
} from '#shared/idempotency/store.ts';
import { putItem } from '#platform/table/commands.ts';

export { bodyHash, REPLAY_WINDOW_MS } from '#shared/idempotency/store.ts';
export type { CallRef, CallStart, Replay };

/** The stored response is the record of every decision in it, kept so a quote line can be attributed within 400 days. */
export const DECISION_RETENTION_DAYS = 400;

const DIGEST_LENGTH = 16;
const CALL_ID_LENGTH = 12;
const LINE_INDEX_WIDTH = 3;

/** `pd_` + the key's digest + the call's id + the line's place: enough to find the decision without an index. */
export function decisionId(call: CallRef, lineIndex: number): string {
  return `pd_${call.keyDigest}${call.callId}${String(lineIndex).padStart(LINE_INDEX_WIDTH, '0')}`;
}

function parseDecisionId(id: string): { keyDigest: string; callId: string; lineIndex: number } | undefined {
  const match = new RegExp(`^pd_([A-Za-z0-9_-]{${DIGEST_LENGTH}})([0-9A-Za-z]{${CALL_ID_LENGTH}})(\\d{${LINE_INDEX_WIDTH}})$`).exec(id);
  if (!match) return undefined;
  return { keyDigest: match[1] as string, callId: match[2] as string, lineIndex: Number(match[3]) };
}

/** A key reused after its replay window: the old call's record moves aside under its call id first, so it is never lost. */
async function archiveCall(place: KeyPlace, stored: StoredCall): Promise<void> {
  const { PK: _pk, SK: _sk, ...fields } = stored as StoredCall & { PK?: string; SK?: string };
  await putItem({ Item: { ...fields, ...keys.archivedPriceCall(place.workspaceId, place.keyDigest, stored.callId), type: 'priceCall' } });
}

/**
 * The price call's keys: in partitions of their own (`keys.priceCall`), kept 400 days as the decision record, and bound
 * to the audience besides the body.
 */
const priceCalls: IdempotentOperation = {
  itemKey: keys.priceCall,
  itemType: 'priceCall',
  retentionSeconds: DECISION_RETENTION_DAYS * 86_400,
  boundTo: 'a key of the other scope (erp or storefront)',
  setAside: archiveCall,
};

/** Who calls: the workspace, and the API key whose calls its retries alone may replay. */
export interface PriceCaller {
  readonly workspaceId: string;
  readonly callerId: string;
}

export function beginCall(caller: PriceCaller, idempotencyKey: string, hash: string, now: number, remainingMs: number): Promise<CallStart> {
  return beginKeyedCall(priceCalls, caller, idempotencyKey, hash, now, remainingMs);
}

/**
 * The stored answer a retry may still replay, or undefined: for a month whose quota is spent, where no new call can run
 * but a replay, which does not count, must still be answered.
 */
export function findReplay(caller: PriceCaller, idempotencyKey: string, hash: string, now: number): Promise<Replay | undefined> {
  return findKeyedReplay(priceCalls, caller, idempotencyKey, hash, now);
}

/** Stores the answer, compressed, in the marker's item; only 200s are stored. */
export async function completeCall(call: CallRef, statusCode: number, json: string): Promise<void> {
  try {
    await completeKeyedCall(priceCalls, call, { statusCode, json });
  } catch (error) {
    // This call outlived its marker and another took the key over: its answer is not the key's, and its decision ids
    // would lead nowhere. It fails, and is refunded; a retry gets the answer of the call that holds the key.
    if (!(error instanceof KeyLost)) throw error;
    throw new Error('The price call lost its Idempotency-Key to another call before it could store its answer.', { cause: error });
  }
}

/** Lets the key go after a call that ended without a 200, so that a retry runs afresh. */
export function abandonCall(call: CallRef): Promise<void> {
  return abandonKeyedCall(priceCalls, call);
}

export interface Decision {
  readonly pricingDecisionId: string;
  readonly pricedAt: string;
  /** The result line as the caller received it. */
  readonly line: unknown;
}

/** The priced line a decision id names: from the call's item, or from its archived copy if the key was used again. */
export async function findDecision(workspaceId: string, pricingDecisionId: string): Promise<Decision | undefined> {
  const parsed = parseDecisionId(pricingDecisionId);
  if (!parsed) return undefined;
  const items = await getItems(
    [keys.priceCall(workspaceId, parsed.keyDigest), keys.archivedPriceCall(workspaceId, parsed.keyDigest, parsed.callId)],
    { consistent: false },
  );
  const stored = items.find((item) => item.callId === parsed.callId && item.state === 'done') as StoredCall | undefined;
  if (!stored?.response) return undefined;
  const body = JSON.parse(decompressAnswer(stored.response as Uint8Array)) as { lines?: unknown[] };
  const line = body.lines?.[parsed.lineIndex];
  return line === undefined ? undefined : { pricingDecisionId, pricedAt: stored.startedAt, line };
}

/**
 * The decisions many ids name, read together: one BatchGetItem of each call's item and archived copy, whatever the
 * number of lines that came from the call. Ids that name nothing are left out.
 */
export async function findDecisions(workspaceId: string, pricingDecisionIds: readonly string[]): Promise<Map<string, Decision>> {
  const parsed = [...new Set(pricingDecisionIds)].flatMap((id) => {
    const parts = parseDecisionId(id);
    return parts ? [{ id, ...parts }] : [];
  });
  const calls = new Map(parsed.map((parts) => [`${parts.keyDigest}#${parts.callId}`, parts]));
  if (calls.size === 0) return new Map();
  const items = await getItems(
    [...calls.values()].flatMap((parts) => [
      keys.priceCall(workspaceId, parts.keyDigest),
      keys.archivedPriceCall(workspaceId, parts.keyDigest, parts.callId),
    ]),
    { consistent: false },
  );
  const bodies = new Map<string, { startedAt: string; lines: unknown[] }>();
  for (const item of items as unknown as StoredCall[]) {
    if (item.state !== 'done' || !item.response) continue;
    const digest = calls.get(`${digestOfPriceCallKey(workspaceId, (item as unknown as { PK: string }).PK)}#${item.callId}`);
    if (!digest) continue;
    const body = JSON.parse(decompressAnswer(item.response as Uint8Array)) as { lines?: unknown[] };
    bodies.set(`${digest.keyDigest}#${item.callId}`, { startedAt: item.startedAt, lines: body.lines ?? [] });
  }
  const found = new Map<string, Decision>();
  for (const parts of parsed) {
    const body = bodies.get(`${parts.keyDigest}#${parts.callId}`);
    const line = body?.lines[parts.lineIndex];
    if (body && line !== undefined) found.set(parts.id, { pricingDecisionId: parts.id, pricedAt: body.startedAt, line });
  }
  return found;
}
