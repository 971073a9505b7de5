// The quality bench's seeds, split once and for all into a tuning set and a held-out set.

/** Which seeds a run draws its markets from. */
export const seedSets = ['tuning', 'held-out'] as const;
export type SeedSet = (typeof seedSets)[number];

/**
 * Held-out seeds start here, tuning seeds at 1: `--seeds N` runs seeds 1..N for tuning (the seeds the method has
 * always been measured on) and 1001..1000+N held out. A change to the engine is judged on the held-out figure only;
 * the tuning one is for iterating, and N stays at most 1000 so that the two never meet.
 */
export const HELD_OUT_FIRST_SEED = 1001;
export const MAX_SEEDS = HELD_OUT_FIRST_SEED - 1;

export function seedsOf(set: SeedSet, count: number): number[] {
  if (!Number.isSafeInteger(count) || count < 1 || count > MAX_SEEDS) {
    throw new Error(`--seeds takes a whole number of seeds from 1 to ${MAX_SEEDS}`);
  }
  const first = set === 'tuning' ? 1 : HELD_OUT_FIRST_SEED;
  return Array.from({ length: count }, (_, index) => first + index);
}

export function setOfSeed(seed: number): SeedSet {
  return seed >= HELD_OUT_FIRST_SEED ? 'held-out' : 'tuning';
}

/** `--set tuning|held-out|both`. */
export function parseSeedSets(value: string | undefined): SeedSet[] {
  if (value === undefined || value === 'both') return [...seedSets];
  if ((seedSets as readonly string[]).includes(value)) return [value as SeedSet];
  throw new Error(`--set takes tuning, held-out or both; not ${value}`);
}
