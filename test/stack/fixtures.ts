// Rows the route table does not have yet, of every access shape, pointing at existing handlers so stacks can be built around them.
import type { HttpRoute, QueueWorker } from '#edge/routes.ts';
import type { AccessPattern } from '#platform/table/access-patterns.ts';

export const fakeWorker: QueueWorker = {
  id: 'drainBatches',
  queue: 'drain',
  entry: 'functions/ingest/open-batch.ts',
  batchSize: 10,
  maxConcurrency: 3,
  memoryMb: 512,
  access: { table: 'readWrite' },
};

export const fakeReadRoute: HttpRoute = {
  id: 'readAndEnqueue',
  method: 'GET',
  path: '/api/v1/test/{thingId}',
  entry: 'functions/ingest/open-batch.ts',
  surface: 'v1',
  auth: { family: 'svc_live', scopes: [] },
  memoryMb: 256,
  timeoutSeconds: 5,
  access: { table: 'read', sendTo: ['drain'] },
};

/** The table calls of the rows above, as the catalogue would list them: the stack grants these and no others. */
export const fakePatterns: readonly AccessPattern[] = [
  {
    name: 'Test: read a thing by its id, and find it through an index',
    usedBy: [fakeReadRoute.id],
    call: 'GetItem; Query on the lookup index',
    calls: ['GetItem', 'Query index'],
    key: 'thing(thingId)',
    cost: '0.5 RRU',
  },
  {
    name: 'Test: a worker writes what it drains',
    usedBy: [fakeWorker.id],
    call: 'PutItem',
    calls: ['PutItem'],
    key: 'thing(thingId)',
    cost: '1 WRU',
  },
];
