// Pooling across a workspace's categories: each category's estimate of a coefficient moves toward the others' by empirical Bayes.
import type { WinFeature } from './win-pool-model.ts';

/** One category's slope as the workspace pools it: its own estimate, that estimate's standard error, and its feature. */
export interface CategorySlope {
  readonly feature: WinFeature;
  readonly slope: number;
  readonly slopeSe: number;
}

/** What pooling makes of one category's slope: the change to add to it, and the standard error it then has. */
export interface PooledSlope {
  readonly shift: number;
  readonly slopeSe: number;
}

/** Categories needed before their estimates can say how much categories differ. */
const MIN_CATEGORIES_TO_POOL = 3;
/** A small floor on the spread keeps a category's slope its own in part, however alike the others look: a share of the mean. */
const SLOPE_SPREAD_FLOOR_SHARE = 0.1;
/** The quantity slopes' floor, in logits per doubling (their mean may be near 0). */
export const QUANTITY_SPREAD_FLOOR = 0.03;

/** One category's estimate of a coefficient, and its standard error. */
export interface CategoryEstimate {
  readonly value: number;
  readonly se: number;
}

/**
 * Empirical Bayes across a workspace's categories: each category's estimate is drawn from one distribution, whose
 * mean and spread are estimated from all of them (the spread as the estimates' scatter beyond their own standard
 * errors, never under `floor`). Each estimate then moves toward the mean by as much as its own noise exceeds that
 * spread: a category with few quotes borrows from the others, a category with many keeps its own. The mean is the
 * estimates' plain average, not one weighted by their precision: a steep curve leaves fewer quotes near even odds, so
 * its slope has the larger standard error, and weighting by precision would pull every category toward the flattest
 * (on the benchmark's list family, a pooled slope of 6.1 against a true 6.7, where the plain average gives 6.5).
 * Estimates without a finite standard error are left alone; fewer than three change nothing.
 */
export function poolAcrossCategories(estimates: readonly CategoryEstimate[], floor: number | ((mean: number) => number)): PooledSlope[] {
  const result: PooledSlope[] = estimates.map((estimate) => ({ shift: 0, slopeSe: estimate.se }));
  const members = estimates.flatMap((estimate, index) =>
    Number.isFinite(estimate.se) && estimate.se > 0 && Number.isFinite(estimate.value) ? [index] : [],
  );
  if (members.length < MIN_CATEGORIES_TO_POOL) return result;
  const value = (index: number) => estimates[index]?.value ?? 0;
  const variance = (index: number) => (estimates[index]?.se ?? 0) ** 2;
  const mean = members.reduce((sum, index) => sum + value(index), 0) / members.length;
  let scatter = 0;
  let noise = 0;
  for (const index of members) {
    scatter += (value(index) - mean) ** 2;
    noise += variance(index);
  }
  const least = typeof floor === 'number' ? floor : floor(mean);
  const tau2 = Math.max(least * least, scatter / (members.length - 1) - noise / members.length);
  for (const index of members) {
    const precision = 1 / variance(index) + 1 / tau2;
    const pooled = (value(index) / variance(index) + mean / tau2) / precision;
    result[index] = { shift: pooled - value(index), slopeSe: Math.sqrt(1 / precision) };
  }
  return result;
}

/** Category slopes pooled across a workspace, one feature at a time (a margin's slope and a log price's differ in unit). */
export function poolCategorySlopes(slopes: readonly CategorySlope[]): PooledSlope[] {
  const result: PooledSlope[] = slopes.map((slope) => ({ shift: 0, slopeSe: slope.slopeSe }));
  for (const feature of ['margin', 'list'] as const) {
    const members = slopes.flatMap((slope, index) => (slope.feature === feature ? [index] : []));
    const pooled = poolAcrossCategories(
      members.map((index) => ({ value: slopes[index]?.slope ?? 0, se: slopes[index]?.slopeSe ?? Number.POSITIVE_INFINITY })),
      (mean) => SLOPE_SPREAD_FLOOR_SHARE * mean,
    );
    members.forEach((index, k) => {
      const one = pooled[k];
      if (one) result[index] = one;
    });
  }
  return result;
}
