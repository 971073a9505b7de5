// Confidence: how far a price could be from the best one, from the win model's error, or the margins' credibility, depth, spread and age.
import type { Evidence, WinModelStep } from './adjustments.ts';
import type { ConfidenceLabel, LineInputs } from './model.ts';
import type { PricingSettings } from './settings.ts';
import { clamp, credibility } from './shrinkage.ts';

const DAY_MS = 86_400_000;

export interface LineConfidence {
  /** 0 to 1, to the hundredth. */
  readonly score: number;
  readonly label: ConfidenceLabel;
}

/** The margin error (a standard deviation) at which a priced line's score is 1, and the score lost per unit of margin beyond it. */
const SURE_MARGIN_ERROR = 0.03;
const SCORE_PER_UNIT = 10;

/**
 * A line priced by a win model is as sure as its margin is likely to be right: 1 when its likely error is 3 points
 * or less, 0.1 less per point beyond (`high`, 0.7, is within 6 points; `low` is past 9), times the same discounts
 * the margins get for a SKU the segment has not quoted (0.1 per level the base fell back) and for a model of few
 * quotes (n_eff / (n_eff + 20)), aged like the band.
 */
function modelScore(win: WinModelStep, depth: number): number {
  return (1 - SCORE_PER_UNIT * Math.max(0, win.marginError - SURE_MARGIN_ERROR)) * (1 - 0.1 * depth) * win.sampleCredibility;
}

/**
 * Each level above segment × SKU says less about this line, and so do scattered margins and old ones. Where a win
 * model priced the line, its confidence says instead how far the price could be from the best one (modelScore).
 */
export function lineConfidence(
  evidence: Evidence,
  depth: number,
  inputs: LineInputs,
  settings: PricingSettings,
  win?: WinModelStep,
): LineConfidence {
  const used = evidence.node;
  let raw = 0;
  if (used) {
    const ageDays = Math.max(0, (inputs.nowMs - used.newestAtMs) / DAY_MS);
    const recency = 0.5 ** (ageDays / settings.halfLifeDays);
    const cov = Math.min(Math.max(used.cov, 0), 1);
    const margins = credibility(used.nEff, settings.credibilityK) * (1 - 0.1 * depth) * (1 - 0.5 * cov) * recency;
    raw = win && Number.isFinite(win.marginError) ? modelScore(win, depth) * recency : margins;
  }
  const score = Math.round(clamp(raw, 0, 1) * 100) / 100;
  return { score, label: score >= 0.7 ? 'high' : score >= 0.4 ? 'medium' : 'low' };
}
