// The console's charts over months: a line on a true time axis, with a target and a band drawn across it, at a desktop's and a phone's size.
import { ACCENT, type ChartPoint, type ChartSpec, chartScale, GRID, INK, round } from './charts.ts';
import { type Html, html } from './html.ts';

/** A horizontal line or band drawn across a time chart: a target, or the range a value is expected in. */
export interface TimeChartGuides {
  readonly target?: { readonly value: number; readonly label: string };
  readonly band?: { readonly low: number; readonly high: number; readonly label: string };
}

export interface TimeChartSpec extends ChartSpec, TimeChartGuides {
  /** Each point's label is its month, YYYY-MM (UTC). */
  readonly points: readonly ChartPoint[];
  /** A third column of the data table: what stands behind each point (its order lines, say). */
  readonly detail?: { readonly heading: string; readonly values: readonly string[] };
}

/** The start of a YYYY-MM month in ms (UTC): points stand at real time, so a gap of six months is six months wide. */
export function monthStartMs(month: string): number {
  const [year, monthNumber] = month.split('-').map(Number);
  return Date.UTC(year ?? 1970, (monthNumber ?? 1) - 1, 1);
}

function monthIndex(month: string): number {
  const [year, monthNumber] = month.split('-').map(Number);
  return (year ?? 1970) * 12 + (monthNumber ?? 1) - 1;
}

function monthOfIndex(index: number): string {
  return `${Math.floor(index / 12)}-${String((index % 12) + 1).padStart(2, '0')}`;
}

/** Steps between month ticks, in months: the smallest that keeps the labels at most `maxTicks`. */
const MONTH_STEPS = [1, 2, 3, 6, 12, 24, 60];

export interface TimeAxis {
  /** The x of a month, in the plot's units. */
  readonly xOf: (month: string) => number;
  /** The months labelled under the axis: whole steps of months, so that a gap shows as a gap. */
  readonly ticks: readonly string[];
}

/**
 * The x-axis of months between `left` and `right`: the first month at the left, the last at the right, each at its
 * real time between; one month alone sits in the middle.
 */
export function timeAxis(months: readonly string[], left: number, right: number, maxTicks: number): TimeAxis {
  const indexes = months.map(monthIndex);
  const first = Math.min(...indexes);
  const last = Math.max(...indexes);
  if (first === last) return { xOf: () => round((left + right) / 2), ticks: [monthOfIndex(first)] };
  const fromMs = monthStartMs(monthOfIndex(first));
  const spanMs = monthStartMs(monthOfIndex(last)) - fromMs;
  const xOf = (month: string) => round(left + ((monthStartMs(month) - fromMs) / spanMs) * (right - left));
  const step = MONTH_STEPS.find((months) => Math.floor((last - first) / months) + 1 <= maxTicks) ?? (MONTH_STEPS.at(-1) as number);
  const ticks: string[] = [];
  // From the first month, so that the first point is always labelled.
  for (let index = first; index <= last; index += step) ticks.push(monthOfIndex(index));
  return { xOf, ticks };
}

/** Two sizes of the same chart: the phone's is narrower, so that its labels stay at about the page's text size. */
const TIME_SIZES = {
  wide: { width: 640, height: 260, maxTicks: 7, pad: { top: 16, right: 112, bottom: 40, left: 72 } },
  compact: { width: 360, height: 260, maxTicks: 4, pad: { top: 16, right: 36, bottom: 40, left: 56 } },
} as const;
const BAND_FILL = '#dbeafe';
const TARGET = '#b45309';

/** Where a time chart's marks go: its size, the y of a value, and the x-axis of its months. */
interface TimeGeometry {
  readonly size: keyof typeof TIME_SIZES;
  readonly left: number;
  readonly right: number;
  readonly bottom: number;
  readonly scale: { readonly min: number; readonly max: number };
  readonly y: (value: number) => number;
  readonly axis: TimeAxis;
}

/** The geometry of a chart at a size: the value scale takes in the band and the target, so that both are always drawn. */
export function timeGeometry(spec: TimeChartSpec, size: keyof typeof TIME_SIZES): TimeGeometry {
  const { width, height, maxTicks, pad } = TIME_SIZES[size];
  const values = [...spec.points.map((point) => point.value), spec.target?.value, spec.band?.low, spec.band?.high];
  const scale = chartScale(values.filter((value): value is number => value !== undefined));
  const bottom = height - pad.bottom;
  const y = (value: number) => round(bottom - ((value - scale.min) / (scale.max - scale.min)) * (bottom - pad.top));
  const months = spec.points.map((point) => point.label);
  return {
    size,
    left: pad.left,
    right: width - pad.right,
    bottom,
    scale,
    y,
    axis: timeAxis(months, pad.left, width - pad.right, maxTicks),
  };
}

/** The band behind everything, and the target's dashed line across the plot (named at its end on the wide chart). */
function timeGuides(spec: TimeChartSpec, g: TimeGeometry): Html {
  const { band, target } = spec;
  const bandMark = band
    ? html`<rect
        class="band"
        x="${g.left}"
        y="${g.y(band.high)}"
        width="${g.right - g.left}"
        height="${round(g.y(band.low) - g.y(band.high))}"
        fill="${BAND_FILL}"
      ></rect>`
    : '';
  if (!target) return html`${bandMark}`;
  const ty = g.y(target.value);
  const label =
    g.size === 'wide' ? html`<text x="${g.right + 6}" y="${ty + 5}" font-size="14" fill="${TARGET}">${target.label}</text>` : '';
  return html`${bandMark}
    <line
      class="target"
      x1="${g.left}"
      x2="${g.right}"
      y1="${ty}"
      y2="${ty}"
      stroke="${TARGET}"
      stroke-width="2"
      stroke-dasharray="6 4"
    ></line>
    ${label}`;
}

/** Gridlines and labels of the values, and a tick and label under each month of the axis's step. */
function timeAxes(spec: TimeChartSpec, g: TimeGeometry): Html {
  const values = [0, 0.5, 1].map((share) => g.scale.min + share * (g.scale.max - g.scale.min));
  return html`${values.map(
    (value) =>
      html`<line x1="${g.left}" x2="${g.right}" y1="${g.y(value)}" y2="${g.y(value)}" stroke="${GRID}" stroke-width="1"></line>
        <text x="${g.left - 8}" y="${g.y(value) + 5}" text-anchor="end" font-size="14" fill="${INK}">${spec.format(value)}</text>`,
  )}
  ${g.axis.ticks.map((month) => {
    const x = g.axis.xOf(month);
    return html`<line x1="${x}" x2="${x}" y1="${g.bottom}" y2="${g.bottom + 6}" stroke="${INK}" stroke-width="1"></line>
      <text x="${x}" y="${g.bottom + 22}" text-anchor="middle" font-size="14" fill="${INK}">${month}</text>`;
  })}`;
}

function timeSvg(spec: TimeChartSpec, size: keyof typeof TIME_SIZES): Html {
  const { width, height } = TIME_SIZES[size];
  const g = timeGeometry(spec, size);
  // The line joins consecutive months only: a month without a point is a gap, not a slope.
  const path = spec.points
    .map((point, index) => {
      const joined = index > 0 && monthIndex(point.label) - monthIndex(spec.points[index - 1]?.label ?? '') === 1;
      return `${joined ? 'L' : 'M'}${g.axis.xOf(point.label)},${g.y(point.value)}`;
    })
    .join(' ');
  const id = `${spec.id}-${size}`;
  return html`<svg
    id="${id}"
    class="chart-${size}"
    role="img"
    aria-labelledby="${id}-title ${id}-desc"
    viewBox="0 0 ${width} ${height}"
    width="100%"
    preserveAspectRatio="xMidYMid meet"
    xmlns="http://www.w3.org/2000/svg"
  >
    <title id="${id}-title">${spec.title}</title>
    <desc id="${id}-desc">${spec.description}</desc>
    ${timeGuides(spec, g)} ${timeAxes(spec, g)}
    <path d="${path}" fill="none" stroke="${ACCENT}" stroke-width="2"></path>
    ${spec.points.map((point) => html`<circle cx="${g.axis.xOf(point.label)}" cy="${g.y(point.value)}" r="4" fill="${ACCENT}"></circle>`)}
  </svg>`;
}

/** What the chart draws, in words under it: the line, and the band and target when there are. */
function timeLegend(spec: TimeChartSpec): Html {
  return html`<ul class="legend">
    <li><span class="key key-line" aria-hidden="true"></span>${spec.valueHeading}</li>
    ${spec.band ? html`<li><span class="key key-band" aria-hidden="true"></span>${spec.band.label}</li>` : ''}
    ${spec.target ? html`<li><span class="key key-target" aria-hidden="true"></span>${spec.target.label}</li>` : ''}
  </ul>`;
}

/**
 * A line over months on a true time axis, with the band and the target drawn across it, at two sizes (the stylesheet
 * shows the phone's on a phone), and its data as a table beside it.
 */
export function timeChart(spec: TimeChartSpec): Html {
  return html`<figure class="chart time-chart">
    <figcaption>${spec.title}</figcaption>
    <div class="chart-plot">${timeSvg(spec, 'wide')} ${timeSvg(spec, 'compact')} ${timeLegend(spec)}</div>
    <div class="table-wrap chart-data" tabindex="0" role="region" aria-label="${`${spec.title}: the data`}">
      <table class="data">
        <caption>
          ${spec.title}: the data
        </caption>
        <thead>
          <tr>
            <th scope="col">${spec.labelHeading}</th>
            <th scope="col" class="number">${spec.valueHeading}</th>
            ${spec.detail ? html`<th scope="col" class="number">${spec.detail.heading}</th>` : ''}
          </tr>
        </thead>
        <tbody>
          ${spec.points.map(
            (point, index) =>
              html`<tr>
                <th scope="row">${point.label}</th>
                <td class="number">${spec.format(point.value)}</td>
                ${spec.detail ? html`<td class="number">${spec.detail.values[index] ?? ''}</td>` : ''}
              </tr>`,
          )}
        </tbody>
      </table>
    </div>
  </figure>`;
}
