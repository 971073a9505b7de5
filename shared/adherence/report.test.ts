import { describe, expect, it } from 'vitest';
import { buildReport, reportCsv, reportPeriod, reportText, THIN_EVIDENCE_LINES } from './report.ts';

const NOW = new Date('2026-11-20T12:00:00Z');

describe('the adherence report', () => {
  it('sums the months of a group, and derives shares, win rates, margin and leakage', () => {
    const report = buildReport({
      workspaceId: 'ws_1',
      fromMonth: '2026-10',
      toMonth: '2026-11',
      bandPct: 2,
      overall: [
        { value: '', within_n: 30, within_d: 20, within_w: 10, within_r: 10_000, within_c: 7_000, unguided_n: 10 },
        { value: '', below_n: 10, below_d: 10, below_w: 8, below_r: 5_000, below_c: 4_000, below_l: 600, unattributed_n: 10 },
      ],
      confidence: [{ value: 'high', within_n: 5 }],
    });
    expect(report.overall).toMatchObject({
      lines: 60,
      guided_lines: 40,
      unattributed_lines: 10,
      guided_share: 0.6667,
      within_share: 0.75,
      above_share: 0,
      below_share: 0.25,
      decided: 30,
      won: 18,
      win_rate: 0.6,
      margin_pct: 26.67,
      leakage_cents: 600,
      thin_evidence: false,
    });
    expect(report.overall.bands.below).toMatchObject({ win_rate: 0.8, margin_pct: 20 });
    expect(report.by_confidence).toEqual([expect.objectContaining({ value: 'high', lines: 5, thin_evidence: true })]);
    expect(report.by).toBeNull();
  });

  it(`flags a group of fewer than ${THIN_EVIDENCE_LINES} lines as thin evidence and still shows it, and shows no rate without a base`, () => {
    const report = buildReport({
      workspaceId: 'ws_1',
      fromMonth: '2026-11',
      toMonth: '2026-11',
      bandPct: 2,
      overall: [],
      confidence: [],
      by: 'reason',
      groups: [{ value: 'rush', unguided_n: 1 }],
    });
    expect(report.groups).toEqual([
      expect.objectContaining({ value: 'rush', lines: 1, thin_evidence: true, win_rate: null, within_share: null }),
    ]);
    expect(report.overall).toMatchObject({ lines: 0, guided_share: null });
    expect(reportText(report)).toMatch(/^reason: rush\s+1\s+0\.0%\s+—/m);
    expect(reportCsv(report).split('\n')).toHaveLength(3);
  });

  it('covers whole UTC months from days or months, the last twelve by default, and refuses what does not read', () => {
    expect(reportPeriod(undefined, undefined, NOW)).toEqual({ fromMonth: '2025-12', toMonth: '2026-11' });
    expect(reportPeriod('2026-02-14', '2026-03', NOW)).toEqual({ fromMonth: '2026-02', toMonth: '2026-03' });
    expect(reportPeriod(undefined, '2026-01-31', NOW)).toEqual({ fromMonth: '2025-02', toMonth: '2026-01' });
    expect(reportPeriod('2026-13', undefined, NOW)).toMatch(/from must be a UTC day/);
    expect(reportPeriod('2026-02-30', undefined, NOW)).toMatch(/from must be a UTC day/);
    expect(reportPeriod('2026-05', '2026-01', NOW)).toMatch(/after/);
    expect(reportPeriod('2020-01', '2026-01', NOW)).toMatch(/at most 36 months/);
  });
});
