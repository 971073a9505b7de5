// Confidence: how far the evidence behind a price can be trusted, from its credibility, depth, spread and age.
import type { Evidence } from './adjustments.ts';
import type { ConfidenceLabel, LineInputs } from './model.ts';
import type { PricingSettings } from './settings.ts';
import { clamp, credibility } from './shrinkage.ts';

const DAY_MS = 86_400_000;

export interface LineConfidence {
  /** 0 to 1, to the hundredth. */
  readonly score: number;
  readonly label: ConfidenceLabel;
}

/**
 * Each level above segment × SKU says less about this line, and so do scattered margins and old ones. A credible win
 * model says more than the margins alone: the price then stands on what won and lost, not on what was quoted, so
 * the line is as sure as the surer of the two (the model's credibility, aged like the band).
 */
export function lineConfidence(
  evidence: Evidence,
  depth: number,
  inputs: LineInputs,
  settings: PricingSettings,
  winCredibility = 0,
): LineConfidence {
  const used = evidence.node;
  let raw = 0;
  if (used) {
    const ageDays = Math.max(0, (inputs.nowMs - used.newestAtMs) / DAY_MS);
    const recency = 0.5 ** (ageDays / settings.halfLifeDays);
    const cov = Math.min(Math.max(used.cov, 0), 1);
    raw = credibility(used.nEff, settings.credibilityK) * (1 - 0.1 * depth) * (1 - 0.5 * cov) * recency;
    raw = Math.max(raw, winCredibility * recency);
  }
  const score = Math.round(clamp(raw, 0, 1) * 100) / 100;
  return { score, label: score >= 0.7 ? 'high' : score >= 0.4 ? 'medium' : 'low' };
}
