// Checking any input against its valibot schema: the first problem as 422 invalid_request, naming the field as the contract does.
import * as v from 'valibot';
import { ApiError } from './errors.ts';

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
