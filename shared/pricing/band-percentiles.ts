// Weighted percentiles for many nodes at once: each line kept once in columns with the nodes it belongs to, then two ordered passes settle every node's band.
import type { Band } from './model.ts';
import type { PricingSettings } from './settings.ts';

/**
 * One node's running totals. A node never holds its own list of lines: the realised lines are kept once, in columns,
 * each with the nodes it belongs to, and two passes over all of them, one in margin order and one in quantity order,
 * settle every node's percentiles. That is two sorts per category however many nodes it has, and memory linear in its
 * lines with no object per line.
 */
export interface Accumulator {
  sumW: number;
  sumW2: number;
  sumWM: number;
  newestAtMs: number;
  squares: number;
  byMargin: number;
  byQuantity: number;
  /** Bit flags: floor, target, stretch, median quantity found. */
  found: number;
  floor: number;
  target: number;
  stretch: number;
  medianQuantity: number;
  lastMargin: number;
  lastQuantity: number;
}

const FLOOR = 1;
const TARGET = 2;
const STRETCH = 4;
export const MEDIAN = 8;

export function newAccumulator(): Accumulator {
  return {
    sumW: 0,
    sumW2: 0,
    sumWM: 0,
    newestAtMs: -Infinity,
    squares: 0,
    byMargin: 0,
    byQuantity: 0,
    found: 0,
    floor: Number.NaN,
    target: Number.NaN,
    stretch: Number.NaN,
    medianQuantity: Number.NaN,
    lastMargin: Number.NaN,
    lastQuantity: Number.NaN,
  };
}

/** Realised lines, column by column; line i belongs to nodes[i·stride … i·stride + stride − 1] (undefined for none). */
export interface Lines {
  readonly margins: number[];
  readonly weights: number[];
  readonly quantities: number[];
  readonly nodes: (Accumulator | undefined)[];
  readonly stride: number;
}

export function addLine(
  lines: Lines,
  margin: number,
  weight: number,
  quantity: number,
  atMs: number,
  nodes: readonly (Accumulator | undefined)[],
): void {
  lines.margins.push(margin);
  lines.weights.push(weight);
  lines.quantities.push(quantity);
  for (const node of nodes) {
    lines.nodes.push(node);
    if (!node) continue;
    node.sumW += weight;
    node.sumW2 += weight * weight;
    node.sumWM += weight * margin;
    if (atMs > node.newestAtMs) node.newestAtMs = atMs;
  }
}

/**
 * Line indices in ascending order of a column: a bottom-up merge sort of the indices on a typed copy of the keys. It is
 * several times faster than Array or TypedArray sort with a comparator, which calls back into JS for every comparison,
 * and its n log n holds for any input.
 */
function orderBy(column: readonly number[]): Uint32Array {
  const n = column.length;
  const keys = Float64Array.from(column);
  let from = new Uint32Array(n);
  let to = new Uint32Array(n);
  for (let i = 0; i < n; i++) from[i] = i;
  for (let width = 1; width < n; width *= 2) {
    for (let lo = 0; lo < n; lo += 2 * width) {
      const mid = Math.min(lo + width, n);
      const hi = Math.min(lo + 2 * width, n);
      let i = lo;
      let j = mid;
      let k = lo;
      while (i < mid && j < hi) {
        const left = from[i] ?? 0;
        const right = from[j] ?? 0;
        if ((keys[right] ?? 0) < (keys[left] ?? 0)) {
          to[k++] = right;
          j++;
        } else {
          to[k++] = left;
          i++;
        }
      }
      to.set(from.subarray(i, mid), k);
      to.set(from.subarray(j, hi), k + mid - i);
    }
    [from, to] = [to, from];
  }
  return from;
}

/**
 * Weighted percentiles: for each p, the first value whose cumulative weight reaches p/100 · Σw. The squares for the
 * coefficient of variation ride along on the margin pass, once every node's Σw·m, and so its mean, is known.
 */
export function settle(lines: Lines, settings: PricingSettings): void {
  const { margins, weights, quantities, nodes, stride } = lines;
  const floorShare = settings.floorPercentile / 100;
  const targetShare = settings.targetPercentile / 100;
  const stretchShare = settings.stretchPercentile / 100;
  for (const i of orderBy(margins)) {
    const margin = margins[i] ?? 0;
    const weight = weights[i] ?? 0;
    for (let j = i * stride; j < (i + 1) * stride; j++) {
      const node = nodes[j];
      if (!node) continue;
      const deviation = margin - node.sumWM / node.sumW;
      node.squares += weight * deviation * deviation;
      node.byMargin += weight;
      node.lastMargin = margin;
      if (!(node.found & FLOOR) && node.byMargin >= floorShare * node.sumW) {
        node.floor = margin;
        node.found |= FLOOR;
      }
      if (!(node.found & TARGET) && node.byMargin >= targetShare * node.sumW) {
        node.target = margin;
        node.found |= TARGET;
      }
      if (!(node.found & STRETCH) && node.byMargin >= stretchShare * node.sumW) {
        node.stretch = margin;
        node.found |= STRETCH;
      }
    }
  }
  for (const i of orderBy(quantities)) {
    const quantity = quantities[i] ?? 0;
    const weight = weights[i] ?? 0;
    for (let j = i * stride; j < (i + 1) * stride; j++) {
      const node = nodes[j];
      if (!node) continue;
      node.byQuantity += weight;
      node.lastQuantity = quantity;
      if (!(node.found & MEDIAN) && node.byQuantity >= 0.5 * node.sumW) {
        node.medianQuantity = quantity;
        node.found |= MEDIAN;
      }
    }
  }
}

/** The node's band; float sums can leave a percentile at 100 a hair short of Σw, which then falls back to the last value. */
export function bandOf(node: Accumulator, asOfMs: number): Band | undefined {
  const { sumW, sumW2 } = node;
  if (!(sumW > 0)) return undefined;
  const mean = node.sumWM / sumW;
  return {
    floor: node.found & FLOOR ? node.floor : node.lastMargin,
    target: node.found & TARGET ? node.target : node.lastMargin,
    stretch: node.found & STRETCH ? node.stretch : node.lastMargin,
    nEff: (sumW * sumW) / sumW2,
    medianQuantity: node.found & MEDIAN ? node.medianQuantity : node.lastQuantity,
    cov: mean === 0 ? 0 : Math.sqrt(node.squares / sumW) / Math.abs(mean),
    newestAtMs: node.newestAtMs,
    sumW,
    sumW2,
    asOfMs,
  };
}

export function nested(map: Map<string, Map<string, Accumulator>>, outer: string, inner: string): Accumulator {
  let byInner = map.get(outer);
  if (!byInner) {
    byInner = new Map();
    map.set(outer, byInner);
  }
  let node = byInner.get(inner);
  if (!node) {
    node = newAccumulator();
    byInner.set(inner, node);
  }
  return node;
}

export function bandsOf(nodes: Map<string, Map<string, Accumulator>>, asOfMs: number): Map<string, Map<string, Band>> {
  const result = new Map<string, Map<string, Band>>();
  for (const [outer, inner] of nodes) {
    const bands = new Map<string, Band>();
    for (const [key, node] of inner) {
      const band = bandOf(node, asOfMs);
      if (band) bands.set(key, band);
    }
    if (bands.size > 0) result.set(outer, bands);
  }
  return result;
}
