// Price calls by Idempotency-Key: the in-progress marker, the stored response that replays and serves as the decision record.
import { createHash } from 'node:crypto';
import { brotliCompressSync, brotliDecompressSync, constants } from 'node:zlib';
import { getItems } from '#platform/table/bulk.ts';
import { ApiError } from '#platform/errors.ts';
import { randomBase62 } from '#platform/ids.ts';
import { deleteItem, getItem, putItem, updateItem } from '#platform/table/commands.ts';
import { digestOfPriceCallKey, keys } from '#platform/table/keys.ts';
import { keyDigest } from '#platform/table/key-parts.ts';

/** A replay is answered for 24 hours after the call started; after that the key starts a new call. */
export const REPLAY_WINDOW_MS = 24 * 3_600_000;
/** The stored response is the record of every decision in it, kept so a quote line can be attributed within 400 days. */
export const DECISION_RETENTION_DAYS = 400;
/** A marker whose holder is past its deadline is taken over; a little slack covers clocks and the final write. */
const MARKER_SLACK_MS = 2_000;

const DIGEST_LENGTH = 16;
const CALL_ID_LENGTH = 12;
const LINE_INDEX_WIDTH = 3;

/** What a price call's Idempotency-Key started: a fresh call to run, or the stored answer of an earlier one. */
export type CallStart =
  { readonly kind: 'fresh'; readonly call: CallRef } | { readonly kind: 'replay'; readonly statusCode: number; readonly json: string };

export type Replay = Extract<CallStart, { readonly kind: 'replay' }>;

export interface CallRef {
  readonly workspaceId: string;
  readonly keyDigest: string;
  readonly callId: string;
}

/**
 * The body a key is bound to, as the hash of its parsed form: the same lines resent with other whitespace are the same
 * call, and any change to a value is a different one.
 */
export function bodyHash(body: unknown): string {
  return createHash('sha256').update(JSON.stringify(body)).digest('base64url');
}

/** `pd_` + the key's digest + the call's id + the line's place: enough to find the decision without an index. */
export function decisionId(call: CallRef, lineIndex: number): string {
  return `pd_${call.keyDigest}${call.callId}${String(lineIndex).padStart(LINE_INDEX_WIDTH, '0')}`;
}

function parseDecisionId(id: string): { keyDigest: string; callId: string; lineIndex: number } | undefined {
  const match = new RegExp(`^pd_([A-Za-z0-9_-]{${DIGEST_LENGTH}})([0-9A-Za-z]{${CALL_ID_LENGTH}})(\\d{${LINE_INDEX_WIDTH}})$`).exec(id);
  if (!match) return undefined;
  return { keyDigest: match[1] as string, callId: match[2] as string, lineIndex: Number(match[3]) };
}

/** Quality 5: a 100-line response of ~90 KB stores in ~10 KB within a couple of milliseconds. */
function compress(json: string): Buffer {
  const data = Buffer.from(json, 'utf8');
  return brotliCompressSync(data, { params: { [constants.BROTLI_PARAM_QUALITY]: 5, [constants.BROTLI_PARAM_SIZE_HINT]: data.length } });
}

function decompress(data: Uint8Array): string {
  return brotliDecompressSync(data).toString('utf8');
}

interface StoredCall {
  readonly callId: string;
  readonly bodyHash: string;
  readonly state: 'running' | 'done';
  readonly lockedUntil?: number;
  readonly replayUntil: number;
  readonly startedAt: string;
  readonly statusCode?: number;
  readonly response?: Uint8Array;
}

function replayOf(stored: StoredCall): Replay {
  return { kind: 'replay', statusCode: stored.statusCode ?? 200, json: decompress(stored.response ?? new Uint8Array()) };
}

function inFlight(): ApiError {
  return new ApiError(
    'idempotency_key_in_flight',
    'A request with this Idempotency-Key is still running. Retry shortly with the same key.',
    {
      headers: { 'Retry-After': '1' },
    },
  );
}

function reused(): ApiError {
  return new ApiError(
    'idempotency_key_reused',
    'This Idempotency-Key was used for a different request: another body, or a key of the other scope (erp or storefront). Use a new key for a new request.',
    {
      param: 'Idempotency-Key',
    },
  );
}

/**
 * Claims the key for a new call, or says what the earlier call under it left. One conditional put does it in the usual
 * case: it succeeds for an unused key or a marker whose holder ran out of time, and otherwise hands back the stored item.
 */
export async function beginCall(
  workspaceId: string,
  idempotencyKey: string,
  hash: string,
  now: number,
  remainingMs: number,
): Promise<CallStart> {
  const call: CallRef = { workspaceId, keyDigest: keyDigest(idempotencyKey), callId: randomBase62(CALL_ID_LENGTH) };
  const item = markerItem(call, hash, now, remainingMs);
  for (let attempt = 0; attempt < 3; attempt++) {
    const claimed = await putItem({
      Item: item,
      ConditionExpression: 'attribute_not_exists(PK) OR (#state = :running AND lockedUntil < :now)',
      ExpressionAttributeNames: { '#state': 'state' },
      ExpressionAttributeValues: { ':running': 'running', ':now': now },
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
    });
    if (!claimed.refused) return { kind: 'fresh', call };
    // The condition fails only on an existing item, which ALL_OLD hands back.
    if (!claimed.stored) throw new Error('The price call marker refused the claim without the item that refused it.');
    const stored = claimed.stored as unknown as StoredCall;
    if (stored.replayUntil >= now) {
      if (stored.bodyHash !== hash) throw reused();
      if (stored.state === 'running') throw inFlight();
      return replayOf(stored);
    }
    // Past its replay window the key starts a new call; the old one's record moves aside first, so it is never lost.
    await archiveCall(workspaceId, call.keyDigest, stored);
    const taken = await putItem({
      Item: item,
      ConditionExpression: 'callId = :previous',
      ExpressionAttributeValues: { ':previous': stored.callId },
    });
    if (!taken.refused) return { kind: 'fresh', call };
    // Another call took the key in between: look again at what it left.
  }
  throw inFlight();
}

/** The in-progress marker a call holds its key with. */
function markerItem(call: CallRef, hash: string, now: number, remainingMs: number) {
  return {
    ...keys.priceCall(call.workspaceId, call.keyDigest),
    type: 'priceCall',
    callId: call.callId,
    bodyHash: hash,
    state: 'running',
    // The marker lives as long as this invocation can: a call that times out never leaves its key stuck. Measured
    // from the clock now, not from when the request was admitted, which may be a retry or two earlier.
    lockedUntil: Date.now() + remainingMs + MARKER_SLACK_MS,
    replayUntil: now + REPLAY_WINDOW_MS,
    startedAt: new Date(now).toISOString(),
    expiresAt: Math.floor(now / 1000) + DECISION_RETENTION_DAYS * 86_400,
  };
}

/**
 * The stored answer a retry may still replay, or undefined: for a month whose quota is spent, where no new call can run
 * but a replay, which does not count, must still be answered.
 */
export async function findReplay(workspaceId: string, idempotencyKey: string, hash: string, now: number): Promise<Replay | undefined> {
  const stored = (await getItem({ Key: keys.priceCall(workspaceId, keyDigest(idempotencyKey)), ConsistentRead: true })) as
    StoredCall | undefined;
  if (!stored || stored.state !== 'done' || stored.replayUntil < now || stored.bodyHash !== hash) return undefined;
  return replayOf(stored);
}

async function archiveCall(workspaceId: string, digest: string, stored: StoredCall): Promise<void> {
  if (stored.state !== 'done') return;
  const { PK: _pk, SK: _sk, ...fields } = stored as StoredCall & { PK?: string; SK?: string };
  await putItem({ Item: { ...fields, ...keys.archivedPriceCall(workspaceId, digest, stored.callId), type: 'priceCall' } });
}

/** Stores the answer, compressed, in the marker's item; only 200s are stored. */
export async function completeCall(call: CallRef, statusCode: number, json: string): Promise<void> {
  const stored = await updateItem({
    Key: keys.priceCall(call.workspaceId, call.keyDigest),
    UpdateExpression: 'SET #state = :done, statusCode = :status, #response = :response REMOVE lockedUntil',
    ConditionExpression: 'callId = :callId',
    ExpressionAttributeNames: { '#state': 'state', '#response': 'response' },
    ExpressionAttributeValues: { ':done': 'done', ':status': statusCode, ':response': compress(json), ':callId': call.callId },
  });
  // This call outlived its marker and another took the key over: its answer is not the key's, and its decision ids
  // would lead nowhere. It fails, and is refunded; a retry gets the answer of the call that holds the key.
  if (stored.refused) {
    throw new Error('The price call lost its Idempotency-Key to another call before it could store its answer.', { cause: stored.error });
  }
}

/** Lets the key go after a call that ended without a 200, so that a retry runs afresh. */
export async function abandonCall(call: CallRef): Promise<void> {
  // Refused: the key is no longer this call's to let go.
  await deleteItem({
    Key: keys.priceCall(call.workspaceId, call.keyDigest),
    ConditionExpression: 'callId = :callId AND #state = :running',
    ExpressionAttributeNames: { '#state': 'state' },
    ExpressionAttributeValues: { ':callId': call.callId, ':running': 'running' },
  });
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
  const body = JSON.parse(decompress(stored.response)) as { lines?: unknown[] };
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
    const body = JSON.parse(decompress(item.response)) as { lines?: unknown[] };
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
