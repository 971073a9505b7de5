// An approval's writes: its record, its turn on the SKU, the tasks it publishes or the wait for a second approver, and the events of each.
import * as v from 'valibot';
import type { Connector } from '#shared/connectors/schema.ts';
import type { PricedRecommendation } from '#shared/recommendations/schema.ts';
import { getItem, type TransactEntry } from '#platform/table/commands.ts';
import { listingKeys, lookupKeys } from '#platform/table/index-keys.ts';
import { keys } from '#platform/table/keys.ts';
import { type PublicationSlot, type UnfinishedPublication, unfinishedPublicationPut } from '#shared/writebacks/publication.ts';
import { cancelTask } from '#shared/writebacks/tasks.ts';
import { newEvent, type WebhookEvent } from '#shared/webhooks/events.ts';
import { outboxEntry } from '#shared/webhooks/outbox.ts';
import { type LatestApproval, nextApprovedAt, takeTurn } from './latest.ts';
import { pendingEvent, predecessors, type PublishedTask, publishedTasks } from './publication-tasks.ts';
import type { Person } from '#shared/api-keys/schema.ts';
import { approverOf, moveFromCurrent, secondsWaiting, type ShownApproval, waitHasRunOut, waitingUntil } from './rules.ts';
import { type Approval, ApprovalSchema, type ApproverIdentity, type Confirmation } from './schema.ts';

/** What an approval settles before it takes its turn: the checked price, who approves, and the connectors it publishes to. */
export interface ApprovalPlan {
  readonly workspaceId: string;
  readonly keyId: string;
  readonly approver: ApproverIdentity;
  /** The person behind the approver, whom a second approval must not be. */
  readonly person: Person;
  readonly approvalId: string;
  readonly recommendation: PricedRecommendation;
  readonly priceCents: number;
  readonly livemode: boolean;
  readonly connectors: readonly Connector[];
  readonly reasonSummary: string;
  readonly now: Date;
  readonly confirmation: Confirmation | undefined;
  /** The threshold past which the move waits for a second approver; undefined when one approval publishes it. */
  readonly secondApprovalPct: number | undefined;
  /** The recommendation as shown, when the approved price is it: the recommendation then may differ within the tolerance. */
  readonly shown?: ShownApproval;
}

/** What one attempt at a turn writes, all or nothing, and the events it hands on once written. */
export interface ApprovalWrites {
  readonly approval: Approval;
  readonly events: WebhookEvent[];
  readonly entries: TransactEntry[];
  /** The tasks past the first transaction, kept durably by it, for the request to write out once it commits. */
  readonly unfinished?: UnfinishedPublication;
}

export function approvalRecord(plan: ApprovalPlan, approvedAt: string, tasks: readonly PublishedTask[]): Approval {
  const { recommendation } = plan;
  const waits = plan.livemode && plan.secondApprovalPct !== undefined;
  return {
    approvalId: plan.approvalId,
    workspaceId: plan.workspaceId,
    sku: recommendation.sku,
    priceCents: plan.priceCents,
    currency: recommendation.currency,
    approvedAt,
    livemode: plan.livemode,
    keyId: plan.keyId,
    approver: plan.approver,
    person: plan.person,
    status: waits ? 'waiting' : 'published',
    recommendedPriceCents: recommendation.recommendedPriceCents,
    pricingDecisionId: recommendation.pricingDecisionId,
    currentPriceCents: recommendation.currentPriceCents,
    ...(plan.confirmation ? { confirmation: plan.confirmation } : {}),
    ...(plan.shown ? { shown: plan.shown } : {}),
    ...(waits ? { secondApproval: { thresholdPct: plan.secondApprovalPct as number, waitingUntil: waitingUntil(approvedAt) } } : {}),
    publishedTo: tasks.map(({ connectorId, taskId }) => ({ connectorId, writebackId: taskId })),
  };
}

export function approvalPut(approval: Approval): TransactEntry {
  const waitingUntil = approval.status === 'waiting' ? approval.secondApproval?.waitingUntil : undefined;
  return {
    Put: {
      Item: {
        ...keys.approval(approval.workspaceId, approval.sku, approval.approvedAt, approval.approvalId),
        type: 'approval',
        ...approval,
        // On the sweeper's list until the wait ends, so that a wait that runs out says so without waiting for an approval;
        // and on its workspace's, which the console's landing page reads.
        ...(waitingUntil ? lookupKeys.waitingApproval(waitingUntil, approval.workspaceId, approval.approvalId) : {}),
        ...(waitingUntil ? listingKeys.waitingApproval(approval.workspaceId, waitingUntil, approval.approvalId) : {}),
      },
      ConditionExpression: 'attribute_not_exists(PK)',
    },
  };
}

export function approvedEvent(approval: Approval, now: Date): WebhookEvent {
  const second = approval.secondApproval;
  return newEvent(
    'price.approved',
    approval.workspaceId,
    {
      approvalId: approval.approvalId,
      sku: approval.sku,
      priceCents: approval.priceCents,
      currency: approval.currency,
      recommendedPriceCents: approval.recommendedPriceCents,
      approvedAt: approval.approvedAt,
      livemode: approval.livemode,
      publishedTo: approval.publishedTo,
      approvedBy: approverOf(approval),
      confirmation: approval.confirmation ? { ...approval.confirmation, currentPriceCents: approval.currentPriceCents ?? 0 } : null,
      secondApprover: second?.approver && second.approvedAt ? { approvedBy: second.approver, approvedAt: second.approvedAt } : null,
    },
    now,
  );
}

/** The event of a waiting approval: when it starts to wait, and when its wait ends. */
function secondApprovalEvent(approval: Approval, state: 'waiting' | 'published' | 'superseded' | 'expired', now: Date): WebhookEvent {
  const currentPriceCents = approval.currentPriceCents ?? 0;
  return newEvent(
    'price.second_approval',
    approval.workspaceId,
    {
      approvalId: approval.approvalId,
      sku: approval.sku,
      state,
      priceCents: approval.priceCents,
      currency: approval.currency,
      currentPriceCents,
      changePct: moveFromCurrent(approval.priceCents, currentPriceCents),
      approvedBy: approverOf(approval),
      approvedAt: approval.approvedAt,
      waitingUntil: approval.secondApproval?.waitingUntil ?? approval.approvedAt,
      secondApprover: approval.secondApproval?.approver ?? null,
    },
    now,
  );
}

/**
 * Entries of an approval's first transaction left for its connectors' tasks: 100 less the record, its events, the
 * turn, the end of a wait, the answer of its Idempotency-Key and the item of what is left.
 */
const SLOT_ENTRIES = 100 - 8;

/**
 * Publishing: the tasks, each with its event, and the cancels of the pending tasks of the approval before. The first
 * transaction holds as many connectors' tasks as fit (30 or more); the rest are kept in one durable item written with
 * it, which the request then writes out (finishPublication), or the workspace's next claim when the request was cut.
 * The turn names every task either way, so no claim hands out a task of the approval before meanwhile.
 */
async function publication(plan: ApprovalPlan, latest: LatestApproval | undefined, approvalId: string, createdAt: string) {
  const { workspaceId, recommendation } = plan;
  const nowMs = plan.now.getTime();
  const before = await predecessors(workspaceId, recommendation.sku, latest, plan.connectors);
  // The turn's version: the tasks' sequence is the approval count of the SKU that publishes them.
  const tasks = publishedTasks(plan, approvalId, createdAt, (latest?.version ?? 0) + 1, before.waitsFor);
  const connectorsPublished = new Set(tasks.map((task) => task.connectorId));
  // Pending tasks of connectors that no longer take write-backs are cancelled at once.
  const unslotted = before.cancels.filter((cancel) => !connectorsPublished.has(cancel.connectorId));
  const cancels = unslotted.map((cancel) => cancelTask(workspaceId, cancel.taskId, approvalId, nowMs));
  const events: WebhookEvent[] = [];
  const taskPuts: TransactEntry[] = [];
  const rest: PublicationSlot[] = [];
  let room = SLOT_ENTRIES - cancels.length;
  for (const task of tasks) {
    const pending = pendingEvent(plan, approvalId, task, createdAt);
    const own = before.cancels.filter((cancel) => cancel.connectorId === task.connectorId).map((cancel) => cancel.taskId);
    if (rest.length === 0 && room >= 2 + own.length) {
      room -= 2 + own.length;
      events.push(pending);
      cancels.push(...own.map((taskId) => cancelTask(workspaceId, taskId, approvalId, nowMs)));
      taskPuts.push({ Put: { Item: task.item, ConditionExpression: 'attribute_not_exists(PK)' } }, outboxEntry(pending));
    } else rest.push({ task: { ...task.item, taskId: task.taskId }, event: pending, cancels: own });
  }
  const unfinished = rest.length === 0 ? undefined : { workspaceId, sku: recommendation.sku, approvalId, slots: rest };
  return { tasks, cancels, taskPuts, events, unfinished };
}

/** A live approval that publishes on its own: its record, its turn, the cancels, the tasks, and the events of each. */
async function publishingWrites(plan: ApprovalPlan, latest: LatestApproval | undefined): Promise<ApprovalWrites> {
  const approvedAt = nextApprovedAt(latest, plan.now);
  const { tasks, cancels, taskPuts, events, unfinished } = await publication(plan, latest, plan.approvalId, approvedAt);
  const approval = approvalRecord(plan, approvedAt, tasks);
  const approved = approvedEvent(approval, plan.now);
  const turn = { approvalId: plan.approvalId, approvedAt, taskIds: tasks.map((task) => task.taskId) };
  return {
    approval,
    events: [approved, ...events],
    entries: [
      approvalPut(approval),
      outboxEntry(approved),
      takeTurn(plan.workspaceId, approval.sku, latest, turn),
      ...cancels,
      ...taskPuts,
      ...(unfinished ? [unfinishedPublicationPut(unfinished)] : []),
    ],
    ...(unfinished ? { unfinished } : {}),
  };
}

/** A live approval that waits for a second approver: its record and its turn; the tasks published before stay as they are. */
async function waitingWrites(plan: ApprovalPlan, latest: LatestApproval | undefined): Promise<ApprovalWrites> {
  const approvedAt = nextApprovedAt(latest, plan.now);
  const approval = approvalRecord(plan, approvedAt, []);
  const waiting = secondApprovalEvent(approval, 'waiting', plan.now);
  const taskIds = latest
    ? latest.taskIds
    : (await predecessors(plan.workspaceId, approval.sku, undefined, plan.connectors)).cancels.map((cancel) => cancel.taskId);
  const until = approval.secondApproval?.waitingUntil ?? approvedAt;
  const turn = {
    approvalId: plan.approvalId,
    approvedAt,
    taskIds,
    waiting: { approvalId: plan.approvalId, approvedAt, priceCents: plan.priceCents, approverId: plan.approver.id, waitingUntil: until },
  };
  return {
    approval,
    events: [waiting],
    entries: [approvalPut(approval), outboxEntry(waiting), takeTurn(plan.workspaceId, approval.sku, latest, turn)],
  };
}

/** The waiting approval's record, read strongly: the approval that ends its wait reports it, and may publish it. */
async function readWaiting(
  workspaceId: string,
  sku: string,
  waiting: NonNullable<LatestApproval['waiting']>,
): Promise<Approval | undefined> {
  const Item = await getItem({ Key: keys.approval(workspaceId, sku, waiting.approvedAt, waiting.approvalId), ConsistentRead: true });
  const approval = Item ? v.parse(ApprovalSchema, Item) : undefined;
  return approval?.status === 'waiting' ? approval : undefined;
}

/**
 * The update that moves a waiting approval on, held to its still waiting: of two approvals that end one wait, or an
 * approval and the sweeper, one does. It takes the approval off the sweeper's list and its workspace's.
 */
function endWait(approval: Approval, set: string, values: Record<string, unknown>): TransactEntry {
  return {
    Update: {
      Key: keys.approval(approval.workspaceId, approval.sku, approval.approvedAt, approval.approvalId),
      UpdateExpression: `SET #status = :ended, ${set} REMOVE ${[...lookupKeys.lookupAttributes, ...listingKeys.listingAttributes].join(', ')}`,
      ConditionExpression: '#status = :waiting',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: { ':waiting': 'waiting', ...values },
    },
  };
}

/** A second approver's approval of the waiting one: it publishes the waiting approval, exactly as one approval publishes. */
async function secondingWrites(plan: ApprovalPlan, latest: LatestApproval, waiting: Approval): Promise<ApprovalWrites> {
  const publishedAt = nextApprovedAt(latest, plan.now);
  const { tasks, cancels, taskPuts, events, unfinished } = await publication(plan, latest, waiting.approvalId, publishedAt);
  const publishedTo = tasks.map(({ connectorId, taskId }) => ({ connectorId, writebackId: taskId }));
  const secondApproval = {
    ...(waiting.secondApproval ?? { thresholdPct: 0, waitingUntil: publishedAt }),
    approver: plan.approver,
    person: plan.person,
    approvedAt: publishedAt,
  };
  const approval: Approval = { ...waiting, status: 'published', secondApproval, publishedTo };
  const approved = approvedEvent(approval, plan.now);
  const published = secondApprovalEvent(approval, 'published', plan.now);
  const turn = { approvalId: waiting.approvalId, approvedAt: publishedAt, taskIds: tasks.map((task) => task.taskId) };
  return {
    approval,
    events: [published, approved, ...events],
    entries: [
      endWait(approval, 'secondApproval = :second, publishedTo = :publishedTo', {
        ':ended': 'published',
        ':second': secondApproval,
        ':publishedTo': publishedTo,
      }),
      outboxEntry(published),
      outboxEntry(approved),
      takeTurn(plan.workspaceId, approval.sku, latest, turn),
      ...cancels,
      ...taskPuts,
      ...(unfinished ? [unfinishedPublicationPut(unfinished)] : []),
    ],
    ...(unfinished ? { unfinished } : {}),
  };
}

/** Whether this approval seconds the waiting one (rules.ts, `secondsWaiting`). */
function seconds(plan: ApprovalPlan, waiting: Approval): boolean {
  return plan.secondApprovalPct !== undefined && secondsWaiting(waiting, plan);
}

/**
 * A live approval's writes on the latest approval it read. An approval waiting for a second approver is published by
 * this one when it seconds it; otherwise its wait ends here, expired or superseded, and this approval publishes or
 * waits on its own.
 */
export async function liveWrites(plan: ApprovalPlan, latest: LatestApproval | undefined): Promise<ApprovalWrites> {
  const waiting = latest?.waiting ? await readWaiting(plan.workspaceId, plan.recommendation.sku, latest.waiting) : undefined;
  if (latest && waiting && seconds(plan, waiting)) return secondingWrites(plan, latest, waiting);
  const writes = plan.secondApprovalPct === undefined ? await publishingWrites(plan, latest) : await waitingWrites(plan, latest);
  if (!waiting) return writes;
  const ending = waitHasRunOut(waiting, plan.now) ? expiry(waiting, plan.now) : supersession(waiting, plan.approvalId, plan.now);
  // The record and the turn lead the first transaction; the end of the wait goes with them, before any task.
  writes.entries.splice(3, 0, ...ending.entries);
  writes.events.push(ending.event);
  return writes;
}

/** The end of a wait that a newer approval replaces: the update and its event, in one transaction. */
function supersession(waiting: Approval, by: string, now: Date) {
  const ended: Approval = { ...waiting, status: 'superseded', supersededBy: by };
  const event = secondApprovalEvent(ended, 'superseded', now);
  const end = endWait(ended, 'endedAt = :now, supersededBy = :by', { ':ended': 'superseded', ':now': now.toISOString(), ':by': by });
  return { event, entries: [end, outboxEntry(event)] };
}

/**
 * The end of a wait that ran out: the update and its `expired` event, in one transaction, written by the next approval
 * of the SKU or by the sweeper, whichever comes first; the update's condition lets only one of them end it.
 */
export function expiry(waiting: Approval, now: Date): { readonly event: WebhookEvent; readonly entries: TransactEntry[] } {
  const ended: Approval = { ...waiting, status: 'expired' };
  const event = secondApprovalEvent(ended, 'expired', now);
  return { event, entries: [endWait(ended, 'endedAt = :now', { ':ended': 'expired', ':now': now.toISOString() }), outboxEntry(event)] };
}
