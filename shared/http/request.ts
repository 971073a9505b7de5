// Reading a request's input: the JSON body against its valibot schema, with errors that name the offending field.
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import * as v from 'valibot';
import { ApiError } from '../errors.ts';

/** `records[17].lines[0].costCents`: the contract's way of naming a place in the input. */
export function issueParam(issue: v.BaseIssue<unknown>): string | undefined {
  let param = '';
  for (const item of issue.path ?? []) {
    const key = item.key;
    if (typeof key === 'number') param += `[${key}]`;
    else param += param ? `.${String(key)}` : String(key);
  }
  return param || undefined;
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

/** An absent or empty body is `undefined`, for endpoints whose body is optional; text that is not JSON is invalid_json. */
export function readJsonBody<const TSchema extends v.GenericSchema>(
  event: APIGatewayProxyEventV2,
  schema: TSchema,
): v.InferOutput<TSchema> {
  const text = readBodyText(event);
  let input: unknown;
  if (text.trim() !== '') {
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
