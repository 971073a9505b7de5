// A price call from its claim to its stored answer: idempotency, quota, the snapshot read and the priced lines.
import type { Principal } from '../api-keys/authenticate.ts';
import { pricingSettings } from '../pricing/settings.ts';
import { abandonCall, beginCall, bodyHash, type CallStart, completeCall, decisionId, findReplay } from './calls.ts';
import { readPricingSnapshot } from './inputs.ts';
import { type Audience, priceLines } from './price-lines.ts';
import type { PriceRequest } from './request.ts';
import { chargeLines, monthlyVolumeExceeded, refundLines } from '../workspaces/usage.ts';

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

export function monthSpent(workspace: Principal['workspace'], linesUsed: number): boolean {
  return linesUsed >= workspace.monthlyLines;
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
  const replay = await findReplay(workspace.workspaceId, call.idempotencyKey, requestHash(audienceOf(principal), call.request), nowMs);
  if (!replay) throw monthlyVolumeExceeded(workspace, nowMs);
  return { statusCode: replay.statusCode, json: replay.json, replayed: true };
}

/**
 * Round trips are the latency of a call, so the key is claimed and the quota charged while the snapshot is read.
 * Anything but a 200 lets the key go and gives the quota back, so that a retry with the same key runs afresh.
 */
export async function servePriceCall({ principal, request, idempotencyKey, nowMs, remainingMs }: PriceCallInput): Promise<PriceCallAnswer> {
  const { workspace } = principal;
  // Read while the key is claimed: a replay or a refused claim wastes the reads, every fresh call saves a round trip.
  // They are settled before any answer, so that every read is charged to this request's cost line.
  const reading = readPricingSnapshot(workspace.workspaceId, request.lines, workspace.baseCurrency, nowMs);
  const readsSettled = () =>
    reading.then(
      () => undefined,
      () => undefined,
    );
  let started: CallStart;
  try {
    started = await beginCall(workspace.workspaceId, idempotencyKey, requestHash(audienceOf(principal), request), nowMs, remainingMs());
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
  const [charge, read] = await Promise.allSettled([chargeLines(workspace, lineCount, nowMs), reading]);
  try {
    if (charge.status === 'rejected') throw charge.reason;
    if (read.status === 'rejected') throw read.reason;
    const lines = priceLines(request.lines, read.value, {
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
    const charged = charge.status === 'fulfilled';
    await Promise.allSettled([abandonCall(call), ...(charged ? [refundLines(workspace, lineCount, nowMs)] : [])]);
    throw error;
  }
}
