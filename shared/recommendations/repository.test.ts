import { describe, expect, it } from 'vitest';
import { estimatedImpact, sampleRecommendation } from '#test/support/recommendations.ts';
import { recommendationItem, recommendationOfItem } from './repository.ts';

describe("a recommendation's item", () => {
  const recommendation = sampleRecommendation(
    { sku: 'NUT', name: 'Hex nut', category: 'Fasteners' },
    { recommendedPriceCents: 1_150, confidence: 'medium', exchangeRateToBase: 1, impact: estimatedImpact(420) },
  );

  it('keeps the recommendation packed whole beside its keys, and reads it back as it was', () => {
    const item = recommendationItem('w', recommendation);
    expect(Object.keys(item).sort()).toEqual(['PK', 'SK', 'packed', 'type']);
    expect(recommendationOfItem(item)).toEqual(recommendation);
  });

  it('reads an item stored before recommendations were packed, its fields as attributes', () => {
    const older = { PK: 'WS#w#PRODUCT#NUT', SK: 'RECOMMENDATION', type: 'recommendation', ...recommendation };
    expect(recommendationOfItem(older)).toEqual(recommendation);
  });
});
