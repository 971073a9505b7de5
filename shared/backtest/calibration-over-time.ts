// Calibration over time: whether the win model's predicted win rate held month by month, and above all for the latest months.

/** One scored line as calibration over time reads it: when its quote was created, what the model said, what happened. */
export interface DatedPrediction {
  readonly quoteId: string;
  readonly atMs: number;
  readonly probability: number;
  readonly won: boolean;
}

/** A month or a quarter of scored lines: the model's mean prediction against the observed win rate. */
export interface CalibrationPeriod {
  /** `2026-09` for a month, `2026-Q3` for a quarter (UTC). */
  readonly period: string;
  readonly quotes: number;
  readonly lines: number;
  readonly meanPredicted: number;
  readonly observedWinRate: number;
  /** Observed less predicted: below zero, buyers won less often than the model expected. */
  readonly gap: number;
}

export type RecentVerdict = 'as_expected' | 'won_less' | 'won_more' | 'too_few';

export interface CalibrationOverTime {
  readonly granularity: 'month' | 'quarter';
  readonly periods: readonly CalibrationPeriod[];
  /** The scored lines of the latest `months` months before the newest, pooled, and what they say. */
  readonly recent: {
    readonly months: number;
    /** The first day of the window (UTC). */
    readonly from: string;
    readonly quotes: number;
    readonly lines: number;
    readonly meanPredicted: number | undefined;
    readonly observedWinRate: number | undefined;
    readonly gap: number | undefined;
    readonly verdict: RecentVerdict;
  };
}

/**
 * The rules: months when the scored quotes average `minQuotesPerMonth` a month over the months they span, else
 * quarters; the latest `recentMonths` months before the newest scored quote are judged off when their gap exceeds
 * `margin` (in win rate) and twice its standard error, from `minRecentQuotes` quotes. The margin is 8 points because a
 * fitted level is itself a few points off: on steady simulated histories of 1,500 to 4,000 quotes the latest months'
 * gap ranged from −6 to +6 points with buyers unchanged.
 */
export const calibrationOverTimeRules = {
  minQuotesPerMonth: 20,
  recentMonths: 3,
  margin: 0.08,
  minRecentQuotes: 30,
} as const;

const monthOf = (ms: number) => new Date(ms).toISOString().slice(0, 7);
const quarterOf = (ms: number) => {
  const date = new Date(ms);
  return `${date.getUTCFullYear()}-Q${Math.floor(date.getUTCMonth() / 3) + 1}`;
};

function summary(lines: readonly DatedPrediction[]) {
  const quotes = new Set(lines.map((line) => line.quoteId)).size;
  if (lines.length === 0) return { quotes, lines: 0, meanPredicted: undefined, observedWinRate: undefined, gap: undefined };
  let predicted = 0;
  let won = 0;
  for (const line of lines) {
    predicted += line.probability;
    if (line.won) won += 1;
  }
  const meanPredicted = predicted / lines.length;
  const observedWinRate = won / lines.length;
  return { quotes, lines: lines.length, meanPredicted, observedWinRate, gap: observedWinRate - meanPredicted };
}

function grouped(lines: readonly DatedPrediction[], key: (ms: number) => string): CalibrationPeriod[] {
  const groups = new Map<string, DatedPrediction[]>();
  for (const line of lines) {
    const period = key(line.atMs);
    const group = groups.get(period);
    if (group) group.push(line);
    else groups.set(period, [line]);
  }
  return [...groups]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([period, group]) => ({ period, ...(summary(group) as Omit<CalibrationPeriod, 'period'>) }));
}

/** The instant `months` calendar months before `ms` (UTC; a day past the month's end rolls over, as Date does). */
function monthsBefore(ms: number, months: number): number {
  const date = new Date(ms);
  return Date.UTC(date.getUTCFullYear(), date.getUTCMonth() - months, date.getUTCDate(), date.getUTCHours(), date.getUTCMinutes());
}

/** Calendar months from the first to the last, both counted. */
function monthsSpanned(fromMs: number, toMs: number): number {
  const from = new Date(fromMs);
  const to = new Date(toMs);
  return (to.getUTCFullYear() - from.getUTCFullYear()) * 12 + to.getUTCMonth() - from.getUTCMonth() + 1;
}

/**
 * The scored lines by month (or quarter, when a month is thin), and the latest months pooled with a verdict: a
 * model that predicted the average well can still be wrong for today's buyers, which only the latest months show.
 * The standard error counts quotes, not lines: lines of one quote share its outcome.
 */
export function calibrationOverTime(
  lines: readonly DatedPrediction[],
  rules: typeof calibrationOverTimeRules = calibrationOverTimeRules,
): CalibrationOverTime {
  const months = grouped(lines, monthOf);
  let earliest = Number.POSITIVE_INFINITY;
  let latest = Number.NEGATIVE_INFINITY;
  for (const line of lines) {
    earliest = Math.min(earliest, line.atMs);
    latest = Math.max(latest, line.atMs);
  }
  const quotes = new Set(lines.map((line) => line.quoteId)).size;
  const monthly = lines.length === 0 || quotes / monthsSpanned(earliest, latest) >= rules.minQuotesPerMonth;
  const fromMs = lines.length === 0 ? 0 : monthsBefore(latest, rules.recentMonths);
  const recentSummary = summary(lines.filter((line) => line.atMs >= fromMs));
  const { meanPredicted, gap } = recentSummary;
  let verdict: RecentVerdict = 'too_few';
  if (recentSummary.quotes >= rules.minRecentQuotes && meanPredicted !== undefined && gap !== undefined) {
    const standardError = Math.sqrt((meanPredicted * (1 - meanPredicted)) / recentSummary.quotes);
    const off = Math.abs(gap) > rules.margin && Math.abs(gap) > 2 * standardError;
    verdict = !off ? 'as_expected' : gap < 0 ? 'won_less' : 'won_more';
  }
  return {
    granularity: monthly ? 'month' : 'quarter',
    periods: monthly ? months : grouped(lines, quarterOf),
    recent: { months: rules.recentMonths, from: new Date(fromMs).toISOString().slice(0, 10), ...recentSummary, verdict },
  };
}

const points = (share: number) => `${Math.round(Math.abs(share) * 100)} points`;
const percent = (share: number | undefined) => (share === undefined ? 'n/a' : `${Math.round(share * 100)}%`);

/** The plain-language line a seller reads about the latest months. */
export function recentCalibrationSentence(recent: CalibrationOverTime['recent'], margin: number = calibrationOverTimeRules.margin): string {
  const span = `the last ${recent.months} months (from ${recent.from})`;
  const figures = `${percent(recent.observedWinRate)} won against ${percent(recent.meanPredicted)} predicted, over ${recent.quotes} quotes`;
  switch (recent.verdict) {
    case 'won_less':
      return `Buyers in ${span} won less often than the model expects (${figures}): prices may be too high for today's buyers.`;
    case 'won_more':
      return `Buyers in ${span} won more often than the model expects (${figures}): prices may be lower than today's buyers would accept.`;
    case 'as_expected':
      return `Buyers in ${span} won about as often as the model expects (${figures}; within ${points(margin)} or within noise).`;
    case 'too_few':
      return `Too few quotes closed in ${span} to tell whether the model still fits today's buyers (${recent.quotes}; ${calibrationOverTimeRules.minRecentQuotes} needed).`;
  }
}
