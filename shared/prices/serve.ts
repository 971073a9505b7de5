// A price call from its admission to its stored answer: rate, quota, idempotency, the snapshot read and the priced lines.
import type { Principal } from '../api-keys/authenticate.ts';
import { pricingSettings } from '../pricing/settings.ts';
import { abandonCall, beginCall, bodyHash, completeCall, decisionId } from './calls.ts';
import { readPricingSnapshot } from './inputs.ts';
import { type Audience, priceLines } from './price-lines.ts';
import type { PriceRequest } from './request.ts';
import { admitRequest, chargeLines, monthlyVolumeExceeded, refundLines } from './usage.ts';

export interface PriceCallInput {
  readonly principal: Principal;
  /** Read lazily, after the rate limit: the contract answers 429 before 422. */
  readonly readRequest: () => { idempotencyKey: string; request: PriceRequest };
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
 * Round trips are the latency of a call, so independent steps overlap: the rate window is counted while the key is
 * claimed, and the quota is charged while the snapshot is read. The contract's order of answers still holds: a refused
 * rate or a spent month wins over a bad body, and a claim made for a refused call is let go.
 */
export async function servePriceCall({ principal, readRequest, nowMs, remainingMs }: PriceCallInput): Promise<PriceCallAnswer> {
  const { workspace } = principal;
  const admitted = admitRequest(workspace, nowMs).then(({ linesUsed }) => {
    if (linesUsed >= workspace.monthlyLines) throw monthlyVolumeExceeded(workspace, nowMs);
  });
  let input: ReturnType<PriceCallInput['readRequest']>;
  try {
    input = readRequest();
  } catch (error) {
    await admitted;
    throw error;
  }
  const { idempotencyKey, request } = input;
  const [admission, claim] = await Promise.allSettled([
    admitted,
    beginCall(workspace.workspaceId, idempotencyKey, bodyHash(request), nowMs, remainingMs()),
  ]);
  if (admission.status === 'rejected') {
    if (claim.status === 'fulfilled' && claim.value.kind === 'fresh') await abandonCall(claim.value.call).catch(() => undefined);
    throw admission.reason;
  }
  if (claim.status === 'rejected') throw claim.reason;
  const started = claim.value;
  if (started.kind === 'replay') return { statusCode: started.statusCode, json: started.json, replayed: true };
  const { call } = started;
  const lineCount = request.lines.length;
  const [charge, read] = await Promise.allSettled([
    chargeLines(workspace, lineCount, nowMs),
    readPricingSnapshot(workspace.workspaceId, request.lines, workspace.baseCurrency, nowMs),
  ]);
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
    // Nothing but a 200 is kept: the key and the quota go back, so a retry with the same key runs afresh.
    const charged = charge.status === 'fulfilled';
    await Promise.allSettled([abandonCall(call), ...(charged ? [refundLines(workspace, lineCount, nowMs)] : [])]);
    throw error;
  }
}
