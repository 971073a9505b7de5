// Credibility shrinkage: how far thinner evidence pulls a margin from its parent's, and the clamp that keeps it in range.

/** Z = n_eff / (n_eff + k); a node without a positive sample size (or a NaN one) counts for nothing. */
export const credibility = (nEff: number, k: number) => (nEff > 0 ? nEff / (nEff + k) : 0);

/** Weighs `value` by its credibility z against `toward`, the broader evidence it is shrunk to. */
export const shrink = (z: number, value: number, toward: number) => z * value + (1 - z) * toward;

/** Clamps to [lo, hi]; NaN becomes lo, so that a broken band can never turn into a NaN price. */
export function clamp(value: number, lo: number, hi: number): number {
  if (!(value >= lo)) return lo;
  return value > hi ? hi : value;
}
