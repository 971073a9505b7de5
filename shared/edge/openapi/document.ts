// The OpenAPI 3.1 documents of the two surfaces, built from the route table (paths, methods, keys) and the operations' metadata.
import { AdherenceFiguresSchema, AdherenceGroupSchema } from '#shared/adherence/schema.ts';
import type * as v from 'valibot';
import { ApprovalViewSchema, ApproveRequestSchema } from '#shared/approvals/schema.ts';
import { BatchStatusViewSchema, CommittedBatchSchema, OpenedBatchSchema, StagedRecordsSchema } from '#shared/batches/schema.ts';
import {
  ApiError,
  type ErrorCode,
  errorResponse,
  GatewayErrorSchema,
  OverviewErrorEnvelopeSchema,
  type Surface,
  V1ErrorEnvelopeSchema,
} from '#platform/errors.ts';
import { PriceRequestLineSchema, PriceRequestSchema } from '#shared/prices/request.ts';
import {
  DriverViewSchema,
  ExplanationSchema,
  PricedLineSchema,
  PriceResponseSchema,
  PriceResultLineSchema,
  ReasonEntrySchema,
  RefusedLineSchema,
} from '#shared/prices/schema.ts';
import { AttributesSchema } from '#shared/records/attributes.ts';
import { IdentifierSchema } from '#shared/records/identifier.ts';
import {
  CustomerRecordSchema,
  DateTimeSchema,
  OrderLineSchema,
  OrderRecordSchema,
  ProductRecordSchema,
  QuoteLineSchema,
  QuoteRecordSchema,
} from '#shared/records/schema.ts';
import { OverviewPriceSchema } from '#shared/recommendations/schema.ts';
import { routes } from '#edge/routes.ts';
import {
  AckCountsSchema,
  AckRequestSchema,
  AckResultSchema,
  ClaimRequestSchema,
  ClaimResponseSchema,
  ExtendRequestSchema,
  ExtendResponseSchema,
  TaskViewSchema,
} from '#shared/writebacks/schema.ts';
import { DELIVERY_TIMEOUT_MS, RETRY_SCHEDULE_MS } from '#shared/webhooks/delivery.ts';
import { eventCatalogue, eventSchema, type EventType, eventTypes } from '#shared/webhooks/events.ts';
import { componentSchemas, documentSchema } from './convert.ts';
import { StageRequestSchema } from './inputs.ts';
import { OPENAPI_VERSION, OpenApiDocumentSchema, type OperationDoc, operations, type ParameterDoc, undocumentedRoutes } from './operations.ts';

/** `batch.drained` → `BatchDrainedEvent`: the component that describes the event's payload. */
function eventComponentName(type: EventType): string {
  return `${type
    .split(/[._]/)
    .map((part) => `${part.charAt(0).toUpperCase()}${part.slice(1)}`)
    .join('')}Event`;
}

/** The schemas the documents name in `components.schemas`; each document keeps those it uses. */
const namedSchemas: Record<string, v.GenericSchema> = {
  ...Object.fromEntries(eventTypes.map((type) => [eventComponentName(type), eventSchema(type)])),
  Identifier: IdentifierSchema,
  DateTime: DateTimeSchema,
  AdherenceGroup: AdherenceGroupSchema,
  AdherenceFigures: AdherenceFiguresSchema,
  Attributes: AttributesSchema,
  PriceRequest: PriceRequestSchema,
  PriceRequestLine: PriceRequestLineSchema,
  PriceResponse: PriceResponseSchema,
  PriceResultLine: PriceResultLineSchema,
  PricedLine: PricedLineSchema,
  RefusedLine: RefusedLineSchema,
  ReasonEntry: ReasonEntrySchema,
  Explanation: ExplanationSchema,
  Driver: DriverViewSchema,
  OpenedBatch: OpenedBatchSchema,
  StageRequest: StageRequestSchema,
  ProductRecord: ProductRecordSchema,
  CustomerRecord: CustomerRecordSchema,
  QuoteRecord: QuoteRecordSchema,
  QuoteLine: QuoteLineSchema,
  OrderRecord: OrderRecordSchema,
  OrderLine: OrderLineSchema,
  StagedRecords: StagedRecordsSchema,
  BatchStatus: BatchStatusViewSchema,
  CommittedBatch: CommittedBatchSchema,
  ClaimRequest: ClaimRequestSchema,
  ClaimResponse: ClaimResponseSchema,
  WritebackTask: TaskViewSchema,
  AckRequest: AckRequestSchema,
  AckResult: AckResultSchema,
  AckCounts: AckCountsSchema,
  ExtendRequest: ExtendRequestSchema,
  ExtendResponse: ExtendResponseSchema,
  OverviewPrice: OverviewPriceSchema,
  ApproveRequest: ApproveRequestSchema,
  Approval: ApprovalViewSchema,
  OpenApiDocument: OpenApiDocumentSchema,
  Error: V1ErrorEnvelopeSchema,
  OverviewError: OverviewErrorEnvelopeSchema,
  GatewayError: GatewayErrorSchema,
};

interface SurfaceDoc {
  readonly file: string;
  readonly title: string;
  readonly description: string;
  readonly envelope: string;
}

export const surfaceDocs: Readonly<Record<Surface, SurfaceDoc>> = {
  v1: {
    file: 'openapi/api-v1.json',
    title: 'Pricing service API',
    description:
      'Price serving, canonical ingest and write-backs for B2B sellers, under `/api/v1`. Every answer carries ' +
      '`x-request-id`; every error is `{"error": {"code", "message", "param"?, "requestId"}}`, `param` naming the ' +
      'offending input (`records[17].lines[0].costCents`). Request bodies are strict: an unknown field is 422 ' +
      '`invalid_request` naming it, and no body may nest objects and arrays more than 64 levels deep. Any other ' +
      'method or path is 404 `invalid_request`. Calls are limited per workspace: requests per second over all of ' +
      '`/api/v1`, and priced lines per calendar month (UTC).',
    envelope: 'Error',
  },
  overview: {
    file: 'openapi/overview-v1.json',
    title: 'Pricing service overview API',
    description:
      'The overview surface, under `/v1`: a SKU’s recommended price, and approving a price, which live keys publish ' +
      'to every connector that takes write-backs. Every answer carries `x-request-id`; every error is ' +
      '`{"error": {"code", "message", "request_id"}}`: malformed input is 400 `bad_request`, a fault 500 ' +
      '`server_error`, and any other method or path under `/v1/` 404 `not_found`. Request bodies are strict, and nest ' +
      'objects and arrays at most 64 levels deep. Requests are limited per workspace, per second, apart from `/api/v1`.',
    envelope: 'OverviewError',
  },
};

const tagDescriptions: Readonly<Record<string, string>> = {
  Prices: 'Real-time, explainable prices for ERPs and storefronts.',
  Ingest: 'Batches of canonical records (products, customers, quotes, orders) that a connector stages and commits.',
  'Write-backs': 'Approved prices, as tasks a connector claims, applies in its own system, and acknowledges.',
  Recommendations: 'A SKU’s recommended price, with its rationale and drivers.',
  Approvals: 'Approving a price, and publishing it to the connectors.',
  Contract: 'The machine-readable contract itself.',
  Usage: 'What the workspace cost, in US dollars at list prices, by day or by route.',
  Analytics: 'Whether sellers followed the price guidance, and what following it earned.',
  Webhooks: 'The endpoints a workspace registers to receive webhook events, each with its subscriptions and signing secret.',
  'Webhook events':
    'Events the service POSTs to the endpoints a workspace registers, signed by the Standard Webhooks rules, so that a ' +
    'connector learns of a drained batch or an approved price without polling.',
};

const securitySchemes = {
  serviceKey: {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'svc_live_<40 base62 characters>',
    description:
      'A `svc_live_` key, for `/api/v1` only. Its scopes: `erp` (prices, with their reasoning), `storefront` (prices ' +
      'without reasoning, always held to MAP; while the workspace has the `storefront` feature) and `connector` ' +
      '(ingest and write-backs, for the one connector the key belongs to). A key may carry several. A key of another ' +
      'family is 401; a key without the scope an operation needs is 403 `forbidden`. Requirements below list the ' +
      'scopes, any one of which grants the operation.',
  },
  overviewKey: {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'pw_live_ or pw_test_, then 40 base62 characters',
    description:
      'A `pw_live_` (live) or `pw_test_` (sandbox: it reads the same data, and its approvals are recorded but publish ' +
      'nothing) key, for the overview surface only. These keys carry no scopes. A key of another family is 401.',
  },
} as const;

const commonHeaders = {
  RequestId: {
    description: 'The request’s id; an error body carries it too. Quote it when asking about a request.',
    required: true,
    schema: { type: 'string', minLength: 1 },
  },
  RetryAfter: {
    description: 'Seconds to wait before retrying.',
    required: true,
    schema: { type: 'integer', minimum: 1 },
  },
  IdempotentReplayed: {
    description: 'Present, and `true`, when the answer is the stored answer of an earlier call with the same key, replayed.',
    required: false,
    schema: { type: 'boolean', const: true },
  },
} as const;

/** API Gateway's own answers, outside both envelopes and without x-request-id; every route can meet them. */
const gatewayResponses = {
  PayloadTooLarge: {
    status: 413,
    description: 'API Gateway refuses any request whose body is over 10 MB, before it reaches the service.',
    example: { message: 'Request Entity Too Large' },
  },
  Timeout: {
    status: 503,
    description: 'API Gateway answers so when the function did not answer within its timeout. Retry with backoff.',
    example: { message: 'Service Unavailable' },
  },
} as const;

/** The codes that come with `Retry-After`. */
const retryAfterCodes: ReadonlySet<ErrorCode> = new Set(['rate_limited', 'monthly_volume_exceeded', 'idempotency_key_in_flight']);

/** A row of the route table as the builder reads it: rows of open routes may carry no `auth`, or another shape of it. */
export interface RouteRow {
  readonly id: string;
  readonly method: string;
  readonly path: string;
  readonly surface?: string;
  readonly auth?: unknown;
}

interface KeyAuth {
  readonly family: string;
  readonly scopes: readonly string[];
  readonly feature?: string;
  readonly featureOfScope?: Readonly<Record<string, string>>;
}

/** The route's key rules, or undefined for a route open to every caller. */
function keyAuthOf(route: RouteRow): KeyAuth | undefined {
  const { auth } = route;
  if (typeof auth === 'object' && auth !== null && 'family' in auth && typeof auth.family === 'string') return auth as KeyAuth;
  return undefined;
}

function code(text: string): string {
  return `\`${text}\``;
}

function orList(items: readonly string[]): string {
  return items.length <= 1 ? items.join('') : `${items.slice(0, -1).join(', ')} or ${items[items.length - 1]}`;
}

/** The features the route needs: what the key's description says, and what its 403 says. */
function featureNeeds(auth: KeyAuth): Array<{ need: string; lack: string }> {
  const needs: Array<{ need: string; lack: string }> = [];
  if (auth.feature) {
    needs.push({ need: `the workspace needs the ${code(auth.feature)} feature`, lack: `The workspace lacks the ${code(auth.feature)} feature.` });
  }
  for (const [scope, feature] of Object.entries(auth.featureOfScope ?? {})) {
    needs.push({
      need: `a key granted it by ${code(scope)} alone needs the workspace's ${code(feature)} feature`,
      lack: `The key is granted the operation by ${code(scope)} alone, and the workspace lacks the ${code(feature)} feature.`,
    });
  }
  return needs;
}

function keyWords(auth: KeyAuth | undefined): string {
  if (!auth) return 'Open: no key.';
  const key =
    auth.family === 'svc_live'
      ? `A ${code('svc_live_')} key with the ${orList(auth.scopes.map(code))} scope`
      : `A ${code('pw_live_')} or ${code('pw_test_')} key`;
  return `${[key, ...featureNeeds(auth).map((feature) => feature.need)].join('; ')}.`;
}

function securityOf(auth: KeyAuth | undefined): Array<Record<string, string[]>> {
  if (!auth) return [];
  const scheme = auth.family === 'svc_live' ? 'serviceKey' : 'overviewKey';
  return auth.scopes.length > 0 ? auth.scopes.map((scope) => ({ [scheme]: [scope] })) : [{ [scheme]: [] }];
}

const faultWhen = 'A fault of the service: nothing of it is in the body. Retry later, and quote the request id if it persists.';

/** Every code the operation can answer, with when: the key checks' and the rate's from its auth, then its own, then the fault. */
function errorsOf(route: RouteRow, doc: OperationDoc): Array<[ErrorCode, string]> {
  const auth = keyAuthOf(route);
  const errors: Array<[ErrorCode, string]> = [];
  if (auth) {
    errors.push(['unauthorized', 'The key is missing, malformed, unknown or revoked, or of the other surface’s family.']);
    if (auth.scopes.length > 0) errors.push(['forbidden', `The key has none of the scopes ${orList(auth.scopes.map(code))}.`]);
    errors.push(['subscription_inactive', 'The workspace is not active.']);
    const features = featureNeeds(auth);
    if (features.length > 0) errors.push(['feature_not_enabled', features.map((feature) => feature.lack).join(' ')]);
    errors.push(['rate_limited', 'The workspace’s requests for this second are spent; `Retry-After` is 1.']);
  }
  errors.push(...(Object.entries(doc.errors) as Array<[ErrorCode, string]>));
  errors.push(['internal_error', faultWhen]);
  return errors;
}

/** An error's status and its code on the surface, as errors.ts answers it. */
function answeredAs(error: ErrorCode | ApiError, surface: Surface): { status: number; code: string } {
  const response = errorResponse(typeof error === 'string' ? new ApiError(error, '') : error, 'request', surface);
  const body = JSON.parse(response.body) as { error: { code: string } };
  return { status: response.statusCode, code: body.error.code };
}

const ref = (kind: 'schemas' | 'headers' | 'responses', name: string) => ({ $ref: `#/components/${kind}/${name}` });

function errorResponses(errors: ReadonlyArray<readonly [ErrorCode | ApiError, string]>, surface: Surface): Record<string, unknown> {
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
        ...(retryAfter ? { 'Retry-After': codes.every((entry) => entry.retryAfter) ? ref('headers', 'RetryAfter') : optionalRetryAfter } : {}),
      },
      content: { 'application/json': { schema: { allOf: [ref('schemas', envelope), narrowed] } } },
    };
  }
  for (const [name, gateway] of Object.entries(gatewayResponses)) responses[String(gateway.status)] = ref('responses', name);
  return responses;
}

const optionalRetryAfter = { ...commonHeaders.RetryAfter, required: false };

function parameterObject(parameter: ParameterDoc): Record<string, unknown> {
  const schema = documentSchema(parameter.schema, namedSchemas);
  return {
    name: parameter.name,
    in: parameter.in,
    description: parameter.description,
    required: parameter.required,
    // A list in the query is one parameter, comma-separated, as parseInclude splits it.
    ...(schema.type === 'array' ? { style: 'form', explode: false } : {}),
    schema,
    example: parameter.example,
  };
}

function operationObject(route: RouteRow, doc: OperationDoc, surface: Surface): Record<string, unknown> {
  const auth = keyAuthOf(route);
  const pathNames = [...route.path.matchAll(/\{([^}]+)\}/g)].map((match) => match[1]);
  const described = (doc.parameters ?? []).filter((parameter) => parameter.in === 'path').map((parameter) => parameter.name);
  const missing = pathNames.filter((name) => !described.includes(name as string));
  if (missing.length > 0) throw new Error(`route ${route.id}: path parameter ${missing.join(', ')} has no description in shared/edge/openapi/operations.ts`);
  const errorList = errorsOf(route, doc)
    .map(([errorCode]) => answeredAs(errorCode, surface))
    .sort((a, b) => a.status - b.status)
    .map(({ status, code: answered }) => `${status} ${code(answered)}`);
  const { success } = doc;
  return {
    operationId: route.id,
    summary: doc.summary,
    description: `${doc.description}\n\n**Key:** ${keyWords(auth)}\n\n**Errors:** ${errorList.join(', ')}.`,
    tags: [doc.tag],
    security: securityOf(auth),
    ...(doc.parameters ? { parameters: doc.parameters.map(parameterObject) } : {}),
    ...(doc.requestBody
      ? {
          requestBody: {
            description: doc.requestBody.description,
            required: doc.requestBody.required,
            content: {
              'application/json': {
                schema: documentSchema(doc.requestBody.schema, namedSchemas),
                ...(doc.requestBody.example === undefined ? {} : { example: doc.requestBody.example }),
              },
            },
          },
        }
      : {}),
    responses: {
      [String(success.status)]: {
        description: success.description,
        headers: {
          'x-request-id': ref('headers', 'RequestId'),
          ...(success.replayable ? { 'Idempotent-Replayed': ref('headers', 'IdempotentReplayed') } : {}),
        },
        content: { 'application/json': { schema: documentSchema(success.schema, namedSchemas), example: success.example } },
      },
      ...errorResponses(errorsOf(route, doc), surface),
    },
  };
}

/** Every `#/components/<kind>/<name>` the value refers to. */
function refsIn(value: unknown, found = new Set<string>()): Set<string> {
  if (Array.isArray(value)) for (const item of value) refsIn(item, found);
  else if (typeof value === 'object' && value !== null) {
    for (const [key, inner] of Object.entries(value)) {
      if (key === '$ref' && typeof inner === 'string') found.add(inner);
      else refsIn(inner, found);
    }
  }
  return found;
}

/** The components the document uses, and those they use in turn. */
function usedComponents(paths: unknown, all: Record<string, Record<string, unknown>>): Record<string, Record<string, unknown>> {
  const used = new Set<string>();
  const pending = [...refsIn(paths)];
  while (pending.length > 0) {
    const pointer = pending.pop() as string;
    if (used.has(pointer)) continue;
    used.add(pointer);
    const [, , kind, name] = pointer.split('/');
    const target = all[kind as string]?.[name as string];
    if (target === undefined) throw new Error(`${pointer} names no component`);
    pending.push(...refsIn(target));
  }
  const kept: Record<string, Record<string, unknown>> = {};
  for (const [kind, entries] of Object.entries(all)) {
    const names = Object.keys(entries).filter((name) => used.has(`#/components/${kind}/${name}`));
    if (names.length > 0) kept[kind] = Object.fromEntries(names.map((name) => [name, entries[name]]));
  }
  return kept;
}

/**
 * What answers a method and path no route serves (functions/docs/route-not-found.ts): the overview's envelope under
 * `/v1/`, the v1 envelope anywhere else. OpenAPI has no place for it, so it is an extension at the document's root,
 * for readers and for the integration run's contract checks.
 */
function unknownRoute(surface: Surface): Record<string, unknown> {
  const notFound: Record<Surface, readonly [ApiError, string]> = {
    v1: [new ApiError('invalid_request', '', { status: 404 }), 'No route serves this method and path.'],
    overview: [new ApiError('not_found', ''), 'No route under `/v1/` serves this method and path.'],
  };
  return {
    description:
      surface === 'v1'
        ? 'The answers to any method and path that no operation serves, outside `/v1/`.'
        : 'The answers to any method and path under `/v1/` that no operation serves.',
    responses: errorResponses([notFound[surface], ['internal_error', faultWhen]], surface),
  };
}

function waitText(ms: number): string {
  if (ms < 60_000) return `${ms / 1000} s`;
  if (ms < 3_600_000) return `${ms / 60_000} min`;
  return `${ms / 3_600_000} h`;
}

const webhookHeaders = [
  {
    name: 'webhook-id',
    in: 'header',
    required: true,
    description: 'The event’s `id`: the same on every attempt and redelivery, so that a receiver can drop duplicates.',
    schema: { type: 'string', pattern: '^evt_' },
  },
  {
    name: 'webhook-timestamp',
    in: 'header',
    required: true,
    description: 'When this attempt was signed, in seconds since the epoch. Refuse messages more than 5 minutes off your clock.',
    schema: { type: 'string', pattern: '^[0-9]+$' },
  },
  {
    name: 'webhook-signature',
    in: 'header',
    required: true,
    description:
      'Space-separated `v1,<base64 HMAC-SHA256>` signatures of `<webhook-id>.<webhook-timestamp>.<body>` with the ' +
      'endpoint’s `whsec_` secret; for 24 hours after a rotation, one with each secret. Any Standard Webhooks library ' +
      'verifies it.',
    schema: { type: 'string', pattern: '^v1,' },
  },
];

/**
 * The events, as OpenAPI 3.1 `webhooks`: what the service POSTs to a registered endpoint, with its headers and the
 * rules of delivery. Both documents carry them: connectors receive them, the overview registers where they go.
 */
function webhooksObject(): Record<string, unknown> {
  const schedule = ['at once', ...RETRY_SCHEDULE_MS.map((wait) => `+${waitText(wait)}`)].join(', ');
  return Object.fromEntries(
    eventTypes.map((type) => [
      type,
      {
        post: {
          operationId: `${eventComponentName(type).charAt(0).toLowerCase()}${eventComponentName(type).slice(1)}`,
          summary: `The ${code(type)} event`,
          description:
            `${eventCatalogue[type].description}\n\nSent to every enabled endpoint of the workspace subscribed to ` +
            `${code(type)}, at least once. Attempts: ${schedule}; after the last the delivery is parked (redeliver it ` +
            'with the admin CLI) and the endpoint marked failing; one failing for 5 days is disabled.',
          tags: ['Webhook events'],
          // The service is the caller here: the receiver authenticates the message by its signature, not by a key.
          security: [],
          parameters: webhookHeaders,
          requestBody: {
            required: true,
            content: { 'application/json': { schema: ref('schemas', eventComponentName(type)) } },
          },
          responses: {
            '200': {
              description: `Any 2xx status within ${DELIVERY_TIMEOUT_MS / 1000} seconds counts as delivered; the body is not read beyond its first 1 KB, which the attempt log keeps. Anything else, a redirect included, is retried.`,
            },
          },
        },
      },
    ]),
  );
}

/**
 * The document of one surface: every route of the table on it, except those `undocumentedRoutes` leaves out. A route
 * with no metadata in `operations` is an error, so that a new route cannot go undocumented unnoticed.
 */
export function buildDocument(surface: Surface, table: readonly RouteRow[] = routes): Record<string, unknown> {
  const documented: Record<string, OperationDoc> = operations;
  const paths: Record<string, Record<string, unknown>> = {};
  const tags: string[] = [];
  for (const route of table) {
    if ((route.surface ?? 'v1') !== surface || route.id in undocumentedRoutes) continue;
    const doc = documented[route.id];
    if (!doc) {
      throw new Error(
        `route ${route.id} (${route.method} ${route.path}) has no operation in shared/edge/openapi/operations.ts: describe it there, ` +
          'or list it in undocumentedRoutes with the reason',
      );
    }
    paths[route.path] = { ...paths[route.path], [route.method.toLowerCase()]: operationObject(route, doc, surface) };
    if (!tags.includes(doc.tag)) tags.push(doc.tag);
  }
  const { title, description } = surfaceDocs[surface];
  const unknown = unknownRoute(surface);
  const webhooks = webhooksObject();
  tags.push('Webhook events');
  const components = usedComponents([paths, unknown, webhooks], {
    schemas: componentSchemas(namedSchemas),
    responses: Object.fromEntries(
      Object.entries(gatewayResponses).map(([name, gateway]) => [
        name,
        {
          description: gateway.description,
          content: { 'application/json': { schema: ref('schemas', 'GatewayError'), example: gateway.example } },
        },
      ]),
    ),
    headers: commonHeaders,
  });
  // Security schemes are named by requirements, not by $refs.
  const schemes = new Set(Object.values(paths).flatMap((item) => Object.values(item).flatMap((op) => (op as { security: object[] }).security.flatMap(Object.keys))));
  const usedSchemes = Object.fromEntries(Object.entries(securitySchemes).filter(([name]) => schemes.has(name)));
  return {
    openapi: OPENAPI_VERSION,
    info: { title, version: '1.0.0', description },
    servers: [{ url: '/', description: 'The host the API is served on: API Gateway’s URL (the ApiUrl output), or the local gateway.' }],
    tags: tags.map((name) => {
      const description = tagDescriptions[name];
      if (!description) throw new Error(`the tag ${name} has no description`);
      return { name, description };
    }),
    paths,
    webhooks,
    'x-unknown-route': unknown,
    components: { ...components, ...(Object.keys(usedSchemes).length > 0 ? { securitySchemes: usedSchemes } : {}) },
  };
}

/** As the files hold it: 2-space JSON and a final newline. */
export function documentText(document: unknown): string {
  return `${JSON.stringify(document, null, 2)}\n`;
}
