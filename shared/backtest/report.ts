// What a backtest reports: the report's shape, the evidence thresholds, and the reasons and verdict it gives.
import type { PricingSettings } from '#shared/pricing/settings.ts';
import type { CalibrationBin, Interval } from './scoring.ts';
import type { CalibrationOverTime } from './calibration-over-time.ts';
import type { ProductFigures } from './products.ts';

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
    /** By month (or quarter) of the scored quotes, and the latest months' verdict: does the model fit today's buyers? */
    readonly calibrationOverTime: CalibrationOverTime;
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
  /**
   * The product recommendations the bands job would have made at the cut-off, one price per product for all its
   * buyers, judged on the quotes after it by the model fitted at the cut-off (products.ts); absent when none scores.
   */
  readonly products?: ProductFigures;
}

export type BacktestResult =
  | { readonly status: 'scored'; readonly report: BacktestReport }
  | { readonly status: 'nothing_to_score'; readonly reason: NothingToScore; readonly message: string };

const percent = (share: number) => `${Math.round(share * 100)}%`;

export function evidenceReasons(
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

export function marginVerdict(sufficient: boolean, interval: Interval | undefined): MarginVerdict {
  if (!sufficient || !interval) return 'too_thin';
  if (interval.low > 0) return 'higher';
  if (interval.high < 0) return 'lower';
  return 'no_clear_difference';
}
