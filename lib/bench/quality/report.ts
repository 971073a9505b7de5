// The pricing-quality report: shares of the oracle's profit per family and overall, by confidence, and the win model's calibration.
import { type Family, families, hardFamilies, steadyFamilies } from './market.ts';
import { type SeedSet, setOfSeed } from './seeds.ts';
import type { MarketResult, ScoredLine } from './run.ts';
import { productFigures } from './products.ts';

const labels = ['high', 'medium', 'low'] as const;

export interface FamilyFigures {
  /** A family, or a mean over the steady families (`mean`) or the hard ones (`hard mean`). */
  readonly family: Family | 'mean' | 'hard mean';
  readonly markets: number;
  readonly engine: number;
  readonly minMarket: number;
  readonly list: number;
  readonly policy: number;
  readonly segmentMedian: number;
  readonly cellLogistic: number;
  readonly cellNow: number;
  readonly cellMidYear: number;
  readonly refused: number;
  readonly byConfidence: Record<(typeof labels)[number], { share: number | undefined; lines: number }>;
  /** High-confidence lines' share less low-confidence lines' (means over markets); undefined when either is absent. */
  readonly highOverLow: number | undefined;
  /** Expected Brier score of the engine's win probability against outcomes drawn from the truth, and its MSE against the truth. */
  readonly brier: number | undefined;
  readonly calibrationMse: number | undefined;
  /** Lines with a win probability from the engine. */
  readonly covered: number;
  /**
   * The product recommendations, one price per product for all its buyers: their share of the best single prices'
   * profit, the current prices' share, the worst market's, and the share of products whose recommendation earns less
   * than their current price by more than 0.5% (means over markets; the worst market's too).
   */
  readonly products: {
    readonly share: number;
    readonly worst: number;
    readonly current: number;
    readonly losers: number;
    readonly worstLosers: number;
  };
}

export interface QualityReport {
  readonly set: SeedSet;
  /** The seeds the report's markets came from, first and last. */
  readonly seeds: { first: number; last: number };
  readonly families: FamilyFigures[];
  /** The mean over the steady families present (the figure the project has always quoted), and over the hard ones. */
  readonly means: FamilyFigures[];
  /** By decile of the engine's win probability: lines, mean predicted, mean true. */
  readonly reliability: { decile: number; lines: number; predicted: number; truth: number }[];
  readonly seconds: number;
}

const sum = (lines: readonly ScoredLine[], pick: (line: ScoredLine) => number) => lines.reduce((total, line) => total + pick(line), 0);
const share = (lines: readonly ScoredLine[], pick: (line: ScoredLine) => number) => {
  const oracle = sum(lines, (line) => line.oracle);
  return oracle > 0 ? sum(lines, pick) / oracle : 1;
};
const mean = (values: readonly number[]) => (values.length === 0 ? Number.NaN : values.reduce((a, b) => a + b, 0) / values.length);
const defined = <T>(values: readonly (T | undefined)[]) => values.filter((value): value is T => value !== undefined);

/** Shares are ratios of sums within a market, then means over markets: each market counts once, whatever its size. */
function figures(family: FamilyFigures['family'], markets: readonly MarketResult[]): FamilyFigures {
  const engineShares = markets.map((market) => share(market.lines, (line) => line.engine));
  const byConfidence = Object.fromEntries(
    labels.map((label) => {
      const shares = defined(
        markets.map((market) => {
          const lines = market.lines.filter((line) => line.confidence === label);
          return lines.length > 0 ? share(lines, (line) => line.engine) : undefined;
        }),
      );
      const count = markets.reduce((n, market) => n + market.lines.filter((line) => line.confidence === label).length, 0);
      return [label, { share: shares.length > 0 ? mean(shares) : undefined, lines: count }];
    }),
  ) as FamilyFigures['byConfidence'];
  const all = markets.flatMap((market) => market.lines);
  const covered = all.filter((line) => line.predicted !== undefined);
  const byMarket = markets.map((market) => productFigures(market.products));
  return {
    products: {
      share: mean(byMarket.map((market) => market.share)),
      worst: Math.min(...byMarket.map((market) => market.share)),
      current: mean(byMarket.map((market) => market.currentShare)),
      losers: mean(byMarket.map((market) => market.losers)),
      worstLosers: Math.max(...byMarket.map((market) => market.losers)),
    },
    family,
    markets: markets.length,
    engine: mean(engineShares),
    minMarket: Math.min(...engineShares),
    list: mean(markets.map((market) => share(market.lines, (line) => line.list))),
    policy: mean(markets.map((market) => share(market.lines, (line) => line.policy))),
    segmentMedian: mean(markets.map((market) => share(market.lines, (line) => line.segmentMedian))),
    cellLogistic: mean(markets.map((market) => share(market.lines, (line) => line.cellLogistic))),
    cellNow: mean(markets.map((market) => share(market.lines, (line) => line.cellNow))),
    cellMidYear: mean(markets.map((market) => share(market.lines, (line) => line.cellMidYear))),
    refused: all.filter((line) => !line.ok).length / Math.max(1, all.length),
    byConfidence,
    highOverLow:
      byConfidence.high.share === undefined || byConfidence.low.share === undefined
        ? undefined
        : byConfidence.high.share - byConfidence.low.share,
    brier:
      covered.length > 0
        ? mean(covered.map((line) => ((line.predicted ?? 0) - line.truth) ** 2 + line.truth * (1 - line.truth)))
        : undefined,
    calibrationMse: covered.length > 0 ? mean(covered.map((line) => ((line.predicted ?? 0) - line.truth) ** 2)) : undefined,
    covered: covered.length / Math.max(1, all.length),
  };
}

/** Lines by predicted chance of winning, in tenths: how often each tenth's lines were won, by the truth. */
function reliabilityTable(results: readonly MarketResult[]): QualityReport['reliability'] {
  const covered = results.flatMap((result) => result.lines).filter((line) => line.predicted !== undefined);
  return Array.from({ length: 10 }, (_, decile) => {
    const bin = covered.filter((line) => Math.min(9, Math.floor((line.predicted ?? 0) * 10)) === decile);
    return {
      decile,
      lines: bin.length,
      predicted: mean(bin.map((line) => line.predicted ?? 0)),
      truth: mean(bin.map((line) => line.truth)),
    };
  });
}

/** The figures of one seed set's markets: per family, the means over steady and hard families, and the reliability table. */
export function qualityReport(set: SeedSet, results: readonly MarketResult[], seconds: number): QualityReport {
  const present = families.filter((family) => results.some((result) => result.family === family));
  const perFamily = present.map((family) =>
    figures(
      family,
      results.filter((result) => result.family === family),
    ),
  );
  const means = (
    [
      ['mean', steadyFamilies],
      ['hard mean', hardFamilies],
    ] as const
  ).flatMap(([name, group]) => {
    const rows = perFamily.filter((row) => (group as readonly string[]).includes(row.family));
    if (rows.length === 0) return [];
    const overall = figures(
      name,
      results.filter((result) => (group as readonly string[]).includes(result.family)),
    );
    // The headline mean is over families, so that each family weighs the same.
    const meanOf = (pick: (f: FamilyFigures) => number) => mean(rows.map(pick));
    return [
      {
        ...overall,
        engine: meanOf((f) => f.engine),
        minMarket: Math.min(...rows.map((f) => f.minMarket)),
        list: meanOf((f) => f.list),
        policy: meanOf((f) => f.policy),
        segmentMedian: meanOf((f) => f.segmentMedian),
        cellLogistic: meanOf((f) => f.cellLogistic),
        cellNow: meanOf((f) => f.cellNow),
        cellMidYear: meanOf((f) => f.cellMidYear),
        products: {
          share: meanOf((f) => f.products.share),
          worst: Math.min(...rows.map((f) => f.products.worst)),
          current: meanOf((f) => f.products.current),
          losers: meanOf((f) => f.products.losers),
          worstLosers: Math.max(...rows.map((f) => f.products.worstLosers)),
        },
      },
    ];
  });
  const reliability = reliabilityTable(results);
  const seeds = results.map((result) => result.seed);
  return {
    set,
    seeds: { first: Math.min(...seeds), last: Math.max(...seeds) },
    families: perFamily,
    means,
    reliability,
    seconds,
  };
}

/** One report per seed set present in `results`, tuning first. */
export function qualityReports(results: readonly MarketResult[], seconds: number): QualityReport[] {
  return (['tuning', 'held-out'] as const).flatMap((set) => {
    const inSet = results.filter((result) => setOfSeed(result.seed) === set);
    return inSet.length > 0 ? [qualityReport(set, inSet, seconds)] : [];
  });
}

const fixed = (value: number | undefined, digits = 3) => (value === undefined || Number.isNaN(value) ? '—' : value.toFixed(digits));

const setHeadings: Record<SeedSet, string> = {
  tuning: 'TUNING seeds (for iterating on the method; this figure does not count)',
  'held-out': 'HELD-OUT seeds (the figure that counts: never tune on it)',
};

export function printQualityReports(reports: readonly QualityReport[]): string {
  const total = reports.reduce((longest, report) => Math.max(longest, report.seconds), 0);
  return [...reports.map(printQualityReport), `${total.toFixed(0)} s`].join('\n\n');
}

const column = (value: string, width: number) => value.padStart(width);

export function printQualityReport(report: QualityReport): string {
  const rows = [...report.families, ...report.means];
  const out: string[] = [];
  out.push(`${setHeadings[report.set]}: seeds ${report.seeds.first}–${report.seeds.last}`);
  out.push('Share of the best price’s expected profit (mean over seeds; `mean`: over the steady families, `hard mean`: the hard ones)');
  const shares = [
    ['engine', 'worst', 'list', 'policy', 'seg.med', 'cell.fit', 'cell.now', 'cell.mid'],
    ...rows.map((row) =>
      [row.engine, row.minMarket, row.list, row.policy, row.segmentMedian, row.cellLogistic, row.cellNow, row.cellMidYear].map((value) =>
        fixed(value),
      ),
    ),
  ];
  out.push(
    ...shares.map(
      (cells, index) =>
        `${(index === 0 ? 'family' : (rows[index - 1]?.family ?? '')).padEnd(10)} ${column(index === 0 ? 'seeds' : String(rows[index - 1]?.markets), 5)} ${cells.map((cell) => column(cell, 8)).join(' ')}`,
    ),
  );
  out.push('');
  out.push('The engine by confidence label: share of the best profit (lines), high less low; its win probability');
  out.push(
    `${'family'.padEnd(10)} ${column('high', 12)} ${column('medium', 12)} ${column('low', 12)} ${column('high−low', 8)} ${column('ok:false', 8)} ${column('Brier', 6)} ${column('MSE', 6)} ${column('cover', 5)}`,
  );
  for (const row of rows) {
    const confidence = labels.map((label) => {
      const { share: value, lines } = row.byConfidence[label];
      return column(`${fixed(value)} (${lines})`, 12);
    });
    out.push(
      `${row.family.padEnd(10)} ${confidence.join(' ')} ${column(row.highOverLow === undefined ? '—' : (row.highOverLow >= 0 ? '+' : '') + fixed(row.highOverLow), 8)} ${column(fixed(row.refused), 8)} ${column(fixed(row.brier), 6)} ${column(fixed(row.calibrationMse, 4), 6)} ${column(fixed(row.covered, 2), 5)}`,
    );
  }
  out.push('');
  out.push('Product recommendations, one price per product for all its buyers: share of the best single price’s profit;');
  out.push('losing: share of products earning less than at their current price by more than 0.5% (worst: the worst market)');
  out.push(`${'family'.padEnd(10)} ${['recommend', 'worst', 'current', 'losing', 'worst'].map((cell) => column(cell, 9)).join(' ')}`);
  for (const row of rows) {
    const { share: product, worst, current, losers, worstLosers } = row.products;
    out.push(
      `${row.family.padEnd(10)} ${[product, worst, current, losers, worstLosers].map((value) => column(fixed(value), 9)).join(' ')}`,
    );
  }
  out.push('');
  out.push('Reliability of the engine’s win probability at its own price (all families)');
  out.push(`${'decile'.padEnd(8)} ${'lines'.padStart(6)} ${'predicted'.padStart(9)} ${'true'.padStart(6)}`);
  for (const bin of report.reliability) {
    if (bin.lines === 0) continue;
    out.push(
      `${`${bin.decile / 10}–${(bin.decile + 1) / 10}`.padEnd(8)} ${String(bin.lines).padStart(6)} ${fixed(bin.predicted).padStart(9)} ${fixed(bin.truth).padStart(6)}`,
    );
  }
  return out.join('\n');
}
