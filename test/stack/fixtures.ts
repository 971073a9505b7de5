// Rows the route table does not have yet, of every access shape, pointing at existing handlers so stacks can be built around them.
import type { HttpRoute, QueueWorker } from '#edge/routes.ts';

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
