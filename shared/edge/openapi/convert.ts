// Valibot to JSON Schema (2020-12, as OpenAPI 3.1 takes it) for the contract documents, and a decision for each check the converter cannot express.
import { type ConversionConfig, type JsonSchema, toJsonSchema, toJsonSchemaDefs } from '@valibot/to-json-schema';
import type * as v from 'valibot';
import { PriceRequestLineSchema } from '#shared/prices/request.ts';
import { PriceResultLineSchema } from '#shared/prices/schema.ts';
import { AttributesSchema, MAX_ATTRIBUTE_DEPTH } from '#shared/records/attributes.ts';
import { MAX_IDENTIFIER_LENGTH, withinIdentifierLength } from '#shared/records/identifier.ts';
import { DateTimeSchema, isStorableNumber } from '#shared/records/schema.ts';
import { changesSomething, eachOnce } from '#shared/webhooks/endpoint-schema.ts';

export type { JsonSchema } from '@valibot/to-json-schema';

type AnySchema = v.GenericSchema;
type JsonSchemaDefinition = JsonSchema | boolean;
type AnyAction = v.PipeAction<unknown, unknown, v.BaseIssue<unknown>>;

/*
 * What @valibot/to-json-schema cannot express, and what the documents say instead. Every other check, schema or
 * transform it cannot convert fails the build (`unexpressed` below), so that a new one is decided here, not dropped.
 *
 * - IdentifierSchema and KeyTextSchema (records/identifier.ts): `v.check(withinIdentifierLength)` becomes
 *   `maxLength: 255`. Exact: JSON Schema counts code points, as the check does.
 * - DateTimeSchema (records/schema.ts): its `v.check` (records/date-time.ts) becomes a `pattern` with each field's
 *   range. Whether the day exists in its month and year (2023-02-29 does not) is prose: a regular expression
 *   could say it, unreadably. Not `format: date-time`, which wants seconds where the contract leaves them optional.
 * - QuantitySchema and ExchangeRateSchema (records/schema.ts): `v.check(isStorableNumber)`, DynamoDB's range of
 *   numbers, becomes `minimum`/`exclusiveMaximum` (and the same negated, or 0, for a rate). Exact.
 * - `v.finite` (quantities, amounts, rates): JSON has no infinite numbers, so there is nothing to say.
 * - AttributesSchema (records/attributes.ts): `v.custom` (a plain object) becomes `type: object`; its `v.rawCheck`,
 *   at most 32 levels of nesting, stays prose in the description: JSON Schema cannot bound depth. Nor can it bound the
 *   whole body's 64 levels (http/request.ts), which the operations say in words.
 * - PriceRequestLineSchema (prices/request.ts): `v.partialCheck`, productSku or productExternalId, becomes `if` the
 *   line has no productSku `then` it requires productExternalId.
 * - PriceResultLineSchema (prices/schema.ts): `v.variant('ok', …)` becomes `oneOf`, which the converter can say; why
 *   there is no `discriminator` beside it is at `okVariants`.
 * - `v.maxLength` on a string (an ack's `error`, 1,000) counts UTF-16 code units, JSON Schema's `maxLength` code
 *   points: past the Basic Multilingual Plane the document's bound is the looser of the two. Left so: the converter
 *   says it as well as JSON Schema can, and the service holds the stricter one.
 * - `boundedArray` (http/request.ts) pipes two array schemas: an array of anything checked for its length, then its
 *   items. The converter converts such a pipe whole, each schema adding to one JSON Schema, which is what it means;
 *   it merely complains of the second schema. That complaint is the one error left ignored, and only for pipes whose
 *   schemas are all of one type (`checkPipes`).
 */

const DATE_TIME_PATTERN =
  '^\\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\\d|3[01])T([01]\\d|2[0-3]):[0-5]\\d(:[0-5]\\d(\\.\\d+)?)?(Z|[+-]([01]\\d|2[0-3]):[0-5]\\d)$';

// DynamoDB's bounds on the magnitude of a number (records/schema.ts).
const SMALLEST_STORABLE = 1e-130;
const STORABLE_LIMIT = 1e126;

function storableRange(jsonSchema: JsonSchema): JsonSchema {
  const positiveOnly = (jsonSchema.exclusiveMinimum ?? -1) >= 0 || (jsonSchema.minimum ?? -1) > 0;
  if (positiveOnly) {
    // Above 0 and storable is at least the smallest storable number: one lower bound says both.
    const { exclusiveMinimum: _aboveZero, ...rest } = jsonSchema;
    return { ...rest, minimum: SMALLEST_STORABLE, exclusiveMaximum: STORABLE_LIMIT };
  }
  // Not an `anyOf` of 0 and the two ranges: openapi-typescript reads one as a union with members that allow anything,
  // and types the number `unknown`. Bounds and `if`/`then` say the same, and generators leave them alone.
  return {
    ...jsonSchema,
    exclusiveMinimum: -STORABLE_LIMIT,
    exclusiveMaximum: STORABLE_LIMIT,
    if: { not: { const: 0 } },
    then: { anyOf: [{ minimum: SMALLEST_STORABLE }, { maximum: -SMALLEST_STORABLE }] },
  };
}

const attributesDescription =
  `Free-form: string keys, values of any type. Objects and arrays nest at most ${MAX_ATTRIBUTE_DEPTH} levels deep, ` +
  'the attributes object being level 1; deeper is 422 invalid_request with `param` the path to the first one too deep.';

/**
 * The result line is a choice on a boolean, `ok`. The variants are told apart by JSON Schema alone: `const: true` and
 * `const: false` on `ok` make the `oneOf` match exactly one. No `discriminator`: OpenAPI's names a property whose
 * values are strings (its mapping is keyed by them), and validators that act on it refuse a boolean tag. Tried with
 * `discriminator: {propertyName: 'ok'}` and a mapping keyed "true"/"false", Redocly's example check (ajv with its
 * discriminator support) failed every line with 'tag "ok" must be string', as ajv's `discriminator: true` option
 * does at compile time; any client that validated with either would refuse every price response. Without it, Redoc
 * still shows the two variants by their names. `type: object` beside the `oneOf` keeps ajv's strict types quiet.
 */
function okVariants(jsonSchema: JsonSchema): JsonSchema {
  const refs = (jsonSchema.oneOf ?? []).map((option) => (typeof option === 'object' ? option.$ref : undefined));
  if (refs.length !== 2 || refs.includes(undefined)) {
    throw new Error('PriceResultLine: expected a oneOf of two named variants, PricedLine and RefusedLine');
  }
  return { type: 'object', ...jsonSchema };
}

function overrideAction(action: AnyAction, jsonSchema: JsonSchema): JsonSchema | undefined {
  if (action.type === 'finite') return jsonSchema;
  if (action.type === 'check') {
    const { requirement } = action as AnyAction & { readonly requirement: unknown };
    if (requirement === withinIdentifierLength) {
      return { ...jsonSchema, maxLength: Math.min(jsonSchema.maxLength ?? Infinity, MAX_IDENTIFIER_LENGTH) };
    }
    if (requirement === isStorableNumber) return storableRange(jsonSchema);
    if (action === DateTimeSchema.pipe[1]) return { ...jsonSchema, pattern: DATE_TIME_PATTERN };
    if (requirement === eachOnce) return { ...jsonSchema, uniqueItems: true };
    if (requirement === changesSomething) return { ...jsonSchema, minProperties: 1 };
  }
  if (action === AttributesSchema.pipe[1]) return { ...jsonSchema, description: attributesDescription };
  if (action === PriceRequestLineSchema.pipe[1]) {
    // Not a top-level `anyOf` of the two `required`: openapi-typescript reads one beside `properties` as a union with
    // members that allow anything, and types the whole line `unknown`. The same rule as `if`/`then` it leaves alone.
    return { ...jsonSchema, if: { not: { required: ['productSku'] } }, then: { required: ['productExternalId'] } };
  }
  return undefined;
}

function overrideSchema(schema: AnySchema, jsonSchema: JsonSchema): JsonSchema | undefined {
  // Said outright: generators read a bare `type: object` as an object with no properties (openapi-typescript's
  // default makes it `Record<string, never>`).
  if (schema === AttributesSchema.pipe[0]) return { type: 'object', additionalProperties: true };
  // A loose object takes keys beyond its own, which the converter leaves to JSON Schema's default; said outright too.
  if (schema.type === 'loose_object' && jsonSchema.additionalProperties === undefined) return { ...jsonSchema, additionalProperties: true };
  if (schema === PriceResultLineSchema) return okVariants(jsonSchema);
  return undefined;
}

function unexpressed(what: string, errors: readonly string[]): never {
  throw new Error(`${what}: ${errors.join(' ')} Decide what the documents say instead in shared/edge/openapi/convert.ts.`);
}

function conversionConfig(definitions: Record<string, AnySchema>): ConversionConfig {
  return {
    target: 'draft-2020-12',
    // The overrides throw for every error but the one `checkPipes` vouches for, which the converter raises by itself.
    errorMode: 'ignore',
    definitions,
    overrideRef: ({ referenceId }) => `#/components/schemas/${referenceId}`,
    overrideAction: ({ valibotAction, jsonSchema, errors }) => {
      const decided = overrideAction(valibotAction as AnyAction, jsonSchema);
      if (decided) return decided;
      if (errors) unexpressed(`the ${valibotAction.type} action`, errors);
      return undefined;
    },
    overrideSchema: ({ valibotSchema, jsonSchema, errors }) => {
      const decided = overrideSchema(valibotSchema, jsonSchema);
      if (decided) return decided;
      if (errors) unexpressed(`the ${valibotSchema.type} schema`, errors);
      return undefined;
    },
  };
}

/** Refuses a pipe of schemas of different types (a transform's input and output, say), which no one JSON Schema describes. */
function checkPipes(schema: AnySchema, seen = new Set<unknown>()): void {
  if (seen.has(schema)) return;
  seen.add(schema);
  const node = schema as AnySchema & {
    pipe?: readonly (AnySchema | AnyAction)[];
    item?: AnySchema;
    entries?: Record<string, AnySchema>;
    options?: readonly AnySchema[];
    wrapped?: AnySchema;
  };
  const inner: AnySchema[] = [];
  if (node.pipe) {
    const schemas = node.pipe.filter((item): item is AnySchema => item.kind === 'schema');
    if (schemas.some((item) => item.type !== schemas[0]?.type)) {
      throw new Error(`a pipe of ${schemas.map((item) => item.type).join(', ')} schemas has no one JSON Schema: decide in shared/edge/openapi/convert.ts`);
    }
    // The first item of a pipe is the schema itself without its pipe.
    inner.push(...schemas);
  }
  if (node.item) inner.push(node.item);
  if (node.entries) inner.push(...Object.values(node.entries));
  if (Array.isArray(node.options)) inner.push(...node.options.filter((option) => typeof option === 'object'));
  if (node.wrapped) inner.push(node.wrapped);
  for (const child of inner) checkPipes(child, seen);
}

/** Empty `required` lists say nothing; the converter writes one for every object. */
function tidy<T extends JsonSchemaDefinition>(jsonSchema: T): T {
  if (Array.isArray(jsonSchema)) return jsonSchema.map((item: JsonSchemaDefinition) => tidy(item)) as unknown as T;
  if (typeof jsonSchema !== 'object' || jsonSchema === null) return jsonSchema;
  const entries = Object.entries(jsonSchema)
    .filter(([key, value]) => !(key === 'required' && Array.isArray(value) && value.length === 0))
    .map(([key, value]) => [key, key === 'enum' || key === 'const' || key === 'default' || key === 'examples' ? value : tidy(value as JsonSchemaDefinition)]);
  return Object.fromEntries(entries) as T;
}

/** What describes a property for people, kept beside the `allOf` that `defaultsInside` makes of the rest. */
const ANNOTATIONS = new Set(['description', 'title', 'examples', 'deprecated', 'readOnly', 'writeOnly']);

/**
 * A property with a `default` may be left out: it is not `required`, and the service fills it in. openapi-typescript's
 * default settings read a `default` on a property as "always present" and make the field required, which is right for
 * an answer and wrong for a request (a claim without `limit`). The schema and its default as the two members of an
 * `allOf` say the same thing to a validator and to the reference page, and every generator then follows `required`
 * alone (openapi-typescript and hey-api both type it `number & unknown`, which is `number`).
 */
function defaultsInside<T extends JsonSchemaDefinition>(jsonSchema: T): T {
  if (Array.isArray(jsonSchema)) return jsonSchema.map((item: JsonSchemaDefinition) => defaultsInside(item)) as unknown as T;
  if (typeof jsonSchema !== 'object' || jsonSchema === null) return jsonSchema;
  const entries = Object.entries(jsonSchema).map(([key, value]) => {
    if (key === 'enum' || key === 'const' || key === 'default' || key === 'examples') return [key, value];
    if (key !== 'properties' || typeof value !== 'object' || value === null) return [key, defaultsInside(value as JsonSchemaDefinition)];
    const properties = Object.entries(value as Record<string, JsonSchemaDefinition>).map(([name, property]) => {
      const inner = defaultsInside(property);
      if (typeof inner !== 'object' || !('default' in inner)) return [name, inner];
      const { default: value, ...schema } = inner;
      const annotations = Object.entries(schema).filter(([word]) => ANNOTATIONS.has(word));
      const rest = Object.fromEntries(Object.entries(schema).filter(([word]) => !ANNOTATIONS.has(word)));
      return [name, { ...Object.fromEntries(annotations), allOf: [rest, { default: value }] }];
    });
    return [key, Object.fromEntries(properties)];
  });
  return Object.fromEntries(entries) as T;
}

/** `components.schemas`: each named schema in full, the names it uses as `$ref`s. */
export function componentSchemas(named: Record<string, AnySchema>): Record<string, JsonSchema> {
  for (const schema of Object.values(named)) checkPipes(schema);
  const { definitions: _definitions, ...config } = conversionConfig(named);
  const converted = toJsonSchemaDefs(named, config);
  return Object.fromEntries(Object.entries(converted).map(([name, jsonSchema]) => [name, defaultsInside(tidy(jsonSchema))]));
}

/** One schema for a document: a `$ref` when it is named, otherwise inline with `$ref`s to the named ones it uses. */
export function documentSchema(schema: AnySchema, named: Record<string, AnySchema>): JsonSchema {
  checkPipes(schema);
  const { $schema: _schema, $defs: _defs, ...jsonSchema } = toJsonSchema(schema, conversionConfig(named));
  return defaultsInside(tidy(jsonSchema));
}
