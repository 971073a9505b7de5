// Approvals: the body of POST /v1/prices/approve, the stored record of each approved price, and what the caller is answered.
import * as v from 'valibot';
import { IdentifierSchema } from '#shared/records/identifier.ts';
import { TaskIdSchema } from '#shared/writebacks/schema.ts';

export const ApproveRequestSchema = v.strictObject({
  /** It names the product's partition key, so it has the bound of every identifier. */
  sku: IdentifierSchema,
  /** A decimal amount; its minor digits are checked against the product's currency once it is known. */
  price: v.pipe(v.number('a decimal amount'), v.finite('a decimal amount'), v.gtValue(0, 'greater than 0')),
});
export type ApproveRequest = v.InferOutput<typeof ApproveRequestSchema>;

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
  /** The recommendation as it stood when the price was approved. */
  recommendedPriceCents: v.number(),
  pricingDecisionId: v.string(),
  publishedTo: v.array(v.object({ connectorId: v.string(), writebackId: v.string() })),
});
export type Approval = v.InferOutput<typeof ApprovalSchema>;

/** What an approval answers: a sandbox (pw_test) approval is `livemode: false` and publishes to nobody. */
export const ApprovalViewSchema = v.strictObject({
  sku: v.string(),
  price: v.pipe(v.number(), v.gtValue(0)),
  currency: v.string(),
  approved_at: v.pipe(v.string(), v.isoTimestamp()),
  livemode: v.boolean(),
  /** One write-back task per connector that receives write-backs. */
  published_to: v.array(v.strictObject({ connector_id: v.string(), writeback_id: TaskIdSchema })),
});
export type ApprovalView = v.InferOutput<typeof ApprovalViewSchema>;
