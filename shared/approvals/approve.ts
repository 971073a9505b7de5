// Approving a price: the checks against the SKU's bounds, the approval record, and its write-back tasks for every live connector.
import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import type { Principal } from '../api-keys/authenticate.ts';
import { listConnectors } from '../connectors/repository.ts';
import { tableName } from '../config.ts';
import { ApiError } from '../errors.ts';
import { newId } from '../ids.ts';
import { logger } from '../observability.ts';
import { fromDecimalAmount, minorUnitDigits, toDecimalAmount } from '../pricing/currency.ts';
import { pricedOrRefused } from '../recommendations/overview.ts';
import { currentRecommendation } from '../recommendations/repository.ts';
import type { PricedRecommendation } from '../recommendations/schema.ts';
import { tableClient } from '../table/client.ts';
import { keys } from '../table/keys.ts';
import { newTaskItem, supersedeOpenTasks } from '../writebacks/tasks.ts';
import type { Approval, ApproveRequest } from './schema.ts';

/** The approved price in minor units: at most the currency's minor digits, and within the bounds the engine holds to. */
export function checkApprovedPrice(price: number, recommendation: PricedRecommendation): number {
  const { currency } = recommendation;
  const cents = fromDecimalAmount(price, currency);
  if (cents === undefined || cents > Number.MAX_SAFE_INTEGER) {
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

/** What a connector is told of a price a person set over the engine's recommendation. */
export function approvalReason(priceCents: number, recommendation: PricedRecommendation): string {
  if (priceCents === recommendation.recommendedPriceCents) return recommendation.reasonSummary;
  const amount = (cents: number) => toDecimalAmount(cents, recommendation.currency);
  return `Approved at ${amount(priceCents)} over the recommended ${amount(recommendation.recommendedPriceCents)} (${recommendation.reasonSummary})`;
}

/** A transaction holds at most 100 items: the approval and up to 99 tasks, then 100 tasks per further transaction. */
const TRANSACTION_ITEMS = 100;

/**
 * Approves a price for a SKU. A live key records the approval and one task per connector that receives write-backs,
 * in one transaction, then cancels those connectors' older pending tasks for the SKU; in that order, so that a fault
 * between the two leaves a connector with an extra task rather than none. A sandbox key records the approval alone.
 */
export async function approvePrice(principal: Principal, request: ApproveRequest, now: Date): Promise<Approval> {
  const { workspaceId, workspace } = principal;
  const recommendation = pricedOrRefused(await currentRecommendation(workspace, request.sku, now.getTime()), request.sku);
  const priceCents = checkApprovedPrice(request.price, recommendation);
  const livemode = principal.family === 'pw_live';
  const approvalId = newId('apv');
  const approvedAt = now.toISOString();
  const connectors =
    livemode && workspace.features.includes('writebacks')
      ? (await listConnectors(workspaceId)).filter((connector) => connector.receivesWritebacks)
      : [];
  const reasonSummary = approvalReason(priceCents, recommendation);
  const tasks = connectors.map((connector) => ({
    connectorId: connector.connectorId,
    item: newTaskItem({
      workspaceId,
      connectorId: connector.connectorId,
      channel: connector.name,
      approvalId,
      recommendation,
      priceCents,
      reasonSummary,
      createdAt: approvedAt,
    }),
  }));
  const approval: Approval = {
    approvalId,
    workspaceId,
    sku: recommendation.sku,
    priceCents,
    currency: recommendation.currency,
    approvedAt,
    livemode,
    keyId: principal.keyId,
    recommendedPriceCents: recommendation.recommendedPriceCents,
    pricingDecisionId: recommendation.pricingDecisionId,
    publishedTo: tasks.map(({ connectorId, item }) => ({ connectorId, writebackId: String(item.taskId) })),
  };
  const puts = [
    { ...keys.approval(workspaceId, recommendation.sku, approvedAt, approvalId), type: 'approval', ...approval },
    ...tasks.map(({ item }) => item),
  ];
  for (let start = 0; start < puts.length; start += TRANSACTION_ITEMS) {
    await tableClient().send(
      new TransactWriteCommand({
        TransactItems: puts.slice(start, start + TRANSACTION_ITEMS).map((Item) => ({
          Put: { TableName: tableName(), Item, ConditionExpression: 'attribute_not_exists(PK)' },
        })),
      }),
    );
  }
  // The approval stands once its transaction has: failing to cancel older tasks only leaves them to be applied in
  // their turn, before the newer one, so it is logged rather than answered as a fault the caller would retry.
  const superseding = { approvalId, approvedAt, taskIds: new Set(approval.publishedTo.map((published) => published.writebackId)) };
  const outcomes = await Promise.allSettled(
    connectors.map((connector) => supersedeOpenTasks(workspaceId, connector.connectorId, recommendation.sku, superseding, now.getTime())),
  );
  for (const outcome of outcomes) {
    if (outcome.status === 'rejected')
      logger.warn('older write-back tasks were not cancelled', { approvalId, error: outcome.reason as Error });
  }
  return approval;
}

/** The answer of POST /v1/prices/approve, in the overview's snake_case. */
export function approvalView(approval: Approval): Record<string, unknown> {
  return {
    sku: approval.sku,
    price: toDecimalAmount(approval.priceCents, approval.currency),
    currency: approval.currency,
    approved_at: approval.approvedAt,
    livemode: approval.livemode,
    published_to: approval.publishedTo.map((published) => ({ connector_id: published.connectorId, writeback_id: published.writebackId })),
  };
}
