// Reading a request's input: the JSON body against its valibot schema, with errors that name the offending field.
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import * as v from 'valibot';
import { ApiError } from '../errors.ts';

/** A param is the caller's own keys, of any length; past this it is cut, so that an error never echoes a body back. */
export const MAX_PARAM_LENGTH = 200;

/**
 * `records[17].lines[0].costCents`: the contract's way of naming a place in the input. Past MAX_PARAM_LENGTH it keeps
 * the whole steps that fit, and as much of a key as fits, then `…`; an index is never cut in half.
 */
export function formatParam(keys: Iterable<unknown>): string | undefined {
  const steps: string[] = [];
  let length = 0;
  for (const key of keys) {
    const step = typeof key === 'number' ? `[${key}]` : steps.length > 0 ? `.${String(key)}` : String(key);
    steps.push(step);
    length += step.length;
  }
  if (length <= MAX_PARAM_LENGTH) return steps.join('') || undefined;
  let kept = '';
  for (const step of steps) {
    const room = MAX_PARAM_LENGTH - 1 - kept.length;
    if (step.length <= room) {
      kept += step;
      continue;
    }
    if (!step.startsWith('[')) {
      // Never half of a surrogate pair.
      const cut = /[\uD800-\uDBFF]/.test(step.charAt(room - 1)) ? room - 1 : room;
      kept += step.slice(0, cut);
    }
    break;
  }
  return `${kept}…`;
}

export function issueParam(issue: v.BaseIssue<unknown>): string | undefined {
  return formatParam((issue.path ?? []).map((item) => item.key));
}

function describe(issue: v.BaseIssue<unknown>, param: string | undefined): string {
  const isKeyIssue = issue.type === 'strict_object' || issue.type === 'object';
  if (isKeyIssue && param && issue.received === 'undefined') return `${param} is required.`;
  if (issue.type === 'strict_object' && param && issue.expected === 'never') return `Unknown field ${param}.`;
  return param ? `Invalid ${param}: ${issue.message}.` : `Invalid request body: ${issue.message}.`;
}

/** Validates any input (body, path or query) and turns the first problem into 422 invalid_request. */
export function parseInput<const TSchema extends v.GenericSchema>(
  schema: TSchema,
  input: unknown,
  paramPrefix?: string,
): v.InferOutput<TSchema> {
  const result = v.safeParse(schema, input, { abortPipeEarly: true });
  if (result.success) return result.output;
  const [issue] = result.issues;
  const inner = issueParam(issue);
  const param = paramPrefix && inner ? `${paramPrefix}.${inner}` : (paramPrefix ?? inner);
  throw new ApiError('invalid_request', describe(issue, param), { param });
}

export function readBodyText(event: APIGatewayProxyEventV2): string {
  if (!event.body) return '';
  return event.isBase64Encoded ? Buffer.from(event.body, 'base64').toString('utf8') : event.body;
}

/**
 * No body the API takes nests deeper than 37 levels (a quote line's attributes, at their limit of 32, sit 5 levels
 * down). A body may be 10 MB, enough for 5 million nested arrays, which JSON.parse turns into 300 MB of objects;
 * so nesting is measured on the text, before anything is parsed, and a body past this is refused.
 */
export const MAX_BODY_DEPTH = 64;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;

/** A key as JSON.parse would give it, from its quoted text; as written when it would not parse. */
function keyText(quoted: string): string {
  try {
    return String(JSON.parse(quoted));
  } catch {
    return quoted.slice(1, -1);
  }
}

/**
 * The path (keys and indexes) to the first object or array of `text` that opens deeper than `maxDepth` levels,
 * undefined when none does. One pass over the text, tracking only the open containers, at most `maxDepth` of them:
 * whether each is an object, its current index or where its current key is written. Text that is not JSON is
 * measured as far as it goes; JSON.parse judges it afterwards.
 */
export function firstTooDeepInText(text: string, maxDepth: number = MAX_BODY_DEPTH): Array<string | number> | undefined {
  const isObject: boolean[] = [];
  const index: number[] = [];
  const keyStart: number[] = [];
  const keyEnd: number[] = [];
  let depth = 0;
  // In an object, the next string is a key when it follows the opening brace or a comma.
  let expectKey = false;
  for (let at = 0; at < text.length; at++) {
    switch (text.charCodeAt(at)) {
      case QUOTE: {
        const start = at;
        at = text.indexOf('"', at + 1);
        while (at !== -1 && isEscaped(text, at)) at = text.indexOf('"', at + 1);
        if (at === -1) return undefined;
        if (expectKey && depth > 0) {
          keyStart[depth - 1] = start;
          keyEnd[depth - 1] = at + 1;
        }
        expectKey = false;
        break;
      }
      case OPEN_BRACE:
      case OPEN_BRACKET: {
        if (depth === maxDepth) {
          return Array.from({ length: depth }, (_, level) =>
            isObject[level] ? keyText(text.slice(keyStart[level], keyEnd[level])) : (index[level] as number),
          );
        }
        const opensObject = text.charCodeAt(at) === OPEN_BRACE;
        isObject[depth] = opensObject;
        index[depth] = 0;
        keyStart[depth] = at;
        keyEnd[depth] = at;
        depth++;
        expectKey = opensObject;
        break;
      }
      case CLOSE_BRACE:
      case CLOSE_BRACKET:
        if (depth > 0) depth--;
        expectKey = false;
        break;
      case COMMA:
        if (depth > 0) {
          if (isObject[depth - 1]) expectKey = true;
          else index[depth - 1] = (index[depth - 1] as number) + 1;
        }
        break;
    }
  }
  return undefined;
}

/** A quote is escaped when an odd number of backslashes runs up to it. */
function isEscaped(text: string, quoteAt: number): boolean {
  let backslashes = 0;
  for (let at = quoteAt - 1; at >= 0 && text.charCodeAt(at) === BACKSLASH; at--) backslashes++;
  return backslashes % 2 === 1;
}

/**
 * An absent or empty body is `undefined`, for endpoints whose body is optional; text that is not JSON is
 * invalid_json; a body nested deeper than MAX_BODY_DEPTH is invalid_request, naming where, and is never parsed.
 */
export function readJsonBody<const TSchema extends v.GenericSchema>(
  event: APIGatewayProxyEventV2,
  schema: TSchema,
): v.InferOutput<TSchema> {
  const text = readBodyText(event);
  let input: unknown;
  if (text.trim() !== '') {
    const tooDeep = firstTooDeepInText(text);
    if (tooDeep !== undefined) {
      throw new ApiError('invalid_request', `The request body nests objects and arrays more than ${MAX_BODY_DEPTH} levels deep.`, {
        param: formatParam(tooDeep),
      });
    }
    try {
      input = JSON.parse(text);
    } catch {
      throw new ApiError('invalid_json', 'The request body is not valid JSON.');
    }
  }
  // Every body of the API is an object; an array would otherwise slip through an object schema with no required keys.
  if (input !== undefined && (input === null || typeof input !== 'object' || Array.isArray(input))) {
    throw new ApiError('invalid_request', 'The request body must be a JSON object.');
  }
  return parseInput(schema, input);
}

/**
 * An array of `item` whose length is checked before its items: a body of millions of elements is refused for its
 * length at once, not after millions of items have been checked and found wanting.
 */
export function boundedArray<const TItem extends v.GenericSchema>(
  item: TItem,
  typeMessage: string,
  [min, minMessage]: readonly [number, string],
  [max, maxMessage]: readonly [number, string],
) {
  return v.pipe(v.array(v.unknown(), typeMessage), v.minLength(min, minMessage), v.maxLength(max, maxMessage), v.array(item, typeMessage));
}

/** For endpoints that take no body: nothing, or an empty object, is accepted; anything else names its first field. */
export const NoBodySchema = v.optional(v.strictObject({}));

/** A path parameter checked against its schema; a bad one is 422 invalid_request naming the parameter. */
export function readPathParameter<const TSchema extends v.GenericSchema>(
  event: APIGatewayProxyEventV2,
  name: string,
  schema: TSchema,
): v.InferOutput<TSchema> {
  return parseInput(schema, event.pathParameters?.[name], name);
}
