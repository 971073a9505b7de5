// A price call from its claim to its stored answer: idempotency, quota, the snapshot read and the priced lines.
import type { Principal } from '#shared/api-keys/authenticate.ts';
import { pricingSettings } from '#shared/pricing/settings.ts';
import { abandonCall, beginCall, bodyHash, type CallStart, completeCall, decisionId, findReplay } from './calls.ts';
import { instanceBandsCache } from './bands-cache.ts';
import { readPricingSnapshot } from './inputs.ts';
import { type Audience, priceLines } from './price-lines.ts';
import type { PriceRequest } from './request.ts';
import { chargeLines, refundLines } from '#shared/workspaces/quota.ts';
import { monthlyVolumeExceeded } from '#shared/workspaces/usage.ts';

export interface PriceCallRequest {
  readonly request: PriceRequest;
  readonly idempotencyKey: string;
}

export interface PriceCallInput extends PriceCallRequest {
  readonly principal: Principal;
  readonly nowMs: number;
  readonly remainingMs: () => number;
}

export interface PriceCallAnswer {
  readonly statusCode: number;
  /** The body as sent, byte for byte the same on a replay. */
  readonly json: string;
  readonly replayed: boolean;
}

export function audienceOf(principal: Principal): Audience {
  return principal.scopes.includes('erp') ? 'erp' : 'storefront';
}

/**
 * What a key is bound to: the body and who asked. A storefront caller must never replay an erp caller's answer, which
 * carries cost and margin, under the same key; nor the other way round, which would lack them.
 */
export function requestHash(audience: Audience, request: PriceRequest): string {
  return bodyHash({ audience, request });
}

/**
 * With the month's quota spent no call can run, but a retry of one that did is still answered: replays do not count.
 * Anything else is the 429, which the contract puts before validation, so input that does not parse is refused so too.
 */
export async function replayInSpentMonth(principal: Principal, readCall: () => PriceCallRequest, nowMs: number): Promise<PriceCallAnswer> {
  const { workspace } = principal;
  let call: PriceCallRequest;
  try {
    call = readCall();
  } catch {
    throw monthlyVolumeExceeded(workspace, nowMs);
  }
  const caller = { workspaceId: workspace.workspaceId, callerId: principal.keyId };
  const replay = await findReplay(caller, call.idempotencyKey, requestHash(audienceOf(principal), call.request), nowMs);
  if (!replay) throw monthlyVolumeExceeded(workspace, nowMs);
  return { statusCode: replay.statusCode, json: replay.json, replayed: true };
}

/** A fresh call gives up this long before the invocation's deadline, leaving time to let the key go and refund. */
export const GIVE_UP_BEFORE_DEADLINE_MS = 1_500;

/** What is left of the invocation once the undoing of a failed call stops being waited for: enough to answer. */
const UNDO_MARGIN_MS = 250;

/** A call that would not answer before its invocation's deadline: given up while it can still be undone. */
export class OutOfTime extends Error {
  constructor() {
    super("The price call was given up before the invocation's deadline.");
  }
}

/** The work's result, or OutOfTime once budgetMs has passed; the work itself is not stopped, only no longer awaited. */
export async function withinDeadline<T>(work: Promise<T>, budgetMs: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new OutOfTime()), Math.max(0, budgetMs));
  });
  try {
    return await Promise.race([work, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Round trips are the latency of a call, so the key is claimed and the quota charged while the snapshot is read.
 * Anything but a 200 lets the key go and gives the quota back, so that a retry with the same key runs afresh. That
 * includes a call that runs short of time (reads backing off under throttling, say): it is given up before Lambda
 * stops it, since a stopped call could neither refund its lines nor let its key go before the marker ran out.
 */
export async function servePriceCall({ principal, request, idempotencyKey, nowMs, remainingMs }: PriceCallInput): Promise<PriceCallAnswer> {
  const { workspace } = principal;
  // Read while the key is claimed: a replay or a refused claim wastes the reads, every fresh call saves a round trip.
  // They are settled before any answer, so that every read is charged to this request's cost line.
  const reading = readPricingSnapshot(workspace.workspaceId, request.lines, workspace.baseCurrency, nowMs, {
    cachedBands: instanceBandsCache,
  });
  const readsSettled = () =>
    reading.then(
      () => undefined,
      () => undefined,
    );
  let started: CallStart;
  try {
    const caller = { workspaceId: workspace.workspaceId, callerId: principal.keyId };
    started = await beginCall(caller, idempotencyKey, requestHash(audienceOf(principal), request), nowMs, remainingMs());
  } catch (error) {
    await readsSettled();
    throw error;
  }
  if (started.kind === 'replay') {
    await readsSettled();
    return { statusCode: started.statusCode, json: started.json, replayed: true };
  }
  const { call } = started;
  const lineCount = request.lines.length;
  const charging = chargeLines(workspace, lineCount, nowMs);
  try {
    // Only the reads and the charge race the deadline: they are what can back off. Once the answer is being stored the
    // call is not given up, so that an answer being stored is not refunded.
    const [, snapshot] = await withinDeadline(Promise.all([charging, reading]), remainingMs() - GIVE_UP_BEFORE_DEADLINE_MS);
    const lines = priceLines(request.lines, snapshot, {
      baseCurrency: workspace.baseCurrency,
      settings: pricingSettings(workspace.pricing),
      audience: audienceOf(principal),
      nowMs,
      decisionIdOf: (index) => decisionId(call, index),
    });
    const json = JSON.stringify({ lines });
    await completeCall(call, 200, json);
    return { statusCode: 200, json, replayed: false };
  } catch (error) {
    // Out of time, the reads may be backing off still: waiting for them would spend the time the undoing needs. The
    // key is let go at once; the refund follows the charge, which may itself be what is slow, and the undoing is not
    // waited for past the deadline, since an invocation stopped then would answer nothing at all.
    if (!(error instanceof OutOfTime)) await readsSettled();
    const undoing = Promise.allSettled([
      abandonCall(call),
      charging.then(
        () => refundLines(workspace, lineCount, nowMs),
        () => undefined,
      ),
    ]);
    await withinDeadline(undoing, remainingMs() - UNDO_MARGIN_MS).catch(() => undefined);
    throw error;
  }
}
