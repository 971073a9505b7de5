// The route rows of prices: the API's price call, and the overview's price, its approval and its approval history.
import type { HttpRoute } from './rows.ts';

export const priceRoutes = [
  {
    id: 'priceLines',
    method: 'POST',
    path: '/api/v1/prices',
    entry: 'functions/prices/price-lines.ts',
    surface: 'v1',
    auth: { family: 'svc_live', scopes: ['erp', 'storefront'], featureOfScope: { storefront: 'storefront' } },
    // Memory buys CPU on Lambda: 100 lines priced, serialised and compressed stay within a few tens of milliseconds.
    memoryMb: 1024,
    timeoutSeconds: 10,
    access: { table: 'readWrite' },
  },
] as const satisfies readonly HttpRoute[];

/** The overview's: the table lists them after the write-backs, with the rest of the overview's routes. */
export const overviewPriceRoutes = [
  {
    id: 'getPrice',
    method: 'GET',
    path: '/v1/prices/{sku}',
    entry: 'functions/prices/get-price.ts',
    surface: 'overview',
    auth: { family: 'pw_live', scopes: [], feature: 'overview' },
    memoryMb: 256,
    timeoutSeconds: 10,
    // Read and write: the overview's rate window is a write.
    access: { table: 'readWrite' },
  },
  {
    id: 'approvePrice',
    method: 'POST',
    path: '/v1/prices/approve',
    entry: 'functions/prices/approve-price.ts',
    surface: 'overview',
    auth: { family: 'pw_live', scopes: [], feature: 'overview' },
    // A retried approval must not publish twice.
    idempotency: 'stored',
    memoryMb: 256,
    timeoutSeconds: 10,
    access: { table: 'readWrite', sendTo: ['webhooks'] },
  },
  {
    id: 'listPriceApprovals',
    method: 'GET',
    path: '/v1/prices/{sku}/approvals',
    entry: 'functions/prices/list-price-approvals.ts',
    surface: 'overview',
    auth: { family: 'pw_live', scopes: [], feature: 'overview' },
    memoryMb: 256,
    timeoutSeconds: 10,
    // Read and write: the overview's rate window is a write.
    access: { table: 'readWrite' },
  },
] as const satisfies readonly HttpRoute[];
