// The console's charts: server-rendered SVG with presentation attributes only (the CSP allows no inline style), each with its data as a table.
import { type Html, html } from './html.ts';

export interface ChartPoint {
  /** The x-axis label: a day, a month, a route. */
  readonly label: string;
  readonly value: number;
}

export interface ChartSpec {
  /** Unique on the page: it ties the SVG to its title and description. */
  readonly id: string;
  readonly title: string;
  readonly description: string;
  readonly points: readonly ChartPoint[];
  /** How a value is written on the axis and in the table. */
  readonly format: (value: number) => string;
  /** The headings of the data table's columns: the labels', then the values'. */
  readonly labelHeading: string;
  readonly valueHeading: string;
}

const WIDTH = 640;
const HEIGHT = 240;
// Room on the right for the last label under the axis, which is centred on its point.
const PAD = { top: 16, right: 40, bottom: 40, left: 88 };
export const INK = '#1f2933';
export const GRID = '#cbd2d9';
export const ACCENT = '#1d4ed8';

/** Rounds the scale's top up to 1, 2 or 5 times a power of ten, so gridlines fall on numbers a person reads easily. */
export function niceCeiling(value: number): number {
  if (value <= 0) return 1;
  const power = 10 ** Math.floor(Math.log10(value));
  const step = [1, 2, 5, 10].find((factor) => factor * power >= value) ?? 10;
  return step * power;
}

/** The value range the axis spans: from 0 (or below, for negative values) to a round ceiling. */
export function chartScale(values: readonly number[]): { min: number; max: number } {
  const max = niceCeiling(Math.max(0, ...values));
  const lowest = Math.min(0, ...values);
  return { min: lowest < 0 ? -niceCeiling(-lowest) : 0, max };
}

export function round(value: number): number {
  return Math.round(value * 10) / 10;
}

/** Labels are thinned so that at most this many show under the axis; the table has every one. */
const MAX_LABELS = 8;

/**
 * The gridlines' values: quarters of the scale, or halves, or its ends, the first whose labels all differ. A scale of
 * two cents in quarters would write "$0.01" twice, once for the cent and once for a cent and a half.
 */
export function axisTicks(scale: { min: number; max: number }, format: (value: number) => string): number[] {
  const at = (shares: readonly number[]) => shares.map((share) => scale.min + share * (scale.max - scale.min));
  for (const shares of [
    [0, 0.25, 0.5, 0.75, 1],
    [0, 0.5, 1],
  ]) {
    const ticks = at(shares);
    if (new Set(ticks.map(format)).size === ticks.length) return ticks;
  }
  return at([0, 1]);
}

function frame(spec: ChartSpec, marks: Html, scale: { min: number; max: number }): Html {
  const plotHeight = HEIGHT - PAD.top - PAD.bottom;
  const y = (value: number) => round(PAD.top + plotHeight - ((value - scale.min) / (scale.max - scale.min)) * plotHeight);
  const ticks = axisTicks(scale, spec.format);
  const titleId = `${spec.id}-title`;
  const descId = `${spec.id}-desc`;
  return html`<figure class="chart">
    <svg
      id="${spec.id}"
      role="img"
      aria-labelledby="${titleId} ${descId}"
      viewBox="0 0 ${WIDTH} ${HEIGHT}"
      width="100%"
      preserveAspectRatio="xMidYMid meet"
      xmlns="http://www.w3.org/2000/svg"
    >
      <title id="${titleId}">${spec.title}</title>
      <desc id="${descId}">${spec.description}</desc>
      ${ticks.map(
        (tick) =>
          html`<line x1="${PAD.left}" x2="${WIDTH - PAD.right}" y1="${y(tick)}" y2="${y(tick)}" stroke="${GRID}" stroke-width="1"></line>
            <text x="${PAD.left - 8}" y="${y(tick) + 4}" text-anchor="end" font-size="12" fill="${INK}">${spec.format(tick)}</text>`,
      )}
      ${marks}
    </svg>
    <figcaption>${spec.title}</figcaption>
    <details>
      <summary>${spec.title}: the data</summary>
      <table>
        <thead>
          <tr>
            <th scope="col">${spec.labelHeading}</th>
            <th scope="col">${spec.valueHeading}</th>
          </tr>
        </thead>
        <tbody>
          ${spec.points.map(
            (point) =>
              html`<tr>
                <td>${point.label}</td>
                <td class="number">${spec.format(point.value)}</td>
              </tr>`,
          )}
        </tbody>
      </table>
    </details>
  </figure>`;
}

function xLabels(spec: ChartSpec, xOf: (index: number) => number): Html[] {
  const every = Math.max(1, Math.ceil(spec.points.length / MAX_LABELS));
  return spec.points.flatMap((point, index) =>
    index % every === 0
      ? [
          html`<text x="${round(xOf(index))}" y="${HEIGHT - PAD.bottom + 18}" text-anchor="middle" font-size="12" fill="${INK}"
            >${point.label}</text
          >`,
        ]
      : [],
  );
}

/** Bars per day or per route (the cost page). */
export function barChart(spec: ChartSpec): Html {
  const scale = chartScale(spec.points.map((point) => point.value));
  const plotWidth = WIDTH - PAD.left - PAD.right;
  const plotHeight = HEIGHT - PAD.top - PAD.bottom;
  const slot = plotWidth / Math.max(1, spec.points.length);
  const barWidth = round(Math.max(1, Math.min(48, slot * 0.7)));
  const yOf = (value: number) => PAD.top + plotHeight - ((value - scale.min) / (scale.max - scale.min)) * plotHeight;
  const zero = yOf(0);
  const xOf = (index: number) => PAD.left + slot * index + slot / 2;
  const marks = html`${spec.points.map((point, index) => {
    const top = Math.min(zero, yOf(point.value));
    return html`<rect
      x="${round(xOf(index) - barWidth / 2)}"
      y="${round(top)}"
      width="${barWidth}"
      height="${round(Math.abs(zero - yOf(point.value)))}"
      fill="${ACCENT}"
      ><title>${point.label}: ${spec.format(point.value)}</title></rect
    >`;
  })}
  ${xLabels(spec, xOf)}`;
  return frame(spec, marks, scale);
}
