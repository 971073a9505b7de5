// `npm run admin -- backtest`: reads a workspace's history, runs the backtest on it, and writes the report for a pricing manager.
import { type BacktestReport, evidenceThresholds, type MarginVerdict } from '#shared/backtest/report.ts';
import { type CalibrationOverTime, recentCalibrationSentence } from '#shared/backtest/calibration-over-time.ts';
import { runBacktest } from '#shared/backtest/backtest.ts';
import { readBacktestProducts, readWorkspaceHistory } from '#shared/backtest/repository.ts';
import type { Interval } from '#shared/backtest/scoring.ts';
import { formatMinorUnits } from '#shared/pricing/currency.ts';
import { pricingSettings } from '#shared/pricing/settings.ts';
import { existingWorkspace } from './command.ts';

/** The exit code when the workspace has nothing the backtest can score: no history, or no won or lost quote in it. */
export const NOTHING_TO_BACKTEST_EXIT = 3;

/** The command ran, but the history gives it nothing to score. */
export class NothingToBacktest extends Error {
  readonly exitCode = NOTHING_TO_BACKTEST_EXIT;
}

/** From this many history lines a backtest takes seconds: it says on stderr how far it has got. */
const LARGE_HISTORY_LINES = 20_000;
const DEFAULT_HOLDOUT_DAYS = 60;

export interface BacktestCommand {
  readonly workspaceId: string;
  readonly holdoutDays?: number | undefined;
  /** Where progress goes: stderr, so that stdout holds only the report. */
  readonly progress: (message: string) => void;
}

export async function backtest(command: BacktestCommand): Promise<{ json: unknown; text: string }> {
  const { workspaceId, progress } = command;
  const holdoutDays = command.holdoutDays ?? DEFAULT_HOLDOUT_DAYS;
  const workspace = await existingWorkspace(workspaceId);
  let large = false;
  const lines = await readWorkspaceHistory(workspaceId, (done, total, read) => {
    large ||= read >= LARGE_HISTORY_LINES;
    if (large) progress(`read ${done} of ${total} categories (${read.toLocaleString('en-US')} history lines)`);
  });
  const skus = [...new Set(lines.map((line) => line.productSku))];
  const products = await readBacktestProducts(workspaceId, skus);
  if (lines.length >= LARGE_HISTORY_LINES) progress(`fitting the engine on ${lines.length.toLocaleString('en-US')} history lines`);
  const result = runBacktest(lines, products, {
    settings: pricingSettings(workspace.pricing),
    baseCurrency: workspace.baseCurrency,
    holdoutDays,
    onProgress: (done, total) => {
      if (lines.length >= LARGE_HISTORY_LINES)
        progress(`priced ${done.toLocaleString('en-US')} of ${total.toLocaleString('en-US')} scored lines`);
    },
  });
  if (result.status === 'nothing_to_score') {
    throw new NothingToBacktest(`nothing to backtest in workspace ${workspaceId}: ${result.message}`);
  }
  const { report } = result;
  return { json: { workspaceId, name: workspace.name, ...report }, text: reportText(workspaceId, workspace.name, report) };
}

const day = (iso: string) => iso.slice(0, 10);
const fixed = (value: number | undefined, digits: number) => (value === undefined ? 'n/a' : value.toFixed(digits));
const share = (value: number | undefined, signed = false) =>
  value === undefined ? 'n/a' : `${signed && value > 0 ? '+' : ''}${(value * 100).toFixed(1)}%`;

function money(minorUnits: number, currency: string, signed = false): string {
  const text = `${formatMinorUnits(Math.round(minorUnits), currency)} ${currency}`;
  return signed && minorUnits > 0 ? `+${text}` : text;
}

/** Columns padded to their widest cell: the first and any last text column to the left, figures to the right. */
function table(rows: readonly (readonly string[])[], indent = '  ', textLast = false): string[] {
  const columns = rows[0]?.length ?? 0;
  const widths = Array.from({ length: columns }, (_, column) => Math.max(...rows.map((row) => (row[column] ?? '').length)));
  const left = (column: number) => column === 0 || (textLast && column === columns - 1);
  return rows.map((row) =>
    (
      indent + row.map((cell, column) => (left(column) ? cell.padEnd(widths[column] ?? 0) : cell.padStart(widths[column] ?? 0))).join('   ')
    ).trimEnd(),
  );
}

const verdicts: Record<MarginVerdict, string> = {
  higher: "the service's prices would have earned MORE margin than the prices quoted (the whole interval is above zero)",
  lower: "the service's prices would have earned LESS margin than the prices quoted (the whole interval is below zero)",
  no_clear_difference: 'no clear difference: the interval includes zero, so the history cannot tell the two apart',
  too_thin: 'TOO THIN TO JUDGE: the figures above are shown, but do not act on them',
};

function interval(value: Interval | undefined, format: (value: number) => string): string {
  return value ? `${format(value.low)} to ${format(value.high)}` : 'n/a';
}

const points = (gap: number) => `${gap > 0 ? '+' : gap < 0 ? '−' : ''}${Math.round(Math.abs(gap) * 100)} pts`;

/** The model's win rate month by month (or by quarter), and the plain-language line about the latest months. */
function calibrationOverTimeText(overTime: CalibrationOverTime): string[] {
  return [
    `  Calibration over time, by ${overTime.granularity} of the quote (is the model right for the latest months, not only on average?)`,
    ...table(
      [
        [overTime.granularity, 'quotes', 'lines', 'predicted', 'won', 'gap'],
        ...overTime.periods.map((period) => [
          period.period,
          String(period.quotes),
          String(period.lines),
          `${Math.round(period.meanPredicted * 100)}%`,
          `${Math.round(period.observedWinRate * 100)}%`,
          points(period.gap),
        ]),
      ],
      '    ',
    ),
    `  ${recentCalibrationSentence(overTime.recent)}`,
  ];
}

/** The report as a pricing manager reads it: what was compared, how well the win model predicted, and what it is worth. */
/** The product recommendations' paragraph: one price per product, against the best single one and the current one. */
function productLines(products: NonNullable<BacktestReport['products']>): string[] {
  return [
    `Product recommendations at the cut-off, one price per product for all its buyers, on the ${products.products} products quoted after it`,
    '  (each price judged over those quotes by the win model fitted at the cut-off: the engine on its own evidence)',
    ...table([
      ['share of the best single price per product', share(products.recommendationShare)],
      ['the current prices, the same share', share(products.currentShare)],
      ['products earning less than at their current price by over 0.5%', share(products.losingShare)],
      ['products kept at their current price', share(products.keptShare)],
    ]),
  ];
}

/** The report's opening: what was backtested, where the cut-off fell, and the history on either side of it. */
function historyLines(workspaceId: string, name: string, report: BacktestReport): string[] {
  const { cutoff, history } = report;
  const { beforeCutoff: before, afterCutoff: after } = history;
  const out: string[] = [
    `Backtest of ${name} (${workspaceId})`,
    `Cut-off ${day(cutoff.at)}: ${cutoff.holdoutDays} days before the newest won or lost quote (${day(cutoff.latestClosedQuoteAt)}).`,
    'The engine learns from the history before it, and is scored on the quotes won or lost after it.',
    '',
    'History',
    ...table([
      ['', 'before cut-off', 'after cut-off'],
      ['quotes won or lost', String(before.closedQuotes), String(after.closedQuotes)],
      ['  their lines won', String(before.wonLines), String(after.wonLines)],
      ['  their lines lost', String(before.lostLines), String(after.lostLines)],
      ['open quote lines (not scored)', String(before.openQuoteLines), String(after.openQuoteLines)],
      ['order lines', String(before.orderLines), String(after.orderLines)],
    ]),
  ];
  if (before.decidedAfterCutoff > 0) {
    out.push(`  ${before.decidedAfterCutoff} quote lines created before the cut-off but decided after it count as open there.`);
  }
  return out;
}

/** How well the win model predicted the lines after the cut-off, and its calibration by decile. */
function winModelLines(winModel: BacktestReport['winModel']): string[] {
  return [
    `Win model: how well it predicted the ${winModel.lines} lines won or lost after the cut-off`,
    ...table(
      [
        ['log-loss', fixed(winModel.logLoss, 3), `lower is better; the win rate alone scores ${fixed(winModel.baseRateLogLoss, 3)}`],
        [
          'AUC',
          fixed(winModel.auc, 2),
          `0.5 is a coin toss, 1 is perfect; 95% interval ${interval(winModel.aucInterval, (value) => value.toFixed(2))}`,
        ],
        ['Brier score', fixed(winModel.brierScore, 3), 'mean squared error of the probability; lower is better'],
      ],
      '  ',
      true,
    ),
    `  Predicted by: the engine's own win model ${winModel.levels.engine} lines, a model over the whole workspace ${winModel.levels.workspace}, the win rate alone ${winModel.levels.base_rate}.`,
    '',
    '  Calibration by decile (lines sorted by predicted chance of winning, in ten equal groups)',
    ...table(
      [
        ['decile', 'lines', 'predicted', 'won'],
        ...winModel.calibration.map((bin) => [
          String(bin.decile),
          String(bin.lines),
          `${Math.round(bin.meanPredicted * 100)}%`,
          `${Math.round(bin.observedWinRate * 100)}%`,
        ]),
      ],
      '    ',
    ),
  ];
}

/** The expected margin at the quoted prices and at the service's, with the interval and what could not be priced. */
function marginLines(margin: BacktestReport['margin'], bootstrap: BacktestReport['bootstrap']): string[] {
  const currency = margin.currency;
  const out: string[] = [
    `Margin on the ${margin.lines} lines of ${margin.quotes} quotes the engine could price, under the fitted win model`,
    '  (expected margin = (price − cost) × quantity × the chance of winning at that price)',
    ...table(
      [
        ['at the prices quoted', money(margin.expectedAtQuotedPrices, currency)],
        ["at the service's prices", money(margin.expectedAtServicePrices, currency)],
        ['difference', `${money(margin.difference, currency, true)} (${share(margin.relativeDifference, true)})`],
        [
          `  ${Math.round(bootstrap.level * 100)}% interval`,
          `${interval(margin.differenceInterval, (value) => money(value, currency, true))} (${interval(margin.relativeDifferenceInterval, (value) => share(value, true))})`,
        ],
        ['realised at the prices quoted', `${money(margin.realisedAtQuotedPrices, currency)} (the won lines)`],
      ],
      '  ',
      true,
    ),
    `  The service's price was higher than the one quoted on ${share(margin.servicePriceChange.higherShare)} of lines; median change ${share(margin.servicePriceChange.median, true)}.`,
  ];
  if (margin.outsideFittedMargins > 0) {
    out.push(
      `  ${margin.outsideFittedMargins} lines were priced at a margin outside those the model was fitted on: its expectation there is an extrapolation.`,
    );
  }
  const { unknown_product: unknown, no_cost_basis: noCost, no_exchange_rate: noRate } = margin.unpriced;
  if (unknown + noCost + noRate > 0) {
    out.push(
      `  Not priced: ${unknown} lines of products no longer in the catalogue, ${noCost} without a cost, ${noRate} in a currency without a rate.`,
    );
  }
  return out;
}

export function reportText(workspaceId: string, name: string, report: BacktestReport): string {
  const { winModel, margin, evidence, bootstrap } = report;
  const out: string[] = [
    ...historyLines(workspaceId, name, report),
    '',
    ...winModelLines(winModel),
    '',
    ...calibrationOverTimeText(winModel.calibrationOverTime),
    '',
    ...marginLines(margin, bootstrap),
  ];
  out.push('', `Verdict: ${verdicts[margin.verdict]}.`);
  if (report.products) out.push('', ...productLines(report.products));
  if (!evidence.sufficient) {
    out.push('The evidence is too thin:', ...evidence.reasons.map((reason) => `  - ${reason}`));
  }
  out.push(
    '',
    `Intervals: a bootstrap of ${bootstrap.replicates} resamples of the scored quotes, whole, with the fitted model held as it is (seed ${bootstrap.seed}).`,
    `Thresholds: ${evidenceThresholds.minScoredQuotes} quotes won or lost after the cut-off, ${evidenceThresholds.minEachOutcome} won and ${evidenceThresholds.minEachOutcome} lost lines, ${evidence.thresholds.minQuotesBeforeCutoff} quotes before it for a win model, a fitted model for ${Math.round(evidenceThresholds.minFittedShare * 100)}% of lines, and a lower log-loss than the win rate's.`,
  );
  return out.join('\n');
}
