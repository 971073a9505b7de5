// Unit tests of the scoring maths, on cases small enough to check by hand.
import { describe, expect, it } from 'vitest';
import {
  areaUnderCurve,
  bootstrap,
  brierScore,
  calibrationByDecile,
  logLoss,
  percentileInterval,
  type Prediction,
  quantile,
  resampleIndices,
} from './scoring.ts';
import { seededRandom } from '#platform/seeded-random.ts';

const p = (probability: number, won: boolean): Prediction => ({ probability, won });

describe('log-loss and the Brier score', () => {
  it('average the cost of each outcome under its predicted probability', () => {
    // −(ln 0.8 + ln 0.6) / 2 = (0.2231436 + 0.5108256) / 2
    expect(logLoss([p(0.8, true), p(0.4, false)])).toBeCloseTo(0.3669846, 6);
    // (0.2² + 0.4²) / 2
    expect(brierScore([p(0.8, true), p(0.4, false)])).toBeCloseTo(0.1, 12);
  });

  it('score a coin toss at ln 2 and a quarter', () => {
    expect(logLoss([p(0.5, true), p(0.5, false)])).toBeCloseTo(Math.LN2, 12);
    expect(brierScore([p(0.5, true), p(0.5, false)])).toBeCloseTo(0.25, 12);
  });

  it('keep a certain prediction that was wrong finite', () => {
    const loss = logLoss([p(0, true)]) as number;
    expect(Number.isFinite(loss)).toBe(true);
    expect(loss).toBeCloseTo(-Math.log(1e-6), 6);
  });

  it('are undefined for no predictions', () => {
    expect(logLoss([])).toBeUndefined();
    expect(brierScore([])).toBeUndefined();
  });
});

describe('the area under the ROC curve', () => {
  it('is the share of won-lost pairs the model ordered right, ties counting half', () => {
    // Won 0.9, 0.6, 0.4 against lost 0.7, 0.4, 0.1: 3 + 2 + (0 + ½ + 1) = 6.5 of 9 pairs.
    const predictions = [p(0.9, true), p(0.6, true), p(0.4, true), p(0.7, false), p(0.4, false), p(0.1, false)];
    expect(areaUnderCurve(predictions)).toBeCloseTo(6.5 / 9, 12);
  });

  it('is 1 for a perfect order, 0 for a reversed one and ½ when every prediction is the same', () => {
    expect(areaUnderCurve([p(0.9, true), p(0.2, false), p(0.8, true)])).toBe(1);
    expect(areaUnderCurve([p(0.1, true), p(0.7, false)])).toBe(0);
    expect(areaUnderCurve([p(0.3, true), p(0.3, false), p(0.3, false)])).toBe(0.5);
  });

  it('is undefined without both outcomes', () => {
    expect(areaUnderCurve([p(0.3, true), p(0.6, true)])).toBeUndefined();
    expect(areaUnderCurve([])).toBeUndefined();
  });
});

describe('calibration by decile', () => {
  it('cuts twenty sorted predictions into ten groups of two, with their mean prediction and win rate', () => {
    const predictions = Array.from({ length: 20 }, (_, i) => p((19 - i) * 0.05, i % 2 === 0));
    const bins = calibrationByDecile(predictions);
    expect(bins).toHaveLength(10);
    expect(bins.map((bin) => bin.lines)).toEqual(Array(10).fill(2));
    expect(bins[0]?.meanPredicted).toBeCloseTo(0.025, 12);
    expect(bins[9]?.meanPredicted).toBeCloseTo(0.925, 12);
    expect(bins.every((bin) => bin.observedWinRate === 0.5)).toBe(true);
  });

  it('keeps group sizes within one of each other', () => {
    const bins = calibrationByDecile(Array.from({ length: 25 }, (_, i) => p(i / 25, i < 10)));
    expect(bins.map((bin) => bin.lines)).toEqual([3, 2, 3, 2, 3, 2, 3, 2, 3, 2]);
    // The ten lowest predictions are the won ones: they fill the first four groups.
    expect(bins[0]?.observedWinRate).toBe(1);
    expect(bins[9]?.observedWinRate).toBe(0);
  });

  it('keeps equal predictions in one group, since nothing orders them apart', () => {
    const bins = calibrationByDecile([p(0.1, false), ...Array.from({ length: 8 }, (_, i) => p(0.55, i < 6)), p(0.9, true)]);
    expect(bins).toEqual([
      { decile: 1, lines: 1, meanPredicted: 0.1, observedWinRate: 0 },
      { decile: 2, lines: 8, meanPredicted: expect.closeTo(0.55, 12), observedWinRate: 0.75 },
      { decile: 10, lines: 1, meanPredicted: 0.9, observedWinRate: 1 },
    ]);
  });

  it('leaves out the groups that fewer than ten lines leave empty', () => {
    expect(calibrationByDecile([p(0.2, false), p(0.5, true), p(0.9, true)]).map((bin) => bin.decile)).toEqual([1, 4, 7]);
    expect(calibrationByDecile([])).toEqual([]);
  });
});

describe('quantiles and percentile intervals', () => {
  it('interpolate between order statistics', () => {
    expect(quantile([4, 1, 3, 2], 0.5)).toBe(2.5);
    expect(quantile([1, 2, 3, 4], 0.25)).toBe(1.75);
    expect(quantile([7], 0.9)).toBe(7);
    expect(quantile([], 0.5)).toBeUndefined();
  });

  it('take the 2.5th and 97.5th percentiles of the finite replicates for a 95% interval', () => {
    const replicates = [...Array.from({ length: 101 }, (_, i) => i), Number.NaN];
    const interval = percentileInterval(replicates, 0.95);
    expect(interval?.low).toBeCloseTo(2.5, 9);
    expect(interval?.high).toBeCloseTo(97.5, 9);
    expect(interval?.replicates).toBe(101);
    expect(percentileInterval([Number.NaN], 0.95)).toBeUndefined();
  });
});

describe('the bootstrap', () => {
  it('draws the same resamples from the same seed, and other ones from another', () => {
    const draw = (seed: number) => bootstrap(5, seed, (resample) => resample(10));
    expect(draw(1)).toEqual(draw(1));
    expect(draw(1)).not.toEqual(draw(2));
    expect(
      draw(1)
        .flat()
        .every((index) => Number.isInteger(index) && index >= 0 && index < 10),
    ).toBe(true);
  });

  it('draws every cluster about equally often', () => {
    const counts = Array(4).fill(0);
    for (const index of resampleIndices(40_000, seededRandom(3)).map((draw) => draw % 4)) counts[index] += 1;
    for (const count of counts) expect(Math.abs(count - 10_000)).toBeLessThan(400);
  });

  it('gives a mean of two clusters, 0 and 1, its three values at the rates ¼, ½ and ¼', () => {
    const values = [0, 1];
    const means = bootstrap(8000, 11, (resample) => {
      const [a, b] = resample(2) as [number, number];
      return ((values[a] as number) + (values[b] as number)) / 2;
    });
    const rate = (value: number) => means.filter((mean) => mean === value).length / means.length;
    expect(rate(0)).toBeCloseTo(0.25, 1);
    expect(rate(0.5)).toBeCloseTo(0.5, 1);
    expect(rate(1)).toBeCloseTo(0.25, 1);
    expect(percentileInterval(means, 0.95)).toMatchObject({ low: 0, high: 1 });
  });

  it('gives clusters that are all alike an interval of no width', () => {
    const means = bootstrap(
      200,
      5,
      (resample) =>
        resample(7)
          .map(() => 3)
          .reduce((sum, value) => sum + value, 0) / 7,
    );
    expect(percentileInterval(means, 0.95)).toMatchObject({ low: 3, high: 3 });
  });
});
