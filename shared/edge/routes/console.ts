// The route rows of the console: kept in their own module and list, so that no API function bundles them.
import { type HttpRoute, noAccess } from './rows.ts';

/**
 * A route of the console, the server-rendered pages for people: a row like every other, with a handler in functions/console/,
 * but signed in with a session cookie rather than an API key, answered in HTML, and described by neither OpenAPI
 * document. Kept apart from `routes`, whose rows are the API's contract.
 */
export interface ConsoleRoute extends Omit<HttpRoute, 'surface' | 'auth' | 'method'> {
  readonly method: 'GET' | 'POST';
  readonly surface: 'console';
  /** `session`: the handler reads the console's session cookie itself; `none`: static files open to every caller. */
  readonly auth: 'session' | 'none';
}

/**
 * The console's stylesheet, named by a hash of its content so that browsers may keep it for a year: every console
 * function reads it, the pages to link it by that name.
 */
const consoleFiles = { 'console/console.css': 'shared/edge/console/console.css' } as const;

/**
 * Local mode matches in this order, the first match winning; API Gateway prefers the most specific route, which comes
 * to the same, since the greedy `{path+}` routes come last.
 */
export const consoleRoutes = [
  {
    id: 'consoleAsset',
    method: 'GET',
    path: '/console/assets/{asset}',
    entry: 'functions/console/console-assets.ts',
    surface: 'console',
    auth: 'none',
    memoryMb: 128,
    timeoutSeconds: 5,
    access: noAccess,
    files: consoleFiles,
  },
  {
    id: 'consoleSignInPage',
    method: 'GET',
    path: '/console/sign-in',
    entry: 'functions/console/console-sign-in.ts',
    surface: 'console',
    auth: 'none',
    memoryMb: 256,
    timeoutSeconds: 10,
    access: noAccess,
    files: consoleFiles,
  },
  {
    id: 'consoleSignIn',
    method: 'POST',
    path: '/console/sign-in',
    entry: 'functions/console/console-sign-in.ts',
    surface: 'console',
    auth: 'none',
    // scrypt takes 64 MiB and tens of milliseconds of CPU per password checked: memory buys both.
    memoryMb: 512,
    timeoutSeconds: 10,
    // It counts failed attempts and writes the session it opens.
    access: { table: 'readWrite' },
    files: consoleFiles,
  },
  {
    id: 'consoleSignOut',
    method: 'POST',
    path: '/console/sign-out',
    entry: 'functions/console/console-sign-in.ts',
    surface: 'console',
    auth: 'session',
    memoryMb: 256,
    timeoutSeconds: 10,
    access: { table: 'readWrite' },
    files: consoleFiles,
  },
  // The console's pages are served by four functions, each bundling only its own pages: one function for all of them
  // would pass the bundle-size target. The API Gateway route most specific to a path wins, as local mode's order does.
  {
    id: 'consoleRecommendations',
    method: 'GET',
    path: '/console/recommendations',
    entry: 'functions/console/console-pricing.ts',
    surface: 'console',
    auth: 'session',
    memoryMb: 512,
    timeoutSeconds: 29,
    access: { table: 'readWrite' },
    files: consoleFiles,
  },
  {
    id: 'consoleProduct',
    method: 'GET',
    path: '/console/recommendations/{sku}',
    entry: 'functions/console/console-product.ts',
    surface: 'console',
    auth: 'session',
    memoryMb: 512,
    timeoutSeconds: 29,
    access: { table: 'readWrite' },
    files: consoleFiles,
  },
  {
    id: 'consoleApprove',
    method: 'POST',
    path: '/console/recommendations/{sku}',
    entry: 'functions/console/console-product.ts',
    surface: 'console',
    auth: 'session',
    memoryMb: 512,
    timeoutSeconds: 29,
    // An approval records its webhook events and hands them to the delivery queue, as POST /v1/prices/approve does.
    access: { table: 'readWrite', sendTo: ['webhooks'] },
    files: consoleFiles,
  },
  {
    id: 'consoleBulkApprove',
    method: 'POST',
    path: '/console/recommendations',
    entry: 'functions/console/console-pricing.ts',
    surface: 'console',
    auth: 'session',
    memoryMb: 512,
    // Up to 50 approvals, four at a time, each as consoleApprove makes one.
    timeoutSeconds: 29,
    access: { table: 'readWrite', sendTo: ['webhooks'] },
    files: consoleFiles,
  },
  {
    id: 'consoleSettings',
    method: 'GET',
    path: '/console/settings/{path+}',
    entry: 'functions/console/console-settings.ts',
    surface: 'console',
    auth: 'session',
    memoryMb: 512,
    timeoutSeconds: 29,
    access: { table: 'readWrite' },
    files: consoleFiles,
  },
  {
    id: 'consoleSettingsAction',
    method: 'POST',
    path: '/console/settings/{path+}',
    entry: 'functions/console/console-settings.ts',
    surface: 'console',
    auth: 'session',
    memoryMb: 512,
    timeoutSeconds: 29,
    // A redelivery queues its attempt for the delivery worker. Creating an endpoint and rolling its secret seal a new
    // secret, and revealing one opens it, under the webhook data key; the page's GET shows only what its session sealed.
    access: { table: 'readWrite', sendTo: ['webhooks'], webhookSecrets: true },
    files: consoleFiles,
  },
  {
    id: 'consoleHome',
    method: 'GET',
    path: '/console',
    entry: 'functions/console/console-page.ts',
    surface: 'console',
    auth: 'session',
    memoryMb: 512,
    timeoutSeconds: 29,
    // Read and write: a signed-in request's cost is added to its workspace's ledger.
    access: { table: 'readWrite' },
    files: consoleFiles,
  },
  {
    id: 'consolePage',
    method: 'GET',
    path: '/console/{path+}',
    entry: 'functions/console/console-page.ts',
    surface: 'console',
    auth: 'session',
    memoryMb: 512,
    timeoutSeconds: 29,
    access: { table: 'readWrite' },
    files: consoleFiles,
  },
  {
    id: 'consoleAction',
    method: 'POST',
    path: '/console/{path+}',
    entry: 'functions/console/console-page.ts',
    surface: 'console',
    auth: 'session',
    memoryMb: 256,
    // The reports' pages have no forms: this answers a post to one, or to no page, in the console's own way.
    timeoutSeconds: 10,
    access: { table: 'readWrite' },
    files: consoleFiles,
  },
] as const satisfies readonly ConsoleRoute[];

export type ConsoleRouteId = (typeof consoleRoutes)[number]['id'];

export function consoleRouteById(id: ConsoleRouteId): ConsoleRoute {
  const route = consoleRoutes.find((candidate) => candidate.id === id);
  if (!route) throw new Error(`no console route ${id}`);
  return route;
}
