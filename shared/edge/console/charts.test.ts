import { describe, expect, it } from 'vitest';
import { expectShown } from '#test/support/markup.ts';
import { barChart, chartScale, lineChart, niceCeiling } from './charts.ts';

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
  it('round the scale up to 1, 2 or 5 times a power of ten, and reach below 0 only for negative values', () => {
    expect(niceCeiling(31.5)).toBe(50);
    expect(niceCeiling(0.0032)).toBeCloseTo(0.005);
    expect(niceCeiling(0)).toBe(1);
    expect(chartScale([3, 7])).toEqual({ min: 0, max: 10 });
    expect(chartScale([-12, 40])).toEqual({ min: -20, max: 50 });
  });

  it('draw an SVG named by its title and description, with no inline style, and escape what they say', () => {
    const markup = lineChart(spec).text;
    expectShown(markup, 'role="img"');
    expectShown(markup, 'aria-labelledby="margins-title margins-desc"');
    expectShown(markup, '<title id="margins-title">Margin by month</title>');
    expectShown(markup, 'Margins of &lt;LAMP&gt; &amp; co');
    expect(markup).not.toMatch(/style=/);
    expect(markup).not.toContain('<script');
  });

  it('give every point a row of the data table beside the chart', () => {
    const markup = lineChart(spec).text;
    expectShown(markup, '<th scope="col">Month</th><th scope="col">Margin</th>');
    expectShown(markup, '<td>2026-01</td><td class="number">31.5%</td>');
    expectShown(markup, '<td>2026-02</td><td class="number">28.3%</td>');
    expect(markup.match(/<circle\s/g)).toHaveLength(2);
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

  it('show a single point of a line chart as a dot', () => {
    const markup = lineChart({ ...spec, points: [{ label: '2026-03', value: 12 }] }).text;
    expect(markup.match(/<circle\s/g)).toHaveLength(1);
    expect(markup).not.toContain('NaN');
  });
});
