// The components the documents share (named schemas, common headers, API Gateway's own answers, the key schemes), and which of them a document keeps.
import { AdherenceFiguresSchema, AdherenceGroupSchema } from '#shared/adherence/schema.ts';
import type * as v from 'valibot';
import { ApprovalViewSchema, ApproveRequestSchema } from '#shared/approvals/schema.ts';
import { BatchStatusViewSchema, CommittedBatchSchema, OpenedBatchSchema, StagedRecordsSchema } from '#shared/batches/views.ts';
import { GatewayErrorSchema, OverviewErrorEnvelopeSchema, V1ErrorEnvelopeSchema } from '#platform/errors.ts';
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
import { ImpactViewSchema, OverviewPriceSchema } from '#shared/recommendations/schema.ts';
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
import { eventSchema, type EventType, eventTypes } from '#shared/webhooks/events.ts';
import { componentSchemas } from './convert.ts';
import { StageRequestSchema } from './inputs.ts';
import { OpenApiDocumentSchema } from './operations.ts';

/** `batch.drained` → `BatchDrainedEvent`: the component that describes the event's payload. */
export function eventComponentName(type: EventType): string {
  return `${type
    .split(/[._]/)
    .map((part) => `${part.charAt(0).toUpperCase()}${part.slice(1)}`)
    .join('')}Event`;
}

/** The schemas the documents name in `components.schemas`; each document keeps those it uses. */
export const namedSchemas: Record<string, v.GenericSchema> = {
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
  PriceImpact: ImpactViewSchema,
  ApproveRequest: ApproveRequestSchema,
  Approval: ApprovalViewSchema,
  OpenApiDocument: OpenApiDocumentSchema,
  Error: V1ErrorEnvelopeSchema,
  OverviewError: OverviewErrorEnvelopeSchema,
  GatewayError: GatewayErrorSchema,
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

export const commonHeaders = {
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

/**
 * API Gateway's own answers, outside both envelopes; every route can meet them. They carry the request's id as
 * `apigw-requestid`, and locally as `x-request-id` too: an HTTP API adds no header to an answer it makes itself.
 */
export const gatewayResponses = {
  PayloadTooLarge: {
    status: 413,
    description:
      'API Gateway refuses any request whose body is over 10 MB, before it reaches the service. The request’s id comes as `apigw-requestid` (and, from the local gateway, `x-request-id`).',
    example: { message: 'Request Entity Too Large' },
  },
  Timeout: {
    status: 503,
    description:
      'API Gateway answers so when the function did not answer within its timeout. Retry with backoff. The request’s id comes as `apigw-requestid` (and, from the local gateway, `x-request-id`).',
    example: { message: 'Service Unavailable' },
  },
} as const;

export const ref = (kind: 'schemas' | 'headers' | 'responses', name: string) => ({ $ref: `#/components/${kind}/${name}` });

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

/** The id API Gateway gives its own answers; not required, as the local gateway's names it `x-request-id` too. */
const gatewayRequestId = {
  description: 'The request’s id, as API Gateway names it on its own answers.',
  required: false,
  schema: { type: 'string', minLength: 1 },
};

/** The components a document's paths, unknown route and webhooks use, and those they use in turn. */
export function documentComponents(used: unknown): Record<string, Record<string, unknown>> {
  return usedComponents(used, {
    schemas: componentSchemas(namedSchemas),
    responses: Object.fromEntries(
      Object.entries(gatewayResponses).map(([name, gateway]) => [
        name,
        {
          description: gateway.description,
          headers: { 'apigw-requestid': gatewayRequestId, 'x-request-id': { ...gatewayRequestId, description: 'The same id, from the local gateway.' } },
          content: { 'application/json': { schema: ref('schemas', 'GatewayError'), example: gateway.example } },
        },
      ]),
    ),
    headers: commonHeaders,
  });
}

/** The key schemes the paths' operations require; security schemes are named by requirements, not by $refs. */
export function usedSecuritySchemes(paths: Record<string, Record<string, unknown>>): Record<string, unknown> {
  const schemes = new Set(
    Object.values(paths).flatMap((item) =>
      Object.values(item).flatMap((op) => (op as { security: object[] }).security.flatMap(Object.keys)),
    ),
  );
  return Object.fromEntries(Object.entries(securitySchemes).filter(([name]) => schemes.has(name)));
}
