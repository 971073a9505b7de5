// Approvals: the body of POST /v1/prices/approve, the stored record of each approved price, and what the caller is answered.
import * as v from 'valibot';
import { dataWarningCodes } from '#shared/canonical/data-warnings.ts';
import { PersonSchema } from '#shared/api-keys/schema.ts';
import { IdentifierSchema } from '#shared/records/identifier.ts';
import { TaskIdSchema } from '#shared/writebacks/schema.ts';

export const ApproveRequestSchema = v.strictObject({
  /** It names the product's partition key, so it has the bound of every identifier. */
  sku: IdentifierSchema,
  /** A decimal amount; its minor digits are checked against the product's currency once it is known. */
  price: v.pipe(v.number('a decimal amount'), v.finite('a decimal amount'), v.gtValue(0, 'greater than 0')),
  /**
   * Confirms a move from the current price past the workspace's confirmation threshold, or a price for a product held
   * by data warnings; without it either is refused.
   */
  confirm: v.optional(v.boolean('true or false')),
});
export type ApproveRequest = v.InferOutput<typeof ApproveRequestSchema>;

export const approverTypes = ['api_key', 'console_user'] as const;

/** Who approved: an API key, or a console user (who approves as a live key does). */
export const ApproverIdentitySchema = v.object({
  type: v.picklist(approverTypes),
  id: v.string(),
  email: v.optional(v.string()),
});
export type ApproverIdentity = v.InferOutput<typeof ApproverIdentitySchema>;

/**
 * A confirmed approval: the threshold as it stood and the move from the current price, and the codes of the data
 * warnings it was confirmed over (absent when the product had none: the move alone needed it).
 */
export const ConfirmationSchema = v.object({
  thresholdPct: v.number(),
  changePct: v.nullable(v.number()),
  warnings: v.optional(v.array(v.picklist(dataWarningCodes))),
});
export type Confirmation = v.InferOutput<typeof ConfirmationSchema>;

export const approvalStatuses = ['published', 'waiting', 'superseded', 'expired'] as const;
export type ApprovalStatus = (typeof approvalStatuses)[number];

export const ApprovalSchema = v.object({
  approvalId: v.string(),
  workspaceId: v.string(),
  sku: v.string(),
  priceCents: v.number(),
  currency: v.string(),
  approvedAt: v.string(),
  /** False for a sandbox (pw_test) approval, which publishes nothing. */
  livemode: v.boolean(),
  /** The key that approved, or the console user who did. */
  keyId: v.string(),
  /** Absent on approvals recorded before approvers were typed: `keyId` then tells (`usr_` is a console user). */
  approver: v.optional(ApproverIdentitySchema),
  /** The person behind the approver (a key's creator); absent on older approvals, whose approver is then the person. */
  person: v.optional(PersonSchema),
  /** Published, or waiting for a second approver and how that ended; absent on older approvals, which all published. */
  status: v.optional(v.picklist(approvalStatuses), 'published'),
  /** The recommendation as it stood when the price was approved. */
  recommendedPriceCents: v.number(),
  pricingDecisionId: v.string(),
  /** The current price the move was measured from; absent on older approvals. */
  currentPriceCents: v.optional(v.number()),
  confirmation: v.optional(ConfirmationSchema),
  /**
   * The recommendation the person was shown and approved at, when the approval named it: `recommendedPriceCents` is
   * the recommendation when approved, within `tolerancePct` of it. Absent for a price a person set themselves.
   */
  shown: v.optional(v.object({ priceCents: v.number(), pricingDecisionId: v.string(), tolerancePct: v.number() })),
  /** For an approval that needed a second approver: the threshold, how long it waits, and who seconded it. */
  secondApproval: v.optional(
    v.object({
      thresholdPct: v.number(),
      waitingUntil: v.string(),
      approver: v.optional(ApproverIdentitySchema),
      /** The person behind the second approver. */
      person: v.optional(PersonSchema),
      approvedAt: v.optional(v.string()),
    }),
  ),
  /** The approval that superseded a waiting one. */
  supersededBy: v.optional(v.string()),
  publishedTo: v.array(v.object({ connectorId: v.string(), writebackId: v.string() })),
});
export type Approval = v.InferOutput<typeof ApprovalSchema>;

const moment = v.pipe(v.string(), v.isoTimestamp());

/** What an approval answers: a sandbox (pw_test) approval is `livemode: false` and publishes to nobody. */
export const ApprovalViewSchema = v.strictObject({
  approval_id: v.string(),
  sku: v.string(),
  price: v.pipe(v.number(), v.gtValue(0)),
  currency: v.string(),
  approved_at: moment,
  livemode: v.boolean(),
  /** `waiting` when the move needs a second approver who has not yet approved the same price: nothing is published. */
  status: v.picklist(['published', 'waiting']),
  /** Until when a waiting approval may be seconded; null once published. */
  waiting_until: v.nullable(moment),
  /** One write-back task per connector that receives write-backs; none while waiting. */
  published_to: v.array(v.strictObject({ connector_id: v.string(), writeback_id: TaskIdSchema })),
});
export type ApprovalView = v.InferOutput<typeof ApprovalViewSchema>;
