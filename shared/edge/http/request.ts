// Reading a request's input: the JSON body against its valibot schema, with errors that name the offending field.
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import * as v from 'valibot';
import { ApiError, quoted } from '#platform/errors.ts';
import { formatParam, parseInput } from '#platform/input.ts';

export function readBodyText(event: APIGatewayProxyEventV2): string {
  if (!event.body) return '';
  return event.isBase64Encoded ? Buffer.from(event.body, 'base64').toString('utf8') : event.body;
}

/** JSON's media types: `application/json` and the structured `+json` ones, in any case; parameters aside. */
const JSON_MEDIA_TYPE = /^application\/([a-z0-9!#$&^_.-]+\+)?json$/;

/** The routes that read a JSON body: every POST and PATCH of the table (a GET or DELETE reads none). */
export function takesBody(route: { readonly method: string }): boolean {
  return route.method === 'POST' || route.method === 'PATCH';
}

/**
 * A body sent as anything but JSON is refused with 415 before it is read: `text/plain` (what fetch sends for a string
 * it is not told about) or a form would otherwise be parsed as JSON when it happens to be JSON. A body with no
 * Content-Type at all is read as JSON, as it always was; a `charset` other than UTF-8 is refused, since the body is
 * read as UTF-8. No body, or an empty one, is never refused for its label.
 */
export function requireJsonContent(event: APIGatewayProxyEventV2): void {
  const contentType = event.headers?.['content-type'];
  if (contentType === undefined || readBodyText(event) === '') return;
  const [mediaType = '', ...parameters] = contentType.split(';').map((part) => part.trim().toLowerCase());
  const charset = parameters
    .find((parameter) => parameter.startsWith('charset='))
    ?.slice('charset='.length)
    .replace(/"/g, '');
  if (JSON_MEDIA_TYPE.test(mediaType) && (charset === undefined || charset === 'utf-8' || charset === 'utf8')) return;
  throw new ApiError(
    'invalid_request',
    `The request body must be JSON, sent with Content-Type: application/json, not ${quoted(contentType)}.`,
    {
      status: 415,
      param: 'Content-Type',
    },
  );
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
