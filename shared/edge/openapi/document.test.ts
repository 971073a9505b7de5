// Unit tests of the contract documents: committed as generated, every route in its document, the limits as keywords, and examples and answers that validate.
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { approvalView } from '#shared/approvals/approve.ts';
import type { Approval } from '#shared/approvals/schema.ts';
import { statusView } from '#shared/batches/rules.ts';
import type { Batch } from '#shared/batches/schema.ts';
import { ApiError, errorResponse, type ErrorCode, errorStatuses, overviewOnlyErrorCodes, type Surface } from '#platform/errors.ts';
import { MAX_LINES_PER_CALL } from '#shared/prices/request.ts';
import { MAX_ATTRIBUTE_DEPTH } from '#shared/records/attributes.ts';
import { MAX_IDENTIFIER_LENGTH } from '#shared/records/identifier.ts';
import { MAX_LINES_PER_DOCUMENT, SAFE_INT_MAX } from '#shared/records/schema.ts';
import { MAX_RECORDS_PER_CALL } from '#shared/records/stage-request.ts';
import { type IncludePart, overviewPrice } from '#shared/recommendations/overview.ts';
import type { PricedRecommendation } from '#shared/recommendations/schema.ts';
import { routes } from '#edge/routes.ts';
import { taskView } from '#shared/writebacks/rules.ts';
import { CLAIM_LIMIT, LEASE_SECONDS, MAX_ACK_RESULTS, MAX_ERROR_LENGTH, type Task } from '#shared/writebacks/schema.ts';
import { type EventData, type EventType, eventTypes, newEvent } from '#shared/webhooks/events.ts';
import { buildDocument, documentText } from './document.ts';
import { type RouteRow } from './keys.ts';
import { surfaceDocs } from './surfaces.ts';
import { type Conforms, operations, undocumentedRoutes } from './operations.ts';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- documents are read by pointer

const surfaces = Object.keys(surfaceDocs) as Surface[];
const documents = Object.fromEntries(surfaces.map((surface) => [surface, buildDocument(surface) as Json])) as Record<Surface, Json>;
const v1 = documents.v1;
const schemas = v1.components.schemas as Json;

/** Compiles schemas by pointer into the documents, as a response validator would: OpenAPI's own keywords are annotations. */
function validatorOf(surface: Surface) {
  // Strict, but for `required` in a subschema without `properties`: productSku-or-productExternalId is said so.
  const ajv = new Ajv2020({ strict: true, strictRequired: false, allErrors: true });
  addFormats.default(ajv);
  // The document's own fields, and OpenAPI's annotations: keywords of no consequence, so that strict mode judges the rest.
  ajv.addVocabulary(['openapi', 'info', 'servers', 'tags', 'paths', 'webhooks', 'x-unknown-route', 'components', 'example', 'discriminator']);
  ajv.addSchema(documents[surface], surface);
  return (pointer: string, value: unknown): string[] => {
    const validate = ajv.getSchema(`${surface}#${pointer}`) ?? ajv.compile({ $ref: `${surface}#${pointer}` });
    return validate(value) ? [] : (validate.errors ?? []).map((error) => `${error.instancePath} ${error.message}`);
  };
}
const validators = { v1: validatorOf('v1'), overview: validatorOf('overview') };

const escape = (segment: string) => segment.replace(/~/g, '~0').replace(/\//g, '~1');

function documentedRoutes(surface: Surface) {
  return routes.filter((route) => route.surface === surface && !(route.id in undocumentedRoutes));
}

describe('the committed documents', () => {
  it.each(surfaces)('are the %s document the code generates', (surface) => {
    const { file } = surfaceDocs[surface];
    const committed = readFileSync(new URL(`../../../${file}`, import.meta.url), 'utf8');
    expect(committed === documentText(documents[surface]), `${file} differs from the generated one: run \`npm run openapi\``).toBe(true);
  });
});

describe('the operations', () => {
  it.each(surfaces)('of the %s document are the routes of its surface, each with its success status', (surface) => {
    const expected = documentedRoutes(surface).map((route) => `${route.method} ${route.path} ${operations[route.id as keyof typeof operations].success.status}`);
    const paths = documents[surface].paths as Json;
    const found = Object.entries(paths).flatMap(([path, item]) =>
      Object.entries(item as Json).map(([method, operation]) => {
        const success = Object.keys((operation as Json).responses).filter((status) => status.startsWith('2'));
        return `${method.toUpperCase()} ${path} ${success.join(',')}`;
      }),
    );
    expect(found.sort()).toEqual(expected.sort());
  });

  it('leave the HTML reference pages out of both documents', () => {
    const all = surfaces.flatMap((surface) => Object.keys(documents[surface].paths as Json));
    expect(all.filter((path) => path.startsWith('/docs'))).toEqual([]);
  });

  it('describe every error status each can answer, in its surface’s envelope, with x-request-id', () => {
    const price = v1.paths['/api/v1/prices'].post.responses as Json;
    expect(Object.keys(price)).toEqual(['200', '401', '402', '403', '409', '413', '415', '422', '429', '500', '503']);
    expect(price['415'].content['application/json'].schema.allOf[1].properties.error.properties.code).toEqual({ const: 'invalid_request' });
    expect(price['409'].headers['Retry-After']).toEqual({ $ref: '#/components/headers/RetryAfter' });
    expect(price['429'].headers['Retry-After']).toEqual({ $ref: '#/components/headers/RetryAfter' });
    expect(price['422'].headers['Retry-After']).toBeUndefined();
    expect(price['200'].headers['Idempotent-Replayed']).toEqual({ $ref: '#/components/headers/IdempotentReplayed' });
    expect(price['422'].content['application/json'].schema.allOf[1].properties.error.properties.code).toEqual({
      enum: ['invalid_json', 'invalid_request', 'idempotency_key_reused'],
    });
    const approve = documents.overview.paths['/v1/prices/approve'].post.responses as Json;
    expect(Object.keys(approve)).toEqual(['200', '400', '401', '402', '403', '404', '409', '413', '415', '422', '429', '500', '503']);
    // A GET reads no body, so its label is never refused.
    expect(documents.overview.paths['/v1/prices/{sku}'].get.responses['415']).toBeUndefined();
    expect(approve['500'].content['application/json'].schema.allOf[0]).toEqual({ $ref: '#/components/schemas/OverviewError' });
    for (const surface of surfaces) {
      for (const item of Object.values(documents[surface].paths as Json)) {
        for (const operation of Object.values(item as Json)) {
          for (const [status, response] of Object.entries((operation as Json).responses as Json)) {
            // API Gateway's own answers carry its request id, not the service's.
            if (status === '413' || status === '503') expect(response).toHaveProperty('$ref');
            else expect(response.headers['x-request-id']).toEqual({ $ref: '#/components/headers/RequestId' });
          }
        }
      }
    }
  });

  it('ask for the Idempotency-Key where the price route does, and for a key of the route’s family and scopes', () => {
    const price = v1.paths['/api/v1/prices'].post;
    expect(price.parameters[0]).toMatchObject({ name: 'Idempotency-Key', in: 'header', required: true });
    expect(price.parameters[0].schema).toMatchObject({ minLength: 1, maxLength: MAX_IDENTIFIER_LENGTH, pattern: '^[\\x20-\\x7e]+$' });
    expect(price.security).toEqual([{ serviceKey: ['erp'] }, { serviceKey: ['storefront'] }]);
    expect(v1.paths['/api/v1/ingest/batches'].post.security).toEqual([{ serviceKey: ['connector'] }]);
    expect(documents.overview.paths['/v1/prices/{sku}'].get.security).toEqual([{ overviewKey: [] }]);
    expect(v1.components.securitySchemes.serviceKey).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(documents.overview.components.securitySchemes).toEqual({ overviewKey: expect.objectContaining({ scheme: 'bearer' }) });
  });

  it('ask for an optional Idempotency-Key on the creating routes whose row takes one, with the replay header, the 409 and the 422', () => {
    const keyed = routes.filter((route) => 'idempotency' in route).map((route) => route.id);
    expect(keyed.sort()).toEqual(['approvePrice', 'createWebhookEndpoint']);
    for (const [path, status] of [
      ['/v1/prices/approve', '200'],
      ['/v1/webhook-endpoints', '201'],
    ] as const) {
      const operation = documents.overview.paths[path].post;
      expect(operation.parameters[0]).toMatchObject({ name: 'Idempotency-Key', in: 'header', required: false });
      expect(operation.parameters[0].schema).toMatchObject({ minLength: 1, maxLength: MAX_IDENTIFIER_LENGTH });
      expect(operation.responses[status].headers['Idempotent-Replayed']).toEqual({ $ref: '#/components/headers/IdempotentReplayed' });
      expect(operation.responses['409'].headers['Retry-After']).toEqual({ $ref: '#/components/headers/RetryAfter' });
      expect(JSON.stringify(operation.responses['409'].content)).toContain('idempotency_key_in_flight');
      expect(JSON.stringify(operation.responses['422'].content)).toContain('idempotency_key_reused');
    }
    // Routes without the row's flag take no key.
    expect(documents.overview.paths['/v1/webhook-endpoints/{endpointId}'].patch.responses['409']).toBeUndefined();
  });

  it('describe, beside them, what answers a method and path no route serves', () => {
    const codeOf = (surface: Surface) =>
      documents[surface]['x-unknown-route'].responses['404'].content['application/json'].schema.allOf[1].properties.error.properties.code;
    expect(codeOf('v1')).toEqual({ const: 'invalid_request' });
    expect(codeOf('overview')).toEqual({ const: 'not_found' });
    expect(Object.keys(documents.overview['x-unknown-route'].responses)).toEqual(['404', '405', '413', '500', '503']);
    for (const surface of surfaces) {
      const wrongMethod = documents[surface]['x-unknown-route'].responses['405'];
      expect(wrongMethod.headers.Allow).toMatchObject({ required: true });
      expect(wrongMethod.content['application/json'].schema.allOf[1].properties.error.properties.code).toEqual({
        const: surface === 'v1' ? 'invalid_request' : 'bad_request',
      });
    }
  });

  it('document the open routes with no security', () => {
    const open = routes.filter((route) => route.auth === 'none' && !(route.id in undocumentedRoutes));
    for (const route of open) {
      const operation = documents[route.surface].paths[route.path][route.method.toLowerCase()];
      expect(operation.security).toEqual([]);
      expect(Object.keys(operation.responses)).toEqual(['200', '413', '500', '503']);
    }
  });
});

describe('the builder', () => {
  const newRoute: RouteRow = { id: 'listThings', method: 'GET', path: '/api/v1/things', surface: 'v1', auth: 'none' };

  it('refuses a route of the surface that has no operation metadata', () => {
    expect(() => buildDocument('v1', [...routes, newRoute])).toThrow(/route listThings \(GET \/api\/v1\/things\) has no operation/);
  });

  it('leaves a route of the other surface to its own document', () => {
    expect(() => buildDocument('overview', [...routes, newRoute])).not.toThrow();
  });

  it('refuses a path parameter the metadata does not describe', () => {
    const renamed = { ...routes.find((route) => route.id === 'batchStatus'), path: '/api/v1/ingest/batches/{id}' } as RouteRow;
    expect(() => buildDocument('v1', [renamed])).toThrow(/path parameter id has no description/);
  });
});

describe('the schemas', () => {
  it('make a price result line one of two variants told apart by `ok`', () => {
    expect(schemas.PriceResultLine).toEqual({
      type: 'object',
      oneOf: [{ $ref: '#/components/schemas/PricedLine' }, { $ref: '#/components/schemas/RefusedLine' }],
    });
    expect(schemas.PricedLine.properties.ok).toEqual({ const: true });
    expect(schemas.RefusedLine.properties.ok).toEqual({ const: false });
    expect(schemas.RefusedLine.properties.error.properties.code.enum).toEqual([
      'unknown_product',
      'unknown_customer',
      'no_cost_basis',
      'fx_rate_unavailable',
      'fx_rate_stale',
    ]);
  });

  it('hold every limit of the contract as a keyword', () => {
    expect(schemas.PriceRequest.properties.lines).toMatchObject({ minItems: 1, maxItems: MAX_LINES_PER_CALL });
    expect(MAX_LINES_PER_CALL).toBe(100);
    expect(schemas.PriceResponse.properties.lines).toMatchObject({ minItems: 1, maxItems: MAX_LINES_PER_CALL });
    expect(schemas.PriceRequestLine.properties.quantity).toEqual({ type: 'number', exclusiveMinimum: 0, maximum: 1_000_000_000 });
    expect(schemas.PriceRequestLine.properties.orderValueCents).toEqual({ type: 'number', minimum: 0, maximum: SAFE_INT_MAX });
    expect(schemas.PriceRequestLine.if).toEqual({ not: { required: ['productSku'] } });
    expect(schemas.PriceRequestLine.then).toEqual({ required: ['productExternalId'] });
    for (const option of schemas.StageRequest.oneOf) {
      expect(option.properties.records).toMatchObject({ minItems: 1, maxItems: MAX_RECORDS_PER_CALL });
    }
    expect(MAX_RECORDS_PER_CALL).toBe(1000);
    for (const document of ['QuoteRecord', 'OrderRecord']) {
      expect(schemas[document].properties.lines).toMatchObject({ minItems: 1, maxItems: MAX_LINES_PER_DOCUMENT });
    }
    expect(schemas.AckRequest.properties.results).toMatchObject({ minItems: 1, maxItems: MAX_ACK_RESULTS });
    expect(MAX_ACK_RESULTS).toBe(500);
    expect(schemas.AckResult.properties.error).toEqual({ type: 'string', maxLength: MAX_ERROR_LENGTH });
    // A default sits beside its schema in an allOf, where generators do not read it as "always present".
    expect(schemas.ClaimRequest.properties.limit).toEqual({
      allOf: [{ type: 'integer', minimum: CLAIM_LIMIT.min, maximum: CLAIM_LIMIT.max }, { default: 10 }],
    });
    for (const request of ['ClaimRequest', 'ExtendRequest']) {
      expect(schemas[request].properties.leaseSeconds).toEqual({
        allOf: [{ type: 'integer', minimum: LEASE_SECONDS.min, maximum: LEASE_SECONDS.max }, { default: 300 }],
      });
      expect(schemas[request].required ?? []).toEqual([]);
    }
    expect(schemas.ClaimResponse.properties.tasks).toMatchObject({ maxItems: CLAIM_LIMIT.max });
    expect(schemas.Identifier).toEqual({ type: 'string', minLength: 1, maxLength: MAX_IDENTIFIER_LENGTH });
    expect(schemas.ProductRecord.properties.category).toEqual({ type: 'string', maxLength: MAX_IDENTIFIER_LENGTH });
    expect(schemas.ProductRecord.properties.costCents).toEqual({ type: 'integer', minimum: 0, maximum: SAFE_INT_MAX });
    expect(schemas.ProductRecord.properties.stockOnHand).toEqual({ type: 'integer', minimum: -SAFE_INT_MAX, maximum: SAFE_INT_MAX });
    expect(schemas.QuoteLine.properties.quantity).toEqual({ type: 'number', minimum: 1e-130, exclusiveMaximum: 1e126 });
    expect(schemas.Attributes.description).toContain(`${MAX_ATTRIBUTE_DEPTH} levels`);
    expect(schemas.Attributes.additionalProperties).toBe(true);
    expect(schemas.OpenApiDocument.properties.paths.additionalProperties).toBe(true);
  });

  it('take the contract’s date-times, and only those, by pattern', () => {
    const validate = validators.v1;
    for (const good of ['2024-02-29T13:45:00Z', '2026-10-04T08:00+02:00', '2026-10-01T09:30:00.123456-05:30']) {
      expect(validate('/components/schemas/DateTime', good), good).toEqual([]);
    }
    for (const bad of ['2024-02-29 13:45:00Z', '2024-13-01T00:00Z', '2024-02-29T24:00Z', '2024-02-29T13:45', '2024-02-29T13:45:00+0200']) {
      expect(validate('/components/schemas/DateTime', bad), bad).not.toEqual([]);
    }
  });
});

describe('the examples', () => {
  it.each(surfaces)('of the %s document validate against their schemas', (surface) => {
    const validate = validators[surface];
    const problems: string[] = [];
    const check = (where: string, pointer: string, example: unknown) => {
      for (const problem of validate(pointer, example)) problems.push(`${where}: ${problem}`);
    };
    for (const [path, item] of Object.entries(documents[surface].paths as Json)) {
      for (const [method, operation] of Object.entries(item as Json)) {
        const at = `/paths/${escape(path)}/${method}`;
        (operation.parameters ?? []).forEach((parameter: Json, index: number) => {
          if (parameter.schema.type !== 'array') check(`${method} ${path} ${parameter.name}`, `${at}/parameters/${index}/schema`, parameter.example);
        });
        const request = operation.requestBody?.content['application/json'];
        if (request?.example !== undefined) check(`${method} ${path} request`, `${at}/requestBody/content/application~1json/schema`, request.example);
        for (const [status, response] of Object.entries(operation.responses as Json)) {
          const media = response.content?.['application/json'];
          if (media?.example !== undefined) {
            check(`${method} ${path} ${status}`, `${at}/responses/${status}/content/application~1json/schema`, media.example);
          }
        }
      }
    }
    for (const [name, response] of Object.entries(documents[surface].components.responses as Json)) {
      check(name, `/components/responses/${name}/content/application~1json/schema`, response.content['application/json'].example);
    }
    expect(problems).toEqual([]);
  });
});

describe('what the domain answers', () => {
  const recommendation: PricedRecommendation = {
    status: 'priced',
    sku: 'BOLT-10',
    currency: 'USD',
    currentPriceCents: 199,
    pricingDecisionId: 'pd_3vXq8NcT2LmB7dKp0RwZ5y',
    updatedAt: '2026-10-05T09:00:06.002Z',
    recommendedPriceCents: 168,
    floorCents: 120,
    rationale: 'Priced at the segment target; no adjustments. (segment target 28.57% · final 28.57%)',
    reasonSummary: 'segment target 28.57% · final 28.57%',
    drivers: [{ param: 'stock', label: 'Out of stock: 5.00 points up', points: 5, direction: 'up' }],
    confidence: 'low',
  };

  // overviewPrice and approvalView are typed as records, so their answers are held to the document here.
  it.each([[[]], [['rationale']], [['drivers']], [['rationale', 'drivers']]] as IncludePart[][][])(
    'a recommendation with include=%j is an OverviewPrice',
    (include) => {
      expect(validators.overview('/components/schemas/OverviewPrice', overviewPrice(recommendation, new Set(include)))).toEqual([]);
      const current0 = overviewPrice({ ...recommendation, currentPriceCents: 0, ceilingCents: 250 }, new Set(include));
      expect(validators.overview('/components/schemas/OverviewPrice', current0)).toEqual([]);
    },
  );

  it.each([true, false])('an approval with livemode %s is an Approval', (livemode) => {
    const approval: Approval = {
      approvalId: 'apv_1',
      workspaceId: 'ws_1',
      sku: 'BOLT-10',
      priceCents: 189,
      currency: 'USD',
      approvedAt: '2026-10-05T09:12:44.318Z',
      livemode,
      keyId: 'key_1',
      status: 'published',
      recommendedPriceCents: 168,
      pricingDecisionId: 'pd_3vXq8NcT2LmB7dKp0RwZ5y',
      publishedTo: livemode ? [{ connectorId: 'con_ygFmMntTST85In8bmiY37I', writebackId: 'wb_7Qm2LxVb9TgK4rNc1ZsP8d' }] : [],
    };
    expect(validators.overview('/components/schemas/Approval', approvalView(approval))).toEqual([]);
  });

  it('a batch at each stage is a BatchStatus, and a leased task a WritebackTask', () => {
    const batch: Batch = {
      batchId: '101ba56e-5a0c-4d4f-9f43-3b1a8c2e7d90',
      workspaceId: 'ws_1',
      connectorId: 'con_1',
      status: 'failed',
      entities: ['product', 'quote'],
      recordCount: 3,
      lineCount: 2,
      skippedOverCap: 1,
      createdAt: '2026-10-05T09:00:00.000Z',
      chunkSeq: 2,
      committedAt: '2026-10-05T09:00:04.120Z',
      drainedCount: 2,
      error: 'the drain gave up after 3 attempts',
    };
    expect(validators.v1('/components/schemas/BatchStatus', statusView(batch))).toEqual([]);
    expect(validators.v1('/components/schemas/BatchStatus', statusView({ ...batch, status: 'open', entities: [] }))).toEqual([]);
    const task: Task = {
      taskId: 'wb_7Qm2LxVb9TgK4rNc1ZsP8d',
      workspaceId: 'ws_1',
      connectorId: 'con_1',
      channel: 'SAP',
      approvalId: 'apv_1',
      productSku: 'BOLT-10',
      priceCents: 189,
      currency: 'USD',
      reasonSummary: 'Approved at 1.89',
      pricingDecisionId: 'pd_3vXq8NcT2LmB7dKp0RwZ5y',
      status: 'leased',
      createdAt: '2026-10-05T09:12:44.318Z',
      leaseUntilMs: Date.parse('2026-10-05T09:31:00.000Z'),
    };
    expect(validators.v1('/components/schemas/WritebackTask', taskView(task))).toEqual([]);
  });

  const errorOf = (code: ErrorCode) => new ApiError(code, 'Something is wrong.', code === 'invalid_request' ? { param: 'lines[0].quantity' } : {});

  it('an error of /api/v1 is in its envelope', () => {
    for (const code of (Object.keys(errorStatuses) as ErrorCode[]).filter((code) => !overviewOnlyErrorCodes.includes(code))) {
      expect(validators.v1('/components/schemas/Error', JSON.parse(errorResponse(errorOf(code), 'req-1', 'v1').body)), code).toEqual([]);
    }
  });

  it('an error of the overview is in its envelope', () => {
    const answered: readonly ErrorCode[] = [
      'unauthorized',
      'subscription_inactive',
      'feature_not_enabled',
      'rate_limited',
      'invalid_json',
      'invalid_request',
      'not_found',
      'guardrail_violation',
      'confirmation_required',
      'internal_error',
    ];
    for (const code of answered) {
      const body = JSON.parse(errorResponse(errorOf(code), 'req-1', 'overview').body);
      expect(validators.overview('/components/schemas/OverviewError', body), code).toEqual([]);
    }
  });
});

describe('the webhooks', () => {
  const samples: { [T in EventType]: EventData<T> } = {
    'batch.committed': { batchId: randomUUID(), connectorId: 'con_1', jobId: 'job_1', recordCount: 3, committedAt: new Date().toISOString() },
    'batch.drained': { batchId: randomUUID(), connectorId: 'con_1', recordCount: 3, drainedCount: 3, warnedProducts: 1, drainedAt: new Date().toISOString() },
    'batch.failed': { batchId: randomUUID(), connectorId: 'con_1', error: 'expired', failedAt: new Date().toISOString() },
    'recommendations.updated': {
      batchId: randomUUID(),
      connectorId: 'con_1',
      skuCount: 2,
      skus: ['A', 'B'],
      truncated: false,
      updatedAt: new Date().toISOString(),
    },
    'price.approved': {
      approvalId: 'apv_1',
      sku: 'A',
      priceCents: 1500,
      currency: 'USD',
      recommendedPriceCents: 1450,
      approvedAt: new Date().toISOString(),
      livemode: true,
      publishedTo: [{ connectorId: 'con_1', writebackId: 'wb_1' }],
      approvedBy: { type: 'api_key', id: 'key_1' },
      confirmation: { thresholdPct: 25, changePct: 900, currentPriceCents: 150 },
      secondApprover: { approvedBy: { type: 'console_user', id: 'usr_1', email: 'ann@example.com' }, approvedAt: new Date().toISOString() },
    },
    'price.second_approval': {
      approvalId: 'apv_1',
      sku: 'A',
      state: 'waiting',
      priceCents: 1500,
      currency: 'USD',
      currentPriceCents: 150,
      changePct: 900,
      approvedBy: { type: 'api_key', id: 'key_1' },
      approvedAt: new Date().toISOString(),
      waitingUntil: new Date().toISOString(),
      secondApprover: null,
    },
    'writeback.pending': {
      writebackId: 'wb_1',
      connectorId: 'con_1',
      approvalId: 'apv_1',
      productSku: 'A',
      priceCents: 1500,
      currency: 'USD',
      createdAt: new Date().toISOString(),
    },
    'writeback.applied': {
      writebackId: 'wb_1',
      connectorId: 'con_1',
      approvalId: 'apv_1',
      productSku: 'A',
      priceCents: 1500,
      currency: 'USD',
      appliedAt: new Date().toISOString(),
    },
    'writeback.failed': {
      writebackId: 'wb_1',
      connectorId: 'con_1',
      approvalId: 'apv_1',
      productSku: 'A',
      error: 'refused',
      failedAt: new Date().toISOString(),
    },
    'webhook.test': { endpointId: 'we_1', requestedAt: new Date().toISOString() },
  };

  it.each(surfaces)('describe every event type of the catalogue in the %s document, each payload valid against its schema', (surface) => {
    const webhooks = documents[surface].webhooks as Json;
    expect(Object.keys(webhooks)).toEqual(eventTypes);
    for (const type of eventTypes) {
      const operation = webhooks[type].post;
      expect(operation.parameters.map((parameter: Json) => parameter.name)).toEqual(['webhook-id', 'webhook-timestamp', 'webhook-signature']);
      const pointer = String(operation.requestBody.content['application/json'].schema.$ref).slice(1);
      const event = newEvent(type, 'ws_1', samples[type] as never, new Date());
      expect(validators[surface](pointer, event), type).toEqual([]);
      expect(validators[surface](pointer, { ...event, type: 'batch.unknown' }), type).not.toEqual([]);
    }
  });
});

// The answers typed by hand rather than by a schema are held to the document by Conforms; it refuses a field the
// document lacks, at any depth, and a value it does not allow.
type _Fits = Conforms<{ a: string; b?: { c: number } }, { a: string; b?: { c: number; d?: string } }>;
// @ts-expect-error a field the document lacks
type _ExtraField = Conforms<{ a: string; z: number }, { a: string }>;
// @ts-expect-error a field the document lacks, deeper down
type _ExtraDeep = Conforms<{ a: Array<{ b: string; z: number }> }, { a: Array<{ b: string }> }>;
// @ts-expect-error a value the document does not allow
type _WrongValue = Conforms<{ a: number }, { a: string }>;
