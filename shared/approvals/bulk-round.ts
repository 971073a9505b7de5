// A bulk approval's round, one per confirmation token: the claim of its first send, each line's result, and that result kept for a later send of the same confirmation to show.
import * as v from 'valibot';
import { ApiError } from '#platform/errors.ts';
import { getItem, putItem, updateItem } from '#platform/table/commands.ts';
import { consoleKeys } from '#platform/table/console-keys.ts';
import { bodyHash, REPLAY_WINDOW_MS } from '#shared/idempotency/store.ts';

/**
 * One line's result, as the round keeps it and every send of the confirmation shows it: approved (with what the
 * results page says of the approval), refused with the rule's words, or not attempted, and why.
 */
export const BulkResultSchema = v.variant('outcome', [
  v.object({
    sku: v.string(),
    outcome: v.literal('approved'),
    priceCents: v.number(),
    currency: v.string(),
    status: v.picklist(['published', 'waiting']),
    waitingUntil: v.optional(v.string()),
    /** The pending write-back tasks it published. */
    writebacks: v.number(),
    /** It published a waiting approval as its second approver. */
    seconded: v.boolean(),
    /** An earlier round under the same token made it, one that ran out of time before it could keep its result. */
    replayed: v.boolean(),
  }),
  v.object({ sku: v.string(), outcome: v.literal('refused'), reason: v.string() }),
  v.object({ sku: v.string(), outcome: v.literal('not_attempted'), reason: v.string() }),
]);
export type BulkResult = v.InferOutput<typeof BulkResultSchema>;

const RoundItemSchema = v.object({
  state: v.picklist(['running', 'done']),
  userId: v.string(),
  linesHash: v.string(),
  lockedUntil: v.optional(v.number()),
  /** The results as JSON: at most 50 lines of ~150 B, well within an item. */
  results: v.optional(v.string()),
});

/** Which round: the workspace and the token, the user who sent it and the lines it carried, which a token is bound to. */
export interface RoundRef {
  readonly workspaceId: string;
  readonly bulkId: string;
  readonly userId: string;
  readonly lines: unknown;
}

/** What a send found: the round to run, the result of the send before it, or that send still running. */
export type RoundStart =
  { readonly kind: 'fresh' } | { readonly kind: 'done'; readonly results: BulkResult[] } | { readonly kind: 'running' };

/** A token sent by another user, or with other lines, was not written for this send: nothing of it is approved. */
function notThisRound(): ApiError {
  return new ApiError('invalid_request', 'This confirmation is not one the console wrote for this selection: select the products again.');
}

function storedResults(item: v.InferOutput<typeof RoundItemSchema>): BulkResult[] {
  return v.parse(v.array(BulkResultSchema), JSON.parse(item.results ?? '[]'));
}

function startOf(stored: Record<string, unknown>, round: RoundRef): RoundStart {
  const item = v.parse(RoundItemSchema, stored);
  if (item.userId !== round.userId || item.linesHash !== bodyHash(round.lines)) throw notThisRound();
  return item.state === 'done' ? { kind: 'done', results: storedResults(item) } : { kind: 'running' };
}

/**
 * Claims the round for this send with one conditional put, or says what an earlier send of the token left. A round
 * whose send died is held no longer than that send could run (`lockedUntilMs`), and is then claimed anew: each
 * line's own approval under the token still publishes once (bulk.ts).
 */
export async function claimRound(round: RoundRef, nowMs: number, lockedUntilMs: number): Promise<RoundStart> {
  const claimed = await putItem({
    Item: {
      ...consoleKeys.bulkRound(round.workspaceId, round.bulkId),
      type: 'bulkRound',
      state: 'running',
      userId: round.userId,
      linesHash: bodyHash(round.lines),
      lockedUntil: lockedUntilMs,
      expiresAt: Math.floor((nowMs + REPLAY_WINDOW_MS) / 1000),
    },
    ConditionExpression: 'attribute_not_exists(PK) OR (#state = :running AND lockedUntil < :now)',
    ExpressionAttributeNames: { '#state': 'state' },
    ExpressionAttributeValues: { ':running': 'running', ':now': nowMs },
    ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
  });
  if (!claimed.refused) return { kind: 'fresh' };
  if (!claimed.stored) throw new Error('The bulk round refused the claim without the item that refused it.');
  return startOf(claimed.stored, round);
}

/** Keeps the round's result for later sends of the token: written before the answer is sent, so any later send finds it. */
export async function finishRound(round: RoundRef, results: readonly BulkResult[]): Promise<void> {
  await updateItem({
    Key: consoleKeys.bulkRound(round.workspaceId, round.bulkId),
    UpdateExpression: 'SET #state = :done, results = :results REMOVE lockedUntil',
    ExpressionAttributeNames: { '#state': 'state' },
    ExpressionAttributeValues: { ':done': 'done', ':results': JSON.stringify(results) },
  });
}

/** How often a send that met its round running looks again: a round of 50 lines takes seconds. */
const LOOK_AGAIN_MS = 250;

/**
 * The result of the round an earlier send is running, once it is kept; undefined if it is not by `untilMs`, which
 * leaves this send time to answer. Strongly consistent reads: the result is written before its send answers.
 */
export async function awaitRound(round: RoundRef, untilMs: number): Promise<BulkResult[] | undefined> {
  while (Date.now() < untilMs) {
    await new Promise((resolve) => setTimeout(resolve, LOOK_AGAIN_MS));
    const stored = await getItem({ Key: consoleKeys.bulkRound(round.workspaceId, round.bulkId), ConsistentRead: true });
    if (!stored) return undefined;
    const start = startOf(stored, round);
    if (start.kind === 'done') return start.results;
  }
  return undefined;
}
