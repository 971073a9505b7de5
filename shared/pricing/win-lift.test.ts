// Unit tests of the workspace's win lift: what a segment's win models say of its realised margins, and how a category too thin for a model borrows it.
import { describe, expect, it } from 'vitest';
import { bandAt } from '#test/support/bands.ts';
import { winCredibility } from './adjustments.ts';
import type { Band, LineBands, LineInputs, WinModel } from './model.ts';
import { priceLine } from './price-line.ts';
import { defaultPricingSettings as settings } from './settings.ts';
import { profitMaximisingMargin } from './win-model.ts';
import { segmentLift, segmentWinLifts } from './win-lift.ts';

const NOW = Date.UTC(2025, 0, 1);

function band(overrides: Partial<Band> = {}): Band {
  return bandAt(NOW, { target: 0.25, ...overrides });
}

/** A margin curve whose optimum lies above a 25% target: its buyers would take more margin than was realised. */
const marginModel: WinModel = {
  intercept: 3,
  slope: -9,
  closedQuotes: 400,
  nEff: 400,
  quantitySlope: -0.2,
  feature: 'margin',
  supportLow: 0.1,
  supportHigh: 0.45,
  slopeSe: 1,
  categorySlope: -9,
  centroid: 0.27,
  slopeShift: 0,
  ownSlopeSe: 1,
};

const inputs: LineInputs = {
  product: { sku: 'SKU-1', costCents: 6000, currentPriceCents: 10_000 },
  currency: 'USD',
  hasCustomer: true,
  quantity: 10,
  enforceMap: false,
  nowMs: NOW,
};

describe('a segment’s win lift', () => {
  it('is the move the win_model step would make from the band’s target: the credibility times the gap to the optimum', () => {
    const optimum = profitMaximisingMargin(marginModel, 0.05, 0.5);
    const lift = segmentLift(marginModel, band(), settings) ?? Number.NaN;
    expect(lift).toBeCloseTo(winCredibility(marginModel, settings) * (optimum - 0.25), 12);
    expect(lift).toBeGreaterThan(0.02);
  });

  it('is nothing from a thin category’s unpooled model, which is never priced with', () => {
    expect(segmentLift({ ...marginModel, unpooled: true }, band(), settings)).toBeUndefined();
  });

  it('is averaged over the workspace’s categories by each segment band’s n_eff, each segment on its own', () => {
    const high = segmentLift(marginModel, band({ target: 0.2 }), settings) ?? Number.NaN;
    const low = segmentLift(marginModel, band({ target: 0.3 }), settings) ?? Number.NaN;
    const lifts = segmentWinLifts(
      new Map([
        ['Fasteners', new Map([['smb', { band: band({ target: 0.2, nEff: 30 }), winModel: marginModel }]])],
        [
          'Safety',
          new Map([
            ['smb', { band: band({ target: 0.3, nEff: 10 }), winModel: marginModel }],
            ['enterprise', { band: band(), winModel: undefined }],
          ]),
        ],
      ]),
      settings,
    );
    expect(lifts.get('smb')).toBeCloseTo((30 * high + 10 * low) / 40, 12);
    expect(lifts.has('enterprise')).toBe(false);
  });
});

describe('a line whose category is too thin for a win model', () => {
  const thin: LineBands = { segmentSku: band(), segmentCategory: band(), category: band() };

  it('moves from its realised margins by its segment’s lift, under the win_model step at the workspace’s scope', () => {
    const without = priceLine(inputs, thin, settings);
    const priced = priceLine(inputs, { ...thin, workspaceWinLift: 0.04 }, settings);
    const margin = (price: number) => (price - 6000) / price;
    expect(margin(priced.priceCents) - margin(without.priceCents)).toBeCloseTo(0.04, 3);
    const step = priced.reason.find((entry) => entry.param === 'win_model');
    expect(step?.scope).toBe('workspace');
    expect(step?.marginDeltaBps).toBe(400);
  });

  it('stops at its base’s stretch, the margin its buyers paid at the 90th percentile', () => {
    const priced = priceLine(inputs, { ...thin, workspaceWinLift: 0.3 }, settings);
    const margin = (priced.priceCents - 6000) / priced.priceCents;
    expect(margin).toBeCloseTo(0.4, 3);
  });

  it('moves down by a negative lift, whatever the stretch', () => {
    const without = priceLine(inputs, thin, settings);
    const priced = priceLine(inputs, { ...thin, workspaceWinLift: -0.02 }, settings);
    const margin = (price: number) => (price - 6000) / price;
    expect(margin(priced.priceCents) - margin(without.priceCents)).toBeCloseTo(-0.02, 3);
  });

  it('keeps the confidence its bands give: the lift is borrowed evidence, not its own', () => {
    const without = priceLine(inputs, thin, settings);
    const priced = priceLine(inputs, { ...thin, workspaceWinLift: 0.04 }, settings);
    expect(priced.confidenceScore).toBe(without.confidenceScore);
  });

  it('ignores the lift where its own win model stands', () => {
    const modelled: LineBands = { ...thin, winModel: marginModel };
    expect(priceLine(inputs, { ...modelled, workspaceWinLift: 0.2 }, settings)).toEqual(priceLine(inputs, modelled, settings));
  });

  it('borrows the lift where its category’s model is a thin one left unpooled', () => {
    const unpooled: LineBands = { ...thin, winModel: { ...marginModel, unpooled: true } };
    const priced = priceLine(inputs, { ...unpooled, workspaceWinLift: 0.04 }, settings);
    expect(priced.reason.find((entry) => entry.param === 'win_model')?.scope).toBe('workspace');
  });

  it('stays at its list price without history, lift or not', () => {
    const priced = priceLine(inputs, { workspaceWinLift: 0.04 }, settings);
    expect(priced.priceCents).toBe(10_000);
  });
});
