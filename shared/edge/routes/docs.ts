// The route rows of the docs: the two OpenAPI documents and the reference page, open to every caller, and the 404 that points to them.
import { type FallbackRoute, type HttpRoute, noAccess } from './rows.ts';

/** What the reference page's functions read: Redoc's standalone bundle, and the page's own script and styles. */
const referenceFiles = {
  'reference/redoc.standalone.js': 'node_modules/redoc/bundles/redoc.standalone.js',
  'reference/api-reference.js': 'shared/edge/reference/api-reference.js',
  'reference/api-reference.css': 'shared/edge/reference/api-reference.css',
} as const;

export const docsRoutes = [
  {
    id: 'openapiV1',
    method: 'GET',
    path: '/api/v1/openapi.json',
    entry: 'functions/docs/openapi-api-v1.ts',
    surface: 'v1',
    auth: 'none',
    memoryMb: 128,
    timeoutSeconds: 5,
    access: noAccess,
  },
  {
    id: 'openapiOverview',
    method: 'GET',
    path: '/v1/openapi.json',
    entry: 'functions/docs/openapi-overview-v1.ts',
    surface: 'overview',
    auth: 'none',
    memoryMb: 128,
    timeoutSeconds: 5,
    access: noAccess,
  },
  {
    id: 'apiReference',
    method: 'GET',
    path: '/docs',
    entry: 'functions/docs/api-reference.ts',
    surface: 'v1',
    auth: 'none',
    memoryMb: 256,
    timeoutSeconds: 10,
    access: noAccess,
    // The page names each file by a hash of its content, so that browsers may keep the files for a year.
    files: referenceFiles,
  },
  {
    id: 'apiReferenceAsset',
    method: 'GET',
    path: '/docs/{asset}',
    entry: 'functions/docs/api-reference.ts',
    surface: 'v1',
    auth: 'none',
    // Memory buys CPU on Lambda: Redoc's megabyte is compressed once per instance, on its first request.
    memoryMb: 256,
    timeoutSeconds: 10,
    access: noAccess,
    files: referenceFiles,
  },
] as const satisfies readonly HttpRoute[];

export const fallbackRoute: FallbackRoute = {
  id: 'routeNotFound',
  entry: 'functions/docs/route-not-found.ts',
  memoryMb: 128,
  timeoutSeconds: 3,
  access: {},
};
