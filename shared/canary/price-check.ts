// The canary's check: one line priced through the public API, as an ERP prices it, and the answer judged a pass or a failure.
import { randomUUID } from 'node:crypto';
import * as v from 'valibot';

/** The route the canary calls: the one every ERP integration depends on. */
export const CANARY_PRICES_PATH = '/api/v1/prices';

/** Past this the run is a failure even if an answer would come: a price call is budgeted in milliseconds, not seconds. */
export const CANARY_TIMEOUT_MS = 10_000;

/** What the canary needs of an answer: one priced line. The rest of the contract is the contract tests' to hold. */
const PricedAnswerSchema = v.object({
  lines: v.tuple([v.object({ ok: v.literal(true), priceCents: v.number(), currency: v.string() })]),
});

/** A line the service refused: its code says why (an unknown SKU, no cost basis), which is what to look at. */
const RefusedLineSchema = v.object({ lines: v.tuple([v.object({ ok: v.literal(false), error: v.object({ code: v.string() }) })]) });

/** The error envelope of a refused call: its code (unauthorized, rate_limited, …) without its message. */
const ErrorEnvelopeSchema = v.object({ error: v.object({ code: v.string() }) });

export interface CanaryCall {
  /** The API's base URL, with or without a trailing slash (the stack's `ApiUrl` output has one). */
  readonly apiUrl: string;
  /** An `erp`-scoped key; it goes in the Authorization header and nowhere else. */
  readonly apiKey: string;
  readonly sku: string;
  readonly fetch?: typeof fetch;
  readonly nowMs?: () => number;
  readonly timeoutMs?: number;
}

export interface CanaryRun {
  readonly ok: boolean;
  /** The HTTP status, or 0 when no answer came (a timeout, a refused connection). */
  readonly status: number;
  readonly latencyMs: number;
  /** Why it passed or failed, in words that name no key: `priced`, `http 401 unauthorized`, `line unknown_product`, … */
  readonly outcome: string;
}

/** Where the price call goes, whatever the base URL ends with. */
export function pricesUrl(apiUrl: string): string {
  return `${apiUrl.replace(/\/+$/, '')}${CANARY_PRICES_PATH}`;
}

/** The run's verdict on an answer: a pass only for a 200 whose one line carries a price. */
export function judgeAnswer(status: number, body: unknown): { ok: boolean; outcome: string } {
  if (status === 200 && v.is(PricedAnswerSchema, body)) return { ok: true, outcome: 'priced' };
  if (status === 200 && v.is(RefusedLineSchema, body)) return { ok: false, outcome: `line ${body.lines[0].error.code}` };
  if (status === 200) return { ok: false, outcome: 'http 200 without a priced line' };
  const code = v.is(ErrorEnvelopeSchema, body) ? ` ${body.error.code}` : '';
  return { ok: false, outcome: `http ${status}${code}` };
}

/** Prices one line of the SKU with the key, as an ERP would, and judges the answer; it never throws. */
export async function priceOneLine(call: CanaryCall): Promise<CanaryRun> {
  const nowMs = call.nowMs ?? (() => performance.now());
  const send = call.fetch ?? fetch;
  const startedMs = nowMs();
  const elapsed = () => Math.round(nowMs() - startedMs);
  try {
    const response = await send(pricesUrl(call.apiUrl), {
      method: 'POST',
      headers: {
        authorization: `Bearer ${call.apiKey}`,
        'content-type': 'application/json',
        // A fresh key each run: a replayed answer would say nothing about the service now.
        'idempotency-key': `canary-${randomUUID()}`,
      },
      body: JSON.stringify({ lines: [{ productSku: call.sku, quantity: 1 }] }),
      signal: AbortSignal.timeout(call.timeoutMs ?? CANARY_TIMEOUT_MS),
    });
    const text = await response.text();
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      body = undefined;
    }
    return { ...judgeAnswer(response.status, body), status: response.status, latencyMs: elapsed() };
  } catch (error) {
    const name = error instanceof Error ? error.name : 'Error';
    return { ok: false, status: 0, latencyMs: elapsed(), outcome: `no answer (${name})` };
  }
}
