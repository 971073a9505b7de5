// Errors of the service and the two envelopes they are answered in: v1 (/api/v1) and the overview surface (/v1).
import * as v from 'valibot';

/** Every v1 error code and its HTTP status. */
export const errorStatuses = {
  unauthorized: 401,
  subscription_inactive: 402,
  forbidden: 403,
  feature_not_enabled: 403,
  batch_not_found: 404,
  idempotency_key_in_flight: 409,
  batch_already_committed: 409,
  batch_entity_order_violation: 409,
  writeback_lease_expired: 409,
  invalid_json: 422,
  invalid_request: 422,
  entity_not_supported: 422,
  idempotency_key_reused: 422,
  // Answered where connectors are created (the console, the admin CLI): the workspace has as many as its limit.
  connector_limit_reached: 422,
  rate_limited: 429,
  monthly_volume_exceeded: 429,
  internal_error: 500,
  // The overview surface's own codes.
  bad_request: 400,
  not_found: 404,
  guardrail_violation: 422,
  confirmation_required: 422,
} as const;

export type ErrorCode = keyof typeof errorStatuses;

/** The overview's own codes, which no /api/v1 route answers. */
export const overviewOnlyErrorCodes: readonly ErrorCode[] = ['bad_request', 'not_found', 'guardrail_violation', 'confirmation_required'];

/** The codes the v1 envelope carries: every code but the overview's own. */
export const v1ErrorCodes: readonly ErrorCode[] = (Object.keys(errorStatuses) as ErrorCode[]).filter(
  (code) => !overviewOnlyErrorCodes.includes(code),
);

/** The codes the overview's routes answer: the contract's overview table, and the shared codes of its key checks. */
export const overviewErrorCodes: readonly string[] = [
  'bad_request',
  'unauthorized',
  'forbidden',
  'subscription_inactive',
  'feature_not_enabled',
  'not_found',
  'guardrail_violation',
  // The creating routes that take an Idempotency-Key answer its refusals as the price call does.
  'idempotency_key_in_flight',
  'idempotency_key_reused',
  'confirmation_required',
  'rate_limited',
  'server_error',
];

/** The v1 envelope: `requestId` is the request's `x-request-id`, `param` the path of the offending input when there is one. */
export const V1ErrorEnvelopeSchema = v.strictObject({
  error: v.strictObject({
    code: v.picklist(v1ErrorCodes),
    message: v.string(),
    param: v.optional(v.string()),
    requestId: v.pipe(v.string(), v.minLength(1)),
  }),
});
export type V1ErrorEnvelope = v.InferOutput<typeof V1ErrorEnvelopeSchema>;

/** The overview's envelope, in its snake_case and without `param`. */
export const OverviewErrorEnvelopeSchema = v.strictObject({
  error: v.strictObject({
    code: v.picklist(overviewErrorCodes),
    message: v.string(),
    request_id: v.pipe(v.string(), v.minLength(1)),
  }),
});
export type OverviewErrorEnvelope = v.InferOutput<typeof OverviewErrorEnvelopeSchema>;

/**
 * API Gateway's own answers, in neither envelope: 503 when a function outlives its timeout, 413 for a body over 10 MB.
 * The local gateway answers them alike, with `x-request-id` beside API Gateway's `apigw-requestid`.
 */
export const GatewayErrorSchema = v.strictObject({ message: v.string() });

export interface ErrorOptions {
  /** Path of the offending input, e.g. `records[17].lines[0].costCents`, `Idempotency-Key`, `batchId`. */
  readonly param?: string | undefined;
  /** Extra response headers, such as Retry-After. */
  readonly headers?: Readonly<Record<string, string>>;
  /**
   * Only where a code is answered with a status other than its own: an unknown route is 404 invalid_request, a body
   * that is not JSON 415, a method the path does not serve 405.
   */
  readonly status?: number;
}

/** An error the caller is meant to see. Anything else thrown is a fault and is answered 500 internal_error. */
export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly param: string | undefined;
  readonly headers: Readonly<Record<string, string>>;
  readonly status: number;

  constructor(code: ErrorCode, message: string, options: ErrorOptions = {}) {
    super(message);
    this.name = 'ApiError';
    this.code = code;
    this.param = options.param;
    this.headers = options.headers ?? {};
    this.status = options.status ?? errorStatuses[code];
  }
}

/** The most of a caller's own text a message quotes: enough to recognise it, never the body echoed back. */
export const MAX_QUOTED_LENGTH = 64;

/** Caller text as a message quotes it: in quotes, cut at MAX_QUOTED_LENGTH characters (never half a surrogate pair). */
export function quoted(text: string): string {
  const chars = Array.from(text);
  return chars.length <= MAX_QUOTED_LENGTH ? `"${text}"` : `"${chars.slice(0, MAX_QUOTED_LENGTH).join('')}…"`;
}

export type Surface = 'v1' | 'overview';

export interface ErrorResponse {
  readonly statusCode: number;
  readonly headers: Record<string, string>;
  readonly body: string;
}

/** Said for every fault, so that nothing internal ever reaches a caller. */
const FAULT_MESSAGE = 'The service could not complete the request. Retry later; if it persists, quote the requestId.';

export function internalError(): ApiError {
  return new ApiError('internal_error', FAULT_MESSAGE);
}

/**
 * The overview surface speaks its own dialect: malformed input is 400 bad_request rather than 422, and a fault is
 * server_error; every other code is shared with v1.
 */
function overviewCode(error: ApiError): { code: string; status: number } {
  switch (error.code) {
    case 'invalid_json':
    case 'invalid_request':
      // A status of its own (415 for a body that is not JSON, 405 for a method the path does not serve) is kept.
      return { code: 'bad_request', status: error.status === errorStatuses[error.code] ? 400 : error.status };
    case 'internal_error':
      return { code: 'server_error', status: 500 };
    default:
      return { code: error.code, status: error.status };
  }
}

export function errorResponse(error: ApiError, requestId: string, surface: Surface): ErrorResponse {
  const headers = { 'content-type': 'application/json', 'x-request-id': requestId, ...error.headers };
  if (surface === 'overview') {
    const { code, status } = overviewCode(error);
    return {
      statusCode: status,
      headers,
      body: JSON.stringify({ error: { code, message: error.message, request_id: requestId } } satisfies OverviewErrorEnvelope),
    };
  }
  const body = {
    error: {
      code: error.code,
      message: error.message,
      ...(error.param === undefined ? {} : { param: error.param }),
      requestId,
    },
  } satisfies V1ErrorEnvelope;
  return { statusCode: error.status, headers, body: JSON.stringify(body) };
}
