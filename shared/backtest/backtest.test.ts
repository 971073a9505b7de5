// Unit tests of the backtest on simulated histories whose true chance of winning is known.
import { describe, expect, it } from 'vitest';
import { defaultPricingSettings } from '#shared/pricing/settings.ts';
import { type BacktestProduct } from './holdout.ts';
import { type BacktestReport } from './report.ts';
import { runBacktest } from './backtest.ts';
import { calibrationOverTimeRules } from './calibration-over-time.ts';
import { seededRandom } from '#platform/seeded-random.ts';
import type { BacktestLine } from './split.ts';

const DAY_MS = 86_400_000;
const START = Date.UTC(2025, 0, 1);
const settings = defaultPricingSettings;
const options = { settings, baseCurrency: 'USD', holdoutDays: 60, replicates: 60 };

const products = new Map<string, BacktestProduct>(
  Array.from({ length: 8 }, (_, i) => {
    const sku = `SKU-${i}`;
    return [sku, { sku, costCents: 1000, currentPriceCents: 1500 }];
  }),
);

/**
 * `quotes` quotes over a year, one to three lines each, priced at margins from 10% to 50%; each quote is won with
 * chance σ(3 − 10·m) at its mean margin, so that cheaper quotes win more often.
 */
function simulatedHistory(quotes: number, seed = 1, shift: (atMs: number) => number = () => 0): BacktestLine[] {
  const random = seededRandom(seed);
  const lines: BacktestLine[] = [];
  for (let q = 0; q < quotes; q++) {
    const atMs = START + Math.floor((365 * q) / quotes) * DAY_MS;
    const segment = random() < 0.5 ? 'smb' : 'enterprise';
    const count = 1 + Math.floor(random() * 3);
    const margins = Array.from({ length: count }, () => 0.1 + random() * 0.4);
    const mean = margins.reduce((sum, margin) => sum + margin, 0) / count;
    const won = random() < 1 / (1 + Math.exp(-(3 - 10 * mean + shift(atMs))));
    margins.forEach((margin, index) => {
      const sku = `SKU-${Math.floor(random() * 8)}`;
      lines.push({
        kind: 'quote',
        documentId: `Q-${q}`,
        productSku: sku,
        customerExternalId: `C-${Math.floor(random() * 20)}`,
        segment,
        category: Number(sku.slice(4)) < 4 ? 'Fasteners' : 'Safety',
        quantity: 1 + Math.floor(random() * 50),
        costCents: 1000,
        priceCents: Math.round(1000 / (1 - margin)),
        atMs: atMs + index,
        outcome: won ? 'won' : 'lost',
      });
    });
  }
  return lines;
}

function scored(lines: readonly BacktestLine[], catalogue = products, overrides = {}): BacktestReport {
  const result = runBacktest(lines, catalogue, { ...options, ...overrides });
  if (result.status !== 'scored') throw new Error(result.message);
  return result.report;
}

describe('the backtest on a history with enough evidence', () => {
  const history = simulatedHistory(1500);
  const report = scored(history);

  it('cuts the history 60 days before the newest closed quote', () => {
    const newest = Math.max(...history.map((line) => line.atMs));
    expect(report.cutoff.latestClosedQuoteAt).toBe(new Date(newest).toISOString());
    expect(Date.parse(report.cutoff.at)).toBe(newest - 60 * DAY_MS);
    expect(report.history.afterCutoff.closedQuotes).toBeGreaterThan(200);
  });

  it('finds a win model that ranks outcomes better than chance and beats the win rate alone', () => {
    expect(report.winModel.auc).toBeGreaterThan(0.65);
    expect(report.winModel.logLoss).toBeLessThan(report.winModel.baseRateLogLoss as number);
    expect(report.winModel.levels.engine).toBe(report.winModel.lines);
    expect(report.winModel.calibration).toHaveLength(10);
    expect(report.winModel.calibration.reduce((sum, bin) => sum + bin.lines, 0)).toBe(report.winModel.lines);
    // Predictions rise with observed wins across the deciles: the first decile wins less than the last.
    const [first, last] = [report.winModel.calibration[0], report.winModel.calibration[9]];
    expect(first?.observedWinRate).toBeLessThan(last?.observedWinRate as number);
  });

  it('puts the margin difference inside its own bootstrap interval and calls the evidence sufficient', () => {
    const { margin } = report;
    expect(margin.lines).toBe(report.winModel.lines);
    expect(margin.difference).toBe(margin.expectedAtServicePrices - margin.expectedAtQuotedPrices);
    expect(margin.differenceInterval?.low).toBeLessThanOrEqual(margin.difference);
    expect(margin.differenceInterval?.high).toBeGreaterThanOrEqual(margin.difference);
    expect(report.evidence).toMatchObject({ sufficient: true, reasons: [] });
    expect(margin.verdict).not.toBe('too_thin');
  });

  it('judges the product recommendations at the cut-off against the best single price and the current one, on the quotes after it', () => {
    const figures = report.products;
    expect(figures?.products).toBe(8);
    // The current price (a 33% margin) is above the best the fitted curve sees: the recommendations move toward it, and
    // none earns less than the current price on the buyers that came after the cut-off.
    expect(figures?.recommendationShare).toBeGreaterThan(figures?.currentShare as number);
    expect(figures?.recommendationShare).toBeLessThanOrEqual(1);
    expect(figures?.losingShare).toBe(0);
    expect(figures?.keptShare).toBeLessThan(1);
  });

  it('gives the same report for the same history, seed and settings', () => {
    expect(scored(history)).toEqual(report);
  });

  it('counts the lines of products no longer in the catalogue as not priced, and still scores their outcome', () => {
    const without = new Map([...products].filter(([sku]) => sku !== 'SKU-0'));
    const partial = scored(history, without);
    expect(partial.margin.unpriced.unknown_product).toBeGreaterThan(0);
    expect(partial.margin.lines + partial.margin.unpriced.unknown_product).toBe(partial.winModel.lines);
  });
});

describe('the backtest’s calibration over time', () => {
  const options = { holdoutDays: 100 };

  it('finds the months after the cut-off won about as often as predicted when buyers stayed the same', () => {
    const { calibrationOverTime } = scored(simulatedHistory(1500), products, options).winModel;
    expect(calibrationOverTime.granularity).toBe('month');
    expect(calibrationOverTime.periods.reduce((sum, period) => sum + period.lines, 0)).toBeGreaterThan(0);
    expect(calibrationOverTime.recent.verdict).toBe('as_expected');
    expect(Math.abs(calibrationOverTime.recent.gap ?? 1)).toBeLessThan(calibrationOverTimeRules.margin);
  });

  it('says the latest months won less often than the model expects when buyers grew less tolerant', () => {
    // From 100 days before the end, every quote is 1.5 logits less likely to be won at the same margin.
    const turn = START + 265 * DAY_MS;
    const history = simulatedHistory(1500, 1, (atMs) => (atMs >= turn ? -1.5 : 0));
    const { calibrationOverTime } = scored(history, products, options).winModel;
    expect(calibrationOverTime.recent.verdict).toBe('won_less');
    expect(calibrationOverTime.recent.gap).toBeLessThan(-0.1);
    for (const period of calibrationOverTime.periods) expect(period.gap).toBeLessThan(0);
  });
});

describe('the backtest on thin evidence', () => {
  it('says plainly that a short history is too thin, and why', () => {
    const report = scored(simulatedHistory(40));
    expect(report.evidence.sufficient).toBe(false);
    expect(report.margin.verdict).toBe('too_thin');
    expect(report.evidence.reasons.join('\n')).toMatch(/quotes were won or lost after the cut-off; a backtest needs 30/);
    expect(report.evidence.reasons.join('\n')).toMatch(/a win model needs 50/);
  });

  it('counts a line in another currency without an exchange rate as not priced', () => {
    const history = simulatedHistory(200).map((line) => ({ ...line, currency: 'EUR' }));
    expect(scored(history).margin.unpriced.no_exchange_rate).toBeGreaterThan(0);
  });

  it.each([
    [[], 'no_history'],
    [simulatedHistory(30).map((line) => ({ ...line, outcome: 'open' as const })), 'no_closed_quotes'],
    [simulatedHistory(30), 'no_outcomes_before_cutoff', 400],
  ])('has nothing to score in %#: %s', (lines, reason, holdoutDays = 60) => {
    const result = runBacktest(lines, products, { ...options, holdoutDays });
    expect(result).toMatchObject({ status: 'nothing_to_score', reason, message: expect.any(String) });
  });
});
