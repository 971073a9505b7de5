// The rules an approval is held to beyond its bounds, free of storage: how far it moves the price, when that needs confirming or a second approver, and who approved.
import { ApiError } from '#platform/errors.ts';
import type { DataWarning } from '#shared/canonical/data-warnings.ts';
import { formatMinorUnits } from '#shared/pricing/currency.ts';
import type { Person } from '#shared/api-keys/schema.ts';
import type { PricingSettings } from '#shared/pricing/settings.ts';
import type { Approval, ApproverIdentity, Confirmation } from './schema.ts';

/** How long an approval waits for a second approver before it expires. */
export const SECOND_APPROVAL_HOURS = 24;

export interface ApprovalThresholds {
  /** A move past this percent, either way, must be confirmed. */
  readonly confirmPct: number;
  /** A move past this percent waits for a second approver; undefined when the workspace asks for none. */
  readonly secondApprovalPct: number | undefined;
}

/** The workspace's thresholds: confirmation defaults to its max-change percentage, the second approver to none. */
export function approvalThresholds(
  settings: Pick<PricingSettings, 'maxChangePct' | 'approvalConfirmPct' | 'secondApprovalPct'>,
): ApprovalThresholds {
  return { confirmPct: settings.approvalConfirmPct ?? settings.maxChangePct, secondApprovalPct: settings.secondApprovalPct };
}

/** The move from the current price, in percent to 2 decimals; null when there is no current price (0) to move from. */
export function moveFromCurrent(priceCents: number, currentPriceCents: number): number | null {
  if (currentPriceCents <= 0) return null;
  return Math.round(((priceCents - currentPriceCents) / currentPriceCents) * 10_000) / 100 + 0;
}

/**
 * Whether the move goes past a threshold, to the minor unit: more than half a minor unit beyond the threshold's
 * amount, so that a price the engine rounded to the edge of its own max-change bound is within it. A product with no
 * current price has nothing to measure a move from: every price is past any threshold.
 */
export function movesPast(priceCents: number, currentPriceCents: number, thresholdPct: number): boolean {
  if (currentPriceCents <= 0) return true;
  return Math.abs(priceCents - currentPriceCents) * 100 > thresholdPct * currentPriceCents + 50;
}

/** What a confirmation-required refusal says, for the console to show on its confirmation step. */
export interface PendingConfirmation {
  readonly sku: string;
  readonly currency: string;
  readonly priceCents: number;
  readonly currentPriceCents: number;
  readonly changePct: number | null;
  readonly thresholdPct: number;
  /** Whether the move goes past the threshold: a product held by data warnings needs confirming whatever its move. */
  readonly large: boolean;
  /** The product's data warnings, each of which the confirmation names; empty when it has none. */
  readonly warnings: readonly DataWarning[];
}

/** The refusal of an unconfirmed large move, or of a product held by data warnings: 422 `confirmation_required`, naming both. */
export class ConfirmationRequired extends ApiError {
  readonly pending: PendingConfirmation;

  constructor(pending: PendingConfirmation) {
    const shown = (cents: number) => `${formatMinorUnits(cents, pending.currency)} ${pending.currency}`;
    const move =
      pending.changePct === null
        ? `${pending.sku} has no current price to move from`
        : `that is ${pending.changePct > 0 ? '+' : ''}${pending.changePct.toFixed(2)}% from the current price ${shown(pending.currentPriceCents)}`;
    const reasons = [
      ...(pending.large ? [`${move}, past the ${pending.thresholdPct}% an approval may move it unconfirmed`] : []),
      ...(pending.warnings.length > 0
        ? [
            `the data of ${pending.sku} looks wrong: ${pending.warnings.map((warning) => `${warning.code} (${warning.message})`).join('; ')}`,
          ]
        : []),
    ];
    super(
      'confirmation_required',
      `price ${shown(pending.priceCents)}: ${reasons.join('; and ')}. Approve again with "confirm": true to publish it.`,
    );
    this.pending = pending;
  }
}

/**
 * The confirmation a move needs: none within the threshold on data in line; past it, or on a product held by data
 * warnings, the request's `confirm` or a refusal that names each warning. The floor and the ceiling are checked
 * before, and no confirmation lifts them.
 */
export function confirmMove(
  move: Omit<PendingConfirmation, 'changePct' | 'thresholdPct' | 'large' | 'warnings'>,
  thresholds: ApprovalThresholds,
  confirm: boolean | undefined,
  warnings: readonly DataWarning[] = [],
): Confirmation | undefined {
  const large = movesPast(move.priceCents, move.currentPriceCents, thresholds.confirmPct);
  if (!large && warnings.length === 0) return undefined;
  const changePct = moveFromCurrent(move.priceCents, move.currentPriceCents);
  if (confirm !== true) throw new ConfirmationRequired({ ...move, changePct, thresholdPct: thresholds.confirmPct, large, warnings });
  return {
    thresholdPct: thresholds.confirmPct,
    changePct,
    ...(warnings.length === 0 ? {} : { warnings: warnings.map((warning) => warning.code) }),
  };
}

/** The threshold that makes this move wait for a second approver, or undefined when one approval publishes it. */
export function secondApprovalThreshold(priceCents: number, currentPriceCents: number, thresholds: ApprovalThresholds): number | undefined {
  const threshold = thresholds.secondApprovalPct;
  return threshold !== undefined && movesPast(priceCents, currentPriceCents, threshold) ? threshold : undefined;
}

/** When a waiting approval made at this moment expires. */
export function waitingUntil(approvedAt: string): string {
  return new Date(Date.parse(approvedAt) + SECOND_APPROVAL_HOURS * 3_600_000).toISOString();
}

/** Who approved a stored approval: its own record, or for an older one its key id (a console user's id is `usr_…`). */
export function approverOf(approval: Pick<Approval, 'approver' | 'keyId'>): ApproverIdentity {
  return approval.approver ?? { type: approval.keyId.startsWith('usr_') ? 'console_user' : 'api_key', id: approval.keyId };
}

/** The person behind a stored approval: its own record, or for an older one its approver alone. */
export function personOf(approval: Pick<Approval, 'approver' | 'keyId' | 'person'>): Person {
  if (approval.person) return approval.person;
  const approver = approverOf(approval);
  return { type: approver.type, id: approver.id };
}

/**
 * Whether `second` is another person than `first`, who started the wait at `waitingSince`: not the same person (a key
 * counts as its creator), and not a console user that `first` made once the wait began, whose one-time password
 * `first` saw. A user `first` made before the approval counts as its own person (docs/decisions.md says why).
 */
export function isAnotherPerson(first: Person, second: Person, waitingSince: string): boolean {
  if (first.id === second.id) return false;
  const madeByFirstDuringWait = second.createdBy === first.id && second.createdAt !== undefined && second.createdAt >= waitingSince;
  return !madeByFirstDuringWait;
}

/** Whether a wait for a second approver has run out at `now`. */
export function waitHasRunOut(waiting: Approval, now: Date): boolean {
  return Date.parse(waiting.secondApproval?.waitingUntil ?? '') <= now.getTime();
}

/**
 * Whether an approval past the threshold seconds the waiting one: the same price, by another approver and another
 * person (not a key the first approver made, nor a user they made during the wait), before the wait runs out.
 */
export function secondsWaiting(
  waiting: Approval,
  second: { readonly priceCents: number; readonly approver: ApproverIdentity; readonly person: Person; readonly now: Date },
): boolean {
  return (
    waiting.priceCents === second.priceCents &&
    approverOf(waiting).id !== second.approver.id &&
    isAnotherPerson(personOf(waiting), second.person, waiting.approvedAt) &&
    !waitHasRunOut(waiting, second.now)
  );
}

/** The status an approval shows: a waiting one past its time has expired, whether or not anything wrote so yet. */
export function shownApprovalStatus(approval: Pick<Approval, 'status' | 'secondApproval'>, nowMs: number): Approval['status'] {
  const until = approval.secondApproval?.waitingUntil;
  if (approval.status === 'waiting' && until !== undefined && Date.parse(until) <= nowMs) return 'expired';
  return approval.status;
}

/** The recommendation a person was shown before approving it: a bulk approval carries it from its confirmation step. */
export interface SeenRecommendation {
  readonly pricingDecisionId: string;
  readonly recommendedPriceCents: number;
  /** The currency the price was shown in: the approval's decimal price is read in it. */
  readonly currency: string;
  /** Shown in a bulk review step, which never confirms data warnings: each such product is confirmed on its own page. */
  readonly inBulk?: boolean;
}

/** How far the recommendation may move after it was shown, in percent of the shown price, when the setting is absent. */
export const DEFAULT_SHOWN_TOLERANCE_PCT = 1;

/** The workspace's tolerance for approving the shown price: its setting, or 1%. */
export function shownTolerancePct(settings: Pick<PricingSettings, 'approvalShownTolerancePct'>): number {
  return settings.approvalShownTolerancePct ?? DEFAULT_SHOWN_TOLERANCE_PCT;
}

/**
 * Whether a recommendation now is close enough to the one shown for the shown price to be approved as seen: within the
 * tolerance in percent of the shown price, or one minor unit, whichever is larger. Recomputations of unrelated batches
 * move prices by a cent or two; that is no reason to send a person back to a list they already reviewed.
 */
export function withinShownTolerance(shownCents: number, nowCents: number, tolerancePct: number): boolean {
  const moved = Math.abs(nowCents - shownCents);
  return moved <= 1 || moved * 100 <= tolerancePct * shownCents;
}

/** An approval of the price shown: what was shown, and the tolerance the recommendation at approval was held to. */
export interface ShownApproval {
  readonly priceCents: number;
  readonly pricingDecisionId: string;
  readonly tolerancePct: number;
}

/** The refusal of an approval whose recommendation moved past the tolerance after the person was shown it: both prices, to review again. */
export class RecommendationMoved extends Error {
  readonly seen: SeenRecommendation;
  readonly now: SeenRecommendation;

  constructor(seen: SeenRecommendation, now: SeenRecommendation, tolerancePct: number) {
    const price = (cents: number, currency: string) => `${formatMinorUnits(cents, currency)} ${currency}`;
    const past =
      seen.currency === now.currency ? `more than the ${tolerancePct}% an approval of the shown price allows` : 'in another currency';
    super(
      `The recommendation moved since it was shown, from ${price(seen.recommendedPriceCents, seen.currency)} to ${price(now.recommendedPriceCents, now.currency)}, ${past}: review it again.`,
    );
    this.name = 'RecommendationMoved';
    this.seen = seen;
    this.now = now;
  }
}

/**
 * Holds an approval of the shown price to the recommendation now: within the tolerance it stands as shown, whichever
 * decision the engine has made since; past it, or in another currency, it is refused with both prices.
 */
export function checkSeen(
  seen: SeenRecommendation | undefined,
  current: SeenRecommendation,
  tolerancePct: number,
): ShownApproval | undefined {
  if (!seen) return undefined;
  const close =
    seen.currency === current.currency && withinShownTolerance(seen.recommendedPriceCents, current.recommendedPriceCents, tolerancePct);
  if (!close) throw new RecommendationMoved(seen, current, tolerancePct);
  return { priceCents: seen.recommendedPriceCents, pricingDecisionId: seen.pricingDecisionId, tolerancePct };
}
