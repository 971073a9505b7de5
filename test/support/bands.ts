// A band for unit tests of the pricing method: every field set, computed at the moment given, with the values a test names.
import type { Band } from '#shared/pricing/model.ts';

export function bandAt(atMs: number, values: Partial<Band> = {}): Band {
  return {
    floor: 0.2,
    target: 0.3,
    stretch: 0.4,
    nEff: 60,
    medianQuantity: 10,
    cov: 0.1,
    newestAtMs: atMs,
    sumW: 60,
    sumW2: 60,
    asOfMs: atMs,
    ...values,
  };
}
