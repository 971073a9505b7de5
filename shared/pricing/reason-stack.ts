// The reason stack: the steps that moved the margin, how their labels write numbers, and how they add up to the entries.
import { formatMinorUnits } from './currency.ts';
import type { Driver, ReasonEntry, ReasonScope } from './model.ts';

/** One step of the stack, with the cumulative margin it left the line at. */
export interface ReasonStep {
  readonly param: string;
  readonly scope: ReasonScope;
  readonly label: string;
  readonly margin: number;
  /** A guardrail's clamp: kept in the stack even when its move rounds to 0 bps, since guardrailsApplied names it. */
  readonly clamp?: boolean;
}

/** What the summary and the explanation call the base, by its depth. */
export const baseNames = ['segment target', 'segment target', 'category target', 'workspace target', 'list price'] as const;

const summaryNames: Readonly<Record<string, string>> = {
  customer_history: 'customer history',
  quantity: 'quantity',
  win_model: 'win model',
  stock: 'stock',
  min_margin: 'min margin',
  floor: 'floor',
  map: 'MAP',
  ceiling: 'ceiling',
  max_change: 'max change',
  keep: 'keep current',
};

/** Adding 0 turns a −0 from rounding a tiny negative margin into 0. */
export const bps = (margin: number) => Math.round(margin * 10_000) + 0;

export const percent = (margin: number) => `${(margin * 100).toFixed(2)}%`;
export const amount = (cents: number) => (Number.isInteger(cents) ? String(cents) : cents.toFixed(2));
/**
 * Money as a label says it, in major units with its code ("3.83 USD"): a label is read by people, in the console and
 * in an ERP's price note, who read no minor units. A converted amount may be fractional; the label rounds it.
 */
export const money = (minorUnits: number, currency: string) => `${formatMinorUnits(Math.round(minorUnits), currency)} ${currency}`;

/**
 * Whole basis points as points to two decimals, character for character what (bps / 100).toFixed(2) writes: below
 * 10^15 the quotient is within 0.001 of the exact hundredths. toFixed is a runtime call, and was the engine's largest
 * single cost.
 */
export function points(wholeBps: number): string {
  if (!Number.isSafeInteger(wholeBps) || Math.abs(wholeBps) >= 1e15) return (wholeBps / 100).toFixed(2);
  const size = Math.abs(wholeBps);
  const hundredths = size % 100;
  return `${wholeBps < 0 ? '-' : ''}${(size - hundredths) / 100}.${hundredths < 10 ? '0' : ''}${hundredths}`;
}

const signedPoints = (deltaBps: number) => `${deltaBps < 0 ? '−' : '+'}${points(Math.abs(deltaBps))}`;

/** What the stack reads of the line's base (a `LineBase`): the margin the entries start from, and the depth that names it. */
export interface StackBase {
  readonly margin: number;
  /** 0 segment × SKU, 1 segment × category, 2 category, 3 workspace, 4 list price. */
  readonly depth: number;
}

export interface ReasonStack {
  readonly reason: ReasonEntry[];
  readonly drivers: Driver[];
  readonly summary: string;
  readonly baseBps: number;
  readonly finalBps: number;
}

/**
 * The entries telescope: each is the change of the rounded cumulative margin, and the last step ends at the final
 * integer price's margin, so they sum exactly to final minus base. `steps` starts with the base; a step that did not
 * apply is undefined.
 */
export function reasonStack(steps: readonly (ReasonStep | undefined)[], base: StackBase, finalMargin: number): ReasonStack {
  const baseBps = bps(base.margin);
  const finalBps = bps(finalMargin);
  let last = steps.length - 1;
  while (last > 0 && !steps[last]) last--;
  const [first] = steps;
  const reason: ReasonEntry[] = first ? [{ param: first.param, marginDeltaBps: 0, label: first.label, scope: first.scope }] : [];
  const drivers: Driver[] = [];
  let summary = `${baseNames[base.depth]} ${points(baseBps)}%`;
  let previous = baseBps;
  for (let i = 1; i < steps.length; i++) {
    const step = steps[i];
    if (!step) continue;
    const current = i === last ? finalBps : bps(step.margin);
    const delta = current - previous;
    previous = current;
    if (delta === 0 && !step.clamp) continue;
    reason.push({ param: step.param, marginDeltaBps: delta, label: step.label, scope: step.scope });
    summary += ` · ${summaryNames[step.param] ?? step.param} ${signedPoints(delta)}`;
    if (delta === 0) continue;
    drivers.push({ param: step.param, label: step.label, points: delta / 100, direction: delta > 0 ? 'up' : 'down' });
  }
  summary += ` · final ${points(finalBps)}%`;
  return { reason, drivers, summary, baseBps, finalBps };
}
