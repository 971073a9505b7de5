// Unit tests of the lists' dead band: which recomputed recommendations write their list rows again.
import { describe, expect, it } from 'vitest';
import { estimatedImpact, sampleRecommendation } from '#test/support/recommendations.ts';
import { catalogueRow } from './catalogue.ts';
import { listedRow, listMoved, withinBand } from './list-moves.ts';
import { recommendationRows } from './listing.ts';

const BAND = 0.5;
const product = { sku: 'BOLT', name: 'Hex bolt', category: 'Fasteners', currentPriceCents: 10_000 };
const at = (recommendedPriceCents: number, impactCents = 2_000, confidence: 'high' | 'medium' | 'low' = 'high') =>
  sampleRecommendation(product, { recommendedPriceCents, confidence, impact: estimatedImpact(impactCents) });
const listedAt = (recommendedPriceCents: number, impactCents = 2_000) => catalogueRow(at(recommendedPriceCents, impactCents));

describe('the lists’ dead band', () => {
  it('takes a move of one minor unit, or of the band’s share, as within it, and not a cent more', () => {
    expect(withinBand(58_04, 58_03, BAND)).toBe(true);
    expect(withinBand(10_000, 10_050, BAND)).toBe(true);
    expect(withinBand(10_000, 10_051, BAND)).toBe(false);
    expect(withinBand(100, 102, BAND)).toBe(false);
    expect(withinBand(undefined, 100, BAND)).toBe(false);
    expect(withinBand(undefined, undefined, BAND)).toBe(true);
  });

  it('leaves the rows of a product whose price and impact moved within the band', () => {
    expect(listMoved(listedAt(12_000), at(12_050, 2_005), BAND)).toBe(false);
  });

  it('writes the rows of a product listed nowhere yet', () => {
    expect(listMoved(undefined, at(12_000), BAND)).toBe(true);
  });

  it('writes the rows when the price or the impact moves past the band, measured from the row as listed', () => {
    expect(listMoved(listedAt(12_000), at(12_100), BAND)).toBe(true);
    expect(listMoved(listedAt(12_000, 2_000), at(12_000, 2_100), BAND)).toBe(true);
    // Moves inside the band do not add up: each is measured from what the lists show.
    expect(listMoved(listedAt(12_000), at(12_061), BAND)).toBe(true);
  });

  it('writes the rows at once when anything else they show changes', () => {
    expect(listMoved(listedAt(12_000), at(12_000, 2_000, 'medium'), BAND)).toBe(true);
    const repriced = sampleRecommendation(
      { ...product, currentPriceCents: 11_000 },
      { recommendedPriceCents: 12_000, confidence: 'high', impact: estimatedImpact(2_000) },
    );
    expect(listMoved(listedAt(12_000), repriced, BAND)).toBe(true);
    const renamed = sampleRecommendation(
      { ...product, name: 'Hex bolt M10' },
      { recommendedPriceCents: 12_000, confidence: 'high', impact: estimatedImpact(2_000) },
    );
    expect(listMoved(listedAt(12_000), renamed, BAND)).toBe(true);
    const held = { ...at(12_000), warnings: [{ code: 'cost_jump' as const, message: 'cost 12.00 USD is 10 times …' }] };
    expect(listMoved(listedAt(12_000), held, BAND)).toBe(true);
    expect(listMoved(listedAt(12_000), sampleRecommendation(product), BAND)).toBe(true);
  });

  it('reads a stored row back as the catalogue row it was written from', () => {
    const recommendation = { ...at(12_000), warnings: [{ code: 'price_jump' as const, message: '…' }] };
    const [row] = recommendationRows('ws_a', recommendation);
    expect(listedRow(row as Record<string, unknown>)).toEqual(catalogueRow(recommendation));
    expect(listMoved(listedRow(row as Record<string, unknown>), recommendation, BAND)).toBe(false);
  });
});
