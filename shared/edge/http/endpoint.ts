// The HTTP glue every handler shares: the request's log keys and meter, and a middy chain of tracing, error envelope, authentication and rate.
import middy, { type MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { authenticate, type Principal, type RouteAuth } from '#shared/api-keys/authenticate.ts';
import { recordKeyUse } from '#shared/api-keys/usage.ts';
import { meteredApiRequests } from '#shared/cost/ledger.ts';
import { ApiError, errorResponse, internalError, type Surface } from '#platform/errors.ts';
import { appendLogKeys, logger, withLogKeys } from '#platform/observability.ts';
import { latencyBudgetMs } from '#edge/latency-budgets.ts';
import { metered, type MeteredFunction, type MeteredUnit, workspaceShare } from '#edge/metering.ts';
// An area's rows and the fallback's, never the whole table: a function bundles its own area's rows alone.
import { fallbackRoute } from '#edge/routes/docs.ts';
import { answerForMethod, type HttpRoute, rowOf } from '#edge/routes/rows.ts';
import { annotateWorkspace, traceRequests } from '#platform/tracing.ts';
import { noteBandsStamp } from '#shared/prices/bands-cache.ts';
import { admitRequest } from '#shared/workspaces/rate.ts';
import type { AnswerInWork, KeyStore } from './idempotent.ts';
import { requireJsonContent, takesBody } from './request.ts';

export type HttpEvent = APIGatewayProxyEventV2;
export type HttpResult = APIGatewayProxyStructuredResultV2;

export interface EndpointRequest {
  readonly event: HttpEvent;
  readonly requestId: string;
  /** Time left before Lambda stops the invocation. */
  readonly remainingMs: () => number;
  /**
   * The request's moment, one clock for all of it: the rate window it was counted in and the month whose priced lines
   * it read back are the ones its work charges, even across midnight at a month's end.
   */
  readonly nowMs: number;
}

export interface AuthenticatedRequest extends EndpointRequest {
  readonly principal: Principal;
  /**
   * On a route that takes an Idempotency-Key, when the request sent one: the store of the answer as an entry of the
   * transaction that does the work (./idempotent.ts).
   */
  readonly answerInWork?: AnswerInWork;
}

/** What a handler returns: a status and a body to send as JSON. */
export type Reply = {
  readonly statusCode: number;
  readonly headers?: Readonly<Record<string, string>>;
} & (
  | { readonly body: unknown }
  /** A body already serialised, sent byte for byte: a stored response replayed. */
  | { readonly json: string }
  /** Anything but JSON (the reference page, its scripts), as it is; bytes travel base64-encoded, as API Gateway takes them. */
  | { readonly content: string | Uint8Array; readonly contentType: string }
);

interface EndpointContext extends Context {
  principal?: Principal;
  admittedAt?: number;
}

type Middleware = MiddlewareObj<HttpEvent, HttpResult, Error, EndpointContext>;

interface EndpointSpec extends MeteredFunction {
  readonly surface: Surface;
  readonly auth: RouteAuth | undefined;
}

export function requestIdOf(event: HttpEvent): string {
  return event.requestContext.requestId;
}

export function httpResult(reply: Reply, requestId: string): HttpResult {
  if ('content' in reply) {
    const bytes = typeof reply.content !== 'string';
    return {
      statusCode: reply.statusCode,
      headers: { 'content-type': reply.contentType, 'x-request-id': requestId, ...reply.headers },
      body: bytes ? Buffer.from(reply.content).toString('base64') : reply.content,
      isBase64Encoded: bytes,
    };
  }
  return {
    statusCode: reply.statusCode,
    headers: { 'content-type': 'application/json', 'x-request-id': requestId, ...reply.headers },
    body: 'json' in reply ? reply.json : JSON.stringify(reply.body),
  };
}

/** Turns every error into the surface's envelope; anything that is not an ApiError is a fault and says nothing of itself. */
function errorEnvelope(spec: EndpointSpec): Middleware {
  return {
    onError: (request) => {
      let error = request.error;
      if (!(error instanceof ApiError)) {
        logger.error('unhandled fault', { error: error as Error });
        error = internalError();
      }
      request.response = errorResponse(error as ApiError, requestIdOf(request.event), spec.surface);
    },
  };
}

function authentication(auth: RouteAuth): Middleware {
  return {
    before: async (request) => {
      const principal = await authenticate(auth, request.event.headers?.authorization);
      request.context.principal = principal;
      // The key's id, never the key: an operator traces what a leaked key did by it (docs/operations.md).
      appendLogKeys({ workspaceId: principal.workspaceId, keyId: principal.keyId });
      annotateWorkspace(principal.workspaceId);
      await recordKeyUse(principal.workspaceId, principal.keyId);
    },
  };
}

/**
 * The per-workspace request rate, after authentication and before any input is read: the contract answers 429 before
 * 422. One conditional write per request, on one of the rate's shards, which brings back the workspace's bands stamp.
 */
function requestRate(surface: Surface): Middleware {
  return {
    before: async (request) => {
      const principal = request.context.principal;
      if (!principal) return;
      const now = Date.now();
      const admitted = await admitRequest(principal.workspace, now, surface === 'v1' ? 'api' : 'overview');
      noteBandsStamp(principal.workspaceId, admitted.bandsAt);
      request.context.admittedAt = now;
    },
  };
}

/**
 * Ends every request, answered or failed, with its cost line, and charges it to the workspace its key names: a request
 * no key names a workspace for is nobody's to pay, API Gateway's throttling bounds those.
 */
function meteredRequest(spec: EndpointSpec, handler: (event: HttpEvent, context: EndpointContext) => Promise<HttpResult>) {
  return (event: HttpEvent, context: EndpointContext): Promise<HttpResult> => {
    let response: HttpResult | undefined;
    const answer = async (unit: MeteredUnit) => {
      try {
        return (response = await handler(event, context));
      } finally {
        unit.workspaceId = context.principal?.workspaceId;
      }
    };
    const bytes = (body: string | undefined) => Buffer.byteLength(body ?? '');
    return metered(
      { ...spec, latencyBudgetMs: latencyBudgetMs(spec.id) },
      (measure) => measure(answer, (result) => result.statusCode ?? 500),
      ([unit]) =>
        workspaceShare(unit, {
          route: spec.id,
          nowMs: context.admittedAt ?? Date.now(),
          apiRequests: meteredApiRequests(bytes(event.body), bytes(response?.body)),
        }),
    );
  };
}

function endpoint(spec: EndpointSpec, run: (request: EndpointRequest & { principal?: Principal }) => Promise<Reply>) {
  const chain = middy<HttpEvent, HttpResult, Error, EndpointContext>()
    .use(traceRequests<HttpEvent, HttpResult, EndpointContext>(spec.id))
    .use(errorEnvelope(spec));
  if (spec.auth) chain.use(authentication(spec.auth));
  if (spec.auth) chain.use(requestRate(spec.surface));
  const handler = meteredRequest(
    spec,
    chain.handler(async (event, context) => {
      const requestId = requestIdOf(event);
      const remainingMs = () => context.getRemainingTimeInMillis();
      const nowMs = context.admittedAt ?? Date.now();
      return httpResult(await run({ event, requestId, remainingMs, nowMs, principal: context.principal }), requestId);
    }),
  );
  // Each invocation carries its own ledger, so that every DynamoDB call made for it is charged to it, and its own log
  // keys, so that on-call finds every line of the request whose id a 500 told the caller to quote.
  return async (event: HttpEvent, context: Context): Promise<HttpResult> =>
    answerForMethod(
      event.requestContext.http.method,
      await withLogKeys({ requestId: requestIdOf(event), route: spec.id }, () => handler(event, context as EndpointContext)),
    );
}

/** A route whose row asks for it (`idempotency`) answers once per Idempotency-Key; any other runs as it is. */
function oncePerKey(route: HttpRoute, run: (request: AuthenticatedRequest) => Promise<Reply>, options: RouteOptions) {
  if (!route.idempotency) {
    if (options.keyStore) throw new Error(`route ${route.id} takes no Idempotency-Key: its row has no idempotency for a key store`);
    return run;
  }
  if (!options.keyStore) throw new Error(`route ${route.id}: its row takes an Idempotency-Key, and its handler gives no key store`);
  const answerOnce = options.keyStore.forRoute(route.id, route.idempotency);
  return (request: AuthenticatedRequest): Promise<Reply> =>
    answerOnce(request, async (answerInWork) => {
      const reply = await run(answerInWork ? { ...request, answerInWork } : request);
      if ('content' in reply) throw new Error(`route ${route.id} answers other than JSON, which no Idempotency-Key replays`);
      // Serialised once, here: the first answer and every replay are the same bytes.
      const json = 'json' in reply ? reply.json : JSON.stringify(reply.body);
      return { statusCode: reply.statusCode, json, ...(reply.headers ? { headers: reply.headers } : {}) };
    });
}

export interface RouteOptions {
  /**
   * The store of answers by Idempotency-Key (`keyStore()` of ./idempotent.ts, sealed for a row that says `sealed`),
   * handed over by the handlers of the rows that take a key, so that no other function bundles it.
   */
  readonly keyStore?: KeyStore;
}

/** The ids of the rows that ask for a key, and of those open to every caller. */
type KeyedId<Rows extends readonly HttpRoute[]> = Exclude<Rows[number], { auth: 'none' }>['id'];
type OpenId<Rows extends readonly HttpRoute[]> = Extract<Rows[number], { auth: 'none' }>['id'];

/**
 * The handler of a route in the route table, named by its area's rows and its id: authenticated by the route's rules,
 * answered in its surface's envelope.
 */
export function routeEndpoint<const Rows extends readonly HttpRoute[]>(
  rows: Rows,
  routeId: KeyedId<Rows>,
  run: (request: AuthenticatedRequest) => Promise<Reply>,
  options: RouteOptions = {},
) {
  const route = rowOf(rows, routeId);
  const auth = route.auth;
  if (auth === 'none') throw new Error(`route ${route.id} is open to every caller: serve it with openRouteEndpoint`);
  const answer = oncePerKey(route as HttpRoute, run, options);
  return endpoint({ id: route.id, memoryMb: route.memoryMb, surface: route.surface, auth }, (request) => {
    if (!request.principal) throw new Error(`route ${route.id} ran without a principal`);
    // After the key and the rate, before the Idempotency-Key and the body: a body that is not JSON is never read.
    if (takesBody(route)) requireJsonContent(request.event);
    return answer({ ...request, principal: request.principal });
  });
}

/**
 * The handler of a route the table opens to every caller (`auth: 'none'`): it reads no key and counts no workspace's
 * rate, and still answers in its surface's envelope and ends with its cost line.
 */
export function openRouteEndpoint<const Rows extends readonly HttpRoute[]>(
  rows: Rows,
  routeId: OpenId<Rows>,
  run: (request: EndpointRequest) => Promise<Reply>,
) {
  const route = rowOf(rows, routeId);
  if (route.auth !== 'none') throw new Error(`route ${route.id} asks for a key: serve it with routeEndpoint`);
  return endpoint({ id: route.id, memoryMb: route.memoryMb, surface: route.surface, auth: undefined }, run);
}

/** A handler open to every caller, such as the one that answers unknown routes. */
export function openEndpoint(id: string, run: (request: EndpointRequest) => Promise<Reply>, surface: Surface = 'v1') {
  const memoryMb = id === fallbackRoute.id ? fallbackRoute.memoryMb : undefined;
  return endpoint({ id, memoryMb, surface, auth: undefined }, run);
}
