import { describe, expect, it } from 'vitest';
import { seededRandom } from '#platform/seeded-random.ts';
import { defaultPricingSettings } from './settings.ts';
import { poolAcrossCategories, poolCategorySlopes } from './category-pooling.ts';
import { fitPooledWinModel } from './win-pool.ts';
import { featureValue, marginAt, type PooledWinSample, pooledWinProbability } from './win-pool-model.ts';

const settings = { ...defaultPricingSettings, winModelMinQuotes: 10 };
const sigmoid = (z: number) => 1 / (1 + Math.exp(-z));

/** Quotes of 20 SKUs whose list markups differ, won by a logistic curve in the margin or in the price over list. */
function market(
  truth: 'margin' | 'list',
  count: number,
  options: { seed?: number; customerEffects?: Record<string, number> } = {},
): PooledWinSample[] {
  const random = seededRandom(options.seed ?? 3);
  return Array.from({ length: count }, (_, i) => {
    const listMarkup = 1.2 + (0.6 * ((i * 7) % 20)) / 20;
    const relative = 0.75 + 0.4 * random();
    const margin = 1 - 1 / (listMarkup * relative);
    const customer = `C-${i % 12}`;
    const logit = (truth === 'margin' ? 3 - 10 * margin : 0.5 + 8 * (1 - relative)) + (options.customerEffects?.[customer] ?? 0);
    return {
      quoteId: `Q-${i}`,
      segment: i % 3 === 0 ? 'smb' : 'enterprise',
      productSku: `SKU-${i % 20}`,
      customerExternalId: customer,
      margin,
      listMarkup,
      relativeQuantity: 1,
      won: random() < sigmoid(logit),
      weight: 1,
      ageYears: 0,
    };
  });
}

describe('the pooled win model', () => {
  it('is not fitted below the threshold of closed quotes, nor with one outcome only', () => {
    expect(fitPooledWinModel(market('margin', 9), settings)).toBeUndefined();
    const allWon = market('margin', 40).map((sample) => ({ ...sample, won: true }));
    expect(fitPooledWinModel(allWon, settings)).toBeUndefined();
  });

  it('fits a category below the threshold only when the workspace sets a thin threshold under it', () => {
    const thin = market('margin', 30);
    expect(fitPooledWinModel(thin, defaultPricingSettings)).toBeUndefined();
    expect(fitPooledWinModel(thin, { ...defaultPricingSettings, thinWinModelMinQuotes: 20 })).toBeDefined();
  });

  it.each(['margin', 'list'] as const)('predicts the chance of winning of buyers who answer to the %s', (truth) => {
    const samples = market(truth, 3000);
    const fit = fitPooledWinModel(samples, settings);
    if (!fit) throw new Error('no fit');
    const truthOf = (sample: PooledWinSample) => {
      const relative = 1 / ((1 - sample.margin) * (sample.listMarkup ?? 1));
      return sigmoid(truth === 'margin' ? 3 - 10 * sample.margin : 0.5 + 8 * (1 - relative));
    };
    const error = samples.reduce((sum, sample) => sum + Math.abs(pooledWinProbability(fit, sample) - truthOf(sample)), 0) / samples.length;
    expect(error).toBeLessThan(0.05);
  });

  it('gives a customer who wins more often a positive offset, and predicts more wins for it', () => {
    const fit = fitPooledWinModel(market('margin', 3000, { customerEffects: { 'C-1': 1.5, 'C-2': -1.5 } }), settings);
    const offsets = fit?.customerOffsets;
    expect(offsets?.get('C-1')).toBeGreaterThan(0.5);
    expect(offsets?.get('C-2')).toBeLessThan(-0.5);
    if (!fit) throw new Error('no fit');
    const quote = { segment: 'enterprise', productSku: 'SKU-1', margin: 0.25, listMarkup: 1.4, relativeQuantity: 1 };
    expect(pooledWinProbability(fit, { ...quote, customerExternalId: 'C-1' })).toBeGreaterThan(
      pooledWinProbability(fit, { ...quote, customerExternalId: 'C-2' }),
    );
  });

  it("gives a product that wins more often the same offset in every segment, however few of a segment's quotes it has", () => {
    const samples = market('margin', 3000).map((sample, i) => {
      if (sample.productSku !== 'SKU-4') return sample;
      // The product's buyers accept more: half of its lost quotes were in fact won.
      return { ...sample, won: sample.won || i % 40 === 4 };
    });
    const fit = fitPooledWinModel(samples, settings);
    const smb = fit?.skuOffsets.get('smb')?.get('SKU-4');
    const enterprise = fit?.skuOffsets.get('enterprise')?.get('SKU-4');
    expect(smb).toBeGreaterThan(0.3);
    expect(enterprise).toBeGreaterThan(0.3);
  });

  it('is the same fit whatever order the quotes come in', () => {
    const samples = market('list', 600);
    const forward = fitPooledWinModel(samples, settings);
    const backward = fitPooledWinModel([...samples].reverse(), settings);
    expect(backward?.feature).toBe(forward?.feature);
    expect(backward?.segments.get('smb')?.slope).toBeCloseTo(forward?.segments.get('smb')?.slope ?? Number.NaN, 9);
    expect(backward?.customerOffsets.get('C-3')).toBeCloseTo(forward?.customerOffsets.get('C-3') ?? Number.NaN, 9);
  });

  it('reads the price over list back into a margin exactly', () => {
    for (const margin of [-0.05, 0.1, 0.35, 0.6]) {
      expect(marginAt('list', featureValue('list', margin, 1.4), 1.4)).toBeCloseTo(margin, 12);
      expect(marginAt('margin', featureValue('margin', margin, 1.4), 1.4)).toBe(margin);
    }
  });
});

describe('pooling slopes across categories', () => {
  it('moves a noisy slope toward the others much more than a precise one', () => {
    const pooled = poolCategorySlopes([
      { feature: 'list', slope: -8, slopeSe: 0.5 },
      { feature: 'list', slope: -9, slopeSe: 0.5 },
      { feature: 'list', slope: -7, slopeSe: 0.5 },
      { feature: 'list', slope: -2, slopeSe: 4 },
    ]);
    expect(pooled[3]?.shift).toBeLessThan(-3);
    expect(Math.abs(pooled[0]?.shift ?? 1)).toBeLessThan(0.3);
    expect(pooled[3]?.slopeSe).toBeLessThan(4);
  });

  it('pools toward the plain average of the slopes, not toward the most precise', () => {
    // Steep curves leave fewer quotes near even odds, so their slopes are the noisier: weighting by precision would
    // drag every category toward the flattest.
    const slopes = [
      { feature: 'list' as const, slope: -4, slopeSe: 1 },
      { feature: 'list' as const, slope: -8, slopeSe: 3 },
      { feature: 'list' as const, slope: -12, slopeSe: 5 },
    ];
    const pooled = poolCategorySlopes(slopes);
    expect(-4 + (pooled[0]?.shift ?? 0)).toBeLessThan(-4);
    const mean = slopes.reduce((sum, slope, i) => sum + slope.slope + (pooled[i]?.shift ?? 0), 0) / 3;
    expect(mean).toBeLessThan(-6);
  });

  it('leaves slopes alone with fewer than three categories of a feature', () => {
    const pooled = poolCategorySlopes([
      { feature: 'list', slope: -8, slopeSe: 0.5 },
      { feature: 'list', slope: -2, slopeSe: 4 },
      { feature: 'margin', slope: -12, slopeSe: 1 },
    ]);
    expect(pooled.map((slope) => slope.shift)).toEqual([0, 0, 0]);
  });

  it('pools any coefficient the same way, never spreading categories less than the floor', () => {
    const estimates = [
      { value: -0.2, se: 0.05 },
      { value: -0.1, se: 0.05 },
      { value: 0.3, se: 0.4 },
      { value: -0.15, se: Number.POSITIVE_INFINITY },
    ];
    const pooled = poolAcrossCategories(estimates, 0.03);
    // The noisy positive estimate comes most of the way to the others; the one without an error stays as it was.
    expect(0.3 + (pooled[2]?.shift ?? 0)).toBeLessThan(0.05);
    expect(pooled[3]?.shift).toBe(0);
    expect(Math.abs(pooled[0]?.shift ?? 1)).toBeLessThan(0.1);
  });
});
