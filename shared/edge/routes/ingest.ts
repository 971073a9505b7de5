// The route rows of ingest: a connector opens a batch, stages its records, commits or cancels it, reads its status and lists its batches.
import type { HttpRoute } from './rows.ts';

export const ingestRoutes = [
  {
    id: 'openBatch',
    method: 'POST',
    path: '/api/v1/ingest/batches',
    entry: 'functions/ingest/open-batch.ts',
    surface: 'v1',
    auth: { family: 'svc_live', scopes: ['connector'] },
    memoryMb: 256,
    timeoutSeconds: 10,
    access: { table: 'readWrite' },
  },
  {
    id: 'stageRecords',
    method: 'POST',
    path: '/api/v1/ingest/batches/{batchId}/records',
    entry: 'functions/ingest/stage-records.ts',
    surface: 'v1',
    auth: { family: 'svc_live', scopes: ['connector'] },
    // Up to 1,000 records parsed, checked and compressed per call: memory buys CPU on Lambda.
    memoryMb: 1024,
    timeoutSeconds: 29,
    access: { table: 'readWrite' },
  },
  {
    id: 'batchStatus',
    method: 'GET',
    path: '/api/v1/ingest/batches/{batchId}',
    entry: 'functions/ingest/batch-status.ts',
    surface: 'v1',
    auth: { family: 'svc_live', scopes: ['connector'] },
    memoryMb: 256,
    timeoutSeconds: 10,
    // Read and write: an open batch past its life is recorded as failed the first time its status is read.
    access: { table: 'readWrite', sendTo: ['webhooks'] },
  },
  {
    id: 'commitBatch',
    method: 'POST',
    path: '/api/v1/ingest/batches/{batchId}/commit',
    entry: 'functions/ingest/commit-batch.ts',
    surface: 'v1',
    auth: { family: 'svc_live', scopes: ['connector'] },
    memoryMb: 256,
    timeoutSeconds: 10,
    access: { table: 'readWrite', sendTo: ['drain', 'webhooks'] },
  },
  {
    id: 'cancelBatch',
    method: 'POST',
    path: '/api/v1/ingest/batches/{batchId}/cancel',
    entry: 'functions/ingest/cancel-batch.ts',
    surface: 'v1',
    auth: { family: 'svc_live', scopes: ['connector'] },
    memoryMb: 256,
    // Deletes what the batch staged: up to a few hundred chunk items for the largest batches.
    timeoutSeconds: 29,
    access: { table: 'readWrite', sendTo: ['webhooks'] },
  },
  {
    id: 'listBatches',
    method: 'GET',
    path: '/api/v1/ingest/batches',
    entry: 'functions/ingest/list-batches.ts',
    surface: 'v1',
    auth: { family: 'svc_live', scopes: ['connector'] },
    memoryMb: 256,
    timeoutSeconds: 10,
    access: { table: 'read' },
  },
] as const satisfies readonly HttpRoute[];
