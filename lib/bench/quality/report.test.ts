import { describe, expect, it } from 'vitest';
import { runMarketInProcess } from './in-process.ts';
import type { MarketSize } from './market.ts';
import { printQualityReports, qualityReports } from './report.ts';

const small: MarketSize = { products: 30, customers: 30, quotes: 600, requests: 60 };
const nowMs = Date.parse('2026-06-01T00:00:00Z');

describe('the quality report', () => {
  const results = [
    runMarketInProcess('margin', 1, small, nowMs),
    runMarketInProcess('hard', 1, small, nowMs),
    runMarketInProcess('margin', 1001, small, nowMs),
    runMarketInProcess('hard', 1001, small, nowMs),
  ];
  const reports = qualityReports(results, 1);

  it('reports the tuning and the held-out seeds apart, tuning first', () => {
    expect(reports.map((report) => [report.set, report.seeds])).toEqual([
      ['tuning', { first: 1, last: 1 }],
      ['held-out', { first: 1001, last: 1001 }],
    ]);
    for (const report of reports)
      expect(report.families.map((row) => [row.family, row.markets])).toEqual([
        ['margin', 1],
        ['hard', 1],
      ]);
  });

  it('keeps the steady families’ mean apart from the hard families’', () => {
    const [tuning] = reports;
    expect(tuning?.means.map((row) => row.family)).toEqual(['mean', 'hard mean']);
    expect(tuning?.means[0]?.engine).toBe(tuning?.families[0]?.engine);
    expect(tuning?.means[1]?.engine).toBe(tuning?.families[1]?.engine);
  });

  it('gives every baseline a share and high-less-low where both labels priced lines', () => {
    for (const row of reports.flatMap((report) => report.families)) {
      for (const value of [row.cellLogistic, row.cellNow, row.cellMidYear]) {
        expect(value).toBeGreaterThan(0);
        expect(value).toBeLessThanOrEqual(1 + 1e-9);
      }
      const { high, low } = row.byConfidence;
      if (high.share !== undefined && low.share !== undefined) expect(row.highOverLow).toBeCloseTo(high.share - low.share, 12);
      else expect(row.highOverLow).toBeUndefined();
    }
  });

  it('says in print that only the held-out figure counts', () => {
    const printed = printQualityReports(reports);
    expect(printed).toMatch(/^TUNING seeds .*does not count\): seeds 1–1$/m);
    expect(printed).toMatch(/^HELD-OUT seeds \(the figure that counts: never tune on it\): seeds 1001–1001$/m);
    expect(printed.indexOf('TUNING')).toBeLessThan(printed.indexOf('HELD-OUT'));
    expect(printed).toMatch(/cell\.fit +cell\.now +cell\.mid/);
    expect(printed).toMatch(/high−low/);
  });
});
