// Unit tests of reading input: JSON bodies, schema failures and the param paths they name.
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { firstTooDeepInText, MAX_BODY_DEPTH, NoBodySchema, readJsonBody, requireJsonContent } from './request.ts';
import { formatParam, parseInput } from '#platform/input.ts';
import { thrownApiError } from '#test/support/thrown.ts';

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

/** `levels` nested arrays, opened and closed: `[[…]]`. */
function arrays(levels: number): string {
  return '['.repeat(levels) + ']'.repeat(levels);
}

describe('the nesting of a body', () => {
  it('may reach 64 levels, and past that is refused before parsing, naming the path to the first level too deep', () => {
    expect(MAX_BODY_DEPTH).toBe(64);
    expect(readJsonBody(event(`{"a":${arrays(63)}}`), v.unknown())).toEqual({ a: expect.any(Array) });
    expect(thrownApiError(() => readJsonBody(event(`{"a":${arrays(64)}}`), v.unknown()))).toMatchObject({
      code: 'invalid_request',
      status: 422,
      param: `a${'[0]'.repeat(63)}`,
      message: 'The request body nests objects and arrays more than 64 levels deep.',
    });
  });

  it('refuses a 10 MB body of five million nested arrays with invalid_request, whatever schema reads it', () => {
    const text = `{"records":[{"attributes":${arrays(5_000_000)}}]}`;
    for (const schema of [v.unknown(), NoBodySchema]) {
      expect(thrownApiError(() => readJsonBody(event(text), schema))).toMatchObject({
        code: 'invalid_request',
        param: `records[0].attributes${'[0]'.repeat(59)}…`,
      });
    }
  });

  it('names keys as JSON gives them and indexes by their place, past strings that hold brackets, commas and quotes', () => {
    const text = `{"x":"[{,\\"","list":[1,"]",{"k\\u0041\\"":${arrays(70)}}]}`;
    expect(firstTooDeepInText(text, 4)).toEqual(['list', 2, 'kA"', 0]);
    expect(firstTooDeepInText('{"a":[{"b":[]}]} ["[[[[[["]', 4)).toBeUndefined();
  });

  it('is measured as far as text that is not JSON goes, and JSON.parse judges the rest', () => {
    expect(firstTooDeepInText('{"a": "unterminated [[[[[[', 2)).toBeUndefined();
    expect(thrownApiError(() => readJsonBody(event('{"a": [[[ }'), v.unknown())).code).toBe('invalid_json');
  });
});

describe('a param', () => {
  it('is cut to at most 200 characters, ending with an ellipsis, so that an error never echoes a long key back', () => {
    expect(formatParam(['records', 3, 'attributes', 'a'])).toBe('records[3].attributes.a');
    const param = formatParam(['records', 0, 'attributes', 'k'.repeat(10_000)]);
    expect(param).toHaveLength(200);
    expect(param).toBe(`records[0].attributes.${'k'.repeat(177)}…`);
    expect(thrownApiError(() => parseInput(v.strictObject({}), { ['k'.repeat(10_000)]: 1 })).message).toHaveLength(
      'Unknown field .'.length + 200,
    );
  });
});

describe('the label of a body', () => {
  const labelled = (contentType: string | undefined, body: string | undefined = '{}') =>
    ({ body, isBase64Encoded: false, headers: contentType === undefined ? {} : { 'content-type': contentType } }) as APIGatewayProxyEventV2;

  it('takes JSON, in any case, with or without a UTF-8 charset, a +json type, or no label at all', () => {
    for (const contentType of [
      'application/json',
      'Application/JSON',
      'application/json; charset=utf-8',
      'application/json;charset="UTF-8"',
      'application/merge-patch+json',
      undefined,
    ]) {
      expect(() => requireJsonContent(labelled(contentType)), String(contentType)).not.toThrow();
    }
  });

  it('refuses a body labelled as anything else with 415 invalid_request, even when the body is JSON', () => {
    for (const contentType of [
      'text/plain',
      'text/plain;charset=UTF-8',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
      'application/jsonx',
      'application/json; charset=latin1',
      '',
    ]) {
      const error = thrownApiError(() => requireJsonContent(labelled(contentType)));
      expect(error, contentType).toMatchObject({ code: 'invalid_request', status: 415, param: 'Content-Type' });
    }
  });

  it('never refuses a request with no body for its label', () => {
    expect(() =>
      requireJsonContent({ isBase64Encoded: false, headers: { 'content-type': 'text/plain' } } as unknown as APIGatewayProxyEventV2),
    ).not.toThrow();
    expect(() => requireJsonContent(labelled('text/plain', ''))).not.toThrow();
  });
});
