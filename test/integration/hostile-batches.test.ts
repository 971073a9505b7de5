// Hostile input on listing and cancelling batches, bodies labelled as anything but JSON on every route that reads a body, and wrong methods on known paths: each refused in its surface's envelope with nothing written.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type HttpRoute, routeKey, routes } from '#edge/routes.ts';
import {
  endpointOf,
  FALLBACK,
  type HostileRequest,
  MIN_TRIED_PER_ROUTE,
  type Outcome,
  type Probe,
  tallyTable,
  triedInOwnFile,
  triedPerEndpoint,
  tryAll,
} from './hostile-input-support.ts';
import {
  encodeSegment,
  foreignContentTypes,
  hostileSegments,
  jsonText,
  long,
  malformedBodies,
  overTenMegabytes,
  prototypeBodies,
  unusualStrings,
} from './hostile-input-values.ts';
import { connectorCaller, openTestBatch, sampleProducts, stage, type TestBatch } from './ingest-support.ts';
import { newWorkspace, type TestWorkspace } from './support.ts';

const LIST = endpointOf('listBatches');
const CANCEL = endpointOf('cancelBatch');
const GROUP_TIMEOUT = 240_000;
/** API Gateway's own refusal of a body over 10 MB, outside the envelope. */
const tooLarge: Outcome = { refused: true, outside: [413] };

let workspace: TestWorkspace;
let probe: Probe;
let batch: TestBatch;

beforeAll(async () => {
  workspace = await newWorkspace('Hostile Batches Seller');
  const caller = connectorCaller(workspace);
  probe = { workspaceId: workspace.workspaceId, key: caller.key };
  // An open batch with staged records: a cancel let through would discard them, which the check of writes would see.
  batch = await openTestBatch(caller);
  expect((await stage(batch, { entity: 'product', records: sampleProducts(2) })).status).toBe(202);
}, 60_000);

afterAll(() => {
  console.log(`\nHostile requests tried per endpoint in this file:\n${tallyTable()}\n`);
});

function listRequest(label: string, query: string): HostileRequest {
  return { endpoint: LIST, label, method: 'GET', target: `/api/v1/ingest/batches?${query}` };
}

function cancelRequest(label: string, extra: Partial<HostileRequest> = {}, batchId = batch.batchId): HostileRequest {
  return { endpoint: CANCEL, label, method: 'POST', target: `/api/v1/ingest/batches/${batchId}/cancel`, ...extra };
}

describe('listing and cancelling batches, under hostile input', () => {
  it(
    `answers hostile limits, statuses, cursors and parameters on ${LIST} with a 4xx in its envelope, and writes nothing`,
    async () => {
      const limits = ['-1', '0', '1e2', '0x10', ' 5', '5 ', '101', '1.5', long(5000, '9'), '%00', ''];
      const statuses = ['cancelled', 'OPEN', 'open,failed', '', ' open', 'open%00', long(300), ...unusualStrings.slice(0, 8)];
      const cursors = [long(5000), 'bm90LWEtY3Vyc29y', encodeSegment('../../etc/passwd'), '%00', encodeSegment('\ud800'), ''];
      const requests: HostileRequest[] = [
        ...limits.map((limit) => listRequest(`limit ${JSON.stringify(limit).slice(0, 40)}`, `limit=${encodeURIComponent(limit)}`)),
        ...statuses.map((status) => listRequest(`status ${JSON.stringify(status).slice(0, 40)}`, `status=${encodeSegment(status)}`)),
        ...cursors.map((cursor) => listRequest(`cursor of ${cursor.length} characters`, `starting_after=${cursor}`)),
        ...['__proto__', 'constructor', 'order', 'limit[]', 'STATUS'].map((name) =>
          listRequest(`parameter ${name}`, `${encodeURIComponent(name)}=1`),
        ),
        listRequest('status repeated', 'status=open&status=failed'),
        { ...listRequest('a body over 10 MB on a GET', 'limit=1'), body: overTenMegabytes(), outcome: tooLarge },
        listRequest('limit repeated', 'limit=1&limit=2'),
      ];
      expect(requests.length).toBeGreaterThanOrEqual(MIN_TRIED_PER_ROUTE);
      expect(await tryAll(probe, requests)).toEqual({ problems: [], writes: [] });
    },
    GROUP_TIMEOUT,
  );

  it(
    `answers hostile batch ids and bodies on ${CANCEL} with a 4xx in its envelope, and cancels nothing`,
    async () => {
      const requests: HostileRequest[] = [
        ...hostileSegments.map(([label, segment]) => cancelRequest(`batch id: ${label}`, {}, segment)),
        ...unusualStrings.map((text) => cancelRequest(`batch id ${JSON.stringify(text).slice(0, 30)}`, {}, encodeSegment(text))),
        cancelRequest('the batch id in capitals', {}, batch.batchId.toUpperCase()),
        ...malformedBodies.map(([label, body]) => cancelRequest(label, { body })),
        ...prototypeBodies().map(([label, body]) => cancelRequest(label, { body })),
        cancelRequest('a field in the body', { body: jsonText({ force: true }) }),
        cancelRequest('a body over 10 MB', { body: overTenMegabytes(), outcome: tooLarge }),
        ...foreignContentTypes(jsonText({})).map(([label, contentType, body]) => cancelRequest(label, { contentType, body })),
      ];
      // `{}` with no label, or labelled as a form, reads as a body: the first is the one the route takes, not hostile.
      const hostile = requests.filter((request) => !(request.body === '{}' && request.contentType === null));
      expect(hostile.length).toBeGreaterThanOrEqual(MIN_TRIED_PER_ROUTE);
      expect(await tryAll(probe, hostile)).toEqual({ problems: [], writes: [] });
    },
    GROUP_TIMEOUT,
  );
});

/** A key each route takes: a connector's, an ERP's or the overview's. */
function keyFor(route: HttpRoute): string {
  if (route.auth === 'none') return '';
  if (route.auth.family !== 'svc_live') return workspace.keys.pwLive;
  return (route.auth.scopes as readonly string[]).includes('connector') ? workspace.keys.connector : workspace.keys.erp;
}

describe('bodies and methods every route meets', () => {
  const bodyRoutes = (routes as readonly HttpRoute[]).filter((route) => route.method === 'POST' || route.method === 'PATCH');

  it(
    'refuses a body labelled as anything but JSON on every route that reads one with 415, and writes nothing',
    async () => {
      const requests = bodyRoutes.flatMap((route) => {
        const target = route.path.replace(/\{[^}]+\}/g, route.path.includes('ingest') ? batch.batchId : 'we_0000000000000000000000');
        return [
          ['text/plain', '{}'],
          ['application/x-www-form-urlencoded', 'a=1'],
          ['application/json; charset=iso-8859-1', '{}'],
        ].map(([contentType, body]) => ({
          endpoint: routeKey(route),
          label: `a body labelled ${contentType}`,
          method: route.method,
          target,
          authorization: `Bearer ${keyFor(route)}`,
          contentType: contentType as string,
          body: body as string,
          headers: route.id === 'priceLines' ? [['Idempotency-Key', `hostile-${contentType}`] as const] : [],
        }));
      });
      const { problems, writes } = await tryAll(probe, requests);
      expect({ problems, writes }).toEqual({ problems: [], writes: [] });
    },
    GROUP_TIMEOUT,
  );

  it(
    'answers a method a known path does not serve with 405 and Allow, whatever the path’s parameters hold',
    async () => {
      const requests: HostileRequest[] = [
        ['DELETE', '/api/v1/ingest/batches'],
        ['PUT', '/api/v1/ingest/batches'],
        ['GET', `/api/v1/ingest/batches/${batch.batchId}/cancel`],
        ['DELETE', `/api/v1/ingest/batches/${batch.batchId}`],
        ['PATCH', `/api/v1/ingest/batches/${encodeSegment('\ud800')}/records`],
        ['OPTIONS', '/api/v1/prices'],
        ['PUT', '/v1/webhook-endpoints'],
        ['POST', '/v1/prices/LAMP/approvals'],
        ['PUT', '/api/v1/writebacks/claim'],
      ].map(([method, target]) => ({
        endpoint: FALLBACK,
        label: `${method} ${target}`,
        method: method as string,
        target: target as string,
      }));
      expect(await tryAll(probe, requests)).toEqual({ problems: [], writes: [] });
    },
    GROUP_TIMEOUT,
  );
});

describe('coverage', () => {
  it('has tried hostile input on each route whose cases live in this file', () => {
    const tried = triedPerEndpoint();
    const own = routes.filter((route) => triedInOwnFile[route.id] === 'hostile-batches.test.ts');
    expect(own.map((route) => route.id).sort()).toEqual(['cancelBatch', 'listBatches']);
    for (const route of own) expect(tried.get(routeKey(route)) ?? 0, routeKey(route)).toBeGreaterThanOrEqual(MIN_TRIED_PER_ROUTE);
  });
});
