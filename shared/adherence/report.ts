// The adherence report: the monthly aggregates of a period summed into groups, with shares, win rates, margins and leakage.
import type { AdherenceFigures, AdherenceGroup, AdherenceReport } from './schema.ts';
import { type AdherenceBand, adherenceBands, type AdherenceMetric, adherenceMetrics, type Dimension } from './attribution.ts';

/** A group with fewer quote lines than this is flagged as thin evidence: shown, but not to be read as a finding. */
export const THIN_EVIDENCE_LINES = 30;

export type Counters = Record<AdherenceBand, Record<AdherenceMetric, number>>;

export function emptyCounters(): Counters {
  return Object.fromEntries(
    adherenceBands.map((band) => [band, Object.fromEntries(adherenceMetrics.map((metric) => [metric, 0]))]),
  ) as Counters;
}

/** Sums aggregate items (one group in one month each) into one set of counters per group value. */
export function sumAggregates(items: ReadonlyArray<Record<string, unknown>>): Map<string, Counters> {
  const groups = new Map<string, Counters>();
  for (const item of items) {
    const value = String(item.value ?? '');
    let counters = groups.get(value);
    if (!counters) groups.set(value, (counters = emptyCounters()));
    for (const band of adherenceBands) {
      for (const metric of adherenceMetrics) {
        const number = item[`${band}_${metric}`];
        if (typeof number === 'number') counters[band][metric] += number;
      }
    }
  }
  return groups;
}

const ratio = (part: number, whole: number): number | null => (whole === 0 ? null : part / whole);
const round = (value: number | null, places: number): number | null => (value === null ? null : Number(value.toFixed(places)));

function bandFigures(counters: Record<AdherenceMetric, number>): AdherenceFigures {
  return {
    lines: counters.n,
    decided: counters.d,
    won: counters.w,
    win_rate: round(ratio(counters.w, counters.d), 4),
    margin_pct: round(counters.r === 0 ? null : ((counters.r - counters.c) / counters.r) * 100, 2),
    revenue_cents: counters.r,
    leakage_cents: counters.l,
  };
}

export function groupFigures(dimension: Dimension, value: string, counters: Counters): AdherenceGroup {
  const total = emptyCounters().within;
  for (const band of adherenceBands) for (const metric of adherenceMetrics) total[metric] += counters[band][metric];
  const guided = counters.within.n + counters.above.n + counters.below.n;
  return {
    dimension,
    value,
    ...bandFigures(total),
    guided_lines: guided,
    unattributed_lines: counters.unattributed.n,
    guided_share: round(ratio(guided, total.n), 4),
    within_share: round(ratio(counters.within.n, guided), 4),
    above_share: round(ratio(counters.above.n, guided), 4),
    below_share: round(ratio(counters.below.n, guided), 4),
    thin_evidence: total.n < THIN_EVIDENCE_LINES,
    bands: Object.fromEntries(adherenceBands.map((band) => [band, bandFigures(counters[band])])) as AdherenceGroup['bands'],
  };
}

/** The groups of one dimension, largest first, then by name. */
export function dimensionFigures(dimension: Dimension, items: ReadonlyArray<Record<string, unknown>>): AdherenceGroup[] {
  return [...sumAggregates(items)]
    .map(([value, counters]) => groupFigures(dimension, value, counters))
    .sort((a, b) => b.lines - a.lines || a.value.localeCompare(b.value));
}

export function buildReport(input: {
  readonly workspaceId: string;
  readonly fromMonth: string;
  readonly toMonth: string;
  readonly bandPct: number;
  readonly overall: ReadonlyArray<Record<string, unknown>>;
  readonly confidence: ReadonlyArray<Record<string, unknown>>;
  readonly by?: 'segment' | 'category' | 'reason';
  readonly groups?: ReadonlyArray<Record<string, unknown>>;
}): AdherenceReport {
  return {
    workspace_id: input.workspaceId,
    from_month: input.fromMonth,
    to_month: input.toMonth,
    band_pct: input.bandPct,
    thin_evidence_lines: THIN_EVIDENCE_LINES,
    overall: dimensionFigures('overall', input.overall)[0] ?? groupFigures('overall', '', emptyCounters()),
    by_confidence: dimensionFigures('confidence', input.confidence),
    by: input.by ?? null,
    groups: input.by ? dimensionFigures(input.by, input.groups ?? []) : [],
  };
}

const percent = (value: number | null): string => (value === null ? '—' : `${(value * 100).toFixed(1)}%`);
const money = (cents: number): string => (cents / 100).toFixed(2);

function row(group: AdherenceGroup, label: string): string[] {
  return [
    label,
    String(group.lines),
    percent(group.guided_share),
    percent(group.within_share),
    percent(group.above_share),
    percent(group.below_share),
    percent(group.bands.within.win_rate),
    percent(group.bands.above.win_rate),
    percent(group.bands.below.win_rate),
    percent(group.win_rate),
    group.margin_pct === null ? '—' : `${group.margin_pct.toFixed(1)}%`,
    money(group.leakage_cents),
    group.thin_evidence ? 'thin' : '',
  ];
}

const HEADER = [
  'group',
  'lines',
  'guided',
  'within',
  'above',
  'below',
  'win within',
  'win above',
  'win below',
  'win rate',
  'margin',
  'leakage',
  'evidence',
];

export function reportRows(report: AdherenceReport): string[][] {
  return [
    row(report.overall, 'overall'),
    ...report.by_confidence.map((group) => row(group, `confidence: ${group.value}`)),
    ...report.groups.map((group) => row(group, `${group.dimension}: ${group.value}`)),
  ];
}

/** The report as a table to read in a terminal. */
export function reportText(report: AdherenceReport): string {
  const rows = [HEADER, ...reportRows(report)];
  const widths = HEADER.map((_, column) => Math.max(...rows.map((cells) => (cells[column] ?? '').length)));
  const lines = rows.map((cells) =>
    cells
      .map((cell, column) => (column === 0 ? cell.padEnd(widths[column] ?? 0) : cell.padStart(widths[column] ?? 0)))
      .join('  ')
      .trimEnd(),
  );
  return [
    `Guidance adherence of workspace ${report.workspace_id}, ${report.from_month} to ${report.to_month} (UTC months): within ±${report.band_pct}% of the guided price follows it; groups under ${report.thin_evidence_lines} lines are thin evidence; leakage in base-currency units`,
    ...lines,
  ].join('\n');
}

function csvCell(cell: string): string {
  return /[",\n]/.test(cell) ? `"${cell.replaceAll('"', '""')}"` : cell;
}

export function reportCsv(report: AdherenceReport): string {
  return [HEADER, ...reportRows(report)].map((cells) => cells.map(csvCell).join(',')).join('\n');
}

/** The longest period a report covers: a few reads of at most this many items per group. */
export const MAX_REPORT_MONTHS = 36;

/**
 * The whole UTC months a report covers: `from` and `to` are days (YYYY-MM-DD) or months (YYYY-MM), both included,
 * widened to their months; by default the twelve months up to this one. Undefined with a message when they do not read.
 */
export function reportPeriod(from: string | undefined, to: string | undefined, now: Date): { fromMonth: string; toMonth: string } | string {
  const month = (text: string | undefined, name: string): string | undefined | Error => {
    if (text === undefined) return undefined;
    const match = /^(\d{4})-(\d{2})(?:-(\d{2}))?$/.exec(text);
    const iso = match ? `${match[1]}-${match[2]}-${match[3] ?? '01'}T00:00:00Z` : '';
    if (!match || Number.isNaN(Date.parse(iso)) || new Date(iso).toISOString().slice(0, 10) !== iso.slice(0, 10)) {
      return new Error(`${name} must be a UTC day (YYYY-MM-DD) or month (YYYY-MM)`);
    }
    return text.slice(0, 7);
  };
  const toMonth = month(to, 'to');
  const fromMonth = month(from, 'from');
  if (toMonth instanceof Error) return toMonth.message;
  if (fromMonth instanceof Error) return fromMonth.message;
  const end = toMonth ?? now.toISOString().slice(0, 7);
  const [year, number] = end.split('-').map(Number) as [number, number];
  const start = fromMonth ?? new Date(Date.UTC(year, number - 12, 1)).toISOString().slice(0, 7);
  if (start > end) return 'from must not be after to';
  const [startYear, startNumber] = start.split('-').map(Number) as [number, number];
  if ((year - startYear) * 12 + (number - startNumber) + 1 > MAX_REPORT_MONTHS)
    return `a report covers at most ${MAX_REPORT_MONTHS} months`;
  return { fromMonth: start, toMonth: end };
}
