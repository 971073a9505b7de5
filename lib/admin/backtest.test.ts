// Unit tests of the backtest's text report: what a pricing manager reads, thin evidence said plainly.
import { describe, expect, it } from 'vitest';
import { type BacktestProduct } from '#shared/backtest/holdout.ts';
import { runBacktest } from '#shared/backtest/backtest.ts';
import { seededRandom } from '#platform/seeded-random.ts';
import type { BacktestLine } from '#shared/backtest/split.ts';
import { defaultPricingSettings } from '#shared/pricing/settings.ts';
import { reportText } from './backtest.ts';

const DAY_MS = 86_400_000;
const products = new Map<string, BacktestProduct>([['SKU-1', { sku: 'SKU-1', costCents: 1000, currentPriceCents: 1500 }]]);

/** One-line quotes over a year, won with chance σ(3 − 10·m + shift) at their margin. */
function history(quotes: number, shift: (atMs: number) => number = () => 0): BacktestLine[] {
  const random = seededRandom(9);
  return Array.from({ length: quotes }, (_, q) => {
    const margin = 0.1 + random() * 0.4;
    const atMs = Date.UTC(2025, 0, 1) + Math.floor((365 * q) / quotes) * DAY_MS;
    return {
      kind: 'quote',
      documentId: `Q-${q}`,
      productSku: 'SKU-1',
      customerExternalId: 'C-1',
      segment: 'smb',
      category: 'Fasteners',
      quantity: 5,
      costCents: 1000,
      priceCents: Math.round(1000 / (1 - margin)),
      atMs,
      outcome: random() < 1 / (1 + Math.exp(-(3 - 10 * margin + shift(atMs)))) ? 'won' : 'lost',
    } satisfies BacktestLine;
  });
}

function text(quotes: number, holdoutDays = 60, shift?: (atMs: number) => number): string {
  const result = runBacktest(history(quotes, shift), products, {
    settings: defaultPricingSettings,
    baseCurrency: 'USD',
    holdoutDays,
    replicates: 40,
  });
  if (result.status !== 'scored') throw new Error(result.message);
  return reportText('ws_test', 'Acme', result.report);
}

describe('the backtest report', () => {
  it('names the cut-off, the scores with their meaning, the reliability table and the margin with its interval', () => {
    const report = text(800);
    expect(report).toContain('Backtest of Acme (ws_test)');
    expect(report).toMatch(/Cut-off 2025-\d\d-\d\d: 60 days before the newest won or lost quote \(2025-12-31\)/);
    expect(report).toMatch(/log-loss\s+0\.\d{3}\s+lower is better; the win rate alone scores 0\.\d{3}/);
    expect(report).toMatch(/AUC\s+0\.\d\d\s+0\.5 is a coin toss/);
    expect(report).toMatch(/decile\s+lines\s+predicted\s+won\n\s+1\s+\d+\s+\d+%\s+\d+%/);
    expect(report).toMatch(/at the prices quoted\s+[\d,]+\.\d\d USD/);
    expect(report).toMatch(/95% interval\s+[+-][\d,]+\.\d\d USD to [+-][\d,]+\.\d\d USD/);
    expect(report).toMatch(/Verdict: (the service's prices would have earned (MORE|LESS)|no clear difference)/);
    expect(report).not.toMatch(/too thin/i);
  });

  it('shows the win rate predicted and observed month by month, and says when the latest months won less often', () => {
    // From 100 days before the end, buyers are 1.5 logits less likely to take the same margin.
    const turn = Date.UTC(2025, 0, 1) + 265 * DAY_MS;
    const report = text(1500, 100, (atMs) => (atMs >= turn ? -1.5 : 0));
    expect(report).toMatch(/Calibration over time, by month of the quote/);
    expect(report).toMatch(/month\s+quotes\s+lines\s+predicted\s+won\s+gap\n\s+2025-09\s+\d+\s+\d+\s+\d+%\s+\d+%\s+−\d+ pts/);
    expect(report).toMatch(
      /Buyers in the last 3 months \(from 2025-\d\d-\d\d\) won less often than the model expects \(\d+% won against \d+% predicted, over \d+ quotes\): prices may be too high for today's buyers\./,
    );
  });

  it('says plainly that a short history is too thin to judge, with each reason', () => {
    const report = text(60);
    expect(report).toContain('Verdict: TOO THIN TO JUDGE');
    expect(report).toMatch(/The evidence is too thin:\n {2}- only \d+ quotes were won or lost after the cut-off; a backtest needs 30/);
  });
});
