// Inputs the handlers read in steps or by hand rather than with one schema, written as the one schema the documents show.
import * as v from 'valibot';
import { MAX_IDENTIFIER_LENGTH } from '#shared/records/identifier.ts';
import { CustomerRecordSchema, OrderRecordSchema, ProductRecordSchema, QuoteRecordSchema } from '#shared/records/schema.ts';
import { MAX_RECORDS_PER_CALL } from '#shared/records/stage-request.ts';
import { includeParts } from '#shared/recommendations/overview.ts';

const recordsOf = <const TRecord extends v.GenericSchema>(record: TRecord) =>
  v.pipe(v.array(record), v.minLength(1), v.maxLength(MAX_RECORDS_PER_CALL));

/**
 * readStageRequest (records/stage-request.ts) reads the envelope first and then the records against their kind, so
 * that a kind it does not know is entity_not_supported rather than a bad record; taken whole, the body is a choice
 * on `entity`.
 */
export const StageRequestSchema = v.variant('entity', [
  v.strictObject({ entity: v.literal('product'), records: recordsOf(ProductRecordSchema) }),
  v.strictObject({ entity: v.literal('customer'), records: recordsOf(CustomerRecordSchema) }),
  v.strictObject({ entity: v.literal('quote'), records: recordsOf(QuoteRecordSchema) }),
  v.strictObject({ entity: v.literal('order'), records: recordsOf(OrderRecordSchema) }),
]);

/** The header as readIdempotencyKey (shared/idempotency/key.ts) checks it: 1 to 255 printable ASCII characters. */
export const IdempotencyKeySchema = v.pipe(v.string(), v.minLength(1), v.maxLength(MAX_IDENTIFIER_LENGTH), v.regex(/^[\x20-\x7e]+$/));

/** The extend handler looks for any id: one the service never minted is simply not leased by the caller. */
export const TaskIdParameterSchema = v.pipe(v.string(), v.minLength(1));

/** `include` as parseInclude (recommendations/overview.ts) splits it: a comma-separated list, with no empty part. */
export const IncludeSchema = v.pipe(v.array(v.picklist(includeParts)), v.minLength(1));

/** A day of the cost report's range, as readReportRange (cost/report.ts) checks it: YYYY-MM-DD, UTC. */
export const AdherencePeriodSchema = v.pipe(v.string(), v.regex(/^\d{4}-\d{2}(-\d{2})?$/));
export const AdherenceGroupingSchema = v.picklist(['segment', 'category', 'reason']);
export const ReportDaySchema = v.pipe(v.string(), v.regex(/^\d{4}-\d{2}-\d{2}$/));

/** How the cost report breaks its total down. */
export const ReportGroupingSchema = v.picklist(['day', 'route']);
