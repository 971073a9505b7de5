// Each workspace's line onto the shared webhooks queue: at most so many of its attempts become visible to the worker a second, whatever its backlog, so that it never stands ahead of another workspace's first attempt.
import { updateItem } from '#platform/table/commands.ts';
import { keys } from '#platform/table/keys.ts';
import { type AttemptMessage, type FanOutMessage, MAX_DELAY_SECONDS, sendDelayed } from './queue.ts';

/**
 * Attempts of one workspace that become visible on the queue in a second, after its burst. The worker turns over far
 * more (docs/webhooks.md, "A fair share per workspace"): another workspace's attempt waits behind at most a second's
 * worth of each flooding workspace's. It is also about what the in-flight bound lets a workspace send (4 at once at
 * receivers answering in 200 ms), so a healthy workspace's deliveries are hardly slowed.
 */
export const LINE_PLACES_PER_SECOND = 20;
/** Places a workspace whose line has been idle takes at once: an event to each of its (at most 20) endpoints goes now. */
export const LINE_BURST = 20;
const PLACE_MS = 1_000 / LINE_PLACES_PER_SECOND;
/** How far behind now an idle line starts: its burst's places fall up to and including now, and go at once. */
const BURST_MS = (LINE_BURST - 1) * PLACE_MS;
/** An idle line is forgotten after this: its next use starts it afresh. */
const LINE_TTL_SECONDS = 2 * 86_400;

/**
 * Where the places of `count` messages start on a line whose next free place is `next`: at the next free place, or
 * at the burst's allowance behind now when the line has fallen behind (idle), so that an idle workspace goes at once.
 */
export function firstPlace(next: number | undefined, nowMs: number): number {
  return Math.max(next ?? Number.NEGATIVE_INFINITY, nowMs - BURST_MS);
}

/** The place of the `index`-th of the messages placed from `first`. */
export function placeAt(first: number, index: number): number {
  return first + index * PLACE_MS;
}

/**
 * The whole seconds a message waits in the queue: until its place on the line, and not before its own earliest
 * moment. Rounded up, so that no second holds more than its share of a workspace's places.
 */
export function waitSeconds(placeMs: number, earliestMs: number, nowMs: number): number {
  return Math.max(0, Math.ceil((Math.max(placeMs, earliestMs) - nowMs) / 1_000));
}

/** Tries to move the line over a concurrent writer before it gives up and lets the messages go as if it were idle. */
const PLACE_TRIES = 3;

/**
 * Takes `count` consecutive places on the workspace's line and says where the first is. One UpdateItem: moved on
 * from where it stands when it is ahead of the burst's allowance, started afresh otherwise. A line contended past its
 * tries places the messages now: the line orders a workspace's messages, it must never hold one back for good.
 */
export async function takePlaces(workspaceId: string, count: number, nowMs: number): Promise<number> {
  const key = keys.webhookLine(workspaceId);
  const floor = nowMs - BURST_MS;
  const span = count * PLACE_MS;
  const expiresAt = Math.ceil(nowMs / 1_000) + LINE_TTL_SECONDS;
  for (let tries = 0; tries < PLACE_TRIES; tries++) {
    const moved = await updateItem({
      Key: key,
      UpdateExpression: 'SET nextPlace = nextPlace + :span, expiresAt = :expires',
      ConditionExpression: 'nextPlace >= :floor',
      ExpressionAttributeValues: { ':span': span, ':floor': floor, ':expires': expiresAt },
      ReturnValues: 'UPDATED_NEW',
    });
    if (!moved.refused) return Number((moved.attributes as { nextPlace: number }).nextPlace) - span;
    const started = await updateItem({
      Key: key,
      UpdateExpression: 'SET #type = :type, nextPlace = :next, expiresAt = :expires',
      ConditionExpression: 'attribute_not_exists(nextPlace) OR nextPlace < :floor',
      ExpressionAttributeNames: { '#type': 'type' },
      ExpressionAttributeValues: { ':type': 'webhookLine', ':next': floor + span, ':floor': floor, ':expires': expiresAt },
    });
    if (!started.refused) return floor;
  }
  return firstPlace(undefined, nowMs);
}

/**
 * Sends attempts of one workspace to the queue in their places on its line, each no sooner than its `notBefore`: the
 * one way a first attempt, a redelivery or a deferred attempt enters the queue.
 */
export async function sendInLine(workspaceId: string, messages: readonly AttemptMessage[], nowMs: number): Promise<void> {
  if (messages.length === 0) return;
  const first = await takePlaces(workspaceId, messages.length, nowMs);
  await sendDelayed(
    messages.map((message, index) => {
      const delaySeconds = waitSeconds(placeAt(first, index), message.notBefore ?? nowMs, nowMs);
      // The place becomes the message's own moment: a wait past SQS's 15 minutes is then sent on until it, not cut short.
      return { message: delaySeconds > 0 ? { ...message, notBefore: nowMs + delaySeconds * 1_000 } : message, delaySeconds };
    }),
  );
}

/**
 * Whether a fan-out is to wait for its place on its workspace's line rather than run now. On its first receive it
 * takes one place; behind a backlog it is sent on to wait for it, a write and a send instead of the fan-out's reads
 * and its attempts added at the front. Received again, it runs once its moment has come.
 */
export async function fanOutWaits(message: FanOutMessage, nowMs: number): Promise<boolean> {
  const notBefore = message.notBefore ?? waitSeconds(await takePlaces(message.workspaceId, 1, nowMs), nowMs, nowMs) * 1_000 + nowMs;
  const delaySeconds = Math.min(MAX_DELAY_SECONDS, Math.floor((notBefore - nowMs) / 1_000));
  if (delaySeconds <= 0) return false;
  await sendDelayed([{ message: { ...message, notBefore }, delaySeconds }]);
  return true;
}
