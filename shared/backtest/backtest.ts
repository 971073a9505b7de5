// The backtest: fit the engine on history before a cut-off, then score its win model and its prices on the quotes closed after.
import { lineMargin } from '#shared/pricing/bands.ts';
import type { PricingSettings } from '#shared/pricing/settings.ts';
import { type EngineState, engineAt, evidenceWeight, fitWorkspaceWinModel, type WinModel, type WinSample } from './engine.ts';
import {
  areaUnderCurve,
  bootstrap,
  brierScore,
  calibrationByDecile,
  type Interval,
  logLoss,
  percentileInterval,
  type Prediction,
  quantile,
} from './scoring.ts';
import { type BacktestLine, chooseCutoff, isClosedQuoteLine, splitAtCutoff } from './split.ts';
import { calibrationOverTime } from './calibration-over-time.ts';
import { scoreProducts } from './products.ts';
import { type BacktestProduct, listMarkupOf, type ScoredLine, scoreHoldout, type Unpriced } from './holdout.ts';
import {
  type BacktestReport,
  type BacktestResult,
  evidenceReasons,
  evidenceThresholds,
  type HistoryCounts,
  marginVerdict,
} from './report.ts';

export interface BacktestOptions {
  readonly settings: PricingSettings;
  readonly baseCurrency: string;
  readonly holdoutDays: number;
  /** Bootstrap replicates: DEFAULT_REPLICATES unless a test asks for fewer. */
  readonly replicates?: number;
  readonly seed?: number;
  /** Called as the engine prices the scored lines, every thousand and at the end. */
  readonly onProgress?: (done: number, total: number) => void;
}

export const DEFAULT_REPLICATES = 2000;
export const DEFAULT_SEED = 20_261_124;
const INTERVAL_LEVEL = 0.95;

function counts(lines: readonly BacktestLine[]): HistoryCounts {
  const closed = new Set<string>();
  let wonLines = 0;
  let lostLines = 0;
  let openQuoteLines = 0;
  let orderLines = 0;
  for (const line of lines) {
    if (line.kind === 'order') orderLines += 1;
    else if (line.outcome === 'won' || line.outcome === 'lost') {
      closed.add(line.documentId);
      if (line.outcome === 'won') wonLines += 1;
      else lostLines += 1;
    } else openQuoteLines += 1;
  }
  return { closedQuotes: closed.size, wonLines, lostLines, openQuoteLines, orderLines };
}

/** The training quotes' closed lines as win-model samples, with the engine's outlier bounds and recency weights. */
function winSamples(training: readonly BacktestLine[], cutoffMs: number, settings: PricingSettings): WinSample[] {
  const samples: WinSample[] = [];
  for (const line of training) {
    if (!isClosedQuoteLine(line)) continue;
    const margin = lineMargin(line);
    if (margin === undefined || margin < settings.minHistoryMarginPct / 100 || margin > settings.maxHistoryMarginPct / 100) continue;
    samples.push({ quoteId: line.documentId, margin, won: line.outcome === 'won', weight: evidenceWeight(line.atMs, cutoffMs, settings) });
  }
  return samples;
}

function groupBy<T>(items: readonly T[], key: (item: T) => string): T[][] {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const group = groups.get(key(item));
    if (group) group.push(item);
    else groups.set(key(item), [item]);
  }
  return [...groups.values()];
}

interface Totals {
  quoted: number;
  service: number;
}

function expectedTotals(lines: readonly ScoredLine[]): Totals {
  const totals = { quoted: 0, service: 0 };
  for (const { priced, quotedProbability } of lines) {
    if (!priced) continue;
    totals.quoted += priced.quotedProfit * quotedProbability;
    totals.service += priced.serviceProfit * priced.serviceProbability;
  }
  return totals;
}

function predictions(lines: readonly ScoredLine[]): Prediction[] {
  return lines.map((line) => ({ probability: line.quotedProbability, won: line.won }));
}

/** The engine fitted at the cut-off, with the history on either side of it. */
interface Fitted {
  readonly cut: { readonly cutoffMs: number; readonly latestClosedAtMs: number };
  readonly split: ReturnType<typeof splitAtCutoff>;
  readonly before: HistoryCounts;
  readonly after: HistoryCounts;
  readonly evidence: WinSample[];
  readonly engine: EngineState;
  readonly fallback: WinModel | undefined;
  readonly trainingWinRate: number;
}

type Unscored = Extract<BacktestResult, { status: 'nothing_to_score' }>;

/**
 * Runs the backtest on a workspace's history: pure, given the lines, today's products and the settings. The engine is
 * fitted once, on everything before the cut-off, as the bands job would have fitted it; the interval comes from a
 * bootstrap over the scored quotes, with that fit held as it is.
 */
export function runBacktest(
  lines: readonly BacktestLine[],
  products: ReadonlyMap<string, BacktestProduct>,
  options: BacktestOptions,
): BacktestResult {
  const fitted = fitAtCutoff(lines, products, options);
  if ('status' in fitted) return fitted;
  const { scored, unpriced } = scoreHoldout(fitted.split.holdout, fitted, products, options);
  if (scored.length === 0) {
    return {
      status: 'nothing_to_score',
      reason: 'no_outcomes_after_cutoff',
      message: 'no quote line won or lost after the cut-off has a cost and a price to score',
    };
  }
  const productFigures = scoreProducts({ ...fitted, cutoffMs: fitted.cut.cutoffMs }, fitted.split.holdout, products, options);
  const report = reportOf(fitted, scored, unpriced, options);
  return { status: 'scored', report: productFigures ? { ...report, products: productFigures } : report };
}

/** The cut-off, the split and the engine fitted on what came before; or why there is nothing to score. */
function fitAtCutoff(
  lines: readonly BacktestLine[],
  products: ReadonlyMap<string, BacktestProduct>,
  options: BacktestOptions,
): Fitted | Unscored {
  const { settings, holdoutDays } = options;
  if (lines.length === 0) {
    return { status: 'nothing_to_score', reason: 'no_history', message: 'the workspace has no quote or order history' };
  }
  const cut = chooseCutoff(lines, holdoutDays);
  if (!cut) {
    return {
      status: 'nothing_to_score',
      reason: 'no_closed_quotes',
      message: `the workspace's history holds ${lines.length} lines but no quote that was won or lost`,
    };
  }
  const { cutoffMs } = cut;
  const split = splitAtCutoff(lines, cutoffMs);
  const before = counts(split.training);
  const after = { ...counts(split.holdout), openQuoteLines: split.openAfter, orderLines: split.ordersAfter };
  const evidence = winSamples(split.training, cutoffMs, settings);
  if (evidence.length === 0) {
    return {
      status: 'nothing_to_score',
      reason: 'no_outcomes_before_cutoff',
      message: `no quote was won or lost before the cut-off (${new Date(cutoffMs).toISOString().slice(0, 10)}): the engine would have had nothing to learn from; try a shorter --holdout-days`,
    };
  }
  const byCategory = new Map(groupBy(split.training, (line) => line.category).map((group) => [(group[0] as BacktestLine).category, group]));
  const listMarkups = new Map<string, number>();
  for (const product of products.values()) {
    const markup = listMarkupOf(product);
    if (markup !== undefined) listMarkups.set(product.sku, markup);
  }
  const engine: EngineState = engineAt(byCategory, listMarkups, settings, cutoffMs);
  const fallback = fitWorkspaceWinModel(evidence, settings);
  const trainingWinRate = evidence.filter((line) => line.won).length / evidence.length;
  return { cut, split, before, after, evidence, engine, fallback, trainingWinRate };
}

/** The lines the engine priced, and what its prices would have earned and changed. */
function marginFigures(scored: readonly ScoredLine[], evidence: readonly WinSample[]) {
  const priced = scored.filter((line) => line.priced);
  const totals = expectedTotals(scored);
  let realised = 0;
  for (const line of priced) if (line.won) realised += line.priced?.quotedProfit ?? 0;
  const changes = priced.map((line) => {
    const { serviceMargin } = line.priced as NonNullable<ScoredLine['priced']>;
    // Price over cost is 1 / (1 − margin): the ratio of two prices of one cost is the ratio of those.
    return (1 - line.quotedMargin) / (1 - serviceMargin) - 1;
  });
  let lowestFitted = Infinity;
  let highestFitted = -Infinity;
  for (const { margin } of evidence) {
    lowestFitted = Math.min(lowestFitted, margin);
    highestFitted = Math.max(highestFitted, margin);
  }
  const outsideFittedMargins = priced.filter((line) => {
    const margin = line.priced?.serviceMargin ?? 0;
    return margin < lowestFitted || margin > highestFitted;
  }).length;
  return { priced, totals, realised, changes, outsideFittedMargins };
}

/** The bootstrap: whole scored quotes drawn with replacement, the fitted model held as it is. */
function bootstrapScored(scored: readonly ScoredLine[], replicates: number, seed: number) {
  const scoredQuotes = groupBy(scored, (line) => line.quoteId);
  const replicated = bootstrap(replicates, seed, (resample) => {
    const lines = resample(scoredQuotes.length).flatMap((quote) => scoredQuotes[quote] as ScoredLine[]);
    const resampled = expectedTotals(lines);
    return {
      difference: resampled.service - resampled.quoted,
      relative: resampled.quoted > 0 ? resampled.service / resampled.quoted - 1 : Number.NaN,
      auc: areaUnderCurve(predictions(lines)) ?? Number.NaN,
    };
  });
  const differences = replicated.map((statistics) => statistics.difference);
  const relatives = replicated.map((statistics) => statistics.relative);
  const aucs = replicated.map((statistics) => statistics.auc);
  return { differences, relatives, aucs };
}

function reportOf(fitted: Fitted, scored: readonly ScoredLine[], unpriced: Unpriced, options: BacktestOptions): BacktestReport {
  const { settings, baseCurrency, holdoutDays } = options;
  const { cut, split, before, after, trainingWinRate } = fitted;
  const scoredPredictions = predictions(scored);
  const levels = { engine: 0, workspace: 0, base_rate: 0 };
  for (const line of scored) levels[line.level] += 1;
  const figures = marginFigures(scored, fitted.evidence);
  const { priced } = figures;
  const replicates = options.replicates ?? DEFAULT_REPLICATES;
  const seed = options.seed ?? DEFAULT_SEED;
  const { differences, relatives, aucs } = bootstrapScored(scored, replicates, seed);

  const scores = {
    logLoss: logLoss(scoredPredictions),
    baseRateLogLoss: logLoss(scored.map((line) => ({ probability: trainingWinRate, won: line.won }))),
  };
  const reasons = evidenceReasons(after, before, levels, scores, settings);
  const interval = priced.length > 0 ? percentileInterval(differences, INTERVAL_LEVEL) : undefined;
  // Money in whole minor units, as every amount of the report.
  const differenceInterval = interval && { ...interval, low: Math.round(interval.low), high: Math.round(interval.high) };
  return {
    cutoff: {
      at: new Date(cut.cutoffMs).toISOString(),
      holdoutDays,
      latestClosedQuoteAt: new Date(cut.latestClosedAtMs).toISOString(),
    },
    history: { beforeCutoff: { ...before, decidedAfterCutoff: split.decidedLater }, afterCutoff: after },
    winModel: {
      lines: scored.length,
      ...scores,
      brierScore: brierScore(scoredPredictions),
      auc: areaUnderCurve(scoredPredictions),
      aucInterval: percentileInterval(aucs, INTERVAL_LEVEL),
      levels,
      calibration: calibrationByDecile(scoredPredictions),
      calibrationOverTime: calibrationOverTime(
        scored.map((line) => ({ quoteId: line.quoteId, atMs: line.atMs, probability: line.quotedProbability, won: line.won })),
      ),
    },
    margin: marginSection(baseCurrency, figures, unpriced, differenceInterval, relatives, reasons.length === 0),
    evidence: {
      sufficient: reasons.length === 0,
      reasons,
      thresholds: { ...evidenceThresholds, minQuotesBeforeCutoff: settings.winModelMinQuotes },
    },
    bootstrap: { replicates, seed, level: INTERVAL_LEVEL },
  };
}

function marginSection(
  baseCurrency: string,
  figures: ReturnType<typeof marginFigures>,
  unpriced: Unpriced,
  differenceInterval: Interval | undefined,
  relatives: number[],
  sufficient: boolean,
): BacktestReport['margin'] {
  const { priced, totals, realised, changes, outsideFittedMargins } = figures;
  return {
    currency: baseCurrency,
    lines: priced.length,
    quotes: new Set(priced.map((line) => line.quoteId)).size,
    unpriced,
    expectedAtQuotedPrices: Math.round(totals.quoted),
    expectedAtServicePrices: Math.round(totals.service),
    difference: Math.round(totals.service) - Math.round(totals.quoted),
    differenceInterval,
    relativeDifference: totals.quoted > 0 ? totals.service / totals.quoted - 1 : undefined,
    relativeDifferenceInterval: priced.length > 0 ? percentileInterval(relatives, INTERVAL_LEVEL) : undefined,
    realisedAtQuotedPrices: Math.round(realised),
    servicePriceChange: {
      median: quantile(changes, 0.5),
      higherShare: changes.length > 0 ? changes.filter((change) => change > 0).length / changes.length : undefined,
    },
    outsideFittedMargins,
    verdict: marginVerdict(sufficient, differenceInterval),
  };
}
