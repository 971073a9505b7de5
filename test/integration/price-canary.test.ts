// The canary's check against the local gateway: it passes on a healthy API with an erp key, and fails on a wrong key or a SKU its workspace lacks.
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { priceOneLine } from '#shared/canary/price-check.ts';
import { runCanary } from '#shared/canary/run.ts';
import { captureLogs } from '#test/support/log-lines.ts';
import { drain, pricingHistory } from './prices-support.ts';
import { newWorkspace, type TestWorkspace } from './support.ts';

describe('the canary against the local gateway', () => {
  let seller: TestWorkspace;
  beforeAll(async () => {
    seller = await newWorkspace('Canary Seller');
    await drain(seller, pricingHistory());
  }, 60_000);

  it('prices its line with the workspace’s erp key, and passes', async () => {
    const run = await priceOneLine({ apiUrl: inject('stack').gatewayUrl, apiKey: seller.keys.erp, sku: 'BOLT' });
    expect(run).toMatchObject({ ok: true, status: 200, outcome: 'priced' });
    expect(run.latencyMs).toBeGreaterThanOrEqual(0);
  });

  it('fails on a key the service does not know, as a revoked or mistyped key would, and logs the outcome without the key', async () => {
    const wrongKey = `svc_live_${'x'.repeat(40)}`;
    const logs = captureLogs();
    try {
      const run = await runCanary({ apiUrl: inject('stack').gatewayUrl, sku: 'BOLT', readKey: async () => wrongKey });
      expect(run).toMatchObject({ ok: false, status: 401, outcome: 'http 401 unauthorized' });
      expect(logs.withMessage('canary failed to price a line')).toEqual([expect.objectContaining({ outcome: 'http 401 unauthorized' })]);
      expect(JSON.stringify(logs.lines)).not.toContain(wrongKey);
    } finally {
      logs.restore();
    }
  });

  it('fails on a SKU the key’s workspace does not have, naming the line’s error', async () => {
    const run = await priceOneLine({ apiUrl: inject('stack').gatewayUrl, apiKey: seller.keys.erp, sku: 'NO-SUCH-SKU' });
    expect(run.ok).toBe(false);
    expect(run.outcome).toMatch(/^line \w+$/);
  });
});
