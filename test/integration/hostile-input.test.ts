// Hostile input on every route of both surfaces and on paths no route serves, sent through the local gateway with a key
// that passes authentication (and with garbage in place of one): every request is answered with a 4xx in its surface's
// envelope that gives nothing away, and none writes anything.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedPendingTasks } from '#lib/local/seed.ts';
import { type KeyedRouteId, routeKey, routes } from '#edge/routes.ts';
import {
  endpointOf,
  FALLBACK,
  type HostileRequest,
  type Outcome,
  type Probe,
  MIN_TRIED_PER_ROUTE,
  tallyTable,
  triedInOwnFile,
  triedPerEndpoint,
  tryAll,
} from './hostile-input-support.ts';
import {
  anything,
  arbitraryText,
  encodeSegment,
  type FieldKind,
  foreignContentTypes,
  hostileSegments,
  hugeArrayBody,
  jsonText,
  long,
  malformedBodies,
  nestedArrays,
  nestedObjects,
  overTenMegabytes,
  own,
  prototypeBodies,
  raw,
  SEED,
  samples,
  someWrong,
  throughJson,
  unusualStrings,
  withValue,
  wrongValues,
} from './hostile-input-values.ts';
import { customerRecord, orderLine, orderRecord, productRecord, quoteLine, quoteRecord } from './ingest-support.ts';
import { call, newWorkspace, type TestWorkspace } from './support.ts';

/** Groups of a few hundred requests, some of them megabytes: generous, since the machine may be busy. */
const GROUP_TIMEOUT = 240_000;

const PRICES = endpointOf('priceLines');
const OPEN = endpointOf('openBatch');
const STAGE = endpointOf('stageRecords');
const STATUS = endpointOf('batchStatus');
const COMMIT = endpointOf('commitBatch');
const CLAIM = endpointOf('claimWritebacks');
const ACK = endpointOf('ackWritebacks');
const EXTEND = endpointOf('extendWriteback');
const GET_PRICE = endpointOf('getPrice');
const APPROVE = endpointOf('approvePrice');
const LIST_APPROVALS = endpointOf('listPriceApprovals');
const USAGE = endpointOf('getUsage');
const ADHERENCE = endpointOf('getAdherence');
const REFERENCE_FILE = endpointOf('apiReferenceAsset');
const CREATE_ENDPOINT = endpointOf('createWebhookEndpoint');
const LIST_ENDPOINTS = endpointOf('listWebhookEndpoints');
const GET_ENDPOINT = endpointOf('getWebhookEndpoint');
const UPDATE_ENDPOINT = endpointOf('updateWebhookEndpoint');
const DELETE_ENDPOINT = endpointOf('deleteWebhookEndpoint');
const ROTATE_SECRET = endpointOf('rotateWebhookSecret');
const LIST_DELIVERIES = endpointOf('listWebhookDeliveries');
const REDELIVER = endpointOf('redeliverWebhookEvent');

const SKU = 'SEED-0';
/** Shaped like an endpoint id, and no endpoint's. */
const UNKNOWN_ENDPOINT = 'we_0000000000000000000000';
/** Shaped like an event id, and no event's. */
const UNKNOWN_EVENT = 'evt_0000000000000000000000';

afterAll(() => {
  console.log(`\nHostile requests tried per endpoint (fast-check seed ${SEED}):\n${tallyTable()}\n`);
});

function expectClean(result: { problems: string[]; writes: string[] }): void {
  expect(result).toEqual({ problems: [], writes: [] });
}

type Extra = Omit<Partial<HostileRequest>, 'endpoint' | 'label' | 'method' | 'target'>;

function hostile(endpoint: string, method: string, target: string, label: string, extra: Extra = {}): HostileRequest {
  return { endpoint, label, method, target, ...extra };
}

const bodyOf = (value: unknown): string | Buffer => (typeof value === 'string' || Buffer.isBuffer(value) ? value : jsonText(value));

/** A refusal the gateway may give itself, outside the envelope: a body over 10 MB, headers over 16 KB, a broken request. */
const tooLarge: Outcome = { refused: true, outside: [413] };
const headersTooLarge: Outcome = { refused: true, outside: [431] };
const badRequestLine: Outcome = { refused: true, outside: [400] };

/** A route that reads a JSON body, and what its requests need besides the hostile part. */
interface BodyRoute {
  readonly endpoint: string;
  readonly target: string;
  /** A body the route refuses, carried by requests whose hostile part is elsewhere (the query, a header). */
  readonly wrongBody: unknown;
  /** A body the route takes: hostile parts are put into it, so that a request let through would write. */
  readonly validBody?: unknown;
  readonly requiresBody: boolean;
  /** Its top-level fields: an arbitrary object with only these could be valid, and is not sent as hostile. */
  readonly fields: readonly string[];
  /** Headers each request needs: the price route's Idempotency-Key. */
  readonly headers?: () => Array<readonly [string, string]>;
}

function post(route: BodyRoute, label: string, body: unknown, extra: Extra = {}): HostileRequest {
  const { headers = [], ...rest } = extra;
  return hostile(route.endpoint, 'POST', route.target, label, {
    ...rest,
    ...(body === undefined ? {} : { body: bodyOf(body) }),
    headers: [...(route.headers?.() ?? []), ...headers],
  });
}

/** Bodies no route can take: broken JSON, non-objects, depth, size, prototype keys, foreign content types. */
function malformedBodyRequests(route: BodyRoute): HostileRequest[] {
  return [
    ...malformedBodies.map(([label, body]) => post(route, label, body)),
    ...prototypeBodies().map(([label, body]) => post(route, label, body)),
    ...(route.requiresBody ? [post(route, 'no body', undefined), post(route, 'an empty body labelled JSON', '')] : []),
    post(route, 'a body over 10 MB', overTenMegabytes(), { outcome: tooLarge }),
    ...foreignContentTypes(jsonText(route.wrongBody)).map(([label, contentType, body]) => post(route, label, body, { contentType })),
  ];
}

/** Prototype keys beside the route's fields, at the top level of its body. */
function prototypeKeyRequests(route: BodyRoute): HostileRequest[] {
  const base = (route.validBody ?? {}) as Record<string, unknown>;
  return ['__proto__', 'constructor', 'prototype'].flatMap((key) => [
    post(route, `${key} beside the fields`, own([...Object.entries(base), [key, { polluted: true }]])),
    post(route, `${key} holding null beside the fields`, own([...Object.entries(base), [key, null]])),
  ]);
}

/** A hostile query string or header on a request the route refuses for its body: the hostile part must not break that. */
function queryAndHeaderRequests(route: BodyRoute): HostileRequest[] {
  const withQuery = (label: string, query: string) =>
    hostile(route.endpoint, 'POST', `${route.target}?${query}`, label, { body: bodyOf(route.wrongBody), headers: route.headers?.() });
  const withHeaders = (label: string, headers: Array<readonly [string, string]>, outcome?: Outcome) =>
    post(route, label, route.wrongBody, { headers, ...(outcome ? { outcome } : {}) });
  return [
    withQuery('?__proto__=x', '__proto__=x'),
    withQuery('?constructor=x', 'constructor=x'),
    withQuery('?prototype=x and __proto__[polluted]=1', 'prototype=x&__proto__%5Bpolluted%5D=1'),
    withQuery('a parameter repeated', 'a=1&a=2&a=3'),
    withQuery('an 8,000-character value', `a=${long(8000)}`),
    withQuery('malformed escapes', '%E0%A4%A=%&%zz=%00'),
    withHeaders('an 8 KB header', [['X-Hostile', long(8000)]]),
    withHeaders(
      '300 extra headers',
      Array.from({ length: 300 }, (_, index) => [`X-Hostile-${index}`, 'x'] as const),
    ),
    withHeaders('a 20 KB header', [['X-Hostile', long(20_000)]], headersTooLarge),
    withHeaders('a prototype key as a header name', [['__proto__', 'x']]),
  ];
}

/** fast-check's arbitrary JSON values as the whole body, leaving out objects that could be valid. */
function arbitraryBodyRequests(route: BodyRoute, count: number, salt: number): HostileRequest[] {
  const couldBeValid = (value: unknown) =>
    value !== null &&
    typeof value === 'object' &&
    !Array.isArray(value) &&
    Object.keys(value).every((key) => route.fields.includes(key)) &&
    (Object.keys(value).length > 0 || !route.requiresBody);
  return samples(fc.jsonValue({ maxDepth: 4 }), count * 2, salt)
    .filter((value) => !couldBeValid(value))
    .slice(0, count)
    .map((value, index) => post(route, `arbitrary JSON #${index} (${jsonText(value).slice(0, 40)})`, value));
}

/** fast-check's arbitrary text as the name of an extra field at `path` of the route's valid body. */
function arbitraryKeyRequests(
  route: BodyRoute,
  path: ReadonlyArray<string | number>,
  known: readonly string[],
  count: number,
  salt: number,
): HostileRequest[] {
  return samples(arbitraryText(30), count * 2, salt)
    .filter((key) => !known.includes(key))
    .slice(0, count)
    .map((key, index) =>
      post(route, `arbitrary field name #${index} at ${path.join('.') || 'the top'}`, withValue(route.validBody, [...path, key], 1)),
    );
}

/** fast-check's arbitrary values (null prototypes, boxed values, sparse arrays) at one field, leaving out valid ones. */
function arbitraryValueRequests(
  route: BodyRoute,
  path: ReadonlyArray<string | number>,
  valid: (value: unknown) => boolean,
  count: number,
  salt: number,
): HostileRequest[] {
  return samples(anything, count * 3, salt)
    .filter((value) => !valid(throughJson(value)))
    .slice(0, count)
    .map((value, index) =>
      post(
        route,
        `arbitrary value #${index} at ${path.join('.')} (${String(jsonText(throughJson(value) ?? null)).slice(0, 40)})`,
        withValue(route.validBody, path, value),
      ),
    );
}

/** Each of `values` at `path` of the route's valid body. */
function wrongAt(route: BodyRoute, path: ReadonlyArray<string | number>, values: readonly unknown[]): HostileRequest[] {
  return values.map((value) =>
    post(route, `${path.join('.')} = ${String(jsonText(value)).slice(0, 50)}`, withValue(route.validBody, path, value)),
  );
}

/** The same segments in place of a path parameter. */
function segmentRequests(
  endpoint: string,
  method: string,
  targetFor: (segment: string) => string,
  extra: Extra,
  salt: number,
): HostileRequest[] {
  return [
    ...hostileSegments.map(([label, segment]) => hostile(endpoint, method, targetFor(segment), label, extra)),
    hostile(endpoint, method, targetFor(long(2000)), '2,000 characters', extra),
    // Node's parser refuses a request line with raw non-ASCII bytes before any handler sees it.
    hostile(endpoint, method, targetFor('caf\u00e9'), 'raw UTF-8 bytes, unescaped', { ...extra, outcome: badRequestLine }),
    ...unusualStrings.map((text) =>
      hostile(endpoint, method, targetFor(encodeSegment(text)), `the escaped text ${JSON.stringify(text)}`, extra),
    ),
    ...samples(arbitraryText(40), 8, salt).map((text, index) =>
      hostile(endpoint, method, targetFor(encodeSegment(text)), `arbitrary text #${index} (${JSON.stringify(text).slice(0, 30)})`, extra),
    ),
  ];
}

// Seed data: one product, one write-back task, one batch, as each group needs.

interface Seeded {
  readonly workspace: TestWorkspace;
  readonly taskId: string;
}

/** A fresh workspace with product SEED-0 and one pending write-back task for its connector. */
async function seededWorkspace(name: string): Promise<Seeded> {
  const workspace = await newWorkspace(name);
  const [taskId = ''] = await seedPendingTasks(workspace.workspaceId, workspace.connectorId, 1, { products: true });
  return { workspace, taskId };
}

async function leaseTask(workspace: TestWorkspace, taskId: string): Promise<void> {
  const claimed = await call('/api/v1/writebacks/claim', {
    method: 'POST',
    key: workspace.keys.connector,
    body: { limit: 1, leaseSeconds: 3600 },
  });
  expect(claimed.status, claimed.text).toBe(200);
  expect(claimed.json.tasks.map((task: { id: string }) => task.id)).toEqual([taskId]);
}

async function openBatch(workspace: TestWorkspace): Promise<string> {
  const opened = await call('/api/v1/ingest/batches', { method: 'POST', key: workspace.keys.connector });
  expect(opened.status, opened.text).toBe(201);
  return opened.json.batchId as string;
}

/** Reads SEED-0 on the overview once, which stores its recommendation: later reads write nothing. */
async function readRecommendation(workspace: TestWorkspace): Promise<unknown> {
  const read = await call(`/v1/prices/${SKU}`, { key: workspace.keys.pwLive });
  expect(read.status, read.text).toBe(200);
  return read.json;
}

let idempotencyCounter = 0;
const nextIdempotencyKey = (): Array<readonly [string, string]> => [['Idempotency-Key', `hostile-${++idempotencyCounter}`]];

describe(`${PRICES}`, () => {
  let probe: Probe;
  const route: BodyRoute = {
    endpoint: PRICES,
    target: '/api/v1/prices',
    wrongBody: { lines: 'all of them' },
    validBody: { lines: [{ productSku: SKU, quantity: 1 }] },
    requiresBody: true,
    fields: ['lines'],
    headers: nextIdempotencyKey,
  };

  beforeAll(async () => {
    const { workspace } = await seededWorkspace('Hostile Prices Seller');
    probe = { workspaceId: workspace.workspaceId, key: workspace.keys.erp };
  });

  it(
    `answers every malformed body on ${PRICES} with a 4xx in its envelope, and writes nothing`,
    async () => {
      expectClean(
        await tryAll(probe, [
          ...malformedBodyRequests(route),
          post(route, 'a 1 MB array of lines', hugeArrayBody('lines')),
          ...queryAndHeaderRequests(route),
        ]),
      );
    },
    GROUP_TIMEOUT,
  );

  it(
    `answers a wrong value at every field of ${PRICES} with a 4xx in its envelope, and writes nothing`,
    async () => {
      const line = (field: string) => ['lines', 0, field];
      const fields: Array<[string, FieldKind]> = [
        ['customerId', 'identifier'],
        ['customerExternalId', 'identifier'],
        ['productSku', 'identifier'],
        ['productExternalId', 'identifier'],
        ['quantity', 'priceQuantity'],
        ['orderTotalQuantity', 'priceQuantity'],
        ['orderValueCents', 'orderValue'],
      ];
      const validLine = { productSku: SKU, quantity: 1 };
      expectClean(
        await tryAll(probe, [
          ...fields.flatMap(([field, kind]) => wrongAt(route, line(field), wrongValues[kind])),
          ...wrongAt(
            route,
            ['lines'],
            [[], {}, 'x', null, [null], [1], [[]], [{}], Array.from({ length: 101 }, () => validLine), nestedArrays(100_000)],
          ),
          post(route, '100,000 empty lines', { lines: Array.from({ length: 100_000 }, () => ({})) }),
          post(route, 'a line nesting objects 1,000 deep', withValue(route.validBody, ['lines', 0, 'extra'], nestedObjects(1000))),
          post(route, 'a line nesting objects 40 deep', withValue(route.validBody, ['lines', 0, 'extra'], nestedObjects(40))),
          ...prototypeKeyRequests(route),
          ...['__proto__', 'constructor', 'prototype'].map((key) =>
            post(route, `${key} in a line`, withValue(route.validBody, ['lines', 0, key], { quantity: 5 })),
          ),
          post(route, 'a line whose only key is __proto__', { lines: [own([['__proto__', validLine]])] }),
        ]),
      );
    },
    GROUP_TIMEOUT,
  );

  it(
    `answers arbitrary bodies, field names and values on ${PRICES} with a 4xx in its envelope, and writes nothing`,
    async () => {
      const validQuantity = (value: unknown) => typeof value === 'number' && Number.isFinite(value) && value > 0 && value <= 1_000_000_000;
      expectClean(
        await tryAll(probe, [
          ...arbitraryBodyRequests(route, 10, 1),
          ...arbitraryKeyRequests(route, [], ['lines'], 4, 2),
          ...arbitraryKeyRequests(
            route,
            ['lines', 0],
            ['productSku', 'quantity', 'customerId', 'customerExternalId', 'productExternalId', 'orderValueCents', 'orderTotalQuantity'],
            6,
            3,
          ),
          ...arbitraryValueRequests(route, ['lines', 0, 'quantity'], validQuantity, 8, 4),
        ]),
      );
    },
    GROUP_TIMEOUT,
  );

  it(
    `answers every malformed Idempotency-Key on ${PRICES} with a 4xx in its envelope, even with a valid body, and prices nothing`,
    async () => {
      const keyed = (label: string, values: readonly string[] | null, outcome?: Outcome) =>
        hostile(PRICES, 'POST', route.target, label, {
          body: jsonText(route.validBody),
          headers: (values ?? []).map((value) => ['Idempotency-Key', value] as const),
          ...(outcome ? { outcome } : {}),
        });
      const printable = (value: string) => /^[\x20-\x7e]{1,255}$/.test(value);
      const arbitraryKeys = samples(arbitraryText(40), 24, 5)
        .map((text) => text.replace(/[\r\n]/g, '').trim())
        .filter((text) => !printable(text))
        .slice(0, 10);
      expectClean(
        await tryAll(probe, [
          keyed('no Idempotency-Key', null),
          keyed('an empty Idempotency-Key', ['']),
          keyed('a blank Idempotency-Key', ['   ']),
          keyed('a 256-character Idempotency-Key', [long(256)]),
          keyed('an 8,000-character Idempotency-Key', [long(8000)]),
          keyed('a 20 KB Idempotency-Key', [long(20_000)], headersTooLarge),
          keyed('a tab inside', ['a\tb']),
          keyed('a DEL inside', ['a\u007fb'], badRequestLine),
          keyed('a NUL inside', ['a\u0000b'], badRequestLine),
          keyed('a bell inside', ['a\u0007b'], badRequestLine),
          keyed('an escape sequence', ['\u001b[31mred'], badRequestLine),
          keyed('Latin-1 text', ['cl\u00e9']),
          keyed('an emoji', ['🙂']),
          keyed('a right-to-left override', ['\u202eabc']),
          keyed('a zero-width space', ['a\u200bb']),
          ...arbitraryKeys.map((text, index) =>
            keyed(`arbitrary text #${index} (${JSON.stringify(text).slice(0, 30)})`, [text], badRequestLine),
          ),
        ]),
      );
    },
    GROUP_TIMEOUT,
  );
});

describe('the ingest routes', () => {
  let probe: Probe;
  let batchId: string;
  const openRoute: BodyRoute = { endpoint: OPEN, target: '/api/v1/ingest/batches', wrongBody: { x: 1 }, requiresBody: false, fields: [] };
  let stageRoute: BodyRoute;
  let commitRoute: BodyRoute;
  const validStage = { entity: 'product', records: [productRecord()] };

  beforeAll(async () => {
    const workspace = await newWorkspace('Hostile Ingest Seller');
    probe = { workspaceId: workspace.workspaceId, key: workspace.keys.connector };
    batchId = await openBatch(workspace);
    stageRoute = {
      endpoint: STAGE,
      target: `/api/v1/ingest/batches/${batchId}/records`,
      wrongBody: { entity: 'product', records: 'all of them' },
      validBody: validStage,
      requiresBody: true,
      fields: ['entity', 'records'],
    };
    commitRoute = {
      endpoint: COMMIT,
      target: `/api/v1/ingest/batches/${batchId}/commit`,
      wrongBody: { x: 1 },
      requiresBody: false,
      fields: [],
    };
  });

  it(
    `answers every body on ${OPEN}, which takes none, with a 4xx in its envelope, and opens no batch`,
    async () => {
      expectClean(
        await tryAll(probe, [
          ...malformedBodyRequests(openRoute),
          ...prototypeKeyRequests(openRoute),
          ...queryAndHeaderRequests(openRoute),
          post(openRoute, 'a 1 MB array', hugeArrayBody('x')),
          ...arbitraryBodyRequests(openRoute, 10, 10),
        ]),
      );
    },
    GROUP_TIMEOUT,
  );

  it(
    `answers every malformed body on ${STAGE} with a 4xx in its envelope, and stages nothing`,
    async () => {
      expectClean(
        await tryAll(probe, [
          ...malformedBodyRequests(stageRoute),
          ...prototypeKeyRequests(stageRoute),
          ...queryAndHeaderRequests(stageRoute),
          post(stageRoute, 'a 1 MB array of records', hugeArrayBody('records')),
        ]),
      );
    },
    GROUP_TIMEOUT,
  );

  it(
    `answers a wrong value at every field of every entity on ${STAGE} with a 4xx in its envelope, and stages nothing`,
    async () => {
      const entities: Array<{
        entity: string;
        record: Record<string, unknown>;
        fields: Array<[string, FieldKind]>;
        lineFields?: Array<[string, FieldKind]>;
      }> = [
        {
          entity: 'product',
          record: productRecord(),
          fields: [
            ['sku', 'identifier'],
            ['externalId', 'identifier'],
            ['name', 'text'],
            ['category', 'keyText'],
            ['costCents', 'cents'],
            ['currentPriceCents', 'cents'],
            ['mapCents', 'cents'],
            ['floorCents', 'cents'],
            ['ceilingCents', 'cents'],
            ['isActive', 'boolean'],
            ['inStock', 'boolean'],
            ['stockOnHand', 'signed'],
            ['brand', 'text'],
            ['currency', 'keyText'],
            ['attributes', 'attributes'],
          ],
        },
        {
          entity: 'customer',
          record: customerRecord(),
          fields: [
            ['name', 'text'],
            ['externalId', 'identifier'],
            ['segment', 'keyText'],
            ['region', 'nullableString'],
            ['country', 'nullableString'],
            ['creditTerms', 'nullableString'],
            ['currency', 'nullableKeyText'],
            ['isActive', 'boolean'],
            ['attributes', 'attributes'],
          ],
        },
        {
          entity: 'quote',
          record: quoteRecord(),
          fields: [
            ['externalId', 'identifier'],
            ['customerExternalId', 'identifier'],
            ['outcome', 'outcome'],
            ['currency', 'nullableKeyText'],
            ['exchangeRate', 'exchangeRate'],
            ['createdAt', 'dateTime'],
            ['decidedAt', 'dateTime'],
            ['lostReason', 'nullableString'],
            ['lines', 'documentLines'],
          ],
          lineFields: [
            ['productSku', 'identifier'],
            ['quantity', 'recordQuantity'],
            ['costCents', 'cents'],
            ['quotedPriceCents', 'cents'],
            ['pricingDecisionId', 'nullableString'],
            ['serviceQuotedPriceCents', 'nullableSigned'],
            ['salespersonPriceReason', 'nullableString'],
            ['attributes', 'attributes'],
          ],
        },
        {
          entity: 'order',
          record: orderRecord(),
          fields: [
            ['externalId', 'identifier'],
            ['customerExternalId', 'nullableIdentifier'],
            ['sourceQuoteExternalId', 'keyText'],
            ['currency', 'keyText'],
            ['exchangeRate', 'exchangeRate'],
            ['soldAt', 'dateTime'],
            ['lines', 'documentLines'],
          ],
          lineFields: [
            ['productSku', 'identifier'],
            ['quantity', 'recordQuantity'],
            ['costCents', 'cents'],
            ['soldPriceCents', 'cents'],
            ['attributes', 'attributes'],
          ],
        },
      ];
      // Each field gets three of its kind's wrong values; fields of one kind take turns, so that each value is sent.
      const turns = new Map<FieldKind, number>();
      const wrong = (kind: FieldKind) => {
        const turn = turns.get(kind) ?? 0;
        turns.set(kind, turn + 1);
        return someWrong(kind, turn, 3);
      };
      const requests = entities.flatMap(({ entity, record, fields, lineFields = [] }) => {
        const body = { entity, records: [record] };
        const at = (path: ReadonlyArray<string | number>, values: readonly unknown[]) =>
          values.map((value) =>
            post(
              stageRoute,
              `${entity} ${path.slice(2).join('.')} = ${String(jsonText(value)).slice(0, 50)}`,
              withValue(body, path, value),
            ),
          );
        return [
          ...fields.flatMap(([field, kind]) => at(['records', 0, field], wrong(kind))),
          ...lineFields.flatMap(([field, kind]) => at(['records', 0, 'lines', 0, field], wrong(kind))),
        ];
      });
      expectClean(await tryAll(probe, requests));
    },
    GROUP_TIMEOUT,
  );

  it(
    `answers hostile entities, record lists, sizes, nesting and prototype keys on ${STAGE} with a 4xx in its envelope, and stages nothing`,
    async () => {
      const products = (count: number) => Array.from({ length: count }, (_, index) => productRecord({ sku: `SKU-${index}` }));
      const quoteWithLines = (count: number) => quoteRecord({ lines: Array.from({ length: count }, () => quoteLine()) });
      const orderWithLines = (count: number) => orderRecord({ lines: Array.from({ length: count }, () => orderLine()) });
      const product = (fields: Record<string, unknown>) => ({ entity: 'product', records: [productRecord(fields)] });
      expectClean(
        await tryAll(probe, [
          ...wrongAt(
            stageRoute,
            ['entity'],
            [
              null,
              1,
              [],
              {},
              '',
              'PRODUCT',
              'product\u0000',
              ' product',
              'products',
              '__proto__',
              'constructor',
              'toString',
              'hasOwnProperty',
              'valueOf',
              long(100_000),
              '🙂',
            ],
          ),
          ...wrongAt(stageRoute, ['records'], [[], {}, null, 'x', [null], [1], [[]], ['x'], products(1001), nestedArrays(100_000)]),
          post(stageRoute, 'a product named with 300 KB', product({ name: long(300 * 1024) })),
          post(stageRoute, 'a 1,000,000-character category', product({ category: long(1_000_000) })),
          post(stageRoute, 'a quote of 1,001 lines', { entity: 'quote', records: [quoteWithLines(1001)] }),
          post(stageRoute, 'an order of 1,001 lines', { entity: 'order', records: [orderWithLines(1001)] }),
          post(stageRoute, 'attributes nested 33 deep', product({ attributes: nestedObjects(33) })),
          post(stageRoute, 'attributes nested 40 deep', product({ attributes: nestedObjects(40) })),
          post(stageRoute, 'attributes nested 1,000 deep', product({ attributes: nestedObjects(1000) })),
          post(stageRoute, 'attributes nested 5,000 deep', product({ attributes: nestedObjects(5000) })),
          post(stageRoute, 'attributes nested 100,000 deep', product({ attributes: nestedObjects(100_000) })),
          post(stageRoute, 'attributes holding arrays nested 1,000 deep', product({ attributes: { a: nestedArrays(1000) } })),
          post(stageRoute, 'quote line attributes nested 40 deep', {
            entity: 'quote',
            records: [quoteRecord({ lines: [quoteLine({ attributes: nestedObjects(40) })] })],
          }),
          post(stageRoute, 'order line attributes nested 100,000 deep', {
            entity: 'order',
            records: [orderRecord({ lines: [orderLine({ attributes: nestedObjects(100_000) })] })],
          }),
          ...['__proto__', 'constructor', 'prototype'].flatMap((key) => [
            post(stageRoute, `${key} in a record`, withValue(validStage, ['records', 0, key], { sku: 'POLLUTED' })),
            post(stageRoute, `${key} in a quote line`, {
              entity: 'quote',
              records: [withValue(quoteRecord(), ['lines', 0, key], { costCents: 1 })],
            }),
            post(
              stageRoute,
              `${key} in attributes beside a wrong costCents`,
              product({ attributes: own([[key, { polluted: true }]]), costCents: -1 }),
            ),
          ]),
          post(stageRoute, 'a record whose only key is __proto__', { entity: 'product', records: [own([['__proto__', productRecord()]])] }),
          ...unusualStrings.map((text) =>
            post(stageRoute, `the field name ${JSON.stringify(text)} in a record`, withValue(validStage, ['records', 0, text], 1)),
          ),
        ]),
      );
    },
    GROUP_TIMEOUT,
  );

  it(
    `answers arbitrary bodies, records, field names and values on ${STAGE} with a 4xx in its envelope, and stages nothing`,
    async () => {
      const validCents = (value: unknown) =>
        Number.isInteger(value) && (value as number) >= 0 && (value as number) <= Number.MAX_SAFE_INTEGER;
      const productFields = Object.keys(productRecord()).concat([
        'externalId',
        'mapCents',
        'floorCents',
        'ceilingCents',
        'isActive',
        'inStock',
        'stockOnHand',
        'brand',
        'currency',
        'attributes',
      ]);
      expectClean(
        await tryAll(probe, [
          ...arbitraryBodyRequests(stageRoute, 10, 11),
          ...samples(fc.jsonValue({ maxDepth: 3 }), 6, 12).map((record, index) =>
            post(stageRoute, `arbitrary JSON #${index} as a product`, { entity: 'product', records: [record] }),
          ),
          ...arbitraryKeyRequests(stageRoute, ['records', 0], productFields, 6, 13),
          ...arbitraryValueRequests(stageRoute, ['records', 0, 'costCents'], validCents, 8, 14),
          ...samples(arbitraryText(40), 6, 15).map((entity, index) =>
            post(stageRoute, `arbitrary text #${index} as the entity`, { entity, records: [productRecord()] }),
          ),
        ]),
      );
    },
    GROUP_TIMEOUT,
  );

  it(
    `answers hostile batch ids on ${STAGE}, ${STATUS} and ${COMMIT} with a 4xx in their envelope, and writes nothing`,
    async () => {
      const targets: Array<[string, string, (segment: string) => string, Extra]> = [
        [STAGE, 'POST', (segment) => `/api/v1/ingest/batches/${segment}/records`, { body: jsonText(validStage) }],
        [STATUS, 'GET', (segment) => `/api/v1/ingest/batches/${segment}`, {}],
        [COMMIT, 'POST', (segment) => `/api/v1/ingest/batches/${segment}/commit`, {}],
      ];
      const nearlyTheBatch: Array<[string, string]> = [
        ['the batch id in capitals', batchId.toUpperCase()],
        ['the batch id and an escaped NUL', `${batchId}%00`],
        ['the batch id and an escaped space', `${batchId}%20`],
        ['the batch id and a zero-width space', `${batchId}%E2%80%8B`],
        ['the batch id without its dashes', batchId.replaceAll('-', '')],
        ['the batch id in braces', `%7B${batchId}%7D`],
        ['the batch id as a URN', `urn:uuid:${batchId}`],
        ['the batch id twice', `${batchId}${batchId}`],
        ['the nil UUID', '00000000-0000-0000-0000-000000000000'],
      ];
      expectClean(
        await tryAll(
          probe,
          targets.flatMap(([endpoint, method, targetFor, extra], index) => [
            ...segmentRequests(endpoint, method, targetFor, extra, 20 + index),
            ...nearlyTheBatch.map(([label, segment]) => hostile(endpoint, method, targetFor(segment), label, extra)),
          ]),
        ),
      );
    },
    GROUP_TIMEOUT,
  );

  it(
    `answers hostile query strings, headers and bodies on ${STATUS} as it answers without them, or with a 4xx in its envelope, and writes nothing`,
    async () => {
      const target = `/api/v1/ingest/batches/${batchId}`;
      const reference = await call(target, { key: probe.key });
      expect(reference.status, reference.text).toBe(200);
      const same: Outcome = { answered: 200, json: reference.json };
      const queries: Array<[string, string]> = [
        ['?__proto__=x', '__proto__=x'],
        ['?constructor=x', 'constructor=x'],
        ['?prototype=x', 'prototype=x'],
        ['a parameter repeated', 'a=1&a=2&a=3'],
        ['an 8,000-character value', `a=${long(8000)}`],
        ['malformed escapes', '%E0%A4%A=%&%zz=%00'],
      ];
      expectClean(
        await tryAll(probe, [
          ...queries.map(([label, query]) => hostile(STATUS, 'GET', `${target}?${query}`, `${label} on the batch`, { outcome: same })),
          ...queries.map(([label, query]) =>
            hostile(STATUS, 'GET', `/api/v1/ingest/batches/not-a-uuid?${query}`, `${label} on a malformed id`),
          ),
          hostile(STATUS, 'GET', target, 'a JSON body on a GET', { body: '{"__proto__":{"polluted":true}}', outcome: same }),
          hostile(STATUS, 'GET', target, 'a malformed body on a GET', { body: '{', outcome: same }),
          hostile(STATUS, 'GET', target, 'a body over 10 MB on a GET', { body: overTenMegabytes(), outcome: tooLarge }),
          hostile(STATUS, 'GET', '/api/v1/ingest/batches/not-a-uuid', 'an 8 KB header', { headers: [['X-Hostile', long(8000)]] }),
          hostile(STATUS, 'GET', target, 'a 20 KB header', { headers: [['X-Hostile', long(20_000)]], outcome: headersTooLarge }),
        ]),
      );
    },
    GROUP_TIMEOUT,
  );

  it(
    `answers every body on ${COMMIT}, which takes none, with a 4xx in its envelope, and leaves the batch open`,
    async () => {
      expectClean(
        await tryAll(probe, [
          ...malformedBodyRequests(commitRoute),
          ...prototypeKeyRequests(commitRoute),
          ...queryAndHeaderRequests(commitRoute),
          post(commitRoute, 'a 1 MB array', hugeArrayBody('x')),
          ...arbitraryBodyRequests(commitRoute, 10, 30),
        ]),
      );
    },
    GROUP_TIMEOUT,
  );
});

describe('the write-back routes', () => {
  let probe: Probe;
  let taskId: string;
  const claimRoute: BodyRoute = {
    endpoint: CLAIM,
    target: '/api/v1/writebacks/claim',
    wrongBody: { limit: 'all' },
    validBody: { limit: 1, leaseSeconds: 60 },
    requiresBody: false,
    fields: ['limit', 'leaseSeconds'],
  };
  let ackRoute: BodyRoute;
  let extendRoute: BodyRoute;

  beforeAll(async () => {
    const seeded = await seededWorkspace('Hostile Write-back Seller');
    taskId = seeded.taskId;
    // Leased, so that an ack or an extension let through would change the task.
    await leaseTask(seeded.workspace, taskId);
    probe = { workspaceId: seeded.workspace.workspaceId, key: seeded.workspace.keys.connector };
    ackRoute = {
      endpoint: ACK,
      target: '/api/v1/writebacks/ack',
      wrongBody: { results: 'all' },
      validBody: { results: [{ id: taskId, ok: true }] },
      requiresBody: true,
      fields: ['results'],
    };
    extendRoute = {
      endpoint: EXTEND,
      target: `/api/v1/writebacks/${taskId}/extend`,
      wrongBody: { leaseSeconds: 'forever' },
      validBody: { leaseSeconds: 60 },
      requiresBody: false,
      fields: ['leaseSeconds'],
    };
  });

  it(
    `answers every malformed or wrong body on ${CLAIM} with a 4xx in its envelope, and leases nothing`,
    async () => {
      const validLimit = (value: unknown) =>
        value === undefined || (Number.isInteger(value) && (value as number) >= 1 && (value as number) <= 100);
      expectClean(
        await tryAll(probe, [
          ...malformedBodyRequests(claimRoute),
          ...prototypeKeyRequests(claimRoute),
          ...queryAndHeaderRequests(claimRoute),
          post(claimRoute, 'a 1 MB array as the limit', hugeArrayBody('limit')),
          ...wrongAt(claimRoute, ['limit'], wrongValues.claimLimit),
          ...wrongAt(claimRoute, ['leaseSeconds'], wrongValues.leaseSeconds),
          post(claimRoute, 'the limit nested 1,000 deep', { limit: nestedArrays(1000) }),
          ...arbitraryBodyRequests(claimRoute, 10, 40),
          ...arbitraryKeyRequests(claimRoute, [], claimRoute.fields, 4, 41),
          ...arbitraryValueRequests(claimRoute, ['limit'], validLimit, 6, 42),
        ]),
      );
    },
    GROUP_TIMEOUT,
  );

  it(
    `answers every malformed or wrong body on ${ACK} with a 4xx in its envelope, and finishes no task`,
    async () => {
      const result = (field: string) => ['results', 0, field];
      expectClean(
        await tryAll(probe, [
          ...malformedBodyRequests(ackRoute),
          ...prototypeKeyRequests(ackRoute),
          ...queryAndHeaderRequests(ackRoute),
          post(ackRoute, 'a 1 MB array of results', hugeArrayBody('results')),
          ...wrongAt(
            ackRoute,
            ['results'],
            [[], {}, null, 'x', [null], [1], [[]], nestedArrays(100_000), Array.from({ length: 501 }, () => ({ id: taskId, ok: true }))],
          ),
          ...wrongAt(ackRoute, result('id'), wrongValues.taskId),
          ...wrongAt(ackRoute, result('ok'), wrongValues.boolean),
          ...wrongAt(ackRoute, result('error'), wrongValues.ackError),
          ...['__proto__', 'constructor', 'prototype'].map((key) =>
            post(ackRoute, `${key} in a result`, withValue(ackRoute.validBody, ['results', 0, key], { ok: false })),
          ),
          post(ackRoute, 'a result whose only key is __proto__', { results: [own([['__proto__', { id: taskId, ok: true }]])] }),
          post(
            ackRoute,
            'a result nesting objects 1,000 deep',
            withValue(ackRoute.validBody, ['results', 0, 'extra'], nestedObjects(1000)),
          ),
          ...arbitraryBodyRequests(ackRoute, 10, 43),
          ...arbitraryKeyRequests(ackRoute, ['results', 0], ['id', 'ok', 'error'], 6, 44),
          ...arbitraryValueRequests(ackRoute, ['results', 0, 'ok'], (value) => typeof value === 'boolean', 6, 45),
        ]),
      );
    },
    GROUP_TIMEOUT,
  );

  it(
    `counts hostile task ids in an otherwise valid ack on ${ACK} as ignored, and finishes no task`,
    async () => {
      const ignored: Outcome = { answered: 200, json: { applied: 0, failed: 0, expired: 0, ignored: 1 } };
      const ids: Array<[string, string]> = [
        ['a 100,000-character id', long(100_000)],
        ['a 2,000-character id', long(2000)],
        ['the task id in capitals', taskId.toUpperCase()],
        ['the task id and a NUL', `${taskId}\u0000`],
        ['the task id and a zero-width space', `${taskId}\u200b`],
        ...unusualStrings.map((text) => [`the id ${JSON.stringify(text)}`, text] as [string, string]),
        ...samples(arbitraryText(40), 6, 46).map((text, index) => [`arbitrary text #${index} as the id`, text] as [string, string]),
      ];
      expectClean(
        await tryAll(
          probe,
          ids.map(([label, id]) => post(ackRoute, label, { results: [{ id, ok: true }] }, { outcome: ignored })),
        ),
      );
    },
    GROUP_TIMEOUT,
  );

  it(
    `answers every malformed or wrong body and every hostile task id on ${EXTEND} with a 4xx in its envelope, and extends no lease`,
    async () => {
      const validSeconds = (value: unknown) =>
        value === undefined || (Number.isInteger(value) && (value as number) >= 1 && (value as number) <= 3600);
      const body = jsonText(extendRoute.validBody);
      const targetFor = (segment: string) => `/api/v1/writebacks/${segment}/extend`;
      const nearlyTheTask: Array<[string, string]> = [
        ['the task id in capitals', taskId.toUpperCase()],
        ['the task id and an escaped NUL', `${taskId}%00`],
        ['the task id and an escaped space', `${taskId}%20`],
        ['the task id without its prefix', taskId.slice(3)],
        ['the task id twice', `${taskId}${taskId}`],
      ];
      expectClean(
        await tryAll(probe, [
          ...malformedBodyRequests(extendRoute),
          ...prototypeKeyRequests(extendRoute),
          ...queryAndHeaderRequests(extendRoute),
          post(extendRoute, 'a 1 MB array as leaseSeconds', hugeArrayBody('leaseSeconds')),
          ...wrongAt(extendRoute, ['leaseSeconds'], wrongValues.leaseSeconds),
          ...arbitraryBodyRequests(extendRoute, 8, 47),
          ...arbitraryValueRequests(extendRoute, ['leaseSeconds'], validSeconds, 6, 48),
          ...segmentRequests(EXTEND, 'POST', targetFor, { body }, 49),
          ...nearlyTheTask.map(([label, segment]) => hostile(EXTEND, 'POST', targetFor(segment), label, { body })),
        ]),
      );
    },
    GROUP_TIMEOUT,
  );
});

describe('the overview routes', () => {
  let probe: Probe;
  let recommendation: unknown;
  const approveRoute: BodyRoute = {
    endpoint: APPROVE,
    target: '/v1/prices/approve',
    wrongBody: { sku: SKU, price: 'twelve' },
    validBody: { sku: SKU, price: 12 },
    requiresBody: true,
    fields: ['sku', 'price'],
  };

  beforeAll(async () => {
    const { workspace } = await seededWorkspace('Hostile Overview Seller');
    probe = { workspaceId: workspace.workspaceId, key: workspace.keys.pwLive };
    recommendation = await readRecommendation(workspace);
  });

  it(
    `answers hostile SKUs in the path of ${GET_PRICE} with a 4xx in its envelope, and writes nothing`,
    async () => {
      const nearlyTheSku: Array<[string, string]> = [
        ['the SKU in lower case', SKU.toLowerCase()],
        ['the SKU and an escaped NUL', `${SKU}%00`],
        ['the SKU and an escaped space', `${SKU}%20`],
        ['an escaped space and the SKU', `%20${SKU}`],
        ['the SKU, an encoded slash and a dot-dot', `${SKU}%2F..`],
      ];
      const targetFor = (segment: string) => `/v1/prices/${segment}`;
      expectClean(
        await tryAll(probe, [
          ...segmentRequests(GET_PRICE, 'GET', targetFor, {}, 50),
          ...nearlyTheSku.map(([label, segment]) => hostile(GET_PRICE, 'GET', targetFor(segment), label)),
          hostile(GET_PRICE, 'GET', `${targetFor(long(2000))}?include=rationale`, 'a 2,000-character SKU with include'),
        ]),
      );
    },
    GROUP_TIMEOUT,
  );

  it(
    `answers hostile query strings on ${GET_PRICE} with a 400 in its envelope, and hostile headers and bodies as without them`,
    async () => {
      const target = `/v1/prices/${SKU}`;
      const same: Outcome = { answered: 200, json: recommendation };
      const queries: Array<[string, string]> = [
        ['an unknown parameter beside include', 'include=rationale&foo=1'],
        ['?__proto__=x', '__proto__=x'],
        ['?constructor=x', 'constructor=x'],
        ['?prototype=x', 'prototype=x'],
        ['?toString=x', 'toString=x'],
        ['?hasOwnProperty=x', 'hasOwnProperty=x'],
        ['__proto__ beside include', 'include=rationale&__proto__=x'],
        ['__proto__ with an index', '__proto__%5Bpolluted%5D=1'],
        ['include repeated with an empty part', 'include=rationale&include='],
        ['include repeated with an unknown part', 'include=rationale&include=everything'],
        ['include with an 8,000-character value', `include=${long(8000)}`],
        ['include with 2,000 empty parts', `include=${','.repeat(2000)}`],
        ['include with a malformed escape', 'include=%E0%A4%A'],
        ['include with a lone percent sign', 'include=%'],
        ['include with an escaped NUL', 'include=rationale%00'],
        ['include with a zero-width space', 'include=rationale%E2%80%8B'],
        ['include with a right-to-left override', 'include=%E2%80%AErationale'],
        ['include without a value', 'include'],
        ['include as an array', 'include%5B%5D=rationale'],
        ['include in capitals', 'INCLUDE=rationale'],
        ['include=__proto__', 'include=__proto__'],
        ['include=constructor', 'include=constructor'],
        ['a parameter with a malformed name', '%zz=1'],
        ['an 8,000-character parameter name', `${long(8000)}=1`],
      ];
      const arbitraryNames = samples(arbitraryText(20), 12, 51)
        .filter((name) => name !== 'include')
        .slice(0, 6);
      expectClean(
        await tryAll(probe, [
          ...queries.map(([label, query]) => hostile(GET_PRICE, 'GET', `${target}?${query}`, label)),
          ...arbitraryNames.map((name, index) =>
            hostile(GET_PRICE, 'GET', `${target}?${encodeSegment(name)}=1`, `arbitrary text #${index} as a parameter name`),
          ),
          hostile(GET_PRICE, 'GET', target, 'a JSON body on a GET', { body: '{"__proto__":{"polluted":true}}', outcome: same }),
          hostile(GET_PRICE, 'GET', target, 'a malformed body on a GET', { body: '{', outcome: same }),
          hostile(GET_PRICE, 'GET', target, 'an 8 KB header', { headers: [['X-Hostile', long(8000)]], outcome: same }),
          hostile(GET_PRICE, 'GET', target, 'a body over 10 MB on a GET', { body: overTenMegabytes(), outcome: tooLarge }),
          hostile(GET_PRICE, 'GET', target, 'a 20 KB header', { headers: [['X-Hostile', long(20_000)]], outcome: headersTooLarge }),
        ]),
      );
    },
    GROUP_TIMEOUT,
  );

  it(
    `answers hostile query strings on ${USAGE} with a 400 in its envelope, and hostile headers and bodies as without them`,
    async () => {
      // Days long past: the report of today grows with every request, this one stays empty.
      const target = '/v1/usage?from=2026-01-01&to=2026-01-02';
      const same: Outcome = { answered: 200, json: (await call(target, { key: probe.key })).json };
      const queries: Array<[string, string]> = [
        ['an unknown parameter beside from', 'from=2026-01-01&foo=1'],
        ['?__proto__=x', '__proto__=x'],
        ['?constructor=x', 'constructor=x'],
        ['__proto__ with an index', '__proto__%5Bpolluted%5D=1'],
        ['from as a month', 'from=2026-01'],
        ['from as a date-time', 'from=2026-01-01T00:00:00Z'],
        ['from on the 30th of February', 'from=2026-02-30'],
        ['from in the year 0', 'from=0000-01-01'],
        ['from with a sign', 'from=%2B2026-01-01'],
        ['from with an escaped NUL', 'from=2026-01-01%00'],
        ['from with a zero-width space', 'from=2026-01-01%E2%80%8B'],
        ['from with full-width digits', 'from=%EF%BC%92026-01-01'],
        ['from with an 8,000-character value', `from=${long(8000)}`],
        ['from without a value', 'from'],
        ['from repeated', 'from=2026-01-01&from=2026-01-02'],
        ['from after to', 'from=2026-01-02&to=2026-01-01'],
        ['a range of 401 days', 'from=2025-01-01&to=2026-02-05'],
        ['to with a malformed escape', 'to=%E0%A4%A'],
        ['to with a lone percent sign', 'to=%'],
        ['by week', 'by=week'],
        ['by in capitals', 'by=DAY'],
        ['by empty', 'by='],
        ['by=__proto__', 'by=__proto__'],
        ['by as an array', 'by%5B%5D=day'],
        ['FROM in capitals', 'FROM=2026-01-01'],
        ['a parameter with a malformed name', '%zz=1'],
        ['an 8,000-character parameter name', `${long(8000)}=1`],
      ];
      const arbitraryNames = samples(arbitraryText(20), 12, 53)
        .filter((name) => !['from', 'to', 'by'].includes(name))
        .slice(0, 6);
      expectClean(
        await tryAll(probe, [
          ...queries.map(([label, query]) => hostile(USAGE, 'GET', `/v1/usage?${query}`, label)),
          ...arbitraryNames.map((name, index) =>
            hostile(USAGE, 'GET', `/v1/usage?${encodeSegment(name)}=1`, `arbitrary text #${index} as a parameter name`),
          ),
          hostile(USAGE, 'GET', target, 'a JSON body on a GET', { body: '{"__proto__":{"polluted":true}}', outcome: same }),
          hostile(USAGE, 'GET', target, 'a malformed body on a GET', { body: '{', outcome: same }),
          hostile(USAGE, 'GET', target, 'an 8 KB header', { headers: [['X-Hostile', long(8000)]], outcome: same }),
          hostile(USAGE, 'GET', target, 'a body over 10 MB on a GET', { body: overTenMegabytes(), outcome: tooLarge }),
          hostile(USAGE, 'GET', target, 'a 20 KB header', { headers: [['X-Hostile', long(20_000)]], outcome: headersTooLarge }),
        ]),
      );
    },
    GROUP_TIMEOUT,
  );

  it(
    `answers hostile query strings on ${ADHERENCE} with a 400 in its envelope, and hostile headers and bodies as without them`,
    async () => {
      const target = '/v1/analytics/adherence?from=2026-01&to=2026-02&by=segment';
      const same: Outcome = { answered: 200, json: (await call(target, { key: probe.key })).json };
      const queries: Array<[string, string]> = [
        ['an unknown parameter beside from', 'from=2026-01&foo=1'],
        ['?__proto__=x', '__proto__=x'],
        ['?constructor=x', 'constructor=x'],
        ['__proto__ with an index', '__proto__%5Bpolluted%5D=1'],
        ['from as a year', 'from=2026'],
        ['from as a date-time', 'from=2026-01-01T00:00:00Z'],
        ['from on the 30th of February', 'from=2026-02-30'],
        ['from in month 13', 'from=2026-13'],
        ['from with a sign', 'from=%2B2026-01'],
        ['from with an escaped NUL', 'from=2026-01%00'],
        ['from with a zero-width space', 'from=2026-01%E2%80%8B'],
        ['from with full-width digits', 'from=%EF%BC%92026-01'],
        ['from with an 8,000-character value', `from=${long(8000)}`],
        ['from without a value', 'from'],
        ['from repeated', 'from=2026-01&from=2026-02'],
        ['from after to', 'from=2026-03&to=2026-01'],
        ['a period of 37 months', 'from=2023-01&to=2026-01'],
        ['to with a malformed escape', 'to=%E0%A4%A'],
        ['to with a lone percent sign', 'to=%'],
        ['by day', 'by=day'],
        ['by in capitals', 'by=SEGMENT'],
        ['by empty', 'by='],
        ['by=__proto__', 'by=__proto__'],
        ['by=overall', 'by=overall'],
        ['by as an array', 'by%5B%5D=segment'],
        ['FROM in capitals', 'FROM=2026-01'],
        ['a parameter with a malformed name', '%zz=1'],
        ['an 8,000-character parameter name', `${long(8000)}=1`],
      ];
      const arbitraryNames = samples(arbitraryText(20), 12, 59)
        .filter((name) => !['from', 'to', 'by'].includes(name))
        .slice(0, 6);
      const path = '/v1/analytics/adherence';
      expectClean(
        await tryAll(probe, [
          ...queries.map(([label, query]) => hostile(ADHERENCE, 'GET', `${path}?${query}`, label)),
          ...arbitraryNames.map((name, index) =>
            hostile(ADHERENCE, 'GET', `${path}?${encodeSegment(name)}=1`, `arbitrary text #${index} as a parameter name`),
          ),
          hostile(ADHERENCE, 'GET', target, 'a JSON body on a GET', { body: '{"__proto__":{"polluted":true}}', outcome: same }),
          hostile(ADHERENCE, 'GET', target, 'a malformed body on a GET', { body: '{', outcome: same }),
          hostile(ADHERENCE, 'GET', target, 'an 8 KB header', { headers: [['X-Hostile', long(8000)]], outcome: same }),
          hostile(ADHERENCE, 'GET', target, 'a body over 10 MB on a GET', { body: overTenMegabytes(), outcome: tooLarge }),
          hostile(ADHERENCE, 'GET', target, 'a 20 KB header', { headers: [['X-Hostile', long(20_000)]], outcome: headersTooLarge }),
        ]),
      );
    },
    GROUP_TIMEOUT,
  );

  it(
    `answers every malformed or wrong body on ${APPROVE} with a 4xx in its envelope, and approves nothing`,
    async () => {
      expectClean(
        await tryAll(probe, [
          ...malformedBodyRequests(approveRoute),
          ...prototypeKeyRequests(approveRoute),
          ...queryAndHeaderRequests(approveRoute),
          post(approveRoute, 'a 1 MB array as the SKU', hugeArrayBody('sku')),
          ...wrongAt(approveRoute, ['sku'], wrongValues.identifier),
          ...wrongAt(approveRoute, ['price'], wrongValues.approvedPrice),
          ...wrongAt(approveRoute, ['sku'], unusualStrings),
          post(approveRoute, 'the SKU nested 1,000 deep', { sku: nestedObjects(1000), price: 12 }),
          post(approveRoute, 'the price as a string of 100,000 digits', { sku: SKU, price: raw(long(100_000, '9')) }),
        ]),
      );
    },
    GROUP_TIMEOUT,
  );

  it(
    `answers arbitrary bodies, SKUs and prices on ${APPROVE} with a 4xx in its envelope, and approves nothing`,
    async () => {
      expectClean(
        await tryAll(probe, [
          ...arbitraryBodyRequests(approveRoute, 10, 52),
          ...arbitraryKeyRequests(approveRoute, [], approveRoute.fields, 4, 53),
          ...samples(arbitraryText(60), 10, 54)
            .filter((sku) => sku !== SKU)
            .map((sku, index) => post(approveRoute, `arbitrary text #${index} as the SKU`, { sku, price: 12 })),
          // Numbers are left out: a number may be a price the SKU's bounds allow.
          ...arbitraryValueRequests(approveRoute, ['price'], (value) => typeof value === 'number', 8, 55),
        ]),
      );
    },
    GROUP_TIMEOUT,
  );
  it(
    `answers hostile SKUs and query strings on ${LIST_APPROVALS} with a 4xx in its envelope, and writes nothing`,
    async () => {
      const target = `/v1/prices/${SKU}/approvals`;
      const queries: Array<[string, string]> = [
        ['an unknown parameter', 'foo=1'],
        ['?__proto__=x', '__proto__=x'],
        ['?constructor=x', 'constructor=x'],
        ['__proto__ with an index', '__proto__%5Bpolluted%5D=1'],
        ['limit 0', 'limit=0'],
        ['limit -1', 'limit=-1'],
        ['limit 101', 'limit=101'],
        ['limit 1.5', 'limit=1.5'],
        ['limit in hex', 'limit=0x10'],
        ['limit empty', 'limit='],
        ['limit repeated', 'limit=1&limit=2'],
        ['limit with full-width digits', 'limit=%EF%BC%95'],
        ['limit with an escaped NUL', 'limit=5%00'],
        ['limit of 8,000 digits', `limit=${long(8000, '9')}`],
        ['starting_after empty', 'starting_after='],
        ['starting_after not base64url', 'starting_after=%2B%2F%3D'],
        ['starting_after of 8,000 characters', `starting_after=${long(8000, 'A')}`],
        ['starting_after a malformed escape', 'starting_after=%E0%A4%A'],
        ['starting_after repeated', 'starting_after=abc&starting_after=def'],
        ['a parameter with a malformed name', '%zz=1'],
      ];
      expectClean(
        await tryAll(probe, [
          ...segmentRequests(LIST_APPROVALS, 'GET', (segment) => `/v1/prices/${segment}/approvals`, {}, 53),
          ...queries.map(([label, query]) => hostile(LIST_APPROVALS, 'GET', `${target}?${query}`, label)),
          hostile(LIST_APPROVALS, 'GET', target, 'a body over 10 MB on a GET', { body: overTenMegabytes(), outcome: tooLarge }),
          hostile(LIST_APPROVALS, 'GET', target, 'a 20 KB header', { headers: [['X-Hostile', long(20_000)]], outcome: headersTooLarge }),
        ]),
      );
    },
    GROUP_TIMEOUT,
  );
});

describe('the webhook endpoint routes', () => {
  let probe: Probe;
  let endpointId: string;
  /** A receiver the integration stack's local-mode switch allows: a body let through would register an endpoint. */
  const validBody = { url: 'http://127.0.0.1:9/hostile', event_types: ['price.approved'] };
  const createRoute: BodyRoute = {
    endpoint: CREATE_ENDPOINT,
    target: '/v1/webhook-endpoints',
    wrongBody: { url: 'ftp://hooks.example.com/', event_types: ['price.approved'] },
    validBody,
    requiresBody: true,
    fields: ['url', 'event_types', 'enabled', 'description'],
  };
  /** URLs a receiver must never be: every one resolves, or is spelled, to somewhere not public. */
  const ssrfUrls = [
    'https://127.0.0.1/',
    'https://2130706433/',
    'https://0x7f000001/',
    'https://017700000001/',
    'https://127.1/',
    'https://0.0.0.0/',
    'https://localhost/',
    'https://LOCALHOST./',
    'https://169.254.169.254/latest/meta-data/iam/',
    'https://[fd00:ec2::254]/',
    'https://[::1]/',
    'https://[::ffff:127.0.0.1]/',
    'https://[::ffff:a9fe:a9fe]/',
    'https://10.0.0.1/',
    'https://172.16.5.4/',
    'https://192.168.0.1/',
    'https://100.64.0.1/',
    'https://[fe80::1]/',
    'https://[fc00::1]/',
    'https://224.0.0.1/',
    'http://10.0.0.1/',
    'http://[::1]:9/',
    'http://2130706433:9/',
    'gopher://127.0.0.1:25/',
    'file:///etc/passwd',
    'javascript:alert(1)',
    'https://user:pw@127.0.0.1/',
    `https://${long(2050, 'a')}.example/`,
  ];

  beforeAll(async () => {
    const workspace = await newWorkspace('Hostile Webhook Seller');
    probe = { workspaceId: workspace.workspaceId, key: workspace.keys.pwLive };
    const created = await call('/v1/webhook-endpoints', { method: 'POST', key: probe.key, body: validBody });
    expect(created.status, created.text).toBe(201);
    endpointId = created.json.id as string;
  });

  it(
    `answers malformed bodies, SSRF URLs and wrong event types on ${CREATE_ENDPOINT} with a 4xx in its envelope, and registers nothing`,
    async () => {
      expectClean(
        await tryAll(probe, [
          ...malformedBodyRequests(createRoute),
          ...prototypeKeyRequests(createRoute),
          ...queryAndHeaderRequests(createRoute),
          post(createRoute, 'a 1 MB array as the event types', hugeArrayBody('event_types')),
          ...wrongAt(createRoute, ['url'], ssrfUrls),
          ...wrongAt(createRoute, ['url'], [null, 42, '', long(100_000), ...unusualStrings]),
          ...wrongAt(
            createRoute,
            ['event_types'],
            [[], ['*'], ['price.*'], ['PRICE.APPROVED'], ['price.approved', 'price.approved'], 'price.approved', null],
          ),
          ...wrongAt(createRoute, ['enabled'], ['true', 1, null]),
          ...wrongAt(createRoute, ['description'], [long(257), 42]),
          ...arbitraryBodyRequests(createRoute, 8, 56),
          ...arbitraryKeyRequests(createRoute, [], createRoute.fields, 4, 57),
        ]),
      );
    },
    GROUP_TIMEOUT,
  );

  it(
    `answers malformed changes on ${UPDATE_ENDPOINT} with a 4xx in its envelope, and changes nothing`,
    async () => {
      const target = `/v1/webhook-endpoints/${endpointId}`;
      const patch = (label: string, body: unknown, extra: Extra = {}) =>
        hostile(UPDATE_ENDPOINT, 'PATCH', target, label, { ...extra, ...(body === undefined ? {} : { body: bodyOf(body) }) });
      expectClean(
        await tryAll(probe, [
          ...malformedBodies.map(([label, body]) => patch(label, body)),
          ...prototypeBodies().map(([label, body]) => patch(label, body)),
          patch('no body', undefined),
          patch('an empty object', {}),
          patch('a body over 10 MB', overTenMegabytes(), { outcome: tooLarge }),
          ...ssrfUrls.map((url) => patch(`url = ${url.slice(0, 50)}`, { url })),
          ...['__proto__', 'constructor', 'secret', 'status', 'failing_since'].map((key) =>
            patch(
              `${key} beside a valid change`,
              own([
                ['enabled', true],
                [key, { polluted: true }],
              ]),
            ),
          ),
          ...[[], ['*'], null, 'batch.drained'].map((eventTypes) =>
            patch(`event_types = ${jsonText(eventTypes)}`, { event_types: eventTypes }),
          ),
        ]),
      );
    },
    GROUP_TIMEOUT,
  );

  it(
    'answers hostile endpoint ids in the path of every endpoint route with a 4xx in its envelope, and writes nothing',
    async () => {
      const targetFor = (segment: string) => `/v1/webhook-endpoints/${segment}`;
      expectClean(
        await tryAll(probe, [
          ...segmentRequests(GET_ENDPOINT, 'GET', targetFor, {}, 58),
          ...segmentRequests(UPDATE_ENDPOINT, 'PATCH', targetFor, { body: jsonText({ enabled: false }) }, 59),
          ...segmentRequests(DELETE_ENDPOINT, 'DELETE', targetFor, {}, 60),
          ...segmentRequests(ROTATE_SECRET, 'POST', (segment) => `${targetFor(segment)}/rotate-secret`, {}, 61),
          hostile(GET_ENDPOINT, 'GET', targetFor(endpointId.toLowerCase()), 'the id in lower case'),
          hostile(DELETE_ENDPOINT, 'DELETE', targetFor(`${endpointId}%00`), 'the id and an escaped NUL'),
          hostile(ROTATE_SECRET, 'POST', `${targetFor(endpointId)}/rotate-secret`, 'a body on a rotation', {
            body: jsonText({ secret: 'whsec_x' }),
          }),
          hostile(ROTATE_SECRET, 'POST', `${targetFor(endpointId)}/rotate-secret`, 'a malformed body on a rotation', { body: '{' }),
          hostile(GET_ENDPOINT, 'GET', targetFor(endpointId), 'a body over 10 MB on a GET', {
            body: overTenMegabytes(),
            outcome: tooLarge,
          }),
          hostile(DELETE_ENDPOINT, 'DELETE', targetFor(endpointId), 'a body over 10 MB on a DELETE', {
            body: overTenMegabytes(),
            outcome: tooLarge,
          }),
          hostile(ROTATE_SECRET, 'POST', `${targetFor(endpointId)}/rotate-secret`, 'a body over 10 MB on a rotation', {
            body: overTenMegabytes(),
            outcome: tooLarge,
          }),
        ]),
      );
    },
    GROUP_TIMEOUT,
  );

  it(
    `answers hostile query strings and headers on ${LIST_ENDPOINTS} as without them`,
    async () => {
      const listed = await call('/v1/webhook-endpoints', { key: probe.key });
      const same: Outcome = { answered: 200, json: listed.json };
      const target = '/v1/webhook-endpoints';
      expectClean(
        await tryAll(probe, [
          ...['__proto__=x', 'constructor=x', 'limit=-1', `a=${long(8000)}`, '%E0%A4%A=%', 'status[]=disabled'].map((query) =>
            hostile(LIST_ENDPOINTS, 'GET', `${target}?${query}`, `?${query.slice(0, 40)}`, { outcome: same }),
          ),
          hostile(LIST_ENDPOINTS, 'GET', target, 'a JSON body on a GET', { body: '{"__proto__":{"polluted":true}}', outcome: same }),
          hostile(LIST_ENDPOINTS, 'GET', target, 'an 8 KB header', { headers: [['X-Hostile', long(8000)]], outcome: same }),
          hostile(LIST_ENDPOINTS, 'GET', target, 'a body over 10 MB on a GET', { body: overTenMegabytes(), outcome: tooLarge }),
          hostile(LIST_ENDPOINTS, 'GET', target, 'a 20 KB header', { headers: [['X-Hostile', long(20_000)]], outcome: headersTooLarge }),
        ]),
      );
    },
    GROUP_TIMEOUT,
  );
});

describe('the webhook delivery routes', () => {
  let probe: Probe;
  let endpointId: string;

  beforeAll(async () => {
    const workspace = await newWorkspace('Hostile Delivery Seller');
    probe = { workspaceId: workspace.workspaceId, key: workspace.keys.pwLive };
    const created = await call('/v1/webhook-endpoints', {
      method: 'POST',
      key: probe.key,
      body: { url: 'http://127.0.0.1:9/hostile', event_types: ['price.approved'] },
    });
    expect(created.status, created.text).toBe(201);
    endpointId = created.json.id as string;
  });

  it(
    `answers hostile query strings on ${LIST_DELIVERIES} with a 400 in its envelope, and hostile headers and bodies as without them`,
    async () => {
      const target = `/v1/webhook-endpoints/${endpointId}/deliveries`;
      const same: Outcome = { answered: 200, json: (await call(target, { key: probe.key })).json };
      const cursorOf = (text: string) => Buffer.from(text).toString('base64url');
      const queries: Array<[string, string]> = [
        ['an unknown parameter', 'foo=1'],
        ['?__proto__=x', '__proto__=x'],
        ['?constructor=x', 'constructor=x'],
        ['__proto__ with an index', '__proto__%5Bpolluted%5D=1'],
        ['limit 0', 'limit=0'],
        ['limit -1', 'limit=-1'],
        ['limit 101', 'limit=101'],
        ['limit 1e2', 'limit=1e2'],
        ['limit 1.5', 'limit=1.5'],
        ['limit with a sign', 'limit=%2B5'],
        ['limit in hex', 'limit=0x10'],
        ['limit empty', 'limit='],
        ['limit without a value', 'limit'],
        ['limit repeated', 'limit=1&limit=2'],
        ['limit with full-width digits', 'limit=%EF%BC%95'],
        ['limit with an escaped NUL', 'limit=5%00'],
        ['limit of 8,000 digits', `limit=${long(8000, '9')}`],
        ['status unknown', 'status=failed'],
        ['status in capitals', 'status=PARKED'],
        ['status=__proto__', 'status=__proto__'],
        ['status as an array', 'status%5B%5D=parked'],
        ['status repeated', 'status=parked&status=pending'],
        ['starting_after empty', 'starting_after='],
        ['starting_after not base64url', 'starting_after=%2B%2F%3D'],
        ['starting_after of 8,000 characters', `starting_after=${long(8000, 'A')}`],
        [
          'starting_after naming another key',
          `starting_after=${cursorOf('ATTEMPT#2026-01-01T00:00:00.000Z#evt_0000000000000000000000#001')}`,
        ],
        ['starting_after naming another partition', `starting_after=${cursorOf('WS#ws_x#WHDELIVERIES#we_y')}`],
        ['starting_after with a NUL inside', `starting_after=${cursorOf('2026-01-01T00:00:00.000Z#evt_0000000000000000000000\u0000')}`],
        ['starting_after a malformed escape', 'starting_after=%E0%A4%A'],
        ['a parameter with a malformed name', '%zz=1'],
      ];
      expectClean(
        await tryAll(probe, [
          ...queries.map(([label, query]) => hostile(LIST_DELIVERIES, 'GET', `${target}?${query}`, label)),
          hostile(LIST_DELIVERIES, 'GET', target, 'a JSON body on a GET', { body: '{"__proto__":{"polluted":true}}', outcome: same }),
          hostile(LIST_DELIVERIES, 'GET', target, 'an 8 KB header', { headers: [['X-Hostile', long(8000)]], outcome: same }),
          hostile(LIST_DELIVERIES, 'GET', target, 'a body over 10 MB on a GET', { body: overTenMegabytes(), outcome: tooLarge }),
          hostile(LIST_DELIVERIES, 'GET', target, 'a 20 KB header', { headers: [['X-Hostile', long(20_000)]], outcome: headersTooLarge }),
        ]),
      );
    },
    GROUP_TIMEOUT,
  );

  it(
    'answers hostile endpoint and event ids in the paths of the delivery routes with a 4xx in its envelope, and sends nothing',
    async () => {
      const deliveriesOf = (segment: string) => `/v1/webhook-endpoints/${segment}/deliveries`;
      const redeliverAt = (endpoint: string, event: string) => `/v1/webhook-endpoints/${endpoint}/deliveries/${event}/redeliver`;
      expectClean(
        await tryAll(probe, [
          ...segmentRequests(LIST_DELIVERIES, 'GET', deliveriesOf, {}, 62),
          ...segmentRequests(REDELIVER, 'POST', (segment) => redeliverAt(segment, UNKNOWN_EVENT), {}, 63),
          ...segmentRequests(REDELIVER, 'POST', (segment) => redeliverAt(endpointId, segment), {}, 64),
          hostile(REDELIVER, 'POST', redeliverAt(endpointId, UNKNOWN_EVENT), 'an event id shaped right and no event’s'),
          hostile(REDELIVER, 'POST', redeliverAt(endpointId, UNKNOWN_EVENT.toUpperCase()), 'the event id in capitals'),
          hostile(REDELIVER, 'POST', redeliverAt(endpointId, `${UNKNOWN_EVENT}%00`), 'the event id and an escaped NUL'),
          hostile(REDELIVER, 'POST', redeliverAt(endpointId, UNKNOWN_EVENT), 'a body on a redelivery', {
            body: jsonText({ eventId: 'x' }),
          }),
          hostile(REDELIVER, 'POST', redeliverAt(endpointId, UNKNOWN_EVENT), 'a malformed body on a redelivery', { body: '{' }),
          hostile(REDELIVER, 'POST', redeliverAt(endpointId, UNKNOWN_EVENT), 'a body over 10 MB on a redelivery', {
            body: overTenMegabytes(),
            outcome: tooLarge,
          }),
          hostile(LIST_DELIVERIES, 'GET', deliveriesOf(endpointId.toLowerCase()), 'the endpoint id in lower case'),
        ]),
      );
    },
    GROUP_TIMEOUT,
  );
});

describe('paths no route serves', () => {
  let probe: Probe;

  beforeAll(async () => {
    const workspace = await newWorkspace('Hostile Path Seller');
    probe = { workspaceId: workspace.workspaceId, key: workspace.keys.connector };
  });

  it(
    'answers every unknown path and method with a 404 in the envelope of its surface, and writes nothing',
    async () => {
      const uuid = '00000000-0000-4000-8000-000000000000';
      const paths: Array<[string, string, Outcome?]> = [
        ['GET', '/'],
        ['GET', '/api'],
        ['GET', '/api/v1'],
        ['GET', '/api/v1/'],
        ['POST', '/api/v2/prices'],
        ['POST', '/API/V1/PRICES'],
        ['POST', '/api/v1/prices/'],
        ['GET', '/api/v1/prices'],
        ['PUT', '/api/v1/prices'],
        ['DELETE', '/api/v1/ingest/batches'],
        ['PATCH', '/api/v1/writebacks/claim'],
        ['OPTIONS', '/api/v1/prices'],
        ['POST', '/api/v1/ingest/batches/'],
        ['POST', `/api/v1/ingest/batches%2F${uuid}%2Fcommit`],
        ['GET', `/api/v1/ingest/batches/${uuid}/records`],
        ['POST', '/api/v1/writebacks//extend'],
        ['POST', '/api/v1/writebacks/claim/'],
        ['GET', '/v1'],
        ['GET', '/v1/'],
        ['GET', '/v1/prices'],
        ['GET', '/v1/prices/'],
        ['GET', '/v1/prices/a/b'],
        ['POST', `/v1/prices/${SKU}`],
        ['DELETE', `/v1/prices/${SKU}`],
        ['POST', '/v1/prices/approve/now'],
        ['GET', '/%'],
        ['GET', '/%zz'],
        ['GET', '/%E0%A4%A'],
        ['GET', '/v1/%E0%A4%A'],
        ['GET', '/api/v1/%2e%2e/%2e%2e/%2e%2e/etc/passwd'],
        ['GET', '/..%2F..%2Fetc%2Fpasswd'],
        ['GET', '/api/v1/./../../v1/nothing'],
        ['GET', `/api/v1/${long(5000)}`],
        ['GET', `/v1/${long(5000)}`],
        ['GET', '*'],
        ['POST', '//evil.example/api/v1/ingest/batches'],
        ['POST', '//api/v1/ingest/batches'],
        ['FOO', '/api/v1/prices', badRequestLine],
        ['GET', `/api/v1/${long(20_000)}`, headersTooLarge],
      ];
      const arbitrary = samples(arbitraryText(20), 8, 60).flatMap((text, index): Array<[string, string]> => [
        ['GET', `/api/v1/${encodeSegment(text)}`],
        ['POST', `/v1/${encodeSegment(text)}`],
        ['GET', `/${encodeSegment(text)}?__proto__=${index}`],
      ]);
      expectClean(
        await tryAll(probe, [
          ...paths.map(([method, target, outcome]) =>
            hostile(FALLBACK, method, target, 'an unknown path or method', outcome ? { outcome } : {}),
          ),
          ...arbitrary.map(([method, target]) => hostile(FALLBACK, method, target, 'an arbitrary unknown path')),
          hostile(FALLBACK, 'POST', '/api/v1/nothing', 'a malformed body', { body: '{' }),
          hostile(FALLBACK, 'POST', '/v1/nothing', 'a prototype body', { body: '{"__proto__":{"polluted":true}}' }),
          hostile(FALLBACK, 'POST', '/api/v1/nothing', 'a body over 10 MB', { body: overTenMegabytes(), outcome: tooLarge }),
          hostile(FALLBACK, 'GET', '/v1/nothing', 'no Authorization header', { authorization: null }),
          hostile(FALLBACK, 'GET', '/api/v1/nothing', 'a garbage Authorization header', { authorization: 'Bearer ../../etc/passwd' }),
        ]),
      );
    },
    GROUP_TIMEOUT,
  );
});

describe('the reference page files', () => {
  let probe: Probe;

  beforeAll(async () => {
    const workspace = await newWorkspace('Hostile Reference Seller');
    probe = { workspaceId: workspace.workspaceId, key: workspace.keys.connector };
  });

  it(
    'answers every name that is not one of its files with a 404 in the v1 envelope, serving nothing else of the package',
    async () => {
      const names = [
        'redoc.standalone.js.map',
        'redoc.standalone.js.LICENSE.txt',
        'REDOC.STANDALONE.JS',
        'redoc.standalone.js%00',
        'api-reference.js%20',
        'api-reference.ts',
        'index.mjs',
        'package.json',
        'reference%2Fapi-reference.js',
        '..%2Freference%2Fapi-reference.js',
        '%2e%2e%2f%2e%2e%2fpackage.json',
        '__proto__',
        'constructor',
        'hasOwnProperty',
      ];
      expectClean(
        await tryAll(probe, [
          ...names.map((name) => hostile(REFERENCE_FILE, 'GET', `/docs/${name}`, `the name ${name}`)),
          ...segmentRequests(REFERENCE_FILE, 'GET', (segment) => `/docs/${segment}`, {}, 90),
        ]),
      );
    },
    GROUP_TIMEOUT,
  );
});

describe('garbage Authorization headers', () => {
  let workspace: TestWorkspace;
  let taskId: string;
  let batchId: string;

  beforeAll(async () => {
    const seeded = await seededWorkspace('Hostile Key Seller');
    workspace = seeded.workspace;
    taskId = seeded.taskId;
    await leaseTask(workspace, taskId);
    batchId = await openBatch(workspace);
    await readRecommendation(workspace);
  });

  /** A request each route takes from its own key: sent with anything else in Authorization, it must be refused. */
  function validRequest(id: KeyedRouteId): { target: string; body?: string; headers?: Array<readonly [string, string]> } {
    switch (id) {
      case 'priceLines':
        return { target: '/api/v1/prices', body: jsonText({ lines: [{ productSku: SKU, quantity: 1 }] }), headers: nextIdempotencyKey() };
      case 'openBatch':
        return { target: '/api/v1/ingest/batches' };
      case 'stageRecords':
        return { target: `/api/v1/ingest/batches/${batchId}/records`, body: jsonText({ entity: 'product', records: [productRecord()] }) };
      case 'batchStatus':
        return { target: `/api/v1/ingest/batches/${batchId}` };
      case 'commitBatch':
        return { target: `/api/v1/ingest/batches/${batchId}/commit` };
      case 'cancelBatch':
        return { target: `/api/v1/ingest/batches/${batchId}/cancel` };
      case 'listBatches':
        return { target: '/api/v1/ingest/batches?status=open' };
      case 'claimWritebacks':
        return { target: '/api/v1/writebacks/claim', body: jsonText({ limit: 1 }) };
      case 'ackWritebacks':
        return { target: '/api/v1/writebacks/ack', body: jsonText({ results: [{ id: taskId, ok: true }] }) };
      case 'extendWriteback':
        return { target: `/api/v1/writebacks/${taskId}/extend`, body: jsonText({ leaseSeconds: 60 }) };
      case 'getPrice':
        return { target: `/v1/prices/${SKU}` };
      case 'approvePrice':
        return { target: '/v1/prices/approve', body: jsonText({ sku: SKU, price: 12 }) };
      case 'listPriceApprovals':
        return { target: `/v1/prices/${SKU}/approvals` };
      case 'getUsage':
        return { target: '/v1/usage' };
      case 'getAdherence':
        return { target: '/v1/analytics/adherence' };
      case 'createWebhookEndpoint':
        return {
          target: '/v1/webhook-endpoints',
          body: jsonText({ url: 'https://hooks.example.com/in', event_types: ['price.approved'] }),
        };
      case 'listWebhookEndpoints':
        return { target: '/v1/webhook-endpoints' };
      case 'getWebhookEndpoint':
      case 'deleteWebhookEndpoint':
        return { target: `/v1/webhook-endpoints/${UNKNOWN_ENDPOINT}` };
      case 'updateWebhookEndpoint':
        return { target: `/v1/webhook-endpoints/${UNKNOWN_ENDPOINT}`, body: jsonText({ enabled: false }) };
      case 'rotateWebhookSecret':
        return { target: `/v1/webhook-endpoints/${UNKNOWN_ENDPOINT}/rotate-secret` };
      case 'listWebhookDeliveries':
        return { target: `/v1/webhook-endpoints/${UNKNOWN_ENDPOINT}/deliveries` };
      case 'redeliverWebhookEvent':
        return { target: `/v1/webhook-endpoints/${UNKNOWN_ENDPOINT}/deliveries/${UNKNOWN_EVENT}/redeliver` };
    }
  }

  const keyedRoutes = routes.filter((route) => route.auth !== 'none');
  it.each(keyedRoutes.map((route, index) => [routeKey(route), route, index] as const))(
    'refuses garbage in Authorization on %s with a 4xx in its envelope, never echoing it, and writes nothing',
    async (endpoint, route, index) => {
      const overview = route.auth.family !== 'svc_live';
      const key = overview
        ? workspace.keys.pwLive
        : (route.auth.scopes as readonly string[]).includes('erp')
          ? workspace.keys.erp
          : workspace.keys.connector;
      const otherFamily = overview ? workspace.keys.connector : workspace.keys.pwLive;
      const otherScope = overview ? undefined : key === workspace.keys.erp ? workspace.keys.connector : workspace.keys.erp;
      const prefix = key.slice(0, key.length - 40);
      const request = validRequest(route.id);
      const arbitrary = samples(arbitraryText(40), 3, 70 + index).map((text) => text.replace(/[\r\n]/g, ''));
      const authorizations: Array<[string, string | string[] | null, Outcome?]> = [
        ['no Authorization header', null],
        ['an empty Authorization header', ''],
        ['the scheme alone', 'Bearer'],
        ['the scheme and spaces', 'Bearer    '],
        ['Basic credentials', `Basic ${Buffer.from(`${key}:`).toString('base64')}`],
        ['another scheme', `Token ${key}`],
        ['the key and more', `Bearer ${key} extra`],
        ['the header twice', [`Bearer ${key}`, `Bearer ${key}`]],
        ['the key one character short', `Bearer ${key.slice(0, -1)}`],
        ['the key in capitals', `Bearer ${key.toUpperCase()}`],
        ['a key of the other surface', `Bearer ${otherFamily}`],
        ['a well-formed key no one was issued', `Bearer ${prefix}${'A'.repeat(40)}`],
        ['Latin-1 in the key', `Bearer ${prefix}${'\u00e9'.repeat(40)}`],
        ['the key and a NUL', `Bearer ${key}\u0000`, badRequestLine],
        ['an 8,000-character key', `Bearer ${prefix}${long(8000, 'A')}`],
        ['a path as the key', 'Bearer ../../../../etc/passwd'],
        ['JSON as the key', 'Bearer {"__proto__":{"admin":true}}'],
        ...(otherScope ? [['a key without the scope', `Bearer ${otherScope}`] as [string, string]] : []),
        ...arbitrary.map((text, at) => [`arbitrary text #${at} as the key`, `Bearer ${text}`, badRequestLine] as [string, string, Outcome]),
      ];
      const requests = authorizations.map(([label, authorization, outcome]) =>
        hostile(endpoint, route.method, request.target, label, {
          authorization,
          ...(request.body === undefined ? {} : { body: request.body }),
          headers: route.id === 'priceLines' ? nextIdempotencyKey() : [],
          ...(outcome ? { outcome } : {}),
        }),
      );
      expectClean(await tryAll({ workspaceId: workspace.workspaceId, key }, requests));
    },
    GROUP_TIMEOUT,
  );
});

describe('coverage', () => {
  it('has tried hostile input on every route of the route table that takes input and on paths no route serves', () => {
    const tried = triedPerEndpoint();
    // An open route reads no key, query or body: only a path parameter, where it has one, can carry hostile input.
    const takesInput = routes.filter((route) => (route.auth !== 'none' || route.path.includes('{')) && !(route.id in triedInOwnFile));
    for (const route of takesInput) expect(tried.get(routeKey(route)) ?? 0, routeKey(route)).toBeGreaterThanOrEqual(MIN_TRIED_PER_ROUTE);
    expect(tried.get(FALLBACK) ?? 0).toBeGreaterThanOrEqual(30);
  });
});
