// Pricing one line: the base, the margin steps, the guardrails and rounding, then confidence, stance and explanation.
import { customerHistory, quantityBreak, stockPremium, winModelPull } from './adjustments.ts';
import { lineConfidence } from './confidence.ts';
import { shortExplanation } from './explanation.ts';
import { type Guardrails, guardrails, roundWithinBounds } from './guardrails.ts';
import { baseStep, type LineBase, lineBase } from './line-base.ts';
import type { LineBands, LineInputs, PricedLine } from './model.ts';
import { bps, reasonStack } from './reason-stack.ts';
import { workspaceWinLift } from './win-lift.ts';
import type { PricingSettings } from './settings.ts';
import { lineStance } from './stance.ts';

// Callers and tests know the engine by this module, the base included.

export function priceLine(inputs: LineInputs, bands: LineBands, settings: PricingSettings): PricedLine {
  return priceLineWithBasis(inputs, bands, settings).line;
}

/** A priced line with what it stood on: the shrunk base band, and each guardrail's clamp. */
export interface PricedLineBasis {
  readonly line: PricedLine;
  readonly base: LineBase;
  readonly guarded: Guardrails;
}

/** The same price as priceLine, with the base and guardrails that a stored recommendation explains itself with. */
export function priceLineWithBasis(inputs: LineInputs, bands: LineBands, settings: PricingSettings): PricedLineBasis {
  const { product } = inputs;
  const base = lineBase(inputs, bands, settings);
  const customer = customerHistory(base, inputs, bands, settings);
  const evidence = customer ?? base;
  // Each margin step starts from the last one that applied; the guardrails, from the last of them.
  const quantity = quantityBreak(evidence, base, inputs, settings);
  const win = winModelPull(quantity ?? evidence, evidence, base, bands, inputs, settings);
  // Only a line without a standing win model borrows its segment's lift from the workspace's models.
  const lift = win ? undefined : workspaceWinLift(quantity ?? evidence, base, bands, settings);
  const moved = win ?? lift;
  const stock = stockPremium(moved ?? quantity ?? evidence, base, product, settings);
  const guarded = guardrails(stock ?? moved ?? quantity ?? evidence, base, inputs, settings);
  const priceCents = roundWithinBounds(guarded);
  const stack = reasonStack(
    [
      baseStep(base, product.currentPriceCents),
      customer,
      quantity,
      moved,
      stock,
      guarded.minMargin,
      guarded.floor,
      guarded.map,
      guarded.ceiling,
      guarded.maxChange,
    ],
    base,
    (priceCents - product.costCents) / priceCents,
  );
  const confidence = lineConfidence(evidence, base.depth, inputs, settings, win);
  const stance = lineStance(evidence, guarded, priceCents, stack.finalBps, confidence.label, settings.negotiableRoomBps);
  const line: PricedLine = {
    priceCents,
    reason: stack.reason,
    reasonSummary: stack.summary,
    explanation: {
      short: shortExplanation(stack.drivers, stack.finalBps - stack.baseBps, base.depth),
      drivers: stack.drivers,
      stance,
      marginPct: stack.finalBps / 100,
      targetMarginPct: bps(evidence.target) / 100,
      confidence: confidence.label,
    },
    guardrailsApplied: guarded.applied,
    confidence: confidence.label,
    confidenceScore: confidence.score,
    bounds: { lowerCents: guarded.lowestCents, ceilingCents: guarded.ceilingCents },
  };
  return { line, base, guarded };
}
