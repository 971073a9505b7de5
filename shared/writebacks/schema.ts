// Write-back tasks: the stored task, the task as a connector sees it, and the bodies and answers of claim, ack and extend.
import * as v from 'valibot';
import { boundedArray } from '#platform/input.ts';

export const taskStatuses = ['pending', 'leased', 'applied', 'failed', 'cancelled'] as const;
export type TaskStatus = (typeof taskStatuses)[number];

/** `wb_` and 22 base62 characters, as the service mints them. */
export const TaskIdSchema = v.pipe(v.string('a write-back task id'), v.regex(/^wb_[0-9A-Za-z]{22}$/, 'a write-back task id (wb_…)'));

export const TaskSchema = v.object({
  taskId: v.string(),
  workspaceId: v.string(),
  connectorId: v.string(),
  /** Where the connector applies the price: the connector's name, as an operator named it. */
  channel: v.string(),
  approvalId: v.string(),
  /**
   * The SKU's approval count when the task was published (the latest-approval item's version): it grows with each
   * approval of the SKU, so a higher sequence is a newer price. Absent from tasks published before it existed.
   */
  sequence: v.optional(v.number()),
  /**
   * The same connector's task of the SKU that was leased when this one was published: this one is not leased while
   * that one's lease is live (see claim.ts), so that one connector applies one price of a SKU at a time.
   */
  waitsFor: v.optional(v.string()),
  productSku: v.string(),
  productExternalId: v.optional(v.string()),
  priceCents: v.number(),
  currency: v.string(),
  exchangeRateToBase: v.optional(v.number()),
  reasonSummary: v.string(),
  pricingDecisionId: v.string(),
  status: v.picklist(taskStatuses),
  createdAt: v.string(),
  /** Set by each claim; a leased task whose lease has passed is claimable again. */
  leaseUntilMs: v.optional(v.number()),
  /** How many times the task has been leased. */
  leases: v.optional(v.number()),
  /** When the last claim leased it (UTC); a renewal leaves it. */
  leasedAt: v.optional(v.string()),
  finishedAt: v.optional(v.string()),
  /** The connector's reason, for a failed task. */
  error: v.optional(v.string()),
  /** The approval whose task replaced this one, for a cancelled task. */
  supersededBy: v.optional(v.string()),
  /** A failed task a person sent again: the task that carries its price now (shared/approvals/resend.ts). */
  resentAs: v.optional(v.string()),
  /** The failed task this one sends again, and who sent it: the audit of a second try, which the service never makes itself. */
  resendOf: v.optional(v.object({ taskId: v.string(), by: v.string() })),
  /**
   * An applied task acknowledged after a task of a newer approval of its SKU was applied: recorded as applied, but the
   * product's current price stays the newer one.
   */
  overtaken: v.optional(v.boolean()),
});
export type Task = v.InferOutput<typeof TaskSchema>;

/** A task as the claim and extend endpoints answer it. */
export const TaskViewSchema = v.strictObject({
  id: TaskIdSchema,
  productSku: v.string(),
  productExternalId: v.optional(v.string()),
  priceCents: v.pipe(v.number(), v.safeInteger(), v.minValue(0)),
  currency: v.string(),
  /** UTC, with milliseconds. */
  leaseUntil: v.pipe(v.string(), v.isoTimestamp()),
  target: v.strictObject({ connectorId: v.string(), channel: v.string() }),
  exchangeRateToBase: v.optional(v.number()),
  reasonSummary: v.string(),
  pricingDecisionId: v.string(),
  /** The approval that published the task: one approval, one task per connector. */
  approvalId: v.string(),
  /**
   * Grows with each approval of the SKU: of two tasks of one SKU, the higher sequence is the newer price, so a
   * connector can refuse to apply an older price over a newer one. 0 for a task published before the field.
   */
  sequence: v.pipe(v.number(), v.safeInteger(), v.minValue(0)),
});
export type TaskView = v.InferOutput<typeof TaskViewSchema>;

export const CLAIM_LIMIT = { min: 1, max: 100, default: 10 } as const;
export const LEASE_SECONDS = { min: 1, max: 3600, default: 300 } as const;

const leaseSeconds = v.optional(
  v.pipe(
    v.number('an integer number of seconds'),
    v.integer('an integer number of seconds'),
    v.minValue(LEASE_SECONDS.min, `at least ${LEASE_SECONDS.min}`),
    v.maxValue(LEASE_SECONDS.max, `at most ${LEASE_SECONDS.max}`),
  ),
  LEASE_SECONDS.default,
);

/** The body may be left out altogether: ten tasks for five minutes. */
export const ClaimRequestSchema = v.optional(
  v.strictObject({
    limit: v.optional(
      v.pipe(
        v.number('an integer'),
        v.integer('an integer'),
        v.minValue(CLAIM_LIMIT.min, `at least ${CLAIM_LIMIT.min}`),
        v.maxValue(CLAIM_LIMIT.max, `at most ${CLAIM_LIMIT.max}`),
      ),
      CLAIM_LIMIT.default,
    ),
    leaseSeconds,
  }),
  {},
);
export type ClaimRequest = v.InferOutput<typeof ClaimRequestSchema>;

export const MAX_ACK_RESULTS = 500;
export const MAX_ERROR_LENGTH = 1000;

export const AckResultSchema = v.strictObject({
  /** Any string: an id the service never minted is counted as ignored, not refused. */
  id: v.pipe(v.string('a task id'), v.minLength(1, 'a task id')),
  ok: v.boolean('true for applied, false for failed'),
  error: v.optional(v.pipe(v.string(), v.maxLength(MAX_ERROR_LENGTH, `at most ${MAX_ERROR_LENGTH} characters`))),
});
export type AckResult = v.InferOutput<typeof AckResultSchema>;

export const AckRequestSchema = v.strictObject({
  results: boundedArray(
    AckResultSchema,
    'an array of acknowledgement results',
    [1, 'at least 1 result'],
    [MAX_ACK_RESULTS, `at most ${MAX_ACK_RESULTS} results`],
  ),
});

const ackCount = v.pipe(v.number(), v.safeInteger(), v.minValue(0), v.maxValue(MAX_ACK_RESULTS));

/** Every result of an ack is counted once, in one of the four. */
export const AckCountsSchema = v.strictObject({ applied: ackCount, failed: ackCount, expired: ackCount, ignored: ackCount });
export type AckCounts = v.InferOutput<typeof AckCountsSchema>;

export const ExtendRequestSchema = v.optional(
  v.strictObject({
    leaseSeconds,
    /**
     * The task's price is being applied now. The lease is then renewed even when a newer approval has superseded the
     * task, and the newer task waits for this one's ack; without it, renewing a superseded task cancels it.
     */
    running: v.optional(v.boolean('true while the task is being applied'), false),
  }),
  {},
);

/** A claim answers at most its limit, and an empty list when nothing is claimable. */
export const ClaimResponseSchema = v.strictObject({ tasks: v.pipe(v.array(TaskViewSchema), v.maxLength(CLAIM_LIMIT.max)) });

export const ExtendResponseSchema = v.strictObject({ task: TaskViewSchema });
