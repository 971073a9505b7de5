import { afterEach, describe, expect, it } from 'vitest';
import { emfDocuments } from '#test/support/emf.ts';
import { type CapturedLogs, captureLogs } from '#test/support/log-lines.ts';
import { canaryMetricNames, reportCanaryRun, runCanary, UNSET_KEY_PLACEHOLDER } from './run.ts';

const KEY = 'svc_live_canarysecretkeytext';
const priced = { lines: [{ ok: true, priceCents: 1450, currency: 'USD' }] };
const answering = (status: number, body: unknown) => (async () => new Response(JSON.stringify(body), { status })) as typeof fetch;

let logs: CapturedLogs | undefined;
afterEach(() => logs?.restore());

describe('a canary run', () => {
  it('logs one line naming the outcome and the SKU, and never the key', async () => {
    logs = captureLogs();
    const run = await runCanary({
      apiUrl: 'https://api.example.com',
      sku: 'BOLT',
      readKey: async () => `${KEY}\n`,
      fetch: answering(200, priced),
    });
    expect(run.ok).toBe(true);
    const [line, ...others] = logs.lines;
    expect(others).toEqual([]);
    expect(line).toMatchObject({ message: 'canary priced a line', ok: true, status: 200, outcome: 'priced', sku: 'BOLT' });
    expect(JSON.stringify(logs.lines)).not.toContain(KEY);
  });

  it('fails without calling the API while the secret is empty, still the placeholder, or unreadable', async () => {
    logs = captureLogs();
    let called = false;
    const fetch = (async () => {
      called = true;
      return new Response('{}');
    }) as typeof globalThis.fetch;
    const empty = await runCanary({ apiUrl: 'https://api.example.com', sku: 'BOLT', readKey: async () => '', fetch });
    const unset = await runCanary({ apiUrl: 'https://api.example.com', sku: 'BOLT', readKey: async () => UNSET_KEY_PLACEHOLDER, fetch });
    const denied = await runCanary({
      apiUrl: 'https://api.example.com',
      sku: 'BOLT',
      readKey: () => Promise.reject(Object.assign(new Error('denied'), { name: 'AccessDeniedException' })),
      fetch,
    });
    expect(called).toBe(false);
    expect(empty).toMatchObject({ ok: false, outcome: 'no key in the secret' });
    expect(unset).toMatchObject({ ok: false, outcome: 'no key in the secret' });
    expect(denied).toMatchObject({ ok: false, outcome: 'key unreadable (AccessDeniedException)' });
    expect(logs.withMessage('canary failed to price a line')).toHaveLength(3);
  });

  it('counts a pass as 1 and a failure as 0, with the latency of every answer, under the service dimension alone', () => {
    logs = captureLogs();
    const [pass] = emfDocuments(() => reportCanaryRun({ ok: true, status: 200, latencyMs: 84, outcome: 'priced' }, 'BOLT'));
    const [fail] = emfDocuments(() => reportCanaryRun({ ok: false, status: 0, latencyMs: 0, outcome: 'no key in the secret' }, 'BOLT'));
    expect(pass).toMatchObject({ [canaryMetricNames.success]: 1, [canaryMetricNames.latency]: 84, service: 'pricing-service' });
    expect(fail).toMatchObject({ [canaryMetricNames.success]: 0 });
    // No answer, no latency: a run that never reached the API would drag the latency graph to nought.
    expect(fail).not.toHaveProperty(canaryMetricNames.latency);
    const directive = (pass?._aws as { CloudWatchMetrics: Array<{ Dimensions: string[][] }> }).CloudWatchMetrics[0];
    expect(directive?.Dimensions).toEqual([['service']]);
  });
});
