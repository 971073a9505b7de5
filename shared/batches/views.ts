// What the batch routes answer (a batch's status, a page of the list, open, stage and commit), apart from the batch record so that the drain's bundle carries none of it.
import * as v from 'valibot';
import { entityKinds, EntityKindSchema } from '#shared/records/schema.ts';
import { MAX_RECORDS_PER_CALL } from '#shared/records/stage-request.ts';
import { BatchIdSchema, BatchStatusSchema } from './schema.ts';

const counted = v.pipe(v.number(), v.safeInteger(), v.minValue(0));
const moment = v.pipe(v.string(), v.isoTimestamp());

/** What GET /api/v1/ingest/batches/{batchId} answers: the moments and the drained count once known, the error only when failed. */
export const BatchStatusViewSchema = v.strictObject({
  status: BatchStatusSchema,
  /** In rank order. */
  entities: v.pipe(v.array(EntityKindSchema), v.maxLength(entityKinds.length)),
  recordCount: counted,
  skippedOverCap: counted,
  createdAt: moment,
  committedAt: v.optional(moment),
  drainedAt: v.optional(moment),
  drainedCount: v.optional(counted),
  /** Products the drain has written with data warnings so far: held for a check, and out of rankings and bulk approval. */
  warnedProducts: v.optional(counted),
  /** Price calls answer from the bands this batch's history moved; the overview and the console follow at `bandsRecomputedAt`. */
  pricesFreshAt: v.optional(moment),
  bandsRecomputedAt: v.optional(moment),
  /**
   * Once committed: when the service last moved the batch on (a drain or bands checkpoint, a look at its turn while
   * it waits behind an earlier batch, the end of a phase). It moves at least every few minutes while the batch is in
   * hand; `waitForBatch` gives up when it stands still past its stall timeout.
   */
  progressAt: v.optional(moment),
  /** Present on a batch its connector cancelled, which is `failed` with the error "batch cancelled before commit". */
  cancelledAt: v.optional(moment),
  error: v.optional(v.string()),
});
export type BatchStatusView = v.InferOutput<typeof BatchStatusViewSchema>;

/** One batch of the connector's list: its id beside its status. */
export const BatchEntrySchema = v.strictObject({ batchId: v.pipe(v.string(), v.uuid()), ...BatchStatusViewSchema.entries });
export type BatchEntry = v.InferOutput<typeof BatchEntrySchema>;

/** The most batches a page of the list holds, and how many when `limit` is left out. */
export const MAX_BATCHES_PAGE = 100;
export const DEFAULT_BATCHES_PAGE = 20;

/** What GET /api/v1/ingest/batches answers: a page of the connector's batches, newest first. */
export const BatchListSchema = v.strictObject({
  data: v.pipe(v.array(BatchEntrySchema), v.maxLength(MAX_BATCHES_PAGE)),
  /** Where the next page starts, passed back as `starting_after`; null on the last page. */
  next: v.nullable(v.string()),
});
export type BatchList = v.InferOutput<typeof BatchListSchema>;

/** What opening a batch answers: the batch belongs to the connector of the key that opened it. */
export const OpenedBatchSchema = v.strictObject({ batchId: BatchIdSchema, connectorId: v.pipe(v.string(), v.startsWith('con_')) });

/** What a staging call answers: the records it accepted; those past a cap are counted in the batch's skippedOverCap. */
export const StagedRecordsSchema = v.strictObject({
  staged: v.pipe(v.number(), v.safeInteger(), v.minValue(0), v.maxValue(MAX_RECORDS_PER_CALL)),
});

/** What a commit answers: the drain job it handed the batch to. */
export const CommittedBatchSchema = v.strictObject({ jobId: v.pipe(v.string(), v.startsWith('job_')) });
