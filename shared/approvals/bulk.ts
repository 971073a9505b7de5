// Approving a selection of SKUs in one step: its bound, what each approval would do and be worth, and one round of approvals per confirmation, each SKU through approvePrice, however often it is sent.
import * as v from 'valibot';
import { ApiError } from '#platform/errors.ts';
import type { DataWarning } from '#shared/canonical/data-warnings.ts';
import { randomBase62 } from '#platform/ids.ts';
import { getItems, inParallel } from '#platform/table/bulk.ts';
import { keys, skuOfProductKey } from '#platform/table/keys.ts';
import {
  abandonCall,
  beginCall,
  bodyHash,
  completionEntry,
  type IdempotentOperation,
  keyLostIn,
  lostKeyAnswer,
  REPLAY_WINDOW_MS,
} from '#shared/idempotency/store.ts';
import { toDecimalAmount } from '#shared/pricing/currency.ts';
import { pricingSettings } from '#shared/pricing/settings.ts';
import { changePct } from '#shared/recommendations/overview.ts';
import type { PricedRecommendation } from '#shared/recommendations/schema.ts';
import { recommendationOfItem } from '#shared/recommendations/repository.ts';
import type { Workspace } from '#shared/workspaces/schema.ts';
import { type AnswerEntry, type Approver, approvePrice } from './approve.ts';
import {
  type ApprovalThresholds,
  approvalThresholds,
  movesPast,
  RecommendationMoved,
  type SeenRecommendation,
  secondApprovalThreshold,
} from './rules.ts';
import { type Approval, ApprovalSchema } from './schema.ts';
import { awaitRound, type BulkResult, claimRound, finishRound } from './bulk-round.ts';
import { readSkuApprovals, type SkuApproval } from './sku-states.ts';
import { logger } from '#platform/observability.ts';

/** The most SKUs one bulk approval takes: a page of the list, approved within one console request's time. */
export const MAX_BULK_SKUS = 50;
/** Approvals of a selection run this many at a time: each is a few calls in turn, and SKUs never share a turn. */
const BULK_CONCURRENCY = 4;

/** A selection of none, or of more than the bound, is refused whole: nothing of it is approved. */
export function checkSelectionSize(count: number): void {
  if (count === 0) throw new ApiError('invalid_request', 'Select at least one product to approve.');
  if (count > MAX_BULK_SKUS) {
    throw new ApiError(
      'invalid_request',
      `A bulk approval takes at most ${MAX_BULK_SKUS} products; ${count} were selected. Narrow the filter or select fewer.`,
    );
  }
}

/** One selected SKU as the confirmation step shows it, and as its form carries it to the approval. */
export interface BulkLine {
  readonly sku: string;
  readonly currency: string;
  readonly currentPriceCents: number;
  readonly recommendedPriceCents: number;
  readonly pricingDecisionId: string;
  readonly changePct: number | null;
  /** Past the workspace's confirmation threshold: approved only when the step's large-change box is ticked. */
  readonly large: boolean;
  /** Past the second-approval threshold: the approval waits for a second approver. */
  readonly waits: boolean;
  /** The expected margin change per quote in minor units; absent when the impact is too thin to say or not estimated. */
  readonly expectedMarginChangeCents?: number;
  /** The same over a month at the product's recent quote rate; absent until its bands job counted one. */
  readonly expectedMarginChangePerMonthCents?: number;
  /**
   * What the SKU's latest approval is still doing: waiting for a second approver, or its write-backs pending. A new
   * approval would overtake it, so the step shows the line unticked until a person ticks it; except one that seconds
   * the approval that waits (its price, another approver), which is what a second approver came to do.
   */
  readonly earlier?: 'waiting' | 'pending' | 'seconds';
}

/** A selected SKU no approval can take: unknown to the workspace, or not priced. */
export interface BulkSkip {
  readonly sku: string;
  readonly reason: string;
}

export function bulkLine(recommendation: PricedRecommendation, thresholds: ApprovalThresholds): BulkLine {
  const { recommendedPriceCents: price, currentPriceCents: current, impact } = recommendation;
  return {
    sku: recommendation.sku,
    currency: recommendation.currency,
    currentPriceCents: current,
    recommendedPriceCents: price,
    pricingDecisionId: recommendation.pricingDecisionId,
    changePct: changePct(price, current),
    large: movesPast(price, current, thresholds.confirmPct),
    waits: secondApprovalThreshold(price, current, thresholds) !== undefined,
    ...(impact?.status === 'estimated' ? { expectedMarginChangeCents: impact.expectedMarginChangeCents } : {}),
    ...(impact?.status === 'estimated' && impact.perMonth
      ? { expectedMarginChangePerMonthCents: impact.perMonth.expectedMarginChangeCents }
      : {}),
  };
}

/** Why a product held by data warnings is left out of a bulk approval: each warning, and where it can be approved. */
function heldReason(warnings: readonly DataWarning[]): string {
  const each = warnings.map((warning) => `${warning.code}: ${warning.message}`).join(' ');
  return `Check the data: ${each} Approve it on its own page, where the confirmation names each warning.`;
}

/** What a line's approval would do to the SKU's latest approval still under way, if it is. */
function earlierApproval(state: SkuApproval | undefined, line: BulkLine, approverId: string): BulkLine['earlier'] {
  if (state?.state === 'pending') return 'pending';
  if (state?.state !== 'waiting') return undefined;
  const seconds = state.waiting?.priceCents === line.recommendedPriceCents && state.waiting.approverId !== approverId;
  return seconds ? 'seconds' : 'waiting';
}

/** The confirmation step's content: the lines it approves, what it leaves out and why, and the large-change threshold. */
export interface BulkReview {
  readonly lines: BulkLine[];
  readonly skipped: BulkSkip[];
  readonly confirmPct: number;
}

/**
 * The selection as the confirmation step shows it, in the order chosen: one BatchGetItem of the recommendations,
 * eventually consistent, and the SKUs' approval states as the list reads them. What the step shows is what the
 * approval is then held to (`SeenRecommendation`).
 */
export async function reviewSelection(
  workspace: Pick<Workspace, 'workspaceId' | 'pricing'>,
  skus: readonly string[],
  reviewer: { readonly approverId: string; readonly nowMs: number },
): Promise<BulkReview> {
  checkSelectionSize(skus.length);
  const { workspaceId } = workspace;
  const [items, states] = await Promise.all([
    getItems(
      skus.map((sku) => keys.recommendation(workspaceId, sku)),
      { consistent: false },
    ),
    readSkuApprovals(workspaceId, skus, reviewer.nowMs),
  ]);
  const found = new Map(items.map((item) => [skuOfProductKey(workspaceId, String(item.PK)), recommendationOfItem(item)]));
  const thresholds = approvalThresholds(pricingSettings(workspace.pricing));
  const lines: BulkLine[] = [];
  const skipped: BulkSkip[] = [];
  for (const sku of skus) {
    const recommendation = found.get(sku);
    if (!recommendation) skipped.push({ sku, reason: 'No recommendation for this product.' });
    else if (recommendation.status === 'unpriced') skipped.push({ sku, reason: 'Not priced: the product has no cost.' });
    else if (recommendation.warnings?.length) skipped.push({ sku, reason: heldReason(recommendation.warnings) });
    else {
      const line = bulkLine(recommendation, thresholds);
      const earlier = earlierApproval(states.get(sku), line, reviewer.approverId);
      lines.push(earlier ? { ...line, earlier } : line);
    }
  }
  return { lines, skipped, confirmPct: thresholds.confirmPct };
}

/** What the confirmation step's form carries of each line back to the approval. */
export interface SeenLine extends SeenRecommendation {
  readonly sku: string;
  /** Shown as a large change on the step: approved only when its own confirmation box was ticked there. */
  readonly large: boolean;
  /** The line's own large-change box was ticked. */
  readonly confirmed?: boolean;
}

/** A confirmation's id, minted with its step: the same confirmation sent again approves nothing anew. */
export function newBulkId(): string {
  return `bulk_${randomBase62(22)}`;
}

/** Each SKU's approval under a confirmation is kept as an Idempotency-Key's call is, in items of its own operation. */
const bulkOperation: IdempotentOperation = {
  itemKey: (workspaceId, digest) => keys.idempotentCall(workspaceId, 'consoleBulkApprove', digest),
  itemType: 'idempotentCall',
  retentionSeconds: REPLAY_WINDOW_MS / 1000,
  boundTo: 'another recommendation of the product',
};

export interface BulkOptions {
  readonly bulkId: string;
  /** Confirms every line the step showed as large, as each line's own box confirms it (an earlier step's single box). */
  readonly confirmLarge: boolean;
  readonly now: Date;
  /** How long the request may still run: a SKU's key is held no longer, so a request that dies never leaves it stuck. */
  readonly remainingMs: number;
}

/**
 * Time kept back from the request's own for what follows the last approval started: that approval's turns, keeping
 * the round's result, and the answer. A line not started by then is not attempted, and the answer says so.
 */
const ANSWER_RESERVE_MS = 8_000;

/** What a refusal says on the results: the rule's own words. */
function refusalReason(error: unknown): string | undefined {
  if (error instanceof RecommendationMoved) return error.message;
  if (error instanceof ApiError && error.status < 500) return error.message;
  return undefined;
}

/** An approval as the results show it, and a later send of the same confirmation shows it again. */
function approvedResult(approval: Approval, replayed: boolean): BulkResult {
  return {
    sku: approval.sku,
    outcome: 'approved',
    priceCents: approval.priceCents,
    currency: approval.currency,
    status: approval.status === 'waiting' ? 'waiting' : 'published',
    ...(approval.status === 'waiting' && approval.secondApproval ? { waitingUntil: approval.secondApproval.waitingUntil } : {}),
    writebacks: approval.publishedTo.length,
    seconded: approval.secondApproval?.approver !== undefined,
    replayed,
  };
}

/** Whether the step confirmed a line's large change: its own box, or the single box an earlier step drew. */
function confirmsLarge(line: SeenLine, options: BulkOptions): boolean {
  return line.large && (options.confirmLarge || line.confirmed === true);
}

/** One SKU's approval, once per confirmation: a send after it succeeded answers the approval it made. */
async function approveLine(approver: Approver, line: SeenLine, options: BulkOptions): Promise<BulkResult> {
  const key = `${approver.keyId}:${options.bulkId}:${line.sku}`;
  const { pricingDecisionId, recommendedPriceCents, currency } = line;
  const hash = bodyHash({ pricingDecisionId, recommendedPriceCents, currency });
  const caller = { workspaceId: approver.workspaceId, callerId: approver.keyId };
  const started = await beginCall(bulkOperation, caller, key, hash, options.now.getTime(), options.remainingMs);
  if (started.kind === 'replay') return approvedResult(v.parse(ApprovalSchema, JSON.parse(started.json)), true);
  // The approval and the answer a later send replays commit in one transaction, or neither does.
  const answer: AnswerEntry = {
    entry: (approval) => completionEntry(bulkOperation, started.call, { statusCode: 200, json: JSON.stringify(approval) }),
    refusedAt: (error, index) => {
      if (keyLostIn(error, index)) throw lostKeyAnswer();
    },
  };
  try {
    // The price as shown, read in the currency shown: it is approved while the recommendation is within the tolerance of it.
    const price = toDecimalAmount(line.recommendedPriceCents, line.currency);
    const confirm = confirmsLarge(line, options);
    const approval = await approvePrice(approver, { sku: line.sku, price, confirm }, options.now, answer, { ...line, inBulk: true });
    return approvedResult(approval, false);
  } catch (error) {
    await abandonCall(bulkOperation, started.call).catch(() => undefined);
    throw error;
  }
}

/** A line's result whatever happens: a refusal in the rule's words, and a fault said as one, so that no line goes unanswered. */
async function settleLine(approver: Approver, line: SeenLine, options: BulkOptions): Promise<BulkResult> {
  try {
    return await approveLine(approver, line, options);
  } catch (error) {
    const reason = refusalReason(error);
    if (reason !== undefined) return { sku: line.sku, outcome: 'refused', reason };
    logger.error('a bulk approval line failed', { error: error as Error, sku: line.sku });
    return {
      sku: line.sku,
      outcome: 'refused',
      reason: "A fault interrupted this approval: check the product's approval history before approving it again.",
    };
  }
}

/**
 * Whether a line is left out before any approval: a large change the step showed and no box confirmed. It is answered
 * not attempted, so that it stays ticked for one more review, and the round approves the others.
 */
function leftUnconfirmed(line: SeenLine, options: BulkOptions): BulkResult | undefined {
  if (!line.large || confirmsLarge(line, options)) return undefined;
  return { sku: line.sku, outcome: 'not_attempted', reason: 'Its large change was not confirmed: review it again to confirm it.' };
}

/**
 * Approves each line at the recommended price it was shown at, each through approvePrice as a single approval is: its
 * bounds, the confirmation of a large move, the second approver, and the hold to the recommendation shown within the
 * workspace's tolerance. One result per line, in order; a refusal of one leaves the others to go on, and a large
 * change left unconfirmed is not attempted. Every approval started is awaited before this returns, and none starts
 * once the request's time, less the reserve, is spent.
 */
export async function approveSelection(approver: Approver, lines: readonly SeenLine[], options: BulkOptions): Promise<BulkResult[]> {
  checkSelectionSize(lines.length);
  const startBy = Date.now() + options.remainingMs - ANSWER_RESERVE_MS;
  const results: BulkResult[] = new Array<BulkResult>(lines.length);
  await inParallel(
    lines.map((line, index) => ({ line, index })),
    BULK_CONCURRENCY,
    async ({ line, index }) => {
      results[index] =
        leftUnconfirmed(line, options) ??
        (Date.now() < startBy
          ? await settleLine(approver, line, options)
          : { sku: line.sku, outcome: 'not_attempted', reason: 'The round ran out of time before this product: select it again.' });
    },
  );
  return results;
}

/** A round's answer: each line's result, and whether an earlier send of the same confirmation made them. */
export interface RoundAnswer {
  readonly results: BulkResult[];
  readonly repeated: boolean;
}

/**
 * One bulk round per confirmation token: the first send approves its lines and keeps the result before it answers;
 * a later send, at once or after, answers that result and approves nothing. A send that meets the first still
 * running waits for its result; should it not come in this send's time, every line is said not attempted by it.
 */
export async function approveRound(approver: Approver, lines: readonly SeenLine[], options: BulkOptions): Promise<RoundAnswer> {
  checkSelectionSize(lines.length);
  const round = { workspaceId: approver.workspaceId, bulkId: options.bulkId, userId: approver.keyId, lines };
  const started = await claimRound(round, options.now.getTime(), Date.now() + options.remainingMs);
  if (started.kind === 'done') return { results: started.results, repeated: true };
  if (started.kind === 'running') {
    const kept = await awaitRound(round, Date.now() + options.remainingMs - ANSWER_RESERVE_MS);
    const waited = lines.map((line): BulkResult => ({ sku: line.sku, outcome: 'not_attempted', reason: STILL_RUNNING }));
    return { results: kept ?? waited, repeated: true };
  }
  const results = await approveSelection(approver, lines, options);
  await finishRound(round, results);
  return { results, repeated: false };
}

const STILL_RUNNING = 'An earlier send of this confirmation is still approving it: the list shows each product’s approval once it ends.';
