// Unit tests of free-form attributes: any object passes, but nothing nests past 32 levels, and the walk never recurses.
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { issueParam } from '#platform/input.ts';
import { AttributesSchema, firstTooDeep, MAX_ATTRIBUTE_DEPTH } from './attributes.ts';

/** `levels` objects, each the value of key `key` in the one above: `{a:{a:…{a:1}}}`. */
function nested(levels: number, key = 'a'): Record<string, unknown> {
  let value: Record<string, unknown> = { [key]: 1 };
  for (let level = 1; level < levels; level++) value = { [key]: value };
  return value;
}

function param(input: unknown): string | undefined {
  const result = v.safeParse(AttributesSchema, input);
  return result.issues ? issueParam(result.issues[0]) : undefined;
}

describe('attributes', () => {
  it('may nest objects and arrays 32 levels deep, the attributes object being the first', () => {
    expect(MAX_ATTRIBUTE_DEPTH).toBe(32);
    expect(v.is(AttributesSchema, nested(32))).toBe(true);
    expect(firstTooDeep(nested(32))).toBeUndefined();
  });

  it('are refused at 33 levels, naming the path to the object that is one too deep', () => {
    const result = v.safeParse(AttributesSchema, nested(33));
    expect(result.success).toBe(false);
    expect(result.issues?.[0]?.message).toBe('attributes may nest objects and arrays at most 32 levels deep');
    expect(param(nested(33))).toBe(Array(32).fill('a').join('.'));
  });

  it('count arrays as levels, and name their indexes', () => {
    let value: unknown = [];
    for (let level = 1; level < 32; level++) value = [0, value];
    expect(v.is(AttributesSchema, { list: value })).toBe(false);
    expect(param({ list: value })).toBe(`list${'[1]'.repeat(31)}`);
    expect(v.is(AttributesSchema, { list: (value as unknown[])[1] })).toBe(true);
  });

  it('name the first branch that is too deep, in document order, past shallow ones', () => {
    const attributes = { colour: 'red', sizes: [1, 2, { s: true }], first: nested(40, 'x'), second: nested(40, 'y') };
    expect(param(attributes)).toBe(`first${'.x'.repeat(31)}`);
  });

  it('are walked without recursion, so a million levels are refused like 33', () => {
    expect(param(nested(1_000_000))).toBe(Array(32).fill('a').join('.'));
  });

  it('take anything shallow: scalars, empty containers, odd keys', () => {
    expect(v.is(AttributesSchema, { '': null, constructor: [], 'a.b': {}, n: 1.5 })).toBe(true);
  });
});
