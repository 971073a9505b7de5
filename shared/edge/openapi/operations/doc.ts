// The shape of an operation's words, and what every area's words share: the documents' version and frame, and a route that takes no body.
import * as v from 'valibot';
import type { ErrorCode } from '#platform/errors.ts';
import { NoBodySchema } from '#edge/http/request.ts';
import { IdempotencyKeySchema } from '#edge/openapi/inputs.ts';

export const OPENAPI_VERSION = '3.1.0';

/** What the two contract routes serve: an OpenAPI document, described no further than its frame. */
export const OpenApiDocumentSchema = v.looseObject({
  openapi: v.literal(OPENAPI_VERSION),
  info: v.looseObject({ title: v.string(), version: v.string() }),
  paths: v.looseObject({}),
});

export type SuccessStatus = 200 | 201 | 202;

export interface ParameterDoc {
  readonly name: string;
  readonly in: 'path' | 'query' | 'header';
  readonly description: string;
  readonly required: boolean;
  readonly schema: v.GenericSchema;
  readonly example: unknown;
}

export interface OperationDoc<
  TRequest extends v.GenericSchema = v.GenericSchema,
  TResponse extends v.GenericSchema = v.GenericSchema,
  TStatus extends SuccessStatus = SuccessStatus,
> {
  readonly summary: string;
  /** What it does; the key it needs and the errors it can answer are added from the route and `errors`. */
  readonly description: string;
  readonly tag: string;
  readonly parameters?: readonly ParameterDoc[];
  readonly requestBody?: {
    readonly schema: TRequest;
    /** False where the handler takes no body, an empty one, or `{}` alike. */
    readonly required: boolean;
    readonly description: string;
    readonly example?: v.InferInput<TRequest>;
  };
  readonly success: {
    readonly status: TStatus;
    readonly description: string;
    readonly schema: TResponse;
    readonly example: v.InferOutput<TResponse>;
    /** A replay of a stored answer carries `Idempotent-Replayed: true`. */
    readonly replayable?: boolean;
  };
  /**
   * The codes its input and its domain can answer, in its surface's own dialect (the overview's `bad_request`), each
   * with when. The key checks', the rate's and the fault's follow from the route's auth.
   */
  readonly errors: Readonly<Partial<Record<ErrorCode, string>>>;
}

/** Ties each example to its schema's type, so that an example that drifts from its schema fails the typecheck. */
export function operation<
  const TResponse extends v.GenericSchema,
  const TStatus extends SuccessStatus,
  const TRequest extends v.GenericSchema = v.GenericSchema,
>(doc: OperationDoc<TRequest, TResponse, TStatus>): OperationDoc<TRequest, TResponse, TStatus> {
  return doc;
}

export const noBody = (what: string) => ({ schema: NoBodySchema, required: false, description: `${what} takes no body: none, an empty one, or \`{}\`.` });

/** The header of a creating route whose row takes an Idempotency-Key (`idempotency`): optional, unlike the price call's. */
export const optionalIdempotencyKey = (example: string): ParameterDoc => ({
  name: 'Idempotency-Key',
  in: 'header',
  description:
    'Optional: one key per logical request, the same on its retries, 1 to 255 printable ASCII characters. With it, a ' +
    'retry gets the first answer instead of acting again; without it, every request acts.',
  required: false,
  schema: IdempotencyKeySchema,
  example,
});

/** The refusals of a key such a route answers, as the price call does. */
export const idempotencyKeyErrors = {
  idempotency_key_reused: 'The `Idempotency-Key` was used with another body, or by another API key of the workspace (a stored answer replays to the key that made it alone), within 24 hours.',
  idempotency_key_in_flight: 'The first request with this `Idempotency-Key` is still running; retry after `Retry-After` (1 second).',
} as const;

/** The data warnings a price line and a recommendation carry, as the operations that answer them explain them. */
export const DATA_WARNINGS =
  'its last batch moved its cost (`cost_jump`) or current price (`price_jump`) past the workspace’s `dataWarningFactor` ' +
  '(3 by default) either way from the value it was in line at, or from the cost and price of its recent order lines, ' +
  'or left its price below cost (`price_below_cost`); each message names both values. Absent when there are none; a ' +
  'later batch that brings the values back in line clears them.';
