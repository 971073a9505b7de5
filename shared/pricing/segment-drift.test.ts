import { describe, expect, it } from 'vitest';
import { seededRandom } from '#platform/seeded-random.ts';
import { computeCategoryBands, poolWinModels } from './bands.ts';
import type { HistoryLine, WinModel } from './model.ts';
import { defaultPricingSettings } from './settings.ts';
import { fitPooledWinModel } from './win-pool.ts';
import { type PooledWinSample, pooledWinProbability } from './win-pool-model.ts';

const settings = { ...defaultPricingSettings, winModelMinQuotes: 10 };
const sigmoid = (z: number) => 1 / (1 + Math.exp(-z));
const DAY_MS = 86_400_000;
const NOW = Date.UTC(2026, 10, 1);

/**
 * A year of quotes in three segments whose buyers answer to the margin, the same curve in each a year ago; since
 * then the enterprise buyers grew less tolerant by `fall` logits, steadily, while the others stood still.
 */
function driftingMarket(fall: number, count = 4000): PooledWinSample[] {
  const random = seededRandom(11);
  const segments = ['enterprise', 'mid-market', 'smb'];
  return Array.from({ length: count }, (_, i) => {
    const segment = segments[i % 3] ?? 'smb';
    const ageYears = 1 - i / count;
    const margin = 0.15 + 0.3 * random();
    const level = 3 - 10 * margin - (segment === 'enterprise' ? fall * (1 - ageYears) : 0);
    return {
      quoteId: `Q-${i}`,
      segment,
      productSku: `SKU-${i % 10}`,
      customerExternalId: `C-${i % 30}`,
      margin,
      listMarkup: 1.5,
      relativeQuantity: 1,
      won: random() < sigmoid(level),
      weight: 0.5 ** ((ageYears * 365.25) / 360),
      ageYears,
    };
  });
}

describe("a segment's drift", () => {
  it("prices a segment whose buyers grew less tolerant for today's buyers, while the others keep their curve", () => {
    const fit = fitPooledWinModel(driftingMarket(1.5), settings);
    if (!fit) throw new Error('no fit');
    const quote = { productSku: 'SKU-1', customerExternalId: undefined, margin: 0.3, listMarkup: 1.5, relativeQuantity: 1 };
    const today = (segment: string) => pooledWinProbability(fit, { ...quote, segment });
    // Today's truth at 30% margin: 0.5 for the steady segments, σ(−1.5) = 0.18 for enterprise.
    expect(today('enterprise')).toBeLessThan(0.27);
    expect(today('mid-market')).toBeGreaterThan(0.42);
    expect(today('smb')).toBeGreaterThan(0.42);
  });

  it('says less surely where a segment stands today than where the whole category does', () => {
    const fit = fitPooledWinModel(driftingMarket(0), settings);
    const segment = fit?.segments.get('enterprise')?.levelSe ?? Number.NaN;
    const category = fit?.category.levelSe ?? Number.NaN;
    expect(segment).toBeGreaterThan(category);
    expect(segment).toBeLessThan(1);
  });

  it('finds no drift worth a price where the buyers stood still', () => {
    const fit = fitPooledWinModel(driftingMarket(0), settings);
    if (!fit) throw new Error('no fit');
    const quote = { productSku: 'SKU-1', customerExternalId: undefined, margin: 0.3, listMarkup: 1.5, relativeQuantity: 1 };
    for (const segment of ['enterprise', 'mid-market', 'smb']) {
      expect(Math.abs(pooledWinProbability(fit, { ...quote, segment }) - 0.5)).toBeLessThan(0.06);
    }
  });
});

/**
 * Closed quotes of one category in which the enterprise buyers judge the price against list and the smb buyers the
 * margin; products' list markups differ, which is all that tells the two apart.
 */
function anchoredHistory(category: number, count = 600): HistoryLine[] {
  const random = seededRandom(100 + category);
  return Array.from({ length: count }, (_, i) => {
    const segment = i % 2 === 0 ? 'enterprise' : 'smb';
    const sku = `C${category}-SKU-${i % 12}`;
    const listMarkup = 1.15 + 0.05 * (i % 12);
    const relative = 0.75 + 0.35 * random();
    const margin = 1 - 1 / (listMarkup * relative);
    const logit = segment === 'enterprise' ? 7 * (0.95 - relative) : 9 * (0.3 - margin);
    return {
      kind: 'quote',
      documentId: `Q-${category}-${i}`,
      productSku: sku,
      customerExternalId: `C-${i % 40}`,
      segment,
      quantity: 1,
      costCents: 1000,
      priceCents: Math.round(1000 / (1 - margin)),
      atMs: NOW - (i % 300) * DAY_MS,
      outcome: random() < sigmoid(logit) ? 'won' : 'lost',
    };
  });
}

function listMarkupsOf(category: number): Map<string, number> {
  return new Map(Array.from({ length: 12 }, (_, k) => [`C${category}-SKU-${k}`, 1.15 + 0.05 * k]));
}

describe("a segment's feature", () => {
  const categories = new Map(
    [0, 1, 2, 3].map((category) => [
      `cat-${category}`,
      computeCategoryBands(anchoredHistory(category, 400), settings, NOW, listMarkupsOf(category)).segments,
    ]),
  );
  const modelOf = (segments: typeof categories, category: string, segment: string): WinModel | undefined =>
    segments.get(category)?.get(segment)?.winModel;

  it("keeps each segment's evidence between the two features and its curve in the other one", () => {
    const model = modelOf(categories, 'cat-0', 'enterprise');
    expect(model?.listGain).toBeDefined();
    expect(model?.other?.feature).toBe(model?.feature === 'list' ? 'margin' : 'list');
  });

  it('prices each segment, in every category, in the feature its quotes in all of them favour', () => {
    const pooled = poolWinModels(categories);
    const after = (category: string) => pooled.get(category) ?? categories.get(category);
    for (const category of categories.keys()) {
      expect(after(category)?.get('enterprise')?.winModel?.feature).toBe('list');
      expect(after(category)?.get('smb')?.winModel?.feature).toBe('margin');
    }
    const gains = (segment: string) => [...categories.keys()].reduce((sum, c) => sum + (modelOf(categories, c, segment)?.listGain ?? 0), 0);
    expect(gains('enterprise')).toBeGreaterThan(0);
    expect(gains('smb')).toBeLessThan(0);
  });

  it('swaps nothing back and forth: pooling what it pooled changes no feature', () => {
    const pooled = poolWinModels(categories);
    const once = new Map([...categories].map(([category, segments]) => [category, pooled.get(category) ?? segments]));
    const twice = poolWinModels(once);
    for (const [category, segments] of twice) {
      for (const [segment, { winModel }] of segments) expect(winModel?.feature).toBe(modelOf(once, category, segment)?.feature);
    }
  });
});

describe("a thin category's model", () => {
  const band = computeCategoryBands(anchoredHistory(9, 60), settings, NOW, listMarkupsOf(9)).category;
  const thin = (closedQuotes: number): WinModel => ({
    intercept: 2,
    slope: -8,
    closedQuotes,
    nEff: closedQuotes,
    feature: 'margin',
    quantitySlope: 0,
    supportLow: 0.1,
    supportHigh: 0.4,
    slopeSe: 2,
    ownSlopeSe: 2,
    categorySlope: -8,
    centroid: 0.25,
    slopeShift: 0,
    quantitySlopeSe: 0.1,
    quantityShift: 0,
  });
  const workspace = (quotes: readonly number[]) =>
    new Map(
      quotes.map((closedQuotes, k) => {
        if (!band) throw new Error('no band');
        return [`cat-${k}`, new Map([['smb', { band, winModel: thin(closedQuotes) }]])];
      }),
    );

  // poolWinModels returns the categories it changed; the others stand as stored.
  const after = (quotes: readonly number[], category: string) => {
    const stored = workspace(quotes);
    const model = (poolWinModels(stored, 50).get(category) ?? stored.get(category))?.get('smb')?.winModel;
    return model?.unpooled ? undefined : model;
  };

  it('stands where its slope is pooled with two other categories and the workspace holds the threshold', () => {
    for (const k of [0, 1, 2]) expect(after([30, 30, 30], `cat-${k}`)).toBeDefined();
  });

  it('is not priced with where no other category shares its slope, or the workspace as a whole is below the threshold', () => {
    expect(after([30, 200], 'cat-0')).toBeUndefined();
    expect(after([30, 200], 'cat-1')).toBeDefined();
    for (const k of [0, 1, 2]) expect(after([12, 12, 12], `cat-${k}`)).toBeUndefined();
  });
});

describe('a thin model set aside', () => {
  it('stands again once later categories carry its slope, whichever categories arrived first', () => {
    const band = computeCategoryBands(anchoredHistory(9, 60), settings, NOW, listMarkupsOf(9)).category;
    if (!band) throw new Error('no band');
    const model: WinModel = {
      intercept: 2,
      slope: -8,
      closedQuotes: 30,
      nEff: 30,
      feature: 'margin',
      categorySlope: -8,
      ownSlopeSe: 2,
      slopeSe: 2,
    };
    const alone = new Map([['cat-0', new Map([['smb', { band, winModel: model }]])]]);
    const first = poolWinModels(alone, 50).get('cat-0')?.get('smb')?.winModel;
    expect(first?.unpooled).toBe(true);
    const later = new Map([
      ['cat-0', new Map([['smb', { band, winModel: first }]])],
      ['cat-1', new Map([['smb', { band, winModel: model }]])],
      ['cat-2', new Map([['smb', { band, winModel: model }]])],
    ]);
    const again = poolWinModels(later, 50).get('cat-0')?.get('smb')?.winModel;
    expect(again?.unpooled).toBeUndefined();
    expect(again?.intercept).toBe(2);
  });
});

describe('a swapped segment', () => {
  const band = computeCategoryBands(anchoredHistory(9, 60), settings, NOW, listMarkupsOf(9)).category;
  // A category's own fit in margin, with a bend, and its segment's straight curve in price over list.
  const own: WinModel = {
    intercept: 2.5,
    slope: -9,
    bend: -4,
    knot: 0.32,
    closedQuotes: 400,
    nEff: 380,
    feature: 'margin',
    quantitySlope: -0.1,
    supportLow: 0.12,
    supportHigh: 0.41,
    slopeSe: 1.1,
    ownSlopeSe: 1.1,
    categorySlope: -8.5,
    centroid: 0.26,
    slopeShift: 0,
    quantitySlopeSe: 0.05,
    quantityShift: 0,
    levelSe: 0.2,
    listGain: 0,
    other: { feature: 'list', intercept: 0.4, slope: -6, centroid: -0.05, supportLow: -0.25, supportHigh: 0.1, slopeSe: 1.4, levelSe: 0.3 },
  };
  const workspaceOf = (gains: readonly number[], model: WinModel) =>
    new Map(
      gains.map((listGain, k) => {
        if (!band) throw new Error('no band');
        return [`cat-${k}`, new Map([['enterprise', { band, winModel: { ...model, listGain } }]])];
      }),
    );

  it('is priced in the feature the workspace chose, straight, and keeps its own curve whole', () => {
    const pooled = poolWinModels(workspaceOf([3, 3], own), 50);
    const model = pooled.get('cat-0')?.get('enterprise')?.winModel;
    expect(model).toMatchObject({ feature: 'list', intercept: 0.4, bend: 0, swapped: true });
    expect(model?.other).toMatchObject({ feature: 'margin', intercept: 2.5, bend: -4, knot: 0.32, categorySlope: -8.5 });
  });

  it("returns to its category's own fit, bend included, once the workspace's evidence no longer favours the swap", () => {
    const swapped = poolWinModels(workspaceOf([3, 3], own), 50)
      .get('cat-0')
      ?.get('enterprise')?.winModel;
    if (!swapped) throw new Error('not swapped');
    // Later batches leave the evidence undecided: the category must price as if it had never been swapped.
    const undecided = workspaceOf([0.2, 0.2], swapped);
    const restored = poolWinModels(undecided, 50).get('cat-0')?.get('enterprise')?.winModel;
    const fresh = poolWinModels(workspaceOf([0.2, 0.2], own), 50)
      .get('cat-0')
      ?.get('enterprise')?.winModel ?? { ...own, listGain: 0.2 };
    expect(restored).toEqual(fresh);
    expect(restored?.swapped).toBeUndefined();
  });
});
