// Pricing one line: the base, the margin steps, the guardrails and rounding, then confidence, stance and explanation.
import { customerHistory, type Evidence, quantityBreak, stockPremium, type WinModelStep, winModelPull } from './adjustments.ts';
import { lineConfidence } from './confidence.ts';
import { shortExplanation } from './explanation.ts';
import { type Guardrails, guardrails, roundWithinBounds } from './guardrails.ts';
import { baseStep, type LineBase, lineBase } from './line-base.ts';
import type { LineBands, LineInputs, PricedLine } from './model.ts';
import { bps, type ReasonStep, reasonStack } from './reason-stack.ts';
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
  return completeLine({ inputs, settings, base, evidence, win }, [customer, quantity, moved, stock]);
}

/** What a line's margin steps stood on: the base, the evidence after customer history, and the win model's step, if any. */
export interface LineSteps {
  readonly inputs: LineInputs;
  readonly settings: PricingSettings;
  readonly base: LineBase;
  readonly evidence: Evidence;
  readonly win: WinModelStep | undefined;
}

/**
 * A line from its margin steps on (each undefined where it did not apply, in order): the guardrails from the last that
 * applied, rounding, the reason stack, confidence, stance and explanation. The price call's steps and a product's
 * recommendation's (recommendations/product-price.ts) end the same way.
 */
export function completeLine(from: LineSteps, steps: readonly (ReasonStep | undefined)[]): PricedLineBasis {
  const { inputs, settings, base, evidence, win } = from;
  const { product } = inputs;
  const last = steps.findLast((step) => step !== undefined) ?? base;
  const guarded = guardrails(last, base, inputs, settings);
  const priceCents = roundWithinBounds(guarded);
  const stack = reasonStack(
    [
      baseStep(base, product.currentPriceCents, inputs.currency),
      ...steps,
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
