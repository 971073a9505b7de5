// Unit tests of the win model: when it is fitted, what the fit finds, and the margin it says maximises expected profit.
import { describe, expect, it } from 'vitest';
import type { WinModel } from './model.ts';
import { defaultPricingSettings } from './settings.ts';
import { fitWinModel, profitMaximisingMargin, type WinSample, winProbability } from './win-model.ts';

const settings = { ...defaultPricingSettings, winModelMinQuotes: 10 };

/** Quotes whose true chance of winning is 1 / (1 + e^−(a + b·m)), with outcomes spread deterministically at that rate. */
function simulated(a: number, b: number, count: number): WinSample[] {
  const samples: WinSample[] = [];
  for (let i = 0; i < count; i++) {
    const margin = 0.05 + (0.5 * i) / count;
    const p = 1 / (1 + Math.exp(-(a + b * margin)));
    // A low-discrepancy draw (golden ratio) stands in for randomness, so the test is deterministic.
    const u = (i * 0.6180339887498949) % 1;
    samples.push({ quoteId: `Q-${i}`, margin, won: u < p, weight: 1 });
  }
  return samples;
}

describe('fitting the win model', () => {
  it('needs the minimum number of closed quotes', () => {
    const samples = simulated(3, -10, 9);
    expect(fitWinModel(samples, settings)).toBeUndefined();
    expect(fitWinModel(simulated(3, -10, 10), settings)).toBeDefined();
  });

  it('counts closed quotes, not their lines', () => {
    // Twenty lines, but of five quotes: under the threshold of ten.
    const lines = simulated(3, -10, 20).map((sample, i) => ({ ...sample, quoteId: `Q-${i % 5}` }));
    expect(fitWinModel(lines, settings)).toBeUndefined();
    const tenQuotes = simulated(3, -10, 20).map((sample, i) => ({ ...sample, quoteId: `Q-${i % 10}` }));
    expect(fitWinModel(tenQuotes, settings)?.closedQuotes).toBe(10);
  });

  it('needs both outcomes', () => {
    const allWon = Array.from({ length: 20 }, (_, i) => ({ quoteId: `Q-${i}`, margin: 0.1 + i / 100, won: true, weight: 1 }));
    const allLost = allWon.map((sample) => ({ ...sample, won: false }));
    expect(fitWinModel(allWon, settings)).toBeUndefined();
    expect(fitWinModel(allLost, settings)).toBeUndefined();
  });

  it('finds a negative slope when higher margins lose more often', () => {
    const model = fitWinModel(simulated(3, -10, 2000), settings);
    expect(model?.slope).toBeLessThan(-7);
    expect(model?.slope).toBeGreaterThan(-13);
    expect(model?.intercept).toBeGreaterThan(2);
    expect(model?.intercept).toBeLessThan(4);
    expect(model?.closedQuotes).toBe(2000);
  });

  it('stays finite on perfectly separated quotes', () => {
    const samples = Array.from({ length: 40 }, (_, i) => ({ quoteId: `Q-${i}`, margin: 0.1 + i / 100, won: i < 20, weight: 1 }));
    const model = fitWinModel(samples, settings);
    expect(Number.isFinite(model?.slope)).toBe(true);
    expect(Number.isFinite(model?.intercept)).toBe(true);
    expect(model?.slope).toBeLessThan(0);
    if (model) {
      expect(winProbability(model, 0.1)).toBeGreaterThan(0.9);
      expect(winProbability(model, 0.49)).toBeLessThan(0.1);
    }
  });

  it('stays finite when every quote has the same margin', () => {
    const samples = Array.from({ length: 20 }, (_, i) => ({ quoteId: `Q-${i}`, margin: 0.3, won: i % 4 === 0, weight: 1 }));
    const model = fitWinModel(samples, settings);
    expect(model?.slope).toBeCloseTo(0, 6);
    if (model) expect(winProbability(model, 0.3)).toBeCloseTo(0.25, 6);
  });

  it('reports the effective sample size of the weights', () => {
    const samples = simulated(2, -8, 20).map((sample, i) => ({ ...sample, weight: i < 10 ? 1 : 0.5 }));
    expect(fitWinModel(samples, settings)?.nEff).toBeCloseTo((15 * 15) / 12.5, 12);
  });
});

describe('the profit-maximising margin', () => {
  const model: WinModel = { intercept: 3, slope: -10, closedQuotes: 100, nEff: 100 };

  it('reads the chance of winning off the logistic curve', () => {
    expect(winProbability(model, 0.3)).toBeCloseTo(0.5, 12);
    expect(winProbability(model, 0)).toBeCloseTo(1 / (1 + Math.exp(-3)), 12);
  });

  it('finds the interior maximum of m / (1 − m) · P(win | m)', () => {
    const best = profitMaximisingMargin(model, 0, 0.9);
    let bruteBest = 0;
    let bruteValue = -Infinity;
    for (let m = 0; m <= 0.9; m += 1e-5) {
      const value = (m / (1 - m)) * winProbability(model, m);
      if (value > bruteValue) {
        bruteValue = value;
        bruteBest = m;
      }
    }
    expect(best).toBeCloseTo(bruteBest, 3);
  });

  it('stays within the bounds it is given', () => {
    expect(profitMaximisingMargin(model, 0.4, 0.6)).toBeCloseTo(0.4, 12);
    expect(profitMaximisingMargin({ ...model, slope: 5 }, 0.1, 0.5)).toBeCloseTo(0.5, 12);
  });

  it('returns the lower bound when the bounds are empty', () => {
    expect(profitMaximisingMargin(model, 0.3, 0.3)).toBe(0.3);
    expect(profitMaximisingMargin(model, 0.5, 0.2)).toBe(0.5);
  });
});
