// Approving a selection of SKUs in one step: its bound, what each approval would do and be worth, and one approval per SKU through approvePrice, once per confirmation however often it is sent.
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
import { type PricedRecommendation, RecommendationSchema } from '#shared/recommendations/schema.ts';
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
  };
}

/** Why a product held by data warnings is left out of a bulk approval: each warning, and where it can be approved. */
function heldReason(warnings: readonly DataWarning[]): string {
  const each = warnings.map((warning) => `${warning.code}: ${warning.message}`).join(' ');
  return `Check the data: ${each} Approve it on its own page, where the confirmation names each warning.`;
}

/** The confirmation step's content: the lines it approves, what it leaves out and why, and the large-change threshold. */
export interface BulkReview {
  readonly lines: BulkLine[];
  readonly skipped: BulkSkip[];
  readonly confirmPct: number;
}

/**
 * The selection as the confirmation step shows it, in the order chosen: one BatchGetItem of the recommendations,
 * eventually consistent. What the step shows is what the approval is then held to (`SeenRecommendation`).
 */
export async function reviewSelection(workspace: Pick<Workspace, 'workspaceId' | 'pricing'>, skus: readonly string[]): Promise<BulkReview> {
  checkSelectionSize(skus.length);
  const { workspaceId } = workspace;
  const items = await getItems(
    skus.map((sku) => keys.recommendation(workspaceId, sku)),
    { consistent: false },
  );
  const found = new Map(items.map((item) => [skuOfProductKey(workspaceId, String(item.PK)), v.parse(RecommendationSchema, item)]));
  const thresholds = approvalThresholds(pricingSettings(workspace.pricing));
  const lines: BulkLine[] = [];
  const skipped: BulkSkip[] = [];
  for (const sku of skus) {
    const recommendation = found.get(sku);
    if (!recommendation) skipped.push({ sku, reason: 'No recommendation for this product.' });
    else if (recommendation.status === 'unpriced') skipped.push({ sku, reason: 'Not priced: the product has no cost.' });
    else if (recommendation.warnings?.length) skipped.push({ sku, reason: heldReason(recommendation.warnings) });
    else lines.push(bulkLine(recommendation, thresholds));
  }
  return { lines, skipped, confirmPct: thresholds.confirmPct };
}

/** The selection's expected margin change per quote, one quote of each product, summed per currency (never across currencies). */
export interface ImpactTotal {
  readonly currency: string;
  readonly expectedMarginChangeCents: number;
  /** Products whose impact is in the sum. */
  readonly estimated: number;
  /** Products of this currency whose impact is too thin to say. */
  readonly tooThin: number;
}

export function impactTotals(lines: readonly BulkLine[]): ImpactTotal[] {
  const totals = new Map<string, { expectedMarginChangeCents: number; estimated: number; tooThin: number }>();
  for (const line of lines) {
    const total = totals.get(line.currency) ?? { expectedMarginChangeCents: 0, estimated: 0, tooThin: 0 };
    if (line.expectedMarginChangeCents === undefined) total.tooThin++;
    else {
      total.expectedMarginChangeCents += line.expectedMarginChangeCents;
      total.estimated++;
    }
    totals.set(line.currency, total);
  }
  return [...totals].sort(([a], [b]) => a.localeCompare(b)).map(([currency, total]) => ({ currency, ...total }));
}

/** What the confirmation step's form carries of each line back to the approval. */
export interface SeenLine extends SeenRecommendation {
  readonly sku: string;
  /** Shown as a large change on the step: confirmed by the step's large-change box, and only then. */
  readonly large: boolean;
}

/** One SKU's result: its approval (replayed when an earlier send of the same confirmation made it), or why it was refused. */
export type BulkResult =
  | { readonly sku: string; readonly outcome: 'approved'; readonly approval: Approval; readonly replayed: boolean }
  | { readonly sku: string; readonly outcome: 'refused'; readonly reason: string };

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
  /** The step's large-change box: it confirms the lines the step showed as large, and no other. */
  readonly confirmLarge: boolean;
  readonly now: Date;
  /** How long the request may still run: a SKU's key is held no longer, so a request that dies never leaves it stuck. */
  readonly remainingMs: number;
}

/** What a refusal says on the results: the rule's own words. */
function refusalReason(error: unknown): string | undefined {
  if (error instanceof RecommendationMoved) return error.message;
  if (error instanceof ApiError && error.status < 500) return error.message;
  return undefined;
}

/** One SKU's approval, once per confirmation: a send after it succeeded answers the approval it made. */
async function approveLine(approver: Approver, line: SeenLine, options: BulkOptions): Promise<BulkResult> {
  const key = `${approver.keyId}:${options.bulkId}:${line.sku}`;
  const { pricingDecisionId, recommendedPriceCents, currency } = line;
  const hash = bodyHash({ pricingDecisionId, recommendedPriceCents, currency });
  const caller = { workspaceId: approver.workspaceId, callerId: approver.keyId };
  const started = await beginCall(bulkOperation, caller, key, hash, options.now.getTime(), options.remainingMs);
  if (started.kind === 'replay')
    return { sku: line.sku, outcome: 'approved', approval: v.parse(ApprovalSchema, JSON.parse(started.json)), replayed: true };
  // The approval and the answer a later send replays commit in one transaction, or neither does.
  const answer: AnswerEntry = {
    entry: (approval) => completionEntry(bulkOperation, started.call, { statusCode: 200, json: JSON.stringify(approval) }),
    refusedAt: (error, index) => {
      if (keyLostIn(error, index)) throw lostKeyAnswer();
    },
  };
  try {
    // The price as shown, read in the currency shown: a recommendation in another currency since is refused as moved.
    const price = toDecimalAmount(line.recommendedPriceCents, line.currency);
    const confirm = options.confirmLarge && line.large;
    const approval = await approvePrice(approver, { sku: line.sku, price, confirm }, options.now, answer, line);
    return { sku: line.sku, outcome: 'approved', approval, replayed: false };
  } catch (error) {
    await abandonCall(bulkOperation, started.call).catch(() => undefined);
    const reason = refusalReason(error);
    if (reason === undefined) throw error;
    return { sku: line.sku, outcome: 'refused', reason };
  }
}

/**
 * Approves each line at the recommended price it was shown at, each through approvePrice as a single approval is: its
 * bounds, the confirmation of a large move, the second approver, and the check that the recommendation is still the
 * one shown. One result per line, in order; a refusal of one leaves the others to go on.
 */
export async function approveSelection(approver: Approver, lines: readonly SeenLine[], options: BulkOptions): Promise<BulkResult[]> {
  checkSelectionSize(lines.length);
  const results: BulkResult[] = new Array<BulkResult>(lines.length);
  await inParallel(
    lines.map((line, index) => ({ line, index })),
    BULK_CONCURRENCY,
    async ({ line, index }) => {
      results[index] = await approveLine(approver, line, options);
    },
  );
  return results;
}
