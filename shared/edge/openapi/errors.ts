// The error answers of the documents: every code an operation can answer, by status in its surface's envelope, and the answers to a path no route serves.
import { ApiError, type ErrorCode, errorResponse, type Surface } from '#platform/errors.ts';
import { takesBody } from '#edge/http/request.ts';
import { commonHeaders, gatewayResponses, ref } from './components.ts';
import { code, featureNeeds, keyAuthOf, orList, type RouteRow } from './keys.ts';
import type { OperationDoc } from './operations.ts';
import { surfaceDocs } from './surfaces.ts';

/** The codes that come with `Retry-After`. */
const retryAfterCodes: ReadonlySet<ErrorCode> = new Set(['rate_limited', 'monthly_volume_exceeded', 'idempotency_key_in_flight']);

/** A body sent as anything but JSON (shared/edge/http/request.ts). */
const notJson = new ApiError('invalid_request', '', { status: 415 });

const faultWhen = 'A fault of the service: nothing of it is in the body. Retry later, and quote the request id if it persists.';

/** Every code the operation can answer, with when: the key checks' and the rate's from its auth, then its own, then the fault. */
export function errorsOf(route: RouteRow, doc: OperationDoc): Array<[ErrorCode | ApiError, string]> {
  const auth = keyAuthOf(route);
  const errors: Array<[ErrorCode | ApiError, string]> = [];
  if (auth) {
    errors.push(['unauthorized', 'The key is missing, malformed, unknown or revoked, or of the other surface’s family.']);
    if (auth.scopes.length > 0) errors.push(['forbidden', `The key has none of the scopes ${orList(auth.scopes.map(code))}.`]);
    errors.push(['subscription_inactive', 'The workspace is not active.']);
    const features = featureNeeds(auth);
    if (features.length > 0) errors.push(['feature_not_enabled', features.map((feature) => feature.lack).join(' ')]);
    errors.push(['rate_limited', 'The workspace’s requests for this second are spent; `Retry-After` is 1.']);
  }
  for (const [code, when] of Object.entries(doc.errors) as Array<[ErrorCode, string]>) {
    // An operation's own reason for a code the key checks answer too (429) is told beside theirs, under the one code.
    const earlier = errors.findIndex(([known]) => known === code);
    if (earlier >= 0) errors[earlier] = [code, `${errors[earlier]?.[1] ?? ''} Or: ${when}`];
    else errors.push([code, when]);
  }
  if (auth && takesBody(route)) errors.push([notJson, 'A body was sent with a Content-Type other than JSON (`application/json`, UTF-8).']);
  errors.push(['internal_error', faultWhen]);
  return errors;
}

/** An error's status and its code on the surface, as errors.ts answers it. */
export function answeredAs(error: ErrorCode | ApiError, surface: Surface): { status: number; code: string } {
  const response = errorResponse(typeof error === 'string' ? new ApiError(error, '') : error, 'request', surface);
  const body = JSON.parse(response.body) as { error: { code: string } };
  return { status: response.statusCode, code: body.error.code };
}

export function errorResponses(errors: ReadonlyArray<readonly [ErrorCode | ApiError, string]>, surface: Surface): Record<string, unknown> {
  const byStatus = new Map<number, Array<{ code: string; when: string; retryAfter: boolean }>>();
  for (const [error, when] of errors) {
    const { status, code: answered } = answeredAs(error, surface);
    const retryAfter = retryAfterCodes.has(typeof error === 'string' ? error : error.code);
    byStatus.set(status, [...(byStatus.get(status) ?? []), { code: answered, when, retryAfter }]);
  }
  const envelope = surfaceDocs[surface].envelope;
  const responses: Record<string, unknown> = {};
  for (const [status, codes] of [...byStatus].sort(([a], [b]) => a - b)) {
    const names = codes.map((entry) => entry.code);
    // The envelope, with the codes this operation answers at this status.
    const narrowed = {
      type: 'object',
      properties: {
        error: { type: 'object', properties: { code: names.length === 1 ? { const: names[0] } : { enum: names } } },
      },
    };
    const retryAfter = codes.some((entry) => entry.retryAfter);
    responses[String(status)] = {
      description: codes.map((entry) => `- ${code(entry.code)}: ${entry.when}`).join('\n'),
      headers: {
        'x-request-id': ref('headers', 'RequestId'),
        ...(retryAfter
          ? { 'Retry-After': codes.every((entry) => entry.retryAfter) ? ref('headers', 'RetryAfter') : optionalRetryAfter }
          : {}),
      },
      content: { 'application/json': { schema: { allOf: [ref('schemas', envelope), narrowed] } } },
    };
  }
  for (const [name, gateway] of Object.entries(gatewayResponses)) responses[String(gateway.status)] = ref('responses', name);
  return responses;
}

const optionalRetryAfter = { ...commonHeaders.RetryAfter, required: false };

/**
 * What answers a method and path no route serves (functions/docs/route-not-found.ts): 405 with `Allow` for a path
 * served with other methods, 404 otherwise; the overview's envelope under `/v1/`, the v1 envelope anywhere else. OpenAPI has no place for it, so it is an extension at the document's root,
 * for readers and for the integration run's contract checks.
 */
export function unknownRoute(surface: Surface): Record<string, unknown> {
  const notFound: Record<Surface, readonly [ApiError, string]> = {
    v1: [new ApiError('invalid_request', '', { status: 404 }), 'No route serves this method and path.'],
    overview: [new ApiError('not_found', ''), 'No route under `/v1/` serves this method and path.'],
  };
  const wrongMethod = [
    new ApiError('invalid_request', '', { status: 405 }),
    'The path is served, but not with this method; `Allow` lists the methods it serves.',
  ] as const;
  const responses = errorResponses([notFound[surface], wrongMethod, ['internal_error', faultWhen]], surface);
  const notAllowed = responses['405'] as { headers: Record<string, unknown> };
  notAllowed.headers = { ...notAllowed.headers, Allow: allowHeader };
  return {
    description:
      surface === 'v1'
        ? 'The answers to any method and path that no operation serves, outside `/v1/`.'
        : 'The answers to any method and path under `/v1/` that no operation serves.',
    responses,
  };
}

const allowHeader = {
  description: 'The methods the path serves, comma-separated (`GET, POST`).',
  required: true,
  schema: { type: 'string', pattern: '^[A-Z]+(, [A-Z]+)*$' },
};
