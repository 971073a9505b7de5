import { describe, expect, it } from 'vitest';
import { runMarketInProcess } from './in-process.ts';
import { hardFamilies, type MarketSize } from './market.ts';

const small: MarketSize = { products: 30, customers: 30, quotes: 600, requests: 60 };
const nowMs = Date.parse('2026-06-01T00:00:00Z');

describe('the quality bench run in process', () => {
  it('prices every request line within the oracle and gives each a confidence', () => {
    const result = runMarketInProcess('margin', 1, small, nowMs);
    expect(result.lines).toHaveLength(small.requests);
    for (const line of result.lines) {
      expect(line.ok).toBe(true);
      expect(['high', 'medium', 'low']).toContain(line.confidence);
      expect(line.engine).toBeLessThanOrEqual(line.oracle + 1e-9);
      // A category under the win model's threshold has no win probability to report.
      if (line.predicted !== undefined) expect(line.predicted).toBeGreaterThan(0);
    }
  });

  it('prices the hard families’ markets, held-out seeds too, no line above the oracle’s profit', () => {
    for (const family of hardFamilies) {
      const result = runMarketInProcess(family, 1001, small, nowMs);
      expect(result.lines).toHaveLength(small.requests);
      // The guardrails round the ±25% bound to the nearest cent where the oracle stays inside it: a cent at most.
      for (const line of result.lines) expect(line.engine).toBeLessThanOrEqual(line.oracle * 1.001);
    }
  });

  it('gives the same lines for the same market, seed and moment', () => {
    const a = runMarketInProcess('kinked', 2, small, nowMs);
    const b = runMarketInProcess('kinked', 2, small, nowMs);
    expect(b.lines).toEqual(a.lines);
  });
});
