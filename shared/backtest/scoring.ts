// Scoring predicted win probabilities against outcomes, and the bootstrap that puts an interval on a statistic of quotes.
import { seededRandom } from '#platform/seeded-random.ts';

/** One prediction: the probability of a win the model gave, and whether the line was won. */
export interface Prediction {
  readonly probability: number;
  readonly won: boolean;
}

/** Probabilities are held this far from 0 and 1, so that one confident miss costs a large but finite log-loss. */
const PROBABILITY_CLIP = 1e-6;

function clipped(probability: number): number {
  return Math.min(1 - PROBABILITY_CLIP, Math.max(PROBABILITY_CLIP, probability));
}

/** Mean negative log-likelihood of the outcomes, in nats; lower is better, ln 2 ≈ 0.693 is a coin toss. */
export function logLoss(predictions: readonly Prediction[]): number | undefined {
  if (predictions.length === 0) return undefined;
  let total = 0;
  for (const { probability, won } of predictions) total -= Math.log(won ? clipped(probability) : 1 - clipped(probability));
  return total / predictions.length;
}

/** Mean squared difference between the probability and the outcome (1 won, 0 lost). */
export function brierScore(predictions: readonly Prediction[]): number | undefined {
  if (predictions.length === 0) return undefined;
  let total = 0;
  for (const { probability, won } of predictions) total += (probability - (won ? 1 : 0)) ** 2;
  return total / predictions.length;
}

/**
 * The area under the ROC curve: the chance that a won line drawn at random was given a higher probability than a lost
 * one, ties counting half (the Mann–Whitney statistic from average ranks). Undefined without both outcomes.
 */
export function areaUnderCurve(predictions: readonly Prediction[]): number | undefined {
  const won = predictions.filter((prediction) => prediction.won).length;
  const lost = predictions.length - won;
  if (won === 0 || lost === 0) return undefined;
  const sorted = [...predictions].sort((a, b) => a.probability - b.probability);
  let wonRankSum = 0;
  for (let start = 0; start < sorted.length;) {
    let end = start;
    while (end + 1 < sorted.length && sorted[end + 1]?.probability === sorted[start]?.probability) end++;
    // Ranks are 1-based; every member of a tie takes the tie's average rank.
    const averageRank = (start + end + 2) / 2;
    for (let i = start; i <= end; i++) if (sorted[i]?.won) wonRankSum += averageRank;
    start = end + 1;
  }
  return (wonRankSum - (won * (won + 1)) / 2) / (won * lost);
}

/** One group of the reliability table: the lines whose predictions fell in it, what the model said and what happened. */
export interface CalibrationBin {
  readonly decile: number;
  readonly lines: number;
  readonly meanPredicted: number;
  readonly observedWinRate: number;
}

/**
 * The reliability table: predictions sorted by probability and cut into ten groups of (nearly) equal count, the first
 * the lowest. A line's group is floor(rank · 10 / n), so the sizes differ by at most one; equal predictions stay in the
 * group of the first of them, since nothing orders them apart. Groups left empty (fewer than ten lines, or ties) are
 * left out.
 */
export function calibrationByDecile(predictions: readonly Prediction[]): CalibrationBin[] {
  const sorted = [...predictions].sort((a, b) => a.probability - b.probability);
  const sums = Array.from({ length: 10 }, () => ({ lines: 0, predicted: 0, won: 0 }));
  let tieStart = 0;
  sorted.forEach((prediction, rank) => {
    if (rank > 0 && prediction.probability !== sorted[rank - 1]?.probability) tieStart = rank;
    const bin = sums[Math.floor((tieStart * 10) / sorted.length)] as (typeof sums)[number];
    bin.lines += 1;
    bin.predicted += prediction.probability;
    if (prediction.won) bin.won += 1;
  });
  return sums.flatMap((bin, index) =>
    bin.lines === 0
      ? []
      : [{ decile: index + 1, lines: bin.lines, meanPredicted: bin.predicted / bin.lines, observedWinRate: bin.won / bin.lines }],
  );
}

/** Draws n indices in [0, n) with replacement: one bootstrap resample of n clusters. */
export function resampleIndices(n: number, random: () => number): number[] {
  return Array.from({ length: n }, () => Math.floor(random() * n));
}

/**
 * Runs `replicates` bootstrap replicates from one seeded stream: each gets a `resample(n)` that draws n cluster indices
 * with replacement (call it once per population resampled), and returns its statistics.
 */
export function bootstrap<T>(replicates: number, seed: number, replicate: (resample: (n: number) => number[], index: number) => T): T[] {
  const random = seededRandom(seed);
  const resample = (n: number) => resampleIndices(n, random);
  return Array.from({ length: replicates }, (_, index) => replicate(resample, index));
}

/**
 * The value at quantile q of the values, by linear interpolation between order statistics (the same rule as R's
 * type 7 and numpy's default). Undefined for no values.
 */
export function quantile(values: readonly number[], q: number): number | undefined {
  if (values.length === 0) return undefined;
  const sorted = [...values].sort((a, b) => a - b);
  const position = (sorted.length - 1) * q;
  const below = Math.floor(position);
  const above = Math.min(sorted.length - 1, below + 1);
  const lower = sorted[below] as number;
  return lower + ((sorted[above] as number) - lower) * (position - below);
}

export interface Interval {
  readonly low: number;
  readonly high: number;
  /** Replicates whose statistic was defined: a resample may hold no line the statistic can use. */
  readonly replicates: number;
}

/** The percentile interval at `level` (0.95 for 2.5 % to 97.5 %) of the bootstrap replicates' statistics. */
export function percentileInterval(replicates: readonly number[], level: number): Interval | undefined {
  const finite = replicates.filter(Number.isFinite);
  const tail = (1 - level) / 2;
  const low = quantile(finite, tail);
  const high = quantile(finite, 1 - tail);
  return low === undefined || high === undefined ? undefined : { low, high, replicates: finite.length };
}
