// The route rows of write-backs: a connector claims approved prices to write to its system, acknowledges and extends them.
import type { HttpRoute } from './rows.ts';

export const writebackRoutes = [
  {
    id: 'claimWritebacks',
    method: 'POST',
    path: '/api/v1/writebacks/claim',
    entry: 'functions/writebacks/claim-writebacks.ts',
    surface: 'v1',
    auth: { family: 'svc_live', scopes: ['connector'], feature: 'writebacks' },
    memoryMb: 256,
    timeoutSeconds: 10,
    access: { table: 'readWrite' },
  },
  {
    id: 'ackWritebacks',
    method: 'POST',
    path: '/api/v1/writebacks/ack',
    entry: 'functions/writebacks/ack-writebacks.ts',
    surface: 'v1',
    auth: { family: 'svc_live', scopes: ['connector'], feature: 'writebacks' },
    // Up to 500 results, each a transaction when it applies a price: memory buys the CPU and sockets to run them.
    memoryMb: 512,
    timeoutSeconds: 29,
    access: { table: 'readWrite', sendTo: ['webhooks'] },
  },
  {
    id: 'extendWriteback',
    method: 'POST',
    path: '/api/v1/writebacks/{id}/extend',
    entry: 'functions/writebacks/extend-writeback.ts',
    surface: 'v1',
    auth: { family: 'svc_live', scopes: ['connector'], feature: 'writebacks' },
    memoryMb: 256,
    timeoutSeconds: 10,
    access: { table: 'readWrite' },
  },
] as const satisfies readonly HttpRoute[];
