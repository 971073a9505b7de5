// A SKU's approval history: its approvals newest first, a page at a time, each with what became of every connector's task.
import * as v from 'valibot';
import { dataWarningCodes } from '#shared/canonical/data-warnings.ts';
import { ApiError } from '#platform/errors.ts';
import { decodeCursor, encodeCursor, pageLimitSchema, PageCursorSchema, readPageLimit } from '#platform/pages.ts';
import { toDecimalAmount } from '#shared/pricing/currency.ts';
import { getItems } from '#platform/table/bulk.ts';
import { getItem, queryPage } from '#platform/table/commands.ts';
import { keys } from '#platform/table/keys.ts';
import { type Task, TaskSchema } from '#shared/writebacks/schema.ts';
import { approverOf, moveFromCurrent, shownApprovalStatus } from './rules.ts';
import { type Approval, ApprovalSchema, type ApproverIdentity, approvalStatuses, approverTypes } from './schema.ts';

export const MAX_APPROVALS_PAGE = 100;
export const DEFAULT_APPROVALS_PAGE = 20;

/** The states a task shows in the history: its stored status, and `expired` for a lease that ran out unacknowledged. */
export const taskStates = ['pending', 'leased', 'applied', 'failed', 'cancelled', 'expired'] as const;
export type TaskState = (typeof taskStates)[number];

export function taskState(task: Pick<Task, 'status' | 'leaseUntilMs'>, nowMs: number): TaskState {
  if (task.status === 'leased' && (task.leaseUntilMs ?? 0) <= nowMs) return 'expired';
  return task.status;
}

/** The query as it arrives: every value a string, no other parameter. */
export const ApprovalsQuerySchema = v.optional(v.strictObject({ limit: v.optional(v.string()), starting_after: v.optional(v.string()) }));
/** The documents' forms of the query's values, which `readApprovalsListing` checks. */
export const ApprovalsLimitSchema = pageLimitSchema(MAX_APPROVALS_PAGE);
export const ApprovalsCursorSchema = PageCursorSchema;

export interface ApprovalsListing {
  readonly limit: number;
  readonly startingAfter?: string;
}

export function readApprovalsListing(query: v.InferOutput<typeof ApprovalsQuerySchema>): ApprovalsListing {
  const { limit: limitText, starting_after: startingAfter } = query ?? {};
  const limit = readPageLimit(limitText, { default: DEFAULT_APPROVALS_PAGE, max: MAX_APPROVALS_PAGE });
  return { limit, ...(startingAfter === undefined ? {} : { startingAfter }) };
}

/** What a cursor names: an approval's moment and id, its place in the product's partition. */
const CURSOR_PATTERN = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z#apv_[0-9A-Za-z]{22}$/;

export interface ApprovalEntry {
  readonly approval: Approval;
  /** Each published task by id, as it stands; a task past its retention is missing. */
  readonly tasks: ReadonlyMap<string, Task>;
}

export interface ApprovalHistoryPage {
  readonly entries: ApprovalEntry[];
  /** Where the next page starts (opaque: `starting_after`), or undefined when this page is the last. */
  readonly next?: string;
}

/**
 * A SKU's approvals, newest first: one Query of the product's partition, and one BatchGetItem of the tasks the page's
 * approvals published, both eventually consistent. A first page with no approval reads the product, so that a SKU
 * the workspace does not know is 404 rather than an empty history.
 */
export async function readApprovalHistory(workspaceId: string, sku: string, listing: ApprovalsListing): Promise<ApprovalHistoryPage> {
  const prefix = keys.approvalPrefix(workspaceId, sku);
  const start =
    listing.startingAfter === undefined
      ? undefined
      : { PK: prefix.PK, SK: `${prefix.SKPrefix}${decodeCursor(listing.startingAfter, CURSOR_PATTERN)}` };
  const { Items = [], LastEvaluatedKey } = await queryPage({
    KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
    ExpressionAttributeValues: { ':pk': prefix.PK, ':prefix': prefix.SKPrefix },
    ScanIndexForward: false,
    Limit: listing.limit,
    ...(start === undefined ? {} : { ExclusiveStartKey: start }),
  });
  if (Items.length === 0 && start === undefined && !(await getItem({ Key: keys.product(workspaceId, sku) }))) {
    throw new ApiError('not_found', `No product has the SKU ${sku} in this workspace.`);
  }
  const approvals = Items.map((item) => v.parse(ApprovalSchema, item));
  const taskIds = approvals.flatMap((approval) => approval.publishedTo.map((published) => published.writebackId));
  const found =
    taskIds.length === 0
      ? []
      : await getItems(
          taskIds.map((id) => keys.writeback(workspaceId, id)),
          { consistent: false },
        );
  const tasks = new Map(found.map((item) => v.parse(TaskSchema, item)).map((task) => [task.taskId, task]));
  const next = LastEvaluatedKey === undefined ? undefined : encodeCursor(String(LastEvaluatedKey.SK).slice(prefix.SKPrefix.length));
  return { entries: approvals.map((approval) => ({ approval, tasks })), ...(next === undefined ? {} : { next }) };
}

const moment = v.pipe(v.string(), v.isoTimestamp());
const decimalAmount = v.pipe(v.number(), v.minValue(0));
const ApproverViewSchema = v.strictObject({ type: v.picklist(approverTypes), id: v.string(), email: v.optional(v.string()) });

export const ApprovalHistoryEntrySchema = v.strictObject({
  approval_id: v.string(),
  /** `published`, `waiting` for a second approver, or a wait that ended `superseded` or `expired`. */
  status: v.picklist(approvalStatuses),
  approved_by: ApproverViewSchema,
  approved_at: moment,
  price: decimalAmount,
  currency: v.string(),
  livemode: v.boolean(),
  /**
   * The recommendation the approval was over: its price, the current price then (null on older approvals), its decision;
   * and `shown_price`, present when the approved price is the recommendation as the approver was shown it, which may
   * differ from `recommended_price` within the workspace's tolerance (`approvalShownTolerancePct`): not an override.
   */
  recommendation: v.strictObject({
    recommended_price: decimalAmount,
    shown_price: v.optional(decimalAmount),
    current_price: v.nullable(decimalAmount),
    pricing_decision_id: v.string(),
  }),
  /** The approved price's move from the current price, to 2 decimals; null when it is unknown or the current price was 0. */
  change_pct: v.nullable(v.number()),
  /** The move past the confirmation threshold that the approval confirmed; null when none was needed. */
  confirmation: v.nullable(
    v.strictObject({
      threshold_pct: v.number(),
      change_pct: v.nullable(v.number()),
      /** The codes of the data warnings the approval was confirmed over; absent when the move alone needed confirming. */
      warnings: v.optional(v.array(v.picklist(dataWarningCodes))),
    }),
  ),
  /** For a move past the second-approval threshold: until when it waits, and who seconded it (null until someone does). */
  second_approval: v.nullable(
    v.strictObject({
      threshold_pct: v.number(),
      waiting_until: moment,
      approved_by: v.nullable(ApproverViewSchema),
      approved_at: v.nullable(moment),
    }),
  ),
  /** One per connector the approval was published to, with the state of its task now. */
  tasks: v.array(
    v.strictObject({
      connector_id: v.string(),
      writeback_id: v.string(),
      state: v.picklist(taskStates),
      /** The connector's reason, for a failed task; null otherwise. */
      error: v.nullable(v.string()),
      finished_at: v.nullable(moment),
    }),
  ),
});
export type ApprovalHistoryEntry = v.InferOutput<typeof ApprovalHistoryEntrySchema>;

export const ApprovalHistorySchema = v.strictObject({
  data: v.pipe(v.array(ApprovalHistoryEntrySchema), v.maxLength(MAX_APPROVALS_PAGE)),
  /** Where the next page starts, passed back as `starting_after`; null on the last page. */
  next: v.nullable(v.string()),
});
export type ApprovalHistory = v.InferOutput<typeof ApprovalHistorySchema>;

function approverView(approver: ApproverIdentity): ApprovalHistoryEntry['approved_by'] {
  return { type: approver.type, id: approver.id, ...(approver.email === undefined ? {} : { email: approver.email }) };
}

/** One approval as the history shows it, in the overview's snake_case. */
export function approvalEntryView({ approval, tasks }: ApprovalEntry, nowMs: number): ApprovalHistoryEntry {
  const amount = (cents: number) => toDecimalAmount(cents, approval.currency);
  const second = approval.secondApproval;
  return {
    approval_id: approval.approvalId,
    status: shownApprovalStatus(approval, nowMs),
    approved_by: approverView(approverOf(approval)),
    approved_at: approval.approvedAt,
    price: amount(approval.priceCents),
    currency: approval.currency,
    livemode: approval.livemode,
    recommendation: {
      recommended_price: amount(approval.recommendedPriceCents),
      ...(approval.shown ? { shown_price: amount(approval.shown.priceCents) } : {}),
      current_price: approval.currentPriceCents === undefined ? null : amount(approval.currentPriceCents),
      pricing_decision_id: approval.pricingDecisionId,
    },
    change_pct: approval.currentPriceCents === undefined ? null : moveFromCurrent(approval.priceCents, approval.currentPriceCents),
    confirmation: approval.confirmation
      ? {
          threshold_pct: approval.confirmation.thresholdPct,
          change_pct: approval.confirmation.changePct,
          ...(approval.confirmation.warnings ? { warnings: approval.confirmation.warnings } : {}),
        }
      : null,
    second_approval: second
      ? {
          threshold_pct: second.thresholdPct,
          waiting_until: second.waitingUntil,
          approved_by: second.approver ? approverView(second.approver) : null,
          approved_at: second.approvedAt ?? null,
        }
      : null,
    tasks: approval.publishedTo.flatMap(({ connectorId, writebackId }) => {
      const task = tasks.get(writebackId);
      if (!task) return [];
      return [
        {
          connector_id: connectorId,
          writeback_id: writebackId,
          state: taskState(task, nowMs),
          error: task.status === 'failed' ? (task.error ?? null) : null,
          finished_at: task.finishedAt ?? null,
        },
      ];
    }),
  };
}

export function approvalHistoryView(page: ApprovalHistoryPage, nowMs: number): ApprovalHistory {
  return { data: page.entries.map((entry) => approvalEntryView(entry, nowMs)), next: page.next ?? null };
}
