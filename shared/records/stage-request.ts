// The body of a staging call: which entity kind it carries, and its records checked against that kind's shape.
import * as v from 'valibot';
// Relative, not `#platform/…`: the connector kit's package (client/) compiles this file, and its build rewrites only
// relative imports to the .js it ships.
import { ApiError } from '../platform/errors.ts';
import { parseInput } from '../platform/input.ts';
import { entityKinds, EntityKindSchema, recordSchemas } from './schema.ts';
import type { EntityKind, RecordOf } from './schema.ts';

export const MAX_RECORDS_PER_CALL = 1000;

/**
 * A record becomes one or more table items, and DynamoDB refuses items over 400 KB; 256 KB of JSON leaves room for
 * keys and the fields the drain adds.
 */
export const MAX_RECORD_BYTES = 256 * 1024;

const recordsMessage = `an array of 1 to ${MAX_RECORDS_PER_CALL} records`;

// The envelope is read before the records, so that a bad envelope is named as such rather than as a bad record.
const StageEnvelopeSchema = v.strictObject({
  entity: v.string(),
  records: v.pipe(v.array(v.unknown(), recordsMessage), v.minLength(1, recordsMessage), v.maxLength(MAX_RECORDS_PER_CALL, recordsMessage)),
});

export type StageRequest = { [K in EntityKind]: { entity: K; records: RecordOf<K>[] } }[EntityKind];

// Checked as `{ records }` so that the param comes out as `records[17].lines[0].costCents`.
function readRecords<const TSchema extends v.GenericSchema>(schema: TSchema, records: unknown[]): v.InferOutput<TSchema>[] {
  const valid = parseInput(v.object({ records: v.array(schema) }), { records }).records;
  // JSON.stringify recurses, so it runs only on records the schema has passed: their one free-form part, attributes,
  // nests at most 32 levels (attributes.ts).
  valid.forEach((record, index) => {
    if (Buffer.byteLength(JSON.stringify(record), 'utf8') > MAX_RECORD_BYTES) {
      throw new ApiError('invalid_request', `records[${index}] is larger than ${MAX_RECORD_BYTES / 1024} KB of JSON.`, {
        param: `records[${index}]`,
      });
    }
  });
  return valid;
}

/** Reads a staging body all-or-nothing: the first problem is thrown as an ApiError, and nothing is returned in part. */
export function readStageRequest(body: unknown): StageRequest {
  const { entity, records } = parseInput(StageEnvelopeSchema, body);
  if (!v.is(EntityKindSchema, entity)) {
    // The value itself is not echoed: it is the caller's text, of any length.
    throw new ApiError('entity_not_supported', `Unsupported entity: use one of ${entityKinds.join(', ')}.`, { param: 'entity' });
  }
  switch (entity) {
    case 'product':
      return { entity, records: readRecords(recordSchemas.product, records) };
    case 'customer':
      return { entity, records: readRecords(recordSchemas.customer, records) };
    case 'quote':
      return { entity, records: readRecords(recordSchemas.quote, records) };
    case 'order':
      return { entity, records: readRecords(recordSchemas.order, records) };
  }
}
