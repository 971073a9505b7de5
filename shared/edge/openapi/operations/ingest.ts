// The contract's words for ingest: opening a batch, staging its records, committing or cancelling it, reading its status and listing batches.
import type * as v from 'valibot';
import { BatchIdSchema, BatchStatusSchema } from '#shared/batches/schema.ts';
import {
  BatchListSchema,
  BatchStatusViewSchema,
  CommittedBatchSchema,
  DEFAULT_BATCHES_PAGE,
  MAX_BATCHES_PAGE,
  OpenedBatchSchema,
  StagedRecordsSchema,
} from '#shared/batches/views.ts';
import { PageCursorSchema, pageLimitSchema } from '#platform/pages.ts';
import { StageRequestSchema } from '#edge/openapi/inputs.ts';
import { noBody, operation, type ParameterDoc } from './doc.ts';
import { BATCH_ID, CONNECTOR_ID } from './examples.ts';

/** A batch drained and priced from, as the status route and the list show it. */
const DRAINED_BATCH: v.InferOutput<typeof BatchStatusViewSchema> = {
  status: 'drained',
  entities: ['product', 'customer', 'quote', 'order'],
  recordCount: 4,
  skippedOverCap: 0,
  createdAt: '2026-10-05T09:00:00.000Z',
  committedAt: '2026-10-05T09:00:04.120Z',
  drainedAt: '2026-10-05T09:00:05.310Z',
  drainedCount: 4,
  warnedProducts: 0,
  bandsRecomputedAt: '2026-10-05T09:00:06.002Z',
  progressAt: '2026-10-05T09:00:06.002Z',
};

const batchIdParameter: ParameterDoc = {
  name: 'batchId',
  in: 'path',
  description: 'The batch, as opening it answered. Not a UUID: 422 `invalid_request` with `param: "batchId"`.',
  required: true,
  schema: BatchIdSchema,
  example: BATCH_ID,
};

const ingestErrors = {
  batch_not_found: 'No batch with this id belongs to the calling connector: another connector’s or workspace’s is as unknown.',
} as const;

export const ingestOperations = {
  openBatch: operation({
    summary: 'Open an ingest batch',
    description:
      'Opens a batch for the calling connector. Records are staged into it, then it is committed; a batch not ' +
      'committed within 24 hours fails.',
    tag: 'Ingest',
    requestBody: noBody('Opening a batch'),
    success: {
      status: 201,
      description: 'The new batch, which belongs to the connector of the key.',
      schema: OpenedBatchSchema,
      example: { batchId: BATCH_ID, connectorId: CONNECTOR_ID },
    },
    errors: {
      invalid_json: 'The body is not JSON.',
      invalid_request: 'The body is anything but nothing or `{}`; `param` names its first field.',
    },
  }),

  stageRecords: operation({
    summary: 'Stage records into a batch',
    description:
      'Stages up to 1,000 records of one entity kind. The call is all or nothing: the first bad field is named in ' +
      '`param` (`records[17].lines[0].costCents`) and nothing is staged. Kinds are staged in rank order: product, ' +
      'customer, quote, order. Records past the batch’s caps (records, and quote and order lines) are not staged but ' +
      'counted in the batch’s `skippedOverCap`. A record is at most 256 KB of JSON, and a body nests at most 64 levels.',
    tag: 'Ingest',
    parameters: [batchIdParameter],
    requestBody: {
      schema: StageRequestSchema,
      required: true,
      description: 'One entity kind and its records.',
      example: {
        entity: 'product',
        records: [
          {
            sku: 'BOLT-10',
            externalId: 'ERP-881',
            name: 'Hex bolt M10',
            category: 'Fasteners',
            costCents: 120,
            currentPriceCents: 199,
            currency: 'USD',
          },
        ],
      },
    },
    success: {
      status: 202,
      description: 'The records accepted; the batch drains them once committed.',
      schema: StagedRecordsSchema,
      example: { staged: 1 },
    },
    errors: {
      invalid_json: 'The body is not JSON.',
      invalid_request:
        'The batch id, the body or a record is malformed or past a bound, or the call’s records are too large to stage ' +
        'together; `param` names the first place.',
      entity_not_supported: '`entity` is not one of product, customer, quote, order.',
      ...ingestErrors,
      batch_entity_order_violation: 'The batch already holds a kind ranked after this one.',
      batch_already_committed: 'The batch is not open: committed, draining, drained, failed, or past its 24 hours.',
    },
  }),

  batchStatus: operation({
    summary: 'Read a batch’s status',
    description:
      'Where a batch stands: its state, its kinds in rank order and its counts, with the moments it was committed, ' +
      'drained and had its bands recomputed once they are known. `error` is present only when it failed. Reading an ' +
      'open batch past its 24 hours records it as failed. From its first checkpoint on, `warnedProducts` counts the ' +
      'products the drain wrote with data warnings (a cost or current price moved past the workspace’s ' +
      '`dataWarningFactor`, or a price below cost): their recommendations are held for a check.',
    tag: 'Ingest',
    parameters: [batchIdParameter],
    success: {
      status: 200,
      description: 'The batch as it stands.',
      schema: BatchStatusViewSchema,
      example: DRAINED_BATCH,
    },
    errors: {
      invalid_request: 'The batch id is not a UUID (`param: "batchId"`).',
      ...ingestErrors,
    },
  }),

  commitBatch: operation({
    summary: 'Commit a batch',
    description:
      'Hands an open batch to the drain, which writes it into the workspace’s canonical data; its status then moves ' +
      'through committed and draining to drained. An empty batch commits and drains with no records.',
    tag: 'Ingest',
    parameters: [batchIdParameter],
    requestBody: noBody('Committing a batch'),
    success: {
      status: 202,
      description: 'The drain job the batch was handed to.',
      schema: CommittedBatchSchema,
      example: { jobId: 'job_5TqW8zR1mN3cX7vB2kL9pD' },
    },
    errors: {
      invalid_json: 'The body is not JSON.',
      invalid_request: 'The batch id is not a UUID, or the body is anything but nothing or `{}`; `param` names it.',
      ...ingestErrors,
      batch_already_committed: 'The batch is not open: already committed, or past its 24 hours.',
    },
  }),

  cancelBatch: operation({
    summary: 'Cancel an open batch',
    description:
      'Cancels an open batch of the calling connector and discards the records it staged: nothing of it is ever ' +
      'drained. A cancelled batch is `failed` with the error "batch cancelled before commit" and shows `cancelledAt`; ' +
      'a `batch.failed` event tells the workspace’s endpoints. Cancelling a cancelled batch answers the same again. A ' +
      'batch committed (or draining, drained, failed in its drain, or past its 24 hours) cannot be cancelled: of a ' +
      'cancel and a commit sent at once, exactly one wins.',
    tag: 'Ingest',
    parameters: [batchIdParameter],
    requestBody: noBody('Cancelling a batch'),
    success: {
      status: 200,
      description: 'The batch as it stands once cancelled.',
      schema: BatchStatusViewSchema,
      example: {
        status: 'failed',
        entities: ['product'],
        recordCount: 250,
        skippedOverCap: 0,
        createdAt: '2026-10-05T09:00:00.000Z',
        cancelledAt: '2026-10-05T09:02:11.480Z',
        error: 'batch cancelled before commit',
      },
    },
    errors: {
      invalid_json: 'The body is not JSON.',
      invalid_request: 'The batch id is not a UUID, or the body is anything but nothing or `{}`; `param` names it.',
      ...ingestErrors,
      batch_already_committed: 'The batch is not open: committed, draining, drained, failed, or past its 24 hours.',
    },
  }),

  listBatches: operation({
    summary: 'List the connector’s batches',
    description:
      'The calling connector’s batches, newest first, each with its status as the status route answers it: every ' +
      'batch the connector opened, with any of its keys, and no other connector’s. A page holds at most `limit`; ' +
      '`next` is where the following page starts, passed back as `starting_after`, and null on the last page. ' +
      '`status` keeps only the batches in that state (an open batch past its 24 hours is `failed`); a page of a rare ' +
      'status may hold fewer than `limit` with a `next` to go on from. The list is read from an index, so a batch ' +
      'opened or changed in the last moment may show as it was a moment before. Any other query parameter is refused.',
    tag: 'Ingest',
    parameters: [
      {
        name: 'limit',
        in: 'query',
        description: `How many batches a page holds at most, 1 to ${MAX_BATCHES_PAGE}; ${DEFAULT_BATCHES_PAGE} if left out.`,
        required: false,
        schema: pageLimitSchema(MAX_BATCHES_PAGE),
        example: 20,
      },
      {
        name: 'starting_after',
        in: 'query',
        description: 'The `next` of the page before, as it was answered; an opaque cursor.',
        required: false,
        schema: PageCursorSchema,
        example: 'MjAyNi0xMC0wNVQwOTowMDowMC4wMDBaIzEwMWJhNTZlLTVhMGMtNGQ0Zi05ZjQzLTNiMWE4YzJlN2Q5MA',
      },
      {
        name: 'status',
        in: 'query',
        description: 'Only the batches in this state.',
        required: false,
        schema: BatchStatusSchema,
        example: 'open',
      },
    ],
    success: {
      status: 200,
      description: 'A page of batches, newest first.',
      schema: BatchListSchema,
      example: {
        data: [
          { batchId: BATCH_ID, ...DRAINED_BATCH },
        ],
        next: null,
      },
    },
    errors: {
      invalid_request: 'A query parameter is unknown or malformed: `limit`, `status`, or a `starting_after` this list did not hand out; `param` names it.',
    },
  }),
};
