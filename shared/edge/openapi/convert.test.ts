// Unit tests of the conversion to JSON Schema: what it decides for the checks the converter cannot express, and that it refuses the rest.
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { boundedArray } from '#platform/input.ts';
import { IdentifierSchema, KeyTextSchema } from '#shared/records/identifier.ts';
import { componentSchemas, documentSchema } from './convert.ts';

describe('the conversion', () => {
  it('bounds identifiers in code points, as the check counts them', () => {
    expect(documentSchema(IdentifierSchema, {})).toEqual({ type: 'string', minLength: 1, maxLength: 255 });
    expect(documentSchema(KeyTextSchema, {})).toEqual({ type: 'string', maxLength: 255 });
  });

  it('converts a bounded array whole: its length, then its items', () => {
    const lines = boundedArray(v.string(), 'lines', [1, 'at least 1'], [5, 'at most 5']);
    expect(documentSchema(lines, {})).toEqual({ type: 'array', items: { type: 'string' }, minItems: 1, maxItems: 5 });
  });

  it('refers to a named schema, wherever it is used', () => {
    const named = { Identifier: IdentifierSchema };
    expect(documentSchema(v.strictObject({ sku: IdentifierSchema }), named)).toEqual({
      type: 'object',
      properties: { sku: { $ref: '#/components/schemas/Identifier' } },
      required: ['sku'],
      additionalProperties: false,
    });
    expect(documentSchema(IdentifierSchema, named)).toEqual({ $ref: '#/components/schemas/Identifier' });
    expect(componentSchemas(named)).toEqual({ Identifier: { type: 'string', minLength: 1, maxLength: 255 } });
  });

  it('puts a property’s default beside its schema in an allOf, its description beside it, so that generators keep it optional', () => {
    const claim = v.strictObject({ limit: v.pipe(v.optional(v.pipe(v.number(), v.integer()), 10), v.description('How many.')) });
    expect(documentSchema(claim, {})).toEqual({
      type: 'object',
      properties: { limit: { description: 'How many.', allOf: [{ type: 'integer' }, { default: 10 }] } },
      additionalProperties: false,
    });
    // A parameter's own schema is no property: openapi-typescript leaves parameters optional by themselves.
    expect(documentSchema(v.optional(v.number(), 5), {})).toEqual({ type: 'number', default: 5 });
  });

  it('says that a loose object takes other keys', () => {
    expect(documentSchema(v.looseObject({}), {})).toEqual({ type: 'object', properties: {}, additionalProperties: true });
    expect(documentSchema(v.strictObject({}), {})).toEqual({ type: 'object', properties: {}, additionalProperties: false });
  });

  it('refuses a check it has no decision for, rather than leave it out', () => {
    const odd = v.pipe(v.string(), v.check((text) => text !== 'x'));
    expect(() => documentSchema(odd, {})).toThrow(/check action.*shared\/edge\/openapi\/convert\.ts/);
  });

  it('refuses a schema it cannot express', () => {
    expect(() => documentSchema(v.strictObject({ at: v.date() }), {})).toThrow(/date schema/);
  });

  it('refuses a transform, whose input and output differ', () => {
    expect(() => documentSchema(v.pipe(v.string(), v.transform(Number), v.number()), {})).toThrow(/no one JSON Schema/);
    expect(() => documentSchema(v.pipe(v.string(), v.transform((text) => text.trim())), {})).toThrow(/transform action/);
  });
});
