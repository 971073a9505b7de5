// Approving a price: the checks against the SKU's bounds, the approval record, and its write-back tasks for every live connector.
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import type { Principal } from '#shared/api-keys/authenticate.ts';
import { listConnectors } from '#shared/connectors/repository.ts';
import type { Connector } from '#shared/connectors/schema.ts';
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
import { type TransactEntry, transactWrite } from '#platform/table/commands.ts';
import { keys } from '#platform/table/keys.ts';
import { cancelTask, newTaskItem, openTaskIds, readTasks } from '#shared/writebacks/tasks.ts';
import { newEvent, type WebhookEvent } from '#shared/webhooks/events.ts';
import { handOn, outboxEntry } from '#shared/webhooks/outbox.ts';
import { type LatestApproval, nextApprovedAt, readLatestApproval, takeTurn } from './latest.ts';
import type { Approval, ApprovalView, ApproveRequest } from './schema.ts';

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

/** What a connector is told of a price a person set over the engine's recommendation. */
export function approvalReason(priceCents: number, recommendation: PricedRecommendation): string {
  if (priceCents === recommendation.recommendedPriceCents) return recommendation.reasonSummary;
  const amount = (cents: number) => toDecimalAmount(cents, recommendation.currency);
  return `Approved at ${amount(priceCents)} over the recommended ${amount(recommendation.recommendedPriceCents)} (${recommendation.reasonSummary})`;
}

/** A transaction holds at most 100 items; an approval's first holds its record, its turn, and tasks and cancels. */
const TRANSACTION_ITEMS = 100;
/** Turns an approval tries for before it gives up as a fault: approvals of one SKU at once settle within a few. */
const TURN_ATTEMPTS = 10;

/**
 * The pending tasks a live approval cancels: those of the approval before it, which the latest-approval item names.
 * A SKU approved before that item existed has its open tasks found through the lookup index instead.
 */
async function tasksToCancel(
  workspaceId: string,
  sku: string,
  latest: LatestApproval | undefined,
  connectors: readonly Connector[],
): Promise<string[]> {
  const ids = latest
    ? latest.taskIds
    : (await Promise.all(connectors.map((connector) => openTaskIds(workspaceId, connector.connectorId, sku)))).flat();
  if (ids.length === 0) return [];
  const tasks = await readTasks(workspaceId, ids);
  return [...tasks.values()].filter((task) => task.status === 'pending').map((task) => task.taskId);
}

/** Whether a transaction was refused because the latest approval or a task moved under it: then it reads again. */
function lostTurn(error: unknown): boolean {
  return error instanceof TransactionCanceledException || (error as { name?: string } | undefined)?.name === 'TransactionConflictException';
}

/**
 * Who approves: an API key, or a console user, who approves as a live key does (`keyId` then holds the user's id).
 */
export type Approver = Pick<Principal, 'keyId' | 'family' | 'workspaceId' | 'workspace'>;

/** What an approval settles before it takes its turn: the checked price, and the connectors it publishes to. */
interface ApprovalPlan {
  readonly workspaceId: string;
  readonly keyId: string;
  readonly approvalId: string;
  readonly recommendation: PricedRecommendation;
  readonly priceCents: number;
  readonly livemode: boolean;
  readonly connectors: readonly Connector[];
  readonly reasonSummary: string;
  readonly now: Date;
}

async function planApproval(principal: Approver, request: ApproveRequest, now: Date): Promise<ApprovalPlan> {
  const { workspaceId, workspace } = principal;
  const recommendation = pricedOrRefused(await currentRecommendation(workspace, request.sku, now.getTime()), request.sku);
  const priceCents = checkApprovedPrice(request.price, recommendation);
  const livemode = principal.family === 'pw_live';
  const approvalId = newId('apv');
  const connectors =
    livemode && workspace.features.includes('writebacks')
      ? (await listConnectors(workspaceId)).filter((connector) => connector.receivesWritebacks)
      : [];
  const reasonSummary = approvalReason(priceCents, recommendation);
  return { workspaceId, keyId: principal.keyId, approvalId, recommendation, priceCents, livemode, connectors, reasonSummary, now };
}

interface PublishedTask {
  readonly connectorId: string;
  readonly taskId: string;
  readonly item: Record<string, unknown>;
}

function approvalRecord(plan: ApprovalPlan, approvedAt: string, tasks: readonly PublishedTask[]): Approval {
  const { recommendation } = plan;
  return {
    approvalId: plan.approvalId,
    workspaceId: plan.workspaceId,
    sku: recommendation.sku,
    priceCents: plan.priceCents,
    currency: recommendation.currency,
    approvedAt,
    livemode: plan.livemode,
    keyId: plan.keyId,
    recommendedPriceCents: recommendation.recommendedPriceCents,
    pricingDecisionId: recommendation.pricingDecisionId,
    publishedTo: tasks.map(({ connectorId, taskId }) => ({ connectorId, writebackId: taskId })),
  };
}

function approvalPut(plan: ApprovalPlan, approval: Approval): TransactEntry {
  return {
    Put: {
      Item: { ...keys.approval(plan.workspaceId, approval.sku, approval.approvedAt, plan.approvalId), type: 'approval', ...approval },
      ConditionExpression: 'attribute_not_exists(PK)',
    },
  };
}

function approvedEvent(plan: ApprovalPlan, approval: Approval): WebhookEvent {
  return newEvent(
    'price.approved',
    plan.workspaceId,
    {
      approvalId: plan.approvalId,
      sku: approval.sku,
      priceCents: approval.priceCents,
      currency: approval.currency,
      recommendedPriceCents: approval.recommendedPriceCents,
      approvedAt: approval.approvedAt,
      livemode: approval.livemode,
      publishedTo: approval.publishedTo,
    },
    plan.now,
  );
}

/** A sandbox approval: the record alone, which supersedes nothing. */
async function approveInSandbox(plan: ApprovalPlan): Promise<Approval> {
  const approval = approvalRecord(plan, plan.now.toISOString(), []);
  const event = approvedEvent(plan, approval);
  await transactWrite([approvalPut(plan, approval), outboxEntry(event)]);
  await handOn([event]);
  return approval;
}

/** One write-back task per connector, created at the approval's moment. */
function publishedTasks(plan: ApprovalPlan, approvedAt: string): PublishedTask[] {
  return plan.connectors.map((connector) => {
    const item = newTaskItem({
      workspaceId: plan.workspaceId,
      connectorId: connector.connectorId,
      channel: connector.name,
      approvalId: plan.approvalId,
      recommendation: plan.recommendation,
      priceCents: plan.priceCents,
      reasonSummary: plan.reasonSummary,
      createdAt: approvedAt,
    });
    return { connectorId: connector.connectorId, taskId: String(item.taskId), item };
  });
}

function pendingEvent(plan: ApprovalPlan, { connectorId, taskId }: PublishedTask, approvedAt: string): WebhookEvent {
  const { recommendation } = plan;
  return newEvent(
    'writeback.pending',
    plan.workspaceId,
    {
      writebackId: taskId,
      connectorId,
      approvalId: plan.approvalId,
      productSku: recommendation.sku,
      priceCents: plan.priceCents,
      currency: recommendation.currency,
      createdAt: approvedAt,
    },
    plan.now,
  );
}

/** A live approval's writes on the latest approval it read: its record, its turn, the cancels, the tasks, and the events of each. */
async function liveWrites(plan: ApprovalPlan, latest: LatestApproval | undefined) {
  const { workspaceId, recommendation } = plan;
  const approvedAt = nextApprovedAt(latest, plan.now);
  const tasks = publishedTasks(plan, approvedAt);
  const approval = approvalRecord(plan, approvedAt, tasks);
  const cancels = (await tasksToCancel(workspaceId, recommendation.sku, latest, plan.connectors)).map((taskId) =>
    cancelTask(workspaceId, taskId, plan.approvalId, plan.now.getTime()),
  );
  // Each event is written with the item it reports: the approval's with the approval, each task's with the task.
  const events: WebhookEvent[] = [approvedEvent(plan, approval)];
  const taskPuts = tasks.flatMap((task): TransactEntry[] => {
    const pending = pendingEvent(plan, task, approvedAt);
    events.push(pending);
    return [{ Put: { Item: task.item, ConditionExpression: 'attribute_not_exists(PK)' } }, outboxEntry(pending)];
  });
  const entries: TransactEntry[] = [
    approvalPut(plan, approval),
    outboxEntry(events[0] as WebhookEvent),
    takeTurn(workspaceId, recommendation.sku, latest, {
      approvalId: plan.approvalId,
      approvedAt,
      taskIds: tasks.map((task) => task.taskId),
    }),
    ...cancels,
    ...taskPuts,
  ];
  return { approval, events, entries };
}

/**
 * Approves a price for a SKU. A live key records the approval, one task per connector that receives write-backs, the
 * cancellation of the pending tasks of the approval before it, and its turn on the SKU's latest-approval item, all in
 * one transaction: approvals of one SKU at once take turns, the last to take its turn wins, and each connector is left
 * exactly one pending task, the winner's. A sandbox key records the approval alone, and supersedes nothing.
 */
export async function approvePrice(principal: Approver, request: ApproveRequest, now: Date): Promise<Approval> {
  const plan = await planApproval(principal, request, now);
  if (!plan.livemode) return approveInSandbox(plan);
  for (let attempt = 1; ; attempt++) {
    const latest = await readLatestApproval(plan.workspaceId, plan.recommendation.sku);
    const { approval, events, entries } = await liveWrites(plan, latest);
    try {
      // With more connectors than one transaction holds, the rest of the tasks follow in further transactions.
      for (let start = 0; start < entries.length; start += TRANSACTION_ITEMS) {
        await transactWrite(entries.slice(start, start + TRANSACTION_ITEMS));
      }
      await handOn(events);
      return approval;
    } catch (error) {
      // Another approval took its turn first, or a task to cancel was leased meanwhile: read again and try anew.
      if (!lostTurn(error) || attempt >= TURN_ATTEMPTS) throw error;
      await pause(attempt);
    }
  }
}

/** The answer of POST /v1/prices/approve, in the overview's snake_case. */
export function approvalView(approval: Approval): ApprovalView {
  return {
    sku: approval.sku,
    price: toDecimalAmount(approval.priceCents, approval.currency),
    currency: approval.currency,
    approved_at: approval.approvedAt,
    livemode: approval.livemode,
    published_to: approval.publishedTo.map((published) => ({ connector_id: published.connectorId, writeback_id: published.writebackId })),
  };
}
