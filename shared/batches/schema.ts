// Ingest batches: the record of a batch, the states it moves through, and the batch id and list query the routes take (views.ts has what they answer).
import * as v from 'valibot';
import { entityRank, EntityKindSchema, type EntityKind } from '#shared/records/schema.ts';

export const BatchStatusSchema = v.picklist(['open', 'committed', 'draining', 'drained', 'failed']);
export type BatchStatus = v.InferOutput<typeof BatchStatusSchema>;

const count = v.pipe(v.number(), v.safeInteger());

/** Stored as a DynamoDB string set (so that parallel staging calls can add to it atomically); read as a list in rank order. */
const EntitiesSchema = v.pipe(
  v.optional(v.union([v.array(EntityKindSchema), v.set(EntityKindSchema)]), []),
  v.transform((kinds): EntityKind[] => [...kinds].sort((a, b) => entityRank[a] - entityRank[b])),
);

/**
 * The drain's attempts at one message of its job (a continuation is a message of its own, a redelivered copy is not),
 * recorded as each takes the lease: how many took it, and the checkpoint the last started from and how many before it
 * started from there too. They tell a drain that stalls from one that runs out of time while it moves on.
 */
export const DrainAttemptsSchema = v.object({
  continuation: count,
  started: count,
  from: count,
  stalled: count,
});
export type DrainAttempts = v.InferOutput<typeof DrainAttemptsSchema>;

export const BatchSchema = v.object({
  batchId: v.pipe(v.string(), v.uuid()),
  workspaceId: v.string(),
  /** A batch belongs to the connector that opened it; no other connector can see it. */
  connectorId: v.string(),
  status: BatchStatusSchema,
  entities: EntitiesSchema,
  recordCount: count,
  /** Quote and order lines staged, counted against the workspace's line cap. */
  lineCount: v.optional(count, 0),
  skippedOverCap: count,
  createdAt: v.string(),
  /** The last staging sequence number handed out; each staging call takes the next one for its chunk key. */
  chunkSeq: v.optional(count, 0),
  jobId: v.optional(v.string()),
  committedAt: v.optional(v.string()),
  drainStartedAt: v.optional(v.string()),
  drainedAt: v.optional(v.string()),
  /** Records written to canonical data so far; it only moves forward, with the checkpoint. */
  drainedCount: v.optional(count),
  /**
   * Products the drain wrote with data warnings (shared/canonical/data-warnings.ts), counted with the checkpoint; a
   * product the batch carries twice, warned both times, counts twice.
   */
  warnedProducts: v.optional(count),
  /** Sort key of the last chunk applied to canonical data: where a redelivered or continued drain resumes. */
  drainCursor: v.optional(v.string()),
  drainAttempts: v.optional(DrainAttemptsSchema),
  /**
   * When a drain message of the batch was last seen by the worker (its lease, or a look at its turn) or put back on the
   * queue: a committed batch unseen for long has no message in flight, and the sweeper sends it one (drain-watch.ts).
   */
  drainSeenAt: v.optional(v.string()),
  /**
   * When a job of the batch last moved it on: took its lease, or saved a checkpoint of the drain or the bands job.
   * Written in the same requests, so it costs nothing of its own; the status view shows it as `progressAt`.
   */
  progressAt: v.optional(v.string()),
  /** The last category whose bands were recomputed after the drain: where a resumed recompute goes on. */
  bandCursor: v.optional(v.string()),
  /** The last product whose recommendation was stored after the bands: where a resumed refresh goes on. */
  recommendationCursor: v.optional(v.string()),
  /**
   * When the bands of what the batch touched were written and stamped (shared/workspaces/bands-stamp.ts): from then
   * on price calls answer from them. The recommendations follow, and the job ends with `bandsRecomputedAt`.
   */
  pricesFreshAt: v.optional(v.string()),
  /** When the bands, then the recommendations, of what the batch touched were recomputed, after it drained. */
  bandsRecomputedAt: v.optional(v.string()),
  /** Which drain invocation may write, and until when; a drain that died lets go when its lease runs out. */
  leaseOwner: v.optional(v.string()),
  leaseUntil: v.optional(v.number()),
  failedAt: v.optional(v.string()),
  error: v.optional(v.string()),
  /** When its connector cancelled it, open: it is then `failed`, and its staged records are discarded. */
  cancelledAt: v.optional(v.string()),
});
export type Batch = v.InferOutput<typeof BatchSchema>;

/** The list's query as it arrives: every value a string, no other parameter. */
export const BatchesQuerySchema = v.optional(
  v.strictObject({ limit: v.optional(v.string()), starting_after: v.optional(v.string()), status: v.optional(v.string()) }),
);

/** Batch ids are UUIDs (the service mints v4); anything else in the path is refused before any read. */
export const BatchIdSchema = v.pipe(v.string('a batch id (a UUID)'), v.uuid('a batch id (a UUID)'));
