import { describe, expect, it } from 'vitest';
import { calibrationOverTime, calibrationOverTimeRules, type DatedPrediction, recentCalibrationSentence } from './calibration-over-time.ts';

const at = (iso: string) => Date.parse(`${iso}T12:00:00Z`);

/** `quotes` one-line quotes on `day`, each predicted at `probability`, the first `won` of them won. */
function quotesOn(day: string, quotes: number, probability: number, won: number, prefix = day): DatedPrediction[] {
  return Array.from({ length: quotes }, (_, index) => ({
    quoteId: `${prefix}-${index}`,
    atMs: at(day),
    probability,
    won: index < won,
  }));
}

describe('calibration over time', () => {
  it('gives each month its quotes, lines, mean prediction, observed win rate and their gap', () => {
    const lines = [
      ...quotesOn('2026-07-10', 20, 0.5, 10),
      ...quotesOn('2026-08-03', 25, 0.6, 10),
      // A second line of one August quote: a line more, not a quote more.
      { quoteId: '2026-08-03-0', atMs: at('2026-08-03'), probability: 0.6, won: true },
    ];
    const { granularity, periods } = calibrationOverTime(lines);
    expect(granularity).toBe('month');
    expect(periods.map((period) => period.period)).toEqual(['2026-07', '2026-08']);
    expect(periods[0]).toMatchObject({ quotes: 20, lines: 20, meanPredicted: 0.5, observedWinRate: 0.5, gap: 0 });
    expect(periods[1]).toMatchObject({ quotes: 25, lines: 26 });
    expect(periods[1]?.observedWinRate).toBeCloseTo(11 / 26, 10);
    expect(periods[1]?.gap).toBeCloseTo(11 / 26 - 0.6, 10);
  });

  it('groups by quarter when the months hold too few quotes on average to read', () => {
    // 75 quotes over April to July: fewer than 20 a month.
    const lines = [...quotesOn('2026-04-10', 40, 0.5, 20), ...quotesOn('2026-05-10', 5, 0.5, 2), ...quotesOn('2026-07-10', 30, 0.5, 15)];
    const { granularity, periods } = calibrationOverTime(lines);
    expect(granularity).toBe('quarter');
    expect(periods.map((period) => [period.period, period.quotes])).toEqual([
      ['2026-Q2', 45],
      ['2026-Q3', 30],
    ]);
  });

  it('says the latest months won less often than expected when their gap is beyond the margin and the noise', () => {
    const lines = [
      // An old month the model got right does not hide the latest three.
      ...quotesOn('2026-04-10', 200, 0.5, 100),
      ...quotesOn('2026-06-10', 40, 0.5, 12),
      ...quotesOn('2026-07-10', 40, 0.5, 12),
      ...quotesOn('2026-08-10', 40, 0.5, 12),
    ];
    const { recent } = calibrationOverTime(lines);
    expect(recent).toMatchObject({ months: 3, from: '2026-05-10', quotes: 120, lines: 120, verdict: 'won_less' });
    expect(recent.gap).toBeCloseTo(-0.2, 10);
    expect(recentCalibrationSentence(recent)).toBe(
      "Buyers in the last 3 months (from 2026-05-10) won less often than the model expects (30% won against 50% predicted, over 120 quotes): prices may be too high for today's buyers.",
    );
  });

  it('says they won more often when buyers accept more than the model expects', () => {
    const { recent } = calibrationOverTime(quotesOn('2026-08-10', 100, 0.4, 60));
    expect(recent.verdict).toBe('won_more');
    expect(recentCalibrationSentence(recent)).toMatch(/won more often than the model expects \(60% won against 40% predicted/);
  });

  it('calls a gap within the margin, or within the noise of few quotes, as expected', () => {
    // 6 points off on 400 quotes is beyond the noise (2 × 2.5 points) but within the margin.
    expect(calibrationOverTime(quotesOn('2026-08-10', 400, 0.5, 176)).recent.verdict).toBe('as_expected');
    // 11 points off on 35 quotes is inside twice the standard error (about 17 points).
    const noisy = calibrationOverTime(quotesOn('2026-08-10', 35, 0.5, 14));
    expect(Math.abs(noisy.recent.gap ?? 0)).toBeGreaterThan(calibrationOverTimeRules.margin);
    expect(noisy.recent.verdict).toBe('as_expected');
    expect(recentCalibrationSentence(noisy.recent)).toMatch(/won about as often as the model expects/);
  });

  it('will not judge the latest months on fewer quotes than the rule asks', () => {
    const { recent } = calibrationOverTime(quotesOn('2026-08-10', calibrationOverTimeRules.minRecentQuotes - 1, 0.5, 0));
    expect(recent.verdict).toBe('too_few');
    expect(recentCalibrationSentence(recent)).toMatch(/^Too few quotes closed in the last 3 months/);
  });

  it('keeps a partial month at either end of the scored span as a month of its own', () => {
    const lines = [...quotesOn('2026-06-29', 3, 0.5, 1), ...quotesOn('2026-07-15', 60, 0.5, 30), ...quotesOn('2026-08-01', 2, 0.5, 1)];
    const { granularity, periods } = calibrationOverTime(lines);
    expect(granularity).toBe('month');
    expect(periods.map((period) => [period.period, period.quotes])).toEqual([
      ['2026-06', 3],
      ['2026-07', 60],
      ['2026-08', 2],
    ]);
  });

  it('has no periods and too few quotes for no scored line', () => {
    expect(calibrationOverTime([])).toMatchObject({ periods: [], recent: { quotes: 0, lines: 0, verdict: 'too_few' } });
  });
});
