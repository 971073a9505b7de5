// Calls by Idempotency-Key, for any operation that opts in: the in-flight marker, and the stored answer a retry replays.
import { createHash } from 'node:crypto';
import { ApiError } from '#platform/errors.ts';
import { randomBase62 } from '#platform/ids.ts';
import { cancellationCodes, deleteItem, getItem, putItem, type TransactEntry, updateItem } from '#platform/table/commands.ts';
import { keyDigest } from '#platform/table/key-parts.ts';
import { packText, unpackText } from '#platform/table/packed.ts';
import type { PrimaryKey } from '#platform/table/key-parts.ts';

/** A replay is answered for 24 hours after the call started; after that the key starts a new call. */
export const REPLAY_WINDOW_MS = 24 * 3_600_000;
/** A marker whose holder is past its deadline is taken over; a little slack covers clocks and the final write. */
const MARKER_SLACK_MS = 2_000;
const CALL_ID_LENGTH = 12;

/** Where a key's answer is kept, as much of it as sealing needs to bind the answer to its place. */
export interface KeyPlace {
  readonly workspaceId: string;
  readonly keyDigest: string;
}

/** How an answer is kept: compressed by default; an answer that shows a secret once is sealed instead. */
export interface AnswerCodec {
  encode(json: string, place: KeyPlace): Promise<Uint8Array | string>;
  decode(stored: Uint8Array | string, place: KeyPlace): Promise<string>;
}

/** How one operation keeps its calls: each operation has items of its own, so one key on two operations never meet. */
export interface IdempotentOperation {
  /** The item a key's call lives in, in the workspace's keys. */
  readonly itemKey: (workspaceId: string, keyDigest: string) => PrimaryKey;
  readonly itemType: string;
  /** How long the item is kept after the call starts: at least the replay window; the price call's is its decision record. */
  readonly retentionSeconds: number;
  /** What else binds a key besides the body, in the 422's words: "a key of the other scope (erp or storefront)". */
  readonly boundTo: string;
  /** Hands a finished call past its replay window over before its key starts a new one: the price call keeps its decisions so. */
  readonly setAside?: (place: KeyPlace, stored: StoredCall) => Promise<void>;
  readonly codec?: AnswerCodec;
}

/** The answer stored under a key, as it was sent. */
export interface StoredAnswer {
  readonly statusCode: number;
  /** The body as sent, byte for byte the same on a replay. */
  readonly json: string;
  readonly headers?: Readonly<Record<string, string>>;
}

/** What a key started: a fresh call to run, or the stored answer of an earlier one. */
export type CallStart = { readonly kind: 'fresh'; readonly call: CallRef } | ({ readonly kind: 'replay' } & StoredAnswer);

export type Replay = Extract<CallStart, { readonly kind: 'replay' }>;

export interface CallRef extends KeyPlace {
  readonly callId: string;
}

export interface StoredCall {
  readonly callId: string;
  /** The API key (or console user) that made the call: its answer replays to that caller alone. Absent on older calls. */
  readonly callerId?: string;
  readonly bodyHash: string;
  readonly state: 'running' | 'done';
  readonly lockedUntil?: number;
  readonly replayUntil: number;
  readonly startedAt: string;
  readonly statusCode?: number;
  readonly response?: Uint8Array | string;
  readonly headers?: Record<string, string>;
}

/**
 * The request a key is bound to, as the hash of its parsed form: the same body resent with other whitespace is the
 * same call, and any change to a value is a different one.
 */
export function bodyHash(body: unknown): string {
  return createHash('sha256').update(JSON.stringify(body)).digest('base64url');
}

/** A stored answer kept the default way, as the price call's decision records are read back. */
export const decompressAnswer = (data: Uint8Array): string => unpackText(data);

/** A 100-line price answer of ~90 KB stores in ~10 KB within a couple of milliseconds. */
const compressed: AnswerCodec = {
  encode: async (json) => packText(json),
  decode: async (stored) => decompressAnswer(typeof stored === 'string' ? Buffer.from(stored, 'utf8') : stored),
};

async function replayOf(operation: IdempotentOperation, place: KeyPlace, stored: StoredCall): Promise<Replay> {
  const json = await (operation.codec ?? compressed).decode(stored.response ?? new Uint8Array(), place);
  return { kind: 'replay', statusCode: stored.statusCode ?? 200, json, ...(stored.headers ? { headers: stored.headers } : {}) };
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

/** A key of the workspace used by another caller: no answer, nor whether one is running, is shown to another key. */
function otherCaller(): ApiError {
  return new ApiError(
    'idempotency_key_reused',
    'This Idempotency-Key was used by another API key of the workspace; a stored answer is replayed only to the key that made it. Use a new key for this request.',
    { param: 'Idempotency-Key' },
  );
}

/** Whether a stored call belongs to another caller than this one. */
function madeByAnother(stored: Pick<StoredCall, 'callerId'>, callerId: string): boolean {
  return stored.callerId !== undefined && stored.callerId !== callerId;
}

function reused(operation: IdempotentOperation): ApiError {
  return new ApiError(
    'idempotency_key_reused',
    `This Idempotency-Key was used for a different request: another body, or ${operation.boundTo}. Use a new key for a new request.`,
    { param: 'Idempotency-Key' },
  );
}

/**
 * Claims the key for a new call, or says what the earlier call under it left. One conditional put does it in the usual
 * case: it succeeds for an unused key or a marker whose holder ran out of time, and otherwise hands back the stored item.
 */
export async function beginCall(
  operation: IdempotentOperation,
  caller: { readonly workspaceId: string; readonly callerId: string },
  idempotencyKey: string,
  hash: string,
  now: number,
  remainingMs: number,
): Promise<CallStart> {
  const { workspaceId, callerId } = caller;
  const call: CallRef = { workspaceId, keyDigest: keyDigest(idempotencyKey), callId: randomBase62(CALL_ID_LENGTH) };
  const item = { ...markerItem(operation, call, hash, now, remainingMs), callerId };
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
    if (!claimed.stored) throw new Error('The Idempotency-Key marker refused the claim without the item that refused it.');
    const stored = claimed.stored as unknown as StoredCall;
    if (stored.replayUntil >= now) {
      if (madeByAnother(stored, callerId)) throw otherCaller();
      if (stored.bodyHash !== hash) throw reused(operation);
      if (stored.state === 'running') throw inFlight();
      return replayOf(operation, call, stored);
    }
    // Past its replay window the key starts a new call; what the old one leaves to keep is moved aside first.
    if (stored.state === 'done') await operation.setAside?.(call, stored);
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
function markerItem(operation: IdempotentOperation, call: CallRef, hash: string, now: number, remainingMs: number) {
  return {
    ...operation.itemKey(call.workspaceId, call.keyDigest),
    type: operation.itemType,
    callId: call.callId,
    bodyHash: hash,
    state: 'running',
    // The marker lives as long as this invocation can: a call that times out never leaves its key stuck. Measured
    // from the clock now, not from when the request was admitted, which may be a retry or two earlier.
    lockedUntil: Date.now() + remainingMs + MARKER_SLACK_MS,
    replayUntil: now + REPLAY_WINDOW_MS,
    startedAt: new Date(now).toISOString(),
    expiresAt: Math.floor(now / 1000) + operation.retentionSeconds,
  };
}

/**
 * The stored answer a retry may still replay, or undefined: for a price call in a month whose quota is spent, where no
 * new call can run but a replay, which does not count, must still be answered.
 */
export async function findReplay(
  operation: IdempotentOperation,
  { workspaceId, callerId }: { readonly workspaceId: string; readonly callerId: string },
  idempotencyKey: string,
  hash: string,
  now: number,
): Promise<Replay | undefined> {
  const place = { workspaceId, keyDigest: keyDigest(idempotencyKey) };
  const stored = (await getItem({ Key: operation.itemKey(workspaceId, place.keyDigest), ConsistentRead: true })) as StoredCall | undefined;
  if (!stored || stored.state !== 'done' || stored.replayUntil < now || stored.bodyHash !== hash) return undefined;
  if (madeByAnother(stored, callerId)) return undefined;
  return replayOf(operation, place, stored);
}

/** The call's key was taken over by another call before its answer could be stored. */
export class KeyLost extends Error {
  constructor() {
    super('The call lost its Idempotency-Key to another call before it could store its answer.');
  }
}

/** The update that stores the answer in the marker's item, held to the key still being the call's. */
async function answerUpdate(operation: IdempotentOperation, call: CallRef, answer: StoredAnswer) {
  const hasHeaders = answer.headers !== undefined && Object.keys(answer.headers).length > 0;
  return {
    Key: operation.itemKey(call.workspaceId, call.keyDigest),
    UpdateExpression: `SET #state = :done, statusCode = :status, #response = :response${hasHeaders ? ', #headers = :headers' : ''} REMOVE lockedUntil`,
    ConditionExpression: 'callId = :callId',
    ExpressionAttributeNames: { '#state': 'state', '#response': 'response', ...(hasHeaders ? { '#headers': 'headers' } : {}) },
    ExpressionAttributeValues: {
      ':done': 'done',
      ':status': answer.statusCode,
      ':response': await (operation.codec ?? compressed).encode(answer.json, call),
      ':callId': call.callId,
      ...(hasHeaders ? { ':headers': answer.headers } : {}),
    },
  };
}

/** Stores the answer in the marker's item, for its retries to replay; throws KeyLost when the key is no longer the call's. */
export async function completeCall(operation: IdempotentOperation, call: CallRef, answer: StoredAnswer): Promise<void> {
  const stored = await updateItem(await answerUpdate(operation, call, answer));
  if (stored.refused) throw new KeyLost();
}

/**
 * The same store of the answer as a transaction entry, for a call whose work is one transaction: the answer commits
 * with the work or neither does, so that no crash between the two leaves work done under a key that forgets it. The
 * entry's condition fails, and the work with it, when the key is no longer the call's: see `keyLostIn`.
 */
export async function completionEntry(operation: IdempotentOperation, call: CallRef, answer: StoredAnswer): Promise<TransactEntry> {
  return { Update: await answerUpdate(operation, call, answer) };
}

/** Whether a cancelled transaction failed on the completion entry at `index`: its work was not done, and the key is another call's. */
export function keyLostIn(error: unknown, index: number): boolean {
  return cancellationCodes(error)?.[index] === 'ConditionalCheckFailed';
}

/** A call that lost its key before its work committed is answered as a retry that meets a running call. */
export function lostKeyAnswer(): ApiError {
  return inFlight();
}

/** Lets the key go after a call that ended without an answer to store, so that a retry runs afresh. */
export async function abandonCall(operation: IdempotentOperation, call: CallRef): Promise<void> {
  // Refused: the key is no longer this call's to let go.
  await deleteItem({
    Key: operation.itemKey(call.workspaceId, call.keyDigest),
    ConditionExpression: 'callId = :callId AND #state = :running',
    ExpressionAttributeNames: { '#state': 'state' },
    ExpressionAttributeValues: { ':callId': call.callId, ':running': 'running' },
  });
}
