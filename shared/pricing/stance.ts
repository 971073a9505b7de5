// Stance: whether the seller should hold the price, has room to negotiate, or is already at the floor.
import type { Evidence } from './adjustments.ts';
import type { Guardrails } from './guardrails.ts';
import type { ConfidenceLabel, Stance } from './model.ts';
import { bps } from './reason-stack.ts';

export function lineStance(
  evidence: Evidence,
  guarded: Guardrails,
  priceCents: number,
  finalBps: number,
  confidence: ConfidenceLabel,
  negotiableRoomBps: number,
): Stance {
  // Without history there is no evidence floor: only the guardrails' lower bound says how far the price can go.
  const effectiveFloor = evidence.node ? Math.max(evidence.floor, guarded.lowerMargin) : guarded.lowerMargin;
  const { applied, lowestCents } = guarded;
  const lowerApplied = applied.includes('min_margin') || applied.includes('floor') || applied.includes('map');
  // At the rounded lower bound, the price is bound by it if a lower guardrail raised it there, or the steps asked for less.
  const boundByLower =
    guarded.raisedByMaxChange || (priceCents <= lowestCents && (lowerApplied || (priceCents === lowestCents && guarded.askedBelowLower)));
  if (boundByLower || finalBps - bps(effectiveFloor) < negotiableRoomBps) return 'at_floor';
  return confidence === 'high' ? 'hold_firm' : 'negotiable';
}
