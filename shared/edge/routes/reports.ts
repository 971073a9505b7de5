// The route rows of reports: a workspace's usage and cost, and how closely its prices follow the recommendations.
import type { HttpRoute } from './rows.ts';

export const reportRoutes = [
  {
    id: 'getUsage',
    method: 'GET',
    path: '/v1/usage',
    entry: 'functions/reports/get-usage.ts',
    surface: 'overview',
    auth: { family: 'pw_live', scopes: [], feature: 'overview' },
    memoryMb: 256,
    timeoutSeconds: 10,
    // Read and write: the overview's rate window is a write.
    access: { table: 'readWrite' },
  },
  {
    id: 'getAdherence',
    method: 'GET',
    path: '/v1/analytics/adherence',
    entry: 'functions/reports/get-adherence.ts',
    surface: 'overview',
    auth: { family: 'pw_live', scopes: [], feature: 'overview' },
    memoryMb: 256,
    timeoutSeconds: 10,
    // Read and write: the overview's rate window is a write.
    access: { table: 'readWrite' },
  },
] as const satisfies readonly HttpRoute[];
