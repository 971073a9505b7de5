// The route table: every HTTP route and queue worker of the service, read by the CDK stack and by local mode alike.
import type { RouteAuth } from '#shared/api-keys/authenticate.ts';
import type { QueueId } from '#platform/queues.ts';

/** What a function may touch; the stack turns it into IAM grants, so each function gets only these. */
export interface RouteAccess {
  readonly table?: 'read' | 'readWrite';
  /** PartiQL UPDATE statements in batches (BatchExecuteStatement): the bands job writes product bands so. */
  readonly tableStatements?: boolean;
  readonly sendTo?: readonly QueueId[];
  /** Dead-letter queues the function may send to: a worker that gives up on a message parks it there itself. */
  readonly sendToDeadLetter?: readonly QueueId[];
  /** Reads the data key that seals webhook signing secrets: the stack grants its one Secrets Manager secret. */
  readonly webhookSecrets?: boolean;
}

export interface HttpRoute {
  readonly id: string;
  readonly method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  /** API Gateway path syntax, e.g. /api/v1/ingest/batches/{batchId}. */
  readonly path: string;
  /** Handler module, relative to the project root; it exports `handler`. */
  readonly entry: string;
  /** Which error envelope the route answers with. */
  readonly surface: 'v1' | 'overview';
  /**
   * The key the route asks for, or `'none'` for a route open to every caller: only what is public anyway (the API's
   * documents and its reference page), touching no table and no queue.
   */
  readonly auth: RouteAuth | 'none';
  readonly memoryMb: number;
  readonly timeoutSeconds: number;
  readonly access: RouteAccess;
  /**
   * Files the handler reads at run time besides its code: the path it reads each under, relative to its bundle, and
   * the file in the project. The stack copies them into the function's package; local mode reads them where they are.
   */
  readonly files?: Readonly<Record<string, string>>;
}

/** Answers every method and path that no route claims: API Gateway's `$default` route. */
export interface FallbackRoute {
  readonly id: string;
  readonly entry: string;
  readonly memoryMb: number;
  readonly timeoutSeconds: number;
  readonly access: RouteAccess;
}

export interface QueueWorker {
  readonly id: string;
  readonly queue: QueueId;
  readonly entry: string;
  readonly batchSize: number;
  /**
   * The most invocations its queue's event source runs at once (SQS event sources take 2 to 1,000): a flood of
   * messages then waits in the queue instead of taking the account's Lambda concurrency from price serving.
   */
  readonly maxConcurrency: number;
  readonly memoryMb: number;
  readonly access: RouteAccess;
}

/** The access of the open routes: they serve what is public and may touch nothing. */
const noAccess: RouteAccess = {};

/** What the reference page's functions read: Redoc's standalone bundle, and the page's own script and styles. */
const referenceFiles = {
  'reference/redoc.standalone.js': 'node_modules/redoc/bundles/redoc.standalone.js',
  'reference/api-reference.js': 'shared/edge/reference/api-reference.js',
  'reference/api-reference.css': 'shared/edge/reference/api-reference.css',
} as const;

export const routes = [
  {
    id: 'priceLines',
    method: 'POST',
    path: '/api/v1/prices',
    entry: 'functions/price-lines.ts',
    surface: 'v1',
    auth: { family: 'svc_live', scopes: ['erp', 'storefront'], featureOfScope: { storefront: 'storefront' } },
    // Memory buys CPU on Lambda: 100 lines priced, serialised and compressed stay within a few tens of milliseconds.
    memoryMb: 1024,
    timeoutSeconds: 10,
    access: { table: 'readWrite' },
  },
  {
    id: 'openBatch',
    method: 'POST',
    path: '/api/v1/ingest/batches',
    entry: 'functions/open-batch.ts',
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
    entry: 'functions/stage-records.ts',
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
    entry: 'functions/batch-status.ts',
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
    entry: 'functions/commit-batch.ts',
    surface: 'v1',
    auth: { family: 'svc_live', scopes: ['connector'] },
    memoryMb: 256,
    timeoutSeconds: 10,
    access: { table: 'readWrite', sendTo: ['drain', 'webhooks'] },
  },
  {
    id: 'claimWritebacks',
    method: 'POST',
    path: '/api/v1/writebacks/claim',
    entry: 'functions/claim-writebacks.ts',
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
    entry: 'functions/ack-writebacks.ts',
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
    entry: 'functions/extend-writeback.ts',
    surface: 'v1',
    auth: { family: 'svc_live', scopes: ['connector'], feature: 'writebacks' },
    memoryMb: 256,
    timeoutSeconds: 10,
    access: { table: 'readWrite' },
  },
  {
    id: 'getPrice',
    method: 'GET',
    path: '/v1/prices/{sku}',
    entry: 'functions/get-price.ts',
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
    entry: 'functions/approve-price.ts',
    surface: 'overview',
    auth: { family: 'pw_live', scopes: [], feature: 'overview' },
    memoryMb: 256,
    timeoutSeconds: 10,
    access: { table: 'readWrite', sendTo: ['webhooks'] },
  },
  {
    id: 'createWebhookEndpoint',
    method: 'POST',
    path: '/v1/webhook-endpoints',
    entry: 'functions/create-webhook-endpoint.ts',
    surface: 'overview',
    auth: { family: 'pw_live', scopes: [], feature: 'overview' },
    memoryMb: 256,
    timeoutSeconds: 10,
    // It resolves the URL's name to check it (3 s at most), and seals the new secret under the data key.
    access: { table: 'readWrite', webhookSecrets: true },
  },
  {
    id: 'listWebhookEndpoints',
    method: 'GET',
    path: '/v1/webhook-endpoints',
    entry: 'functions/list-webhook-endpoints.ts',
    surface: 'overview',
    auth: { family: 'pw_live', scopes: [], feature: 'overview' },
    memoryMb: 256,
    timeoutSeconds: 10,
    access: { table: 'readWrite' },
  },
  {
    id: 'getWebhookEndpoint',
    method: 'GET',
    path: '/v1/webhook-endpoints/{endpointId}',
    entry: 'functions/get-webhook-endpoint.ts',
    surface: 'overview',
    auth: { family: 'pw_live', scopes: [], feature: 'overview' },
    memoryMb: 256,
    timeoutSeconds: 10,
    access: { table: 'readWrite' },
  },
  {
    id: 'updateWebhookEndpoint',
    method: 'PATCH',
    path: '/v1/webhook-endpoints/{endpointId}',
    entry: 'functions/update-webhook-endpoint.ts',
    surface: 'overview',
    auth: { family: 'pw_live', scopes: [], feature: 'overview' },
    memoryMb: 256,
    timeoutSeconds: 10,
    access: { table: 'readWrite' },
  },
  {
    id: 'deleteWebhookEndpoint',
    method: 'DELETE',
    path: '/v1/webhook-endpoints/{endpointId}',
    entry: 'functions/delete-webhook-endpoint.ts',
    surface: 'overview',
    auth: { family: 'pw_live', scopes: [], feature: 'overview' },
    memoryMb: 256,
    timeoutSeconds: 10,
    access: { table: 'readWrite' },
  },
  {
    id: 'rotateWebhookSecret',
    method: 'POST',
    path: '/v1/webhook-endpoints/{endpointId}/rotate-secret',
    entry: 'functions/rotate-webhook-secret.ts',
    surface: 'overview',
    auth: { family: 'pw_live', scopes: [], feature: 'overview' },
    memoryMb: 256,
    timeoutSeconds: 10,
    access: { table: 'readWrite', webhookSecrets: true },
  },
  {
    id: 'listWebhookDeliveries',
    method: 'GET',
    path: '/v1/webhook-endpoints/{endpointId}/deliveries',
    entry: 'functions/list-webhook-deliveries.ts',
    surface: 'overview',
    auth: { family: 'pw_live', scopes: [], feature: 'overview' },
    memoryMb: 256,
    timeoutSeconds: 10,
    access: { table: 'readWrite' },
  },
  {
    id: 'redeliverWebhookEvent',
    method: 'POST',
    path: '/v1/webhook-endpoints/{endpointId}/deliveries/{eventId}/redeliver',
    entry: 'functions/redeliver-webhook-event.ts',
    surface: 'overview',
    auth: { family: 'pw_live', scopes: [], feature: 'overview' },
    memoryMb: 256,
    timeoutSeconds: 10,
    // It queues the attempt; the delivery worker makes it.
    access: { table: 'readWrite', sendTo: ['webhooks'] },
  },
  {
    id: 'getUsage',
    method: 'GET',
    path: '/v1/usage',
    entry: 'functions/get-usage.ts',
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
    entry: 'functions/get-adherence.ts',
    surface: 'overview',
    auth: { family: 'pw_live', scopes: [], feature: 'overview' },
    memoryMb: 256,
    timeoutSeconds: 10,
    // Read and write: the overview's rate window is a write.
    access: { table: 'readWrite' },
  },
  {
    id: 'openapiV1',
    method: 'GET',
    path: '/api/v1/openapi.json',
    entry: 'functions/openapi-api-v1.ts',
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
    entry: 'functions/openapi-overview-v1.ts',
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
    entry: 'functions/api-reference.ts',
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
    entry: 'functions/api-reference.ts',
    surface: 'v1',
    auth: 'none',
    // Memory buys CPU on Lambda: Redoc's megabyte is compressed once per instance, on its first request.
    memoryMb: 256,
    timeoutSeconds: 10,
    access: noAccess,
    files: referenceFiles,
  },
] as const satisfies readonly HttpRoute[];

/**
 * A route of the console, the server-rendered pages for people: a row like every other, with a handler in functions/,
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
    entry: 'functions/console-assets.ts',
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
    entry: 'functions/console-sign-in.ts',
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
    entry: 'functions/console-sign-in.ts',
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
    entry: 'functions/console-sign-in.ts',
    surface: 'console',
    auth: 'session',
    memoryMb: 256,
    timeoutSeconds: 10,
    access: { table: 'readWrite' },
    files: consoleFiles,
  },
  // The console's pages are served by three functions, each bundling only its own pages: one function for all of them
  // would pass the bundle-size target. The API Gateway route most specific to a path wins, as local mode's order does.
  {
    id: 'consoleRecommendations',
    method: 'GET',
    path: '/console/recommendations',
    entry: 'functions/console-pricing.ts',
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
    entry: 'functions/console-pricing.ts',
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
    entry: 'functions/console-pricing.ts',
    surface: 'console',
    auth: 'session',
    memoryMb: 512,
    timeoutSeconds: 29,
    // An approval records its webhook events and hands them to the delivery queue, as POST /v1/prices/approve does.
    access: { table: 'readWrite', sendTo: ['webhooks'] },
    files: consoleFiles,
  },
  {
    id: 'consoleSettings',
    method: 'GET',
    path: '/console/settings/{path+}',
    entry: 'functions/console-settings.ts',
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
    entry: 'functions/console-settings.ts',
    surface: 'console',
    auth: 'session',
    memoryMb: 512,
    timeoutSeconds: 29,
    // A redelivery queues its attempt for the delivery worker.
    access: { table: 'readWrite', sendTo: ['webhooks'] },
    files: consoleFiles,
  },
  {
    id: 'consoleHome',
    method: 'GET',
    path: '/console',
    entry: 'functions/console-page.ts',
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
    entry: 'functions/console-page.ts',
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
    entry: 'functions/console-page.ts',
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

export const fallbackRoute: FallbackRoute = {
  id: 'routeNotFound',
  entry: 'functions/route-not-found.ts',
  memoryMb: 128,
  timeoutSeconds: 3,
  access: {},
};

export const workers: readonly QueueWorker[] = [
  {
    id: 'drain',
    queue: 'drain',
    entry: 'functions/drain.ts',
    // One job per invocation: each drain gets the whole timeout, and a slow batch never delays another.
    batchSize: 1,
    // Drains of one batch, and bands jobs of one workspace, run one at a time anyway (leases): ten at once serve ten
    // workspaces, about 1% of an account's default concurrency of 1,000. docs/operations.md has the reasoning.
    maxConcurrency: 10,
    memoryMb: 1024,
    // It re-enqueues itself to continue, and parks a job it gives up on in the dead-letter queue.
    access: { table: 'readWrite', tableStatements: true, sendTo: ['drain', 'webhooks'], sendToDeadLetter: ['drain'] },
  },
  {
    id: 'deliverWebhooks',
    queue: 'webhooks',
    entry: 'functions/deliver-webhooks.ts',
    // Attempts run side by side and mostly wait on receivers: ten per invocation share one instance's sockets.
    batchSize: 10,
    // Ten invocations of ten attempts each: a hundred receivers waited on at once, at least ten attempts a second when
    // every receiver takes its full 10 s, with 1% of an account's default concurrency. docs/operations.md has more.
    maxConcurrency: 10,
    memoryMb: 512,
    // It sends its own retries, delayed, to its queue, and opens the endpoints' signing secrets with the data key.
    access: { table: 'readWrite', sendTo: ['webhooks'], webhookSecrets: true },
  },
];

/** A function run on a timer: an EventBridge schedule in the stack, a timer in local mode. */
export interface ScheduledJob {
  readonly id: string;
  readonly entry: string;
  readonly everyMinutes: number;
  readonly memoryMb: number;
  readonly timeoutSeconds: number;
  readonly access: RouteAccess;
}

export const scheduledJobs: readonly ScheduledJob[] = [
  {
    id: 'sweepWebhookOutbox',
    entry: 'functions/sweep-webhook-outbox.ts',
    // Once a minute: an event whose hand-off after commit was lost goes out within about a minute and a half.
    everyMinutes: 1,
    memoryMb: 256,
    timeoutSeconds: 60,
    access: { table: 'readWrite', sendTo: ['webhooks'] },
  },
];

export type RouteId = (typeof routes)[number]['id'];
/** Routes that read a key: their handlers are built with `routeEndpoint`. */
export type KeyedRouteId = Exclude<(typeof routes)[number], { auth: 'none' }>['id'];
/** Routes open to every caller: their handlers are built with `openRouteEndpoint`. */
export type OpenRouteId = Extract<(typeof routes)[number], { auth: 'none' }>['id'];

export function routeById(id: RouteId): HttpRoute {
  const route = routes.find((candidate) => candidate.id === id);
  if (!route) throw new Error(`no route ${id}`);
  return route;
}

/** API Gateway's route key, e.g. "POST /api/v1/ingest/batches". */
export function routeKey(route: Pick<HttpRoute, 'method' | 'path'>): string {
  return `${route.method} ${route.path}`;
}
