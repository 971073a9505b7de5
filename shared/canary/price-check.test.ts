import { describe, expect, it } from 'vitest';
import { judgeAnswer, priceOneLine, pricesUrl } from './price-check.ts';

const KEY = 'svc_live_canarysecretkeytext';

/** A fetch that answers once, and remembers what it was asked. */
function fakeFetch(status: number, body: unknown) {
  const calls: Array<{ url: string; init: RequestInit }> = [];
  const fetch = (async (url: string | URL | Request, init?: RequestInit) => {
    calls.push({ url: String(url), init: init ?? {} });
    return new Response(typeof body === 'string' ? body : JSON.stringify(body), { status });
  }) as typeof globalThis.fetch;
  return { fetch, calls };
}

const priced = { lines: [{ ok: true, priceCents: 1450, currency: 'USD', pricingDecisionId: 'pd_1' }] };

describe('the canary’s price call', () => {
  it('posts one line of the SKU to the prices route with the key as a bearer token and a fresh idempotency key', async () => {
    const { fetch, calls } = fakeFetch(200, priced);
    await priceOneLine({ apiUrl: 'https://api.example.com/', apiKey: KEY, sku: 'BOLT', fetch });
    await priceOneLine({ apiUrl: 'https://api.example.com', apiKey: KEY, sku: 'BOLT', fetch });
    expect(calls.map((call) => call.url)).toEqual(['https://api.example.com/api/v1/prices', 'https://api.example.com/api/v1/prices']);
    const [first, second] = calls.map((call) => call.init.headers as Record<string, string>);
    expect(first?.authorization).toBe(`Bearer ${KEY}`);
    expect(first?.['idempotency-key']).not.toBe(second?.['idempotency-key']);
    expect(JSON.parse(String(calls[0]?.init.body))).toEqual({ lines: [{ productSku: 'BOLT', quantity: 1 }] });
  });

  it('passes on a 200 whose line carries a price, and measures the wait', async () => {
    let now = 1_000;
    const { fetch } = fakeFetch(200, priced);
    const slowFetch = (async (...args: Parameters<typeof globalThis.fetch>) => {
      now += 120;
      return fetch(...args);
    }) as typeof globalThis.fetch;
    const run = await priceOneLine({ apiUrl: 'https://api.example.com', apiKey: KEY, sku: 'BOLT', fetch: slowFetch, nowMs: () => now });
    expect(run).toEqual({ ok: true, status: 200, latencyMs: 120, outcome: 'priced' });
  });

  it('fails on a refused key, naming the error code and never the key', async () => {
    const { fetch } = fakeFetch(401, { error: { code: 'unauthorized', message: 'The API key is not valid.' } });
    const run = await priceOneLine({ apiUrl: 'https://api.example.com', apiKey: KEY, sku: 'BOLT', fetch });
    expect(run).toMatchObject({ ok: false, status: 401, outcome: 'http 401 unauthorized' });
    expect(JSON.stringify(run)).not.toContain(KEY);
  });

  it('fails when no answer comes, as a timeout or a refused connection', async () => {
    const fetch = (async () => {
      throw new DOMException('The operation timed out.', 'TimeoutError');
    }) as typeof globalThis.fetch;
    const run = await priceOneLine({ apiUrl: 'https://api.example.com', apiKey: KEY, sku: 'BOLT', fetch });
    expect(run).toMatchObject({ ok: false, status: 0, outcome: 'no answer (TimeoutError)' });
  });

  it('gives up on an answer slower than its timeout', async () => {
    const fetch = ((_url: string, init?: RequestInit) =>
      new Promise((_resolve, reject) =>
        init?.signal?.addEventListener('abort', () => reject(init.signal?.reason)),
      )) as typeof globalThis.fetch;
    const run = await priceOneLine({ apiUrl: 'https://api.example.com', apiKey: KEY, sku: 'BOLT', fetch, timeoutMs: 20 });
    expect(run).toMatchObject({ ok: false, status: 0, outcome: 'no answer (TimeoutError)' });
  });
});

describe('judging an answer', () => {
  it('passes only a 200 with one priced line', () => {
    expect(judgeAnswer(200, priced)).toEqual({ ok: true, outcome: 'priced' });
  });

  it('fails a line the service refused, by its code', () => {
    const refused = { lines: [{ ok: false, error: { code: 'unknown_product', message: 'No product BOLT.' } }] };
    expect(judgeAnswer(200, refused)).toEqual({ ok: false, outcome: 'line unknown_product' });
  });

  it('fails a 200 that is not a priced line, and any other status with or without an error envelope', () => {
    expect(judgeAnswer(200, { lines: [] })).toEqual({ ok: false, outcome: 'http 200 without a priced line' });
    expect(judgeAnswer(200, undefined)).toEqual({ ok: false, outcome: 'http 200 without a priced line' });
    expect(judgeAnswer(429, { error: { code: 'rate_limited' } })).toEqual({ ok: false, outcome: 'http 429 rate_limited' });
    expect(judgeAnswer(502, undefined)).toEqual({ ok: false, outcome: 'http 502' });
  });

  it('joins the base URL and the route with one slash', () => {
    expect(pricesUrl('https://x.execute-api.eu-west-1.amazonaws.com/')).toBe('https://x.execute-api.eu-west-1.amazonaws.com/api/v1/prices');
    expect(pricesUrl('http://127.0.0.1:3000')).toBe('http://127.0.0.1:3000/api/v1/prices');
  });
});
