import { describe, expect, it } from 'vitest';
import { packJson, packText, unpackJson, unpackText } from './packed.ts';

describe('packed text and JSON', () => {
  it('gives back the text and the value it packed, byte for byte the same for the same input', () => {
    const value = { quoteId: 'Q-1', lines: [{ sku: 'NUT', quantity: 3, note: 'écrou ✓' }], empty: {} };
    expect(unpackJson(packJson(value))).toEqual(value);
    expect(unpackText(packText('a line\nand another'))).toBe('a line\nand another');
    expect(Buffer.compare(packJson(value), packJson(value))).toBe(0);
  });

  it('keeps a kilobyte of repetitive JSON, as an item part is, in under half of it', () => {
    const lines = Array.from({ length: 5 }, (_, index) => ({
      sku: `SKU-00000${index}`,
      quantity: 10 * (index + 1),
      quotedCents: 12_345 + index,
      costCents: 9_876 + index,
      band: 'within',
      reason: 'none',
      decisionId: `pd_1yQLguw4jqxEnj0sqzsx${index}`,
      guidedCents: 12_400 + index,
      confidence: 'medium',
      category: 'Fasteners',
    }));
    const text = JSON.stringify({ quoteId: 'Q-171', month: '2025-11', outcome: 'won', segment: 'mid-market', rate: 1, lines });
    expect(text.length).toBeGreaterThan(1_000);
    expect(packText(text).length).toBeLessThan(text.length / 2);
  });
});
