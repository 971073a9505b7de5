// Where the backtest cuts the history: the cut-off date, the lines the engine may learn from, and the quotes it is scored on.
import type { HistoryLine } from '#shared/pricing/model.ts';

const DAY_MS = 86_400_000;

/** A history line as the backtest reads it: the line the engine reads, with its category, decision date and currency. */
export interface BacktestLine extends HistoryLine {
  readonly category: string;
  /** Quotes only, when the seller sent it: when the quote was won or lost. */
  readonly decidedAtMs?: number;
  readonly currency?: string;
  /** Units of the workspace's base currency per unit of `currency`, as the document carried it. */
  readonly exchangeRate?: number;
}

export function isClosedQuoteLine(line: HistoryLine): boolean {
  return line.kind === 'quote' && (line.outcome === 'won' || line.outcome === 'lost');
}

/**
 * The cut-off: `holdoutDays` before the creation date of the newest closed quote, not before today, so that a history
 * whose last sync is months old still leaves quotes to score. Undefined when no quote was ever won or lost.
 */
export function chooseCutoff(
  lines: readonly HistoryLine[],
  holdoutDays: number,
): { readonly cutoffMs: number; readonly latestClosedAtMs: number } | undefined {
  let latest = -Infinity;
  for (const line of lines) if (isClosedQuoteLine(line) && line.atMs > latest) latest = line.atMs;
  if (!Number.isFinite(latest)) return undefined;
  return { cutoffMs: latest - holdoutDays * DAY_MS, latestClosedAtMs: latest };
}

export interface Split {
  /** Every line dated before the cut-off, as the engine would have known it then. */
  readonly training: BacktestLine[];
  /** The won and lost quote lines created at or after the cut-off: what the backtest scores. */
  readonly holdout: BacktestLine[];
  /** Quotes created before the cut-off but decided after it: the engine could not have known their outcome. */
  readonly decidedLater: number;
  /** Lines after the cut-off that are not scored: open quote lines, and orders. */
  readonly openAfter: number;
  readonly ordersAfter: number;
}

/**
 * Lines dated before the cut-off train, closed quote lines created at or after it are scored. A quote line created
 * before the cut-off whose decision came after it trains as open, as it then was; one without a decision date counts
 * as decided when created, since nothing says otherwise.
 */
export function splitAtCutoff(lines: readonly BacktestLine[], cutoffMs: number): Split {
  const training: BacktestLine[] = [];
  const holdout: BacktestLine[] = [];
  let decidedLater = 0;
  let openAfter = 0;
  let ordersAfter = 0;
  for (const line of lines) {
    if (line.atMs < cutoffMs) {
      if (isClosedQuoteLine(line) && line.decidedAtMs !== undefined && line.decidedAtMs >= cutoffMs) {
        decidedLater += 1;
        training.push({ ...line, outcome: 'open' });
      } else training.push(line);
    } else if (isClosedQuoteLine(line)) holdout.push(line);
    else if (line.kind === 'quote') openAfter += 1;
    else ordersAfter += 1;
  }
  return { training, holdout, decidedLater, openAfter, ordersAfter };
}
