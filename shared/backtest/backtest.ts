// The backtest: fit the engine on history before a cut-off, then score its win model and its prices on the quotes closed after.
import { lineMargin } from '#shared/pricing/bands.ts';
import { conversionFactor } from '#shared/pricing/currency.ts';
import type { PricingSettings } from '#shared/pricing/settings.ts';
import {
  bandsForLine,
  enginePrice,
  type EngineState,
  engineAt,
  engineWinProbability,
  evidenceWeight,
  fitWorkspaceWinModel,
  type LineBands,
  type WinSample,
  workspaceWinProbability,
} from './engine.ts';
import {
  areaUnderCurve,
  bootstrap,
  brierScore,
  type CalibrationBin,
  calibrationByDecile,
  type Interval,
  logLoss,
  percentileInterval,
  type Prediction,
  quantile,
} from './scoring.ts';
import { type BacktestLine, chooseCutoff, isClosedQuoteLine, splitAtCutoff } from './split.ts';

/** The product as it stands today: the engine's bounds (list price, floor, ceiling, MAP) come from it. */
export interface BacktestProduct {
  readonly sku: string;
  readonly costCents: number;
  readonly currentPriceCents: number;
  readonly floorCents?: number;
  readonly ceilingCents?: number;
  readonly mapCents?: number;
}

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

/**
 * Below these, the report says the evidence is too thin, and why. Quotes, not lines, because lines of one quote share
 * its outcome: ten lines of one lost quote are one piece of evidence, not ten.
 */
export const evidenceThresholds = {
  /** Quotes won or lost after the cut-off. */
  minScoredQuotes: 30,
  /** Won lines, and lost lines, after the cut-off: AUC and a reliability table need both. */
  minEachOutcome: 10,
  /** The share of scored lines that a fitted model (not the win rate alone) must predict. */
  minFittedShare: 0.5,
} as const;

export const DEFAULT_REPLICATES = 2000;
export const DEFAULT_SEED = 20_261_124;
const INTERVAL_LEVEL = 0.95;
const PROGRESS_EVERY = 1000;

export type NothingToScore = 'no_history' | 'no_closed_quotes' | 'no_outcomes_before_cutoff' | 'no_outcomes_after_cutoff';

export interface HistoryCounts {
  readonly closedQuotes: number;
  readonly wonLines: number;
  readonly lostLines: number;
  readonly openQuoteLines: number;
  readonly orderLines: number;
}

export type WinModelLevel = 'engine' | 'workspace' | 'base_rate';

export type MarginVerdict = 'higher' | 'lower' | 'no_clear_difference' | 'too_thin';

export interface BacktestReport {
  readonly cutoff: { readonly at: string; readonly holdoutDays: number; readonly latestClosedQuoteAt: string };
  readonly history: {
    readonly beforeCutoff: HistoryCounts & { readonly decidedAfterCutoff: number };
    readonly afterCutoff: HistoryCounts;
  };
  readonly winModel: {
    /** Scored lines: closed after the cut-off, with a cost and a price to give a margin. */
    readonly lines: number;
    readonly logLoss: number | undefined;
    /** The log-loss of predicting the win rate before the cut-off for every line: the model should beat it. */
    readonly baseRateLogLoss: number | undefined;
    readonly brierScore: number | undefined;
    readonly auc: number | undefined;
    readonly aucInterval: Interval | undefined;
    /** Which model predicted each scored line: the engine's own, the workspace fallback, or the win rate alone. */
    readonly levels: Readonly<Record<WinModelLevel, number>>;
    readonly calibration: readonly CalibrationBin[];
  };
  readonly margin: {
    /** Amounts are in minor units of the base currency. */
    readonly currency: string;
    readonly lines: number;
    readonly quotes: number;
    /** Scored lines the engine could not price, by why. */
    readonly unpriced: Readonly<Record<'unknown_product' | 'no_cost_basis' | 'no_exchange_rate', number>>;
    /** Σ (price − cost) × quantity × P(win | margin), under the fitted model. */
    readonly expectedAtQuotedPrices: number;
    readonly expectedAtServicePrices: number;
    readonly difference: number;
    readonly differenceInterval: Interval | undefined;
    /** expectedAtServicePrices / expectedAtQuotedPrices − 1. */
    readonly relativeDifference: number | undefined;
    readonly relativeDifferenceInterval: Interval | undefined;
    /** What the won lines earned at the prices quoted: a check on the model's expectation at those prices. */
    readonly realisedAtQuotedPrices: number;
    readonly servicePriceChange: { readonly median: number | undefined; readonly higherShare: number | undefined };
    /** Lines the service priced at a margin outside those the win model was fitted on: the model extrapolates there. */
    readonly outsideFittedMargins: number;
    readonly verdict: MarginVerdict;
  };
  readonly evidence: {
    readonly sufficient: boolean;
    readonly reasons: readonly string[];
    readonly thresholds: typeof evidenceThresholds & { readonly minQuotesBeforeCutoff: number };
  };
  readonly bootstrap: { readonly replicates: number; readonly seed: number; readonly level: number };
}

export type BacktestResult =
  | { readonly status: 'scored'; readonly report: BacktestReport }
  | { readonly status: 'nothing_to_score'; readonly reason: NothingToScore; readonly message: string };

/** A scored line: its outcome and what the fitted model said of it, at the price quoted and at the service's. */
interface ScoredLine {
  readonly quoteId: string;
  readonly won: boolean;
  readonly level: WinModelLevel;
  readonly quotedMargin: number;
  /** P(win) at the price quoted. */
  readonly quotedProbability: number;
  readonly priced?: {
    readonly serviceMargin: number;
    readonly serviceProbability: number;
    /** (price − cost) × quantity in base minor units: the margin a win at that price earns. */
    readonly quotedProfit: number;
    readonly serviceProfit: number;
  };
}

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

/** The product's list price over its cost, today; undefined when either is unknown. */
function listMarkupOf(product: BacktestProduct | undefined): number | undefined {
  return product && product.costCents > 0 && product.currentPriceCents > 0 ? product.currentPriceCents / product.costCents : undefined;
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

/** Minor units of the base currency per minor unit of the line's currency; undefined without a usable rate. */
function toBaseFactor(line: BacktestLine, baseCurrency: string): number | undefined {
  const currency = line.currency || baseCurrency;
  if (currency === baseCurrency) return 1;
  if (!(line.exchangeRate !== undefined && line.exchangeRate > 0)) return undefined;
  return conversionFactor({ currency, rate: line.exchangeRate }, { currency: baseCurrency, rate: 1 });
}

/**
 * What the engine would have quoted for a scored line, with bands as they stood at the cut-off. The product's bounds are
 * today's (history keeps no list price), scaled by the line's cost over today's cost: that puts them in the line's
 * currency and keeps their ratio to cost. Stock is left out: history does not say what was on hand then.
 */
function servicePrice(
  line: BacktestLine,
  product: BacktestProduct,
  deal: { readonly valueCents: number; readonly quantity: number },
  bands: LineBands,
  settings: PricingSettings,
): number {
  const scale = line.costCents / product.costCents;
  const bounds = {
    ...(product.floorCents === undefined ? {} : { floorCents: product.floorCents * scale }),
    ...(product.ceilingCents === undefined ? {} : { ceilingCents: product.ceilingCents * scale }),
    ...(product.mapCents === undefined ? {} : { mapCents: product.mapCents * scale }),
  };
  const priced = enginePrice(
    {
      product: { sku: product.sku, costCents: line.costCents, currentPriceCents: product.currentPriceCents * scale, ...bounds },
      hasCustomer: line.customerExternalId !== undefined,
      quantity: line.quantity,
      orderValueCents: deal.valueCents,
      orderTotalQuantity: deal.quantity,
      enforceMap: settings.enforceMapForErp,
      nowMs: line.atMs,
    },
    bands,
    settings,
  );
  return priced.priceCents;
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

const percent = (share: number) => `${Math.round(share * 100)}%`;

function evidenceReasons(
  after: HistoryCounts,
  before: HistoryCounts,
  levels: Readonly<Record<WinModelLevel, number>>,
  scores: { readonly logLoss: number | undefined; readonly baseRateLogLoss: number | undefined },
  settings: PricingSettings,
): string[] {
  const reasons: string[] = [];
  const { minScoredQuotes, minEachOutcome, minFittedShare } = evidenceThresholds;
  if (after.closedQuotes < minScoredQuotes) {
    reasons.push(`only ${after.closedQuotes} quotes were won or lost after the cut-off; a backtest needs ${minScoredQuotes}`);
  }
  if (after.wonLines < minEachOutcome || after.lostLines < minEachOutcome) {
    reasons.push(
      `only ${after.wonLines} won and ${after.lostLines} lost lines after the cut-off; AUC and calibration need ${minEachOutcome} of each`,
    );
  }
  const lines = levels.engine + levels.workspace + levels.base_rate;
  const fittedShare = lines > 0 ? (levels.engine + levels.workspace) / lines : 0;
  if (fittedShare === 0) {
    const count =
      before.closedQuotes < settings.winModelMinQuotes
        ? `only ${before.closedQuotes} quotes were won or lost before the cut-off`
        : `the ${before.closedQuotes} quotes won or lost before the cut-off gave no win model`;
    reasons.push(
      `${count}; a win model needs ${settings.winModelMinQuotes} with both outcomes, so every prediction is the win rate alone, under which any higher price looks better`,
    );
  } else if (fittedShare < minFittedShare) {
    reasons.push(`a fitted win model predicted only ${percent(fittedShare)} of the scored lines; the rest got the win rate alone`);
  } else if (scores.logLoss !== undefined && scores.baseRateLogLoss !== undefined && !(scores.logLoss < scores.baseRateLogLoss)) {
    reasons.push(
      `the win model predicted the scored lines no better than the win rate alone (log-loss ${scores.logLoss.toFixed(3)} against ${scores.baseRateLogLoss.toFixed(3)}): the margin comparison rests on a model the history does not bear out`,
    );
  }
  return reasons;
}

function marginVerdict(sufficient: boolean, interval: Interval | undefined): MarginVerdict {
  if (!sufficient || !interval) return 'too_thin';
  if (interval.low > 0) return 'higher';
  if (interval.high < 0) return 'lower';
  return 'no_clear_difference';
}

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
  const { settings, baseCurrency, holdoutDays } = options;
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

  const deals = new Map<string, { valueCents: number; quantity: number }>();
  for (const line of split.holdout) {
    const deal = deals.get(line.documentId) ?? { valueCents: 0, quantity: 0 };
    deal.valueCents += line.priceCents * line.quantity;
    deal.quantity += line.quantity;
    deals.set(line.documentId, deal);
  }

  const unpriced = { unknown_product: 0, no_cost_basis: 0, no_exchange_rate: 0 };
  const scored: ScoredLine[] = [];
  split.holdout.forEach((line, index) => {
    if ((index + 1) % PROGRESS_EVERY === 0 || index + 1 === split.holdout.length) options.onProgress?.(index + 1, split.holdout.length);
    const quotedMargin = lineMargin(line);
    if (quotedMargin === undefined) {
      unpriced.no_cost_basis += 1;
      return;
    }
    const bands = bandsForLine(engine, line);
    const product = products.get(line.productSku);
    const listMarkup = listMarkupOf(product);
    // The engine's own model where it has one; else the workspace's; else the win rate.
    const probability = (margin: number): { p: number; level: WinModelLevel } => {
      const own = engineWinProbability(bands, line, margin, listMarkup);
      if (own !== undefined) return { p: own, level: 'engine' };
      if (fallback) return { p: workspaceWinProbability(fallback, margin), level: 'workspace' };
      return { p: trainingWinRate, level: 'base_rate' };
    };
    const quoted = probability(quotedMargin);
    const base = { quoteId: line.documentId, won: line.outcome === 'won', level: quoted.level, quotedMargin, quotedProbability: quoted.p };
    const factor = toBaseFactor(line, baseCurrency);
    if (!product) unpriced.unknown_product += 1;
    else if (!(product.costCents > 0)) unpriced.no_cost_basis += 1;
    else if (factor === undefined) unpriced.no_exchange_rate += 1;
    if (!product || !(product.costCents > 0) || factor === undefined) {
      scored.push(base);
      return;
    }
    const price = servicePrice(line, product, deals.get(line.documentId) as { valueCents: number; quantity: number }, bands, settings);
    const serviceMargin = (price - line.costCents) / price;
    scored.push({
      ...base,
      priced: {
        serviceMargin,
        serviceProbability: probability(serviceMargin).p,
        quotedProfit: (line.priceCents - line.costCents) * line.quantity * factor,
        serviceProfit: (price - line.costCents) * line.quantity * factor,
      },
    });
  });
  if (scored.length === 0) {
    return {
      status: 'nothing_to_score',
      reason: 'no_outcomes_after_cutoff',
      message: 'no quote line won or lost after the cut-off has a cost and a price to score',
    };
  }

  const scoredPredictions = predictions(scored);
  const levels = { engine: 0, workspace: 0, base_rate: 0 };
  for (const line of scored) levels[line.level] += 1;

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

  // The bootstrap: whole scored quotes drawn with replacement, the fitted model held as it is.
  const replicates = options.replicates ?? DEFAULT_REPLICATES;
  const seed = options.seed ?? DEFAULT_SEED;
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

  const scores = {
    logLoss: logLoss(scoredPredictions),
    baseRateLogLoss: logLoss(scored.map((line) => ({ probability: trainingWinRate, won: line.won }))),
  };
  const reasons = evidenceReasons(after, before, levels, scores, settings);
  const interval = priced.length > 0 ? percentileInterval(differences, INTERVAL_LEVEL) : undefined;
  // Money in whole minor units, as every amount of the report.
  const differenceInterval = interval && { ...interval, low: Math.round(interval.low), high: Math.round(interval.high) };
  return {
    status: 'scored',
    report: {
      cutoff: {
        at: new Date(cutoffMs).toISOString(),
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
      },
      margin: {
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
        verdict: marginVerdict(reasons.length === 0, differenceInterval),
      },
      evidence: {
        sufficient: reasons.length === 0,
        reasons,
        thresholds: { ...evidenceThresholds, minQuotesBeforeCutoff: settings.winModelMinQuotes },
      },
      bootstrap: { replicates, seed, level: INTERVAL_LEVEL },
    },
  };
}
