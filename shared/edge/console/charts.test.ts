import { describe, expect, it } from 'vitest';
import { expectShown } from '#test/support/markup.ts';
import { axisTicks, barChart, chartScale, niceCeiling } from './charts.ts';
import { costDollars } from './formats.ts';
import { monthStartMs, timeAxis, timeChart, timeGeometry } from './time-chart.ts';

const spec = {
  id: 'margins',
  title: 'Margin by month',
  description: 'Margins of <LAMP> & co',
  points: [
    { label: '2026-01', value: 31.5 },
    { label: '2026-02', value: 28.25 },
  ],
  format: (value: number) => `${value.toFixed(1)}%`,
  labelHeading: 'Month',
  valueHeading: 'Margin',
};

describe('charts', () => {
  it('never writes the same label on two gridlines: a scale of two cents gets halves, not quarters', () => {
    const labels = axisTicks(chartScale([0.013, 0.004]), costDollars).map(costDollars);
    expect(labels).toEqual(['$0', '$0.01', '$0.02']);
    expect(axisTicks({ min: 0, max: 100 }, (value) => String(value))).toEqual([0, 25, 50, 75, 100]);
  });

  it('round the scale up to 1, 2 or 5 times a power of ten, and reach below 0 only for negative values', () => {
    expect(niceCeiling(31.5)).toBe(50);
    expect(niceCeiling(0.0032)).toBeCloseTo(0.005);
    expect(niceCeiling(0)).toBe(1);
    expect(chartScale([3, 7])).toEqual({ min: 0, max: 10 });
    expect(chartScale([-12, 40])).toEqual({ min: -20, max: 50 });
  });

  it('draw an SVG named by its title and description, with no inline style, and escape what they say', () => {
    const markup = timeChart(spec).text;
    expectShown(markup, 'role="img"');
    expectShown(markup, 'aria-labelledby="margins-wide-title margins-wide-desc"');
    expectShown(markup, '<title id="margins-wide-title">Margin by month</title>');
    expectShown(markup, 'Margins of &lt;LAMP&gt; &amp; co');
    expect(markup).not.toMatch(/style=/);
    expect(markup).not.toContain('<script');
  });

  it('give every point a row of the data table beside the chart', () => {
    const markup = timeChart({ ...spec, detail: { heading: 'Lines', values: ['4', '7'] } }).text;
    expectShown(markup, '<th scope="col">Month</th><th scope="col" class="number">Margin</th><th scope="col" class="number">Lines</th>');
    expectShown(markup, '<th scope="row">2026-01</th><td class="number">31.5%</td><td class="number">4</td>');
    expectShown(markup, '<th scope="row">2026-02</th><td class="number">28.3%</td><td class="number">7</td>');
    // A dot per point in each of the two sizes.
    expect(markup.match(/<circle\s/g)).toHaveLength(4);
  });

  it('show a single point of a line chart as a dot', () => {
    const markup = timeChart({ ...spec, points: [{ label: '2026-03', value: 12 }] }).text;
    expect(markup.match(/<circle\s/g)).toHaveLength(2);
    expect(markup).not.toContain('NaN');
  });
  it('draw one bar per point, and a point of 0 as a bar of no height', () => {
    const markup = barChart({
      ...spec,
      id: 'cost',
      points: [
        { label: 'a', value: 2 },
        { label: 'b', value: 0 },
      ],
    }).text;
    expect(markup.match(/<rect\s/g)).toHaveLength(2);
    expectShown(markup, 'height="0"');
  });

  it('space months by real time, so that 2025-08 and 2026-02 are six months apart and a gap shows as a gap', () => {
    const axis = timeAxis(['2025-08', '2025-09', '2026-02'], 100, 600, 7);
    expect(axis.xOf('2025-08')).toBe(100);
    expect(axis.xOf('2026-02')).toBe(600);
    const days = (from: string, to: string) => (monthStartMs(to) - monthStartMs(from)) / 86_400_000;
    // 31 days, then 153: the gap after September is about five times the step before it, not the same step.
    const ratio = (axis.xOf('2026-02') - axis.xOf('2025-09')) / (axis.xOf('2025-09') - axis.xOf('2025-08'));
    expect(ratio).toBeCloseTo(days('2025-09', '2026-02') / days('2025-08', '2025-09'), 1);
    expect(axis.ticks).toEqual(['2025-08', '2025-09', '2025-10', '2025-11', '2025-12', '2026-01', '2026-02']);
  });

  it('label fewer months on a narrow axis, on whole steps of months', () => {
    expect(timeAxis(['2025-08', '2026-02'], 0, 300, 4).ticks).toEqual(['2025-08', '2025-10', '2025-12', '2026-02']);
    expect(timeAxis(['2023-01', '2026-01'], 0, 300, 4).ticks).toEqual(['2023-01', '2024-01', '2025-01', '2026-01']);
  });

  it('put one month alone in the middle of the axis', () => {
    const axis = timeAxis(['2026-03'], 0, 200, 4);
    expect(axis.xOf('2026-03')).toBeCloseTo(100, 0);
  });

  it('draw the band from its p20 to its p90 and the target across the plot, in a scale that holds both', () => {
    const guided = {
      ...spec,
      points: [{ label: '2026-01', value: 12 }],
      band: { low: 30, high: 45, label: 'Band p20–p90' },
      target: { value: 38, label: 'Target 38.0%' },
    };
    const g = timeGeometry(guided, 'wide');
    expect(g.scale).toEqual({ min: 0, max: 50 });
    const markup = timeChart(guided).text;
    const band = `<rect class="band" x="${g.left}" y="${g.y(45)}" width="${g.right - g.left}" height="${Math.round((g.y(30) - g.y(45)) * 10) / 10}"`;
    expectShown(markup, band);
    expectShown(markup, `<line class="target" x1="${g.left}" x2="${g.right}" y1="${g.y(38)}" y2="${g.y(38)}"`);
    expectShown(markup, '<li><span class="key key-band" aria-hidden="true"></span>Band p20–p90</li>');
  });

  it("draw the phone's chart narrower, so that its labels stay near the size of the text around them", () => {
    const markup = timeChart(spec).text;
    expectShown(markup, 'class="chart-wide"', 'viewBox="0 0 640 260"', 'class="chart-compact"', 'viewBox="0 0 360 260"');
    // At 390 px wide the compact chart draws at about its own size: 14-unit labels stay about 13 px.
    const sizes = [...markup.matchAll(/font-size="(\d+)"/g)].map((match) => Number(match[1]));
    expect(Math.min(...sizes)).toBeGreaterThanOrEqual(14);
  });

  it('join consecutive months with the line, and leave a month without a point as a gap', () => {
    const markup = timeChart({
      ...spec,
      points: [
        { label: '2025-08', value: 30 },
        { label: '2025-09', value: 32 },
        { label: '2026-02', value: 35 },
      ],
    }).text;
    const path = /<path d="([^"]+)"/.exec(markup)?.[1] ?? '';
    expect(path.match(/[ML]/g)).toEqual(['M', 'L', 'M']);
  });
});
