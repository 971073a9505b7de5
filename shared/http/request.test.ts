// Unit tests of reading input: JSON bodies, schema failures and the param paths they name.
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { NoBodySchema, parseInput, readJsonBody } from './request.ts';
import { thrownApiError } from '../testing/thrown.ts';

const Lines = v.strictObject({
  lines: v.array(
    v.strictObject({ quantity: v.pipe(v.number(), v.minValue(1)), attributes: v.optional(v.record(v.string(), v.unknown())) }),
  ),
});

function event(body: string | undefined, isBase64Encoded = false): APIGatewayProxyEventV2 {
  return { body, isBase64Encoded } as APIGatewayProxyEventV2;
}

describe('reading input', () => {
  it('names the offending field as a path into the input', () => {
    const error = thrownApiError(() => parseInput(Lines, { lines: [{ quantity: 1 }, { quantity: 0 }] }));
    expect(error).toMatchObject({ code: 'invalid_request', param: 'lines[1].quantity' });
  });

  it('names an unknown field, even deep inside the input', () => {
    expect(thrownApiError(() => parseInput(Lines, { lines: [{ quantity: 1, colour: 'red' }] }))).toMatchObject({
      param: 'lines[0].colour',
      message: 'Unknown field lines[0].colour.',
    });
  });

  it('says that a missing field is required', () => {
    expect(thrownApiError(() => parseInput(Lines, { lines: [{}] }))).toMatchObject({
      param: 'lines[0].quantity',
      message: 'lines[0].quantity is required.',
    });
  });

  it('leaves free-form attributes alone', () => {
    expect(parseInput(Lines, { lines: [{ quantity: 2, attributes: { anything: [1, { deep: true }] } }] }).lines[0]?.quantity).toBe(2);
  });

  it('prefixes the param of input that is not the body', () => {
    expect(thrownApiError(() => parseInput(v.pipe(v.string(), v.uuid()), 'nope', 'batchId')).param).toBe('batchId');
  });

  it('answers text that is not JSON with invalid_json, base64 or not', () => {
    expect(thrownApiError(() => readJsonBody(event('{"a":'), NoBodySchema)).code).toBe('invalid_json');
    expect(thrownApiError(() => readJsonBody(event(Buffer.from('{oops').toString('base64'), true), NoBodySchema)).code).toBe(
      'invalid_json',
    );
  });

  it('decodes a base64 body before parsing it', () => {
    expect(readJsonBody(event(Buffer.from('{"lines":[]}').toString('base64'), true), Lines)).toEqual({ lines: [] });
  });

  it('takes no body, an empty body or {} where an endpoint wants none, and nothing else', () => {
    expect(readJsonBody(event(undefined), NoBodySchema)).toBeUndefined();
    expect(readJsonBody(event('  '), NoBodySchema)).toBeUndefined();
    expect(readJsonBody(event('{}'), NoBodySchema)).toEqual({});
    expect(thrownApiError(() => readJsonBody(event('[]'), NoBodySchema)).code).toBe('invalid_request');
    expect(thrownApiError(() => readJsonBody(event('null'), NoBodySchema)).code).toBe('invalid_request');
  });
});
