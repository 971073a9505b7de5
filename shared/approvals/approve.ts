// Approving a price: the checks against the SKU's bounds and the move from its current price, then the approval's turn on the SKU.
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import type { Principal } from '#shared/api-keys/authenticate.ts';
import type { Person } from '#shared/api-keys/schema.ts';
import { listConnectors } from '#shared/connectors/repository.ts';
import { ApiError } from '#platform/errors.ts';
import { newId } from '#platform/ids.ts';
import {
  exceedsDecimalRange,
  formatMinorUnits,
  fromDecimalAmount,
  maxDecimalMinorUnits,
  minorUnitDigits,
  toDecimalAmount,
} from '#shared/pricing/currency.ts';
import { pricedOrRefused } from '#shared/recommendations/overview.ts';
import { currentRecommendation } from '#shared/recommendations/repository.ts';
import type { PricedRecommendation } from '#shared/recommendations/schema.ts';
import { pause } from '#platform/table/bulk.ts';
import { pricingSettings } from '#shared/pricing/settings.ts';
import { type TransactEntry, type TransactRider, transactWrite } from '#platform/table/commands.ts';
import { handOn, outboxEntry } from '#shared/webhooks/outbox.ts';
import { finishPublication, type UnfinishedPublication } from '#shared/writebacks/publication.ts';
import { logger } from '#platform/observability.ts';
import { readLatestApproval } from './latest.ts';
import { type ApprovalPlan, approvalPut, approvalRecord, approvedEvent, liveWrites } from './publish.ts';
import {
  approvalThresholds,
  checkSeen,
  confirmMove,
  type SeenRecommendation,
  secondApprovalThreshold,
  type ShownApproval,
  shownTolerancePct,
} from './rules.ts';
import type { Approval, ApprovalView, ApproveRequest, ApproverIdentity } from './schema.ts';

/** The approved price in minor units: at most the currency's minor digits, and within the bounds the engine holds to. */
export function checkApprovedPrice(price: number, recommendation: PricedRecommendation): number {
  const { currency } = recommendation;
  // The bound first: past it a double cannot tell one minor unit from the next, so blaming the decimals would mislead.
  if (exceedsDecimalRange(price, currency)) {
    throw new ApiError(
      'invalid_request',
      `price must be at most ${formatMinorUnits(maxDecimalMinorUnits(currency), currency)} ${currency}; ${price} is more.`,
      { param: 'price' },
    );
  }
  const cents = fromDecimalAmount(price, currency);
  if (cents === undefined) {
    const digits = minorUnitDigits(currency);
    throw new ApiError(
      'invalid_request',
      `price must be a ${currency} amount with at most ${digits} decimal${digits === 1 ? '' : 's'}; ${price} is not.`,
      { param: 'price' },
    );
  }
  const shown = (amount: number) => `${(amount / 10 ** minorUnitDigits(currency)).toFixed(minorUnitDigits(currency))} ${currency}`;
  if (cents < recommendation.floorCents) {
    throw new ApiError(
      'guardrail_violation',
      `price ${shown(cents)} is below the floor of ${shown(recommendation.floorCents)}, the largest of the floor price, MAP and the minimum-margin price.`,
    );
  }
  // Lower bounds win, as they do in pricing: a ceiling under the floor leaves the floor as the one price to approve.
  const ceiling = recommendation.ceilingCents === undefined ? undefined : Math.max(recommendation.ceilingCents, recommendation.floorCents);
  if (ceiling !== undefined && cents > ceiling) {
    const below =
      ceiling === recommendation.ceilingCents
        ? ''
        : `, which the floor overrides since the ceiling price ${shown(recommendation.ceilingCents as number)} is under it`;
    throw new ApiError('guardrail_violation', `price ${shown(cents)} is above the ceiling of ${shown(ceiling)}${below}.`);
  }
  return cents;
}

/**
 * What a connector is told of the approved price: the engine's reason when it is the recommendation; for the
 * recommendation as shown, which moved within the tolerance since, both prices and no word of an override (an
 * auditor reads "over the recommended" as a person's own price); for any other price, the price a person set over it.
 */
export function approvalReason(priceCents: number, recommendation: PricedRecommendation, shown?: ShownApproval): string {
  if (priceCents === recommendation.recommendedPriceCents) return recommendation.reasonSummary;
  const amount = (cents: number) => toDecimalAmount(cents, recommendation.currency);
  if (shown?.priceCents === priceCents) {
    return `Approved at ${amount(priceCents)}, the recommendation as shown; ${amount(recommendation.recommendedPriceCents)} when approved, within the ${shown.tolerancePct}% tolerance (${recommendation.reasonSummary})`;
  }
  return `Approved at ${amount(priceCents)} over the recommended ${amount(recommendation.recommendedPriceCents)} (${recommendation.reasonSummary})`;
}

/** Turns an approval tries for before it gives up as a fault: approvals of one SKU at once settle within a few. */
const TURN_ATTEMPTS = 10;

/** Whether a transaction was refused because the latest approval or a task moved under it: then it reads again. */
function lostTurn(error: unknown): boolean {
  return error instanceof TransactionCanceledException || (error as { name?: string } | undefined)?.name === 'TransactionConflictException';
}

/**
 * Who approves: an API key, or a console user, who approves as a live key does (`keyId` then holds the user's id,
 * and `consoleUser` says who they are).
 */
export type Approver = Pick<Principal, 'keyId' | 'family' | 'workspaceId' | 'workspace' | 'createdBy'> & {
  readonly consoleUser?: { readonly email: string; readonly createdBy?: string; readonly createdAt?: string };
};

function approverIdentity(principal: Approver): ApproverIdentity {
  return principal.consoleUser
    ? { type: 'console_user', id: principal.keyId, email: principal.consoleUser.email }
    : { type: 'api_key', id: principal.keyId };
}

/** The person approving: a console user themselves, a key its creator, a key that records none itself alone. */
export function approvingPerson(principal: Approver): Person {
  const user = principal.consoleUser;
  if (user) {
    return {
      type: 'console_user',
      id: principal.keyId,
      email: user.email,
      ...(user.createdBy === undefined ? {} : { createdBy: user.createdBy }),
      ...(user.createdAt === undefined ? {} : { createdAt: user.createdAt }),
    };
  }
  return principal.createdBy ?? { type: 'api_key', id: principal.keyId };
}

/**
 * Everything an approval settles before it takes its turn, in the order a refusal is decided: the product, the
 * price's digits and bounds (which no confirmation lifts), then the move from the current price.
 */
async function planApproval(principal: Approver, request: ApproveRequest, now: Date, seen?: SeenRecommendation): Promise<ApprovalPlan> {
  const { workspaceId, workspace } = principal;
  const recommendation = pricedOrRefused(await currentRecommendation(workspace, request.sku, now.getTime()), request.sku);
  const settings = pricingSettings(workspace.pricing);
  const shown = checkSeen(seen, recommendation, shownTolerancePct(settings));
  const priceCents = checkApprovedPrice(request.price, recommendation);
  const thresholds = approvalThresholds(settings);
  const move = {
    sku: recommendation.sku,
    currency: recommendation.currency,
    priceCents,
    currentPriceCents: recommendation.currentPriceCents,
  };
  // A bulk approval never confirms data warnings: each is confirmed on its own product page.
  const warnings = recommendation.warnings ?? [];
  const confirm = seen?.inBulk === true && warnings.length > 0 ? false : request.confirm;
  const confirmation = confirmMove(move, thresholds, confirm, warnings);
  const livemode = principal.family === 'pw_live';
  const connectors =
    livemode && workspace.features.includes('writebacks')
      ? (await listConnectors(workspaceId)).filter((connector) => connector.receivesWritebacks)
      : [];
  return {
    workspaceId,
    keyId: principal.keyId,
    approver: approverIdentity(principal),
    person: approvingPerson(principal),
    approvalId: newId('apv'),
    recommendation,
    priceCents,
    livemode,
    connectors,
    reasonSummary: approvalReason(priceCents, recommendation, shown),
    // Recorded only when the approved price is the one shown: any other is the person's own.
    ...(shown?.priceCents === priceCents ? { shown } : {}),
    now,
    confirmation,
    // A sandbox approval publishes nothing, so it has nothing to wait for.
    secondApprovalPct: livemode ? secondApprovalThreshold(priceCents, recommendation.currentPriceCents, thresholds) : undefined,
  };
}

/**
 * The store of the approval's answer under the request's Idempotency-Key, as an entry of the approval's own
 * transaction (shared/edge/http/idempotent.ts): an approval and the answer its retry replays commit together.
 */
export type AnswerEntry = TransactRider<Approval>;

/** Where the answer's entry goes: after the record, its event and its turn, in the first transaction. */
const ANSWER_AT = 3;

/** The approval's first transaction's entries, with the answer's store among them when the request has a key. */
async function withAnswer(entries: readonly TransactEntry[], approval: Approval, answer: AnswerEntry | undefined) {
  if (!answer) return [...entries];
  return [...entries.slice(0, ANSWER_AT), await answer.entry(approval), ...entries.slice(ANSWER_AT)];
}

/** A sandbox approval: the record alone, which supersedes nothing. */
async function approveInSandbox(plan: ApprovalPlan, answer: AnswerEntry | undefined): Promise<Approval> {
  const approval = approvalRecord(plan, plan.now.toISOString(), []);
  const event = approvedEvent(approval, plan.now);
  try {
    await transactWrite(await withAnswer([approvalPut(approval), outboxEntry(event)], approval, answer));
  } catch (error) {
    // Refused on the answer's entry: the key went to a retry meanwhile, and this approval did nothing.
    answer?.refusedAt(error, 2);
    throw error;
  }
  await handOn([event]);
  return approval;
}

/**
 * Approves a price for a SKU. A live key records the approval, one task per connector that receives write-backs, the
 * cancellation of the pending tasks of the approval before it, and its turn on the SKU's latest-approval item, all in
 * one transaction: approvals of one SKU at once take turns, the last to take its turn wins, and each connector is left
 * exactly one pending task, the winner's. A move past the workspace's second-approval threshold is recorded as
 * waiting instead, and publishes when a different approver approves the same price; the turn makes exactly one of
 * two such approvers at once the one that publishes it. A sandbox key records the approval alone, and supersedes nothing.
 * `seen`, when given, is the recommendation the approver was shown: the approval is refused if it has moved past the
 * workspace's tolerance since, and a price that is the one shown is recorded as approved as shown.
 */
export async function approvePrice(
  principal: Approver,
  request: ApproveRequest,
  now: Date,
  answer?: AnswerEntry,
  seen?: SeenRecommendation,
): Promise<Approval> {
  const plan = await planApproval(principal, request, now, seen);
  if (!plan.livemode) return approveInSandbox(plan, answer);
  for (let attempt = 1; ; attempt++) {
    const latest = await readLatestApproval(plan.workspaceId, plan.recommendation.sku);
    const writes = await liveWrites(plan, latest);
    const { approval, events } = writes;
    const entries = await withAnswer(writes.entries, approval, answer);
    try {
      // One transaction, whatever the number of connectors: the tasks past it are in it as one durable item.
      await transactWrite(entries);
    } catch (error) {
      answer?.refusedAt(error, ANSWER_AT);
      // Another approval took its turn first, or a task to cancel was leased meanwhile: read again and try anew.
      if (!lostTurn(error) || attempt >= TURN_ATTEMPTS) throw error;
      await pause(attempt);
      continue;
    }
    await handOn(events);
    if (writes.unfinished) await writeOut(writes.unfinished, plan.now);
    return approval;
  }
}

/**
 * Writes out the tasks the first transaction kept for later. The approval stands once that transaction committed, so
 * a fault here is left to the workspace's next claim, which finishes it, and the approval is answered.
 */
async function writeOut(unfinished: UnfinishedPublication, now: Date): Promise<void> {
  try {
    await finishPublication(unfinished, now.getTime());
  } catch (error) {
    logger.warn('an approval left some of its tasks to the next claim', { error: error as Error });
  }
}

/** The answer of POST /v1/prices/approve, in the overview's snake_case. */
export function approvalView(approval: Approval): ApprovalView {
  return {
    approval_id: approval.approvalId,
    sku: approval.sku,
    price: toDecimalAmount(approval.priceCents, approval.currency),
    currency: approval.currency,
    approved_at: approval.approvedAt,
    livemode: approval.livemode,
    status: approval.status === 'waiting' ? 'waiting' : 'published',
    waiting_until: approval.status === 'waiting' ? (approval.secondApproval?.waitingUntil ?? null) : null,
    published_to: approval.publishedTo.map((published) => ({ connector_id: published.connectorId, writeback_id: published.writebackId })),
  };
}
