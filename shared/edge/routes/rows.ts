// The shapes of the route table's rows, shared by every area's rows and by the stack and local mode that read them.
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
   * The route honours an optional Idempotency-Key (shared/edge/http/idempotent.ts): a retry with the same key and body
   * gets the first answer replayed. `sealed` keeps the stored answer sealed under the webhook data key, for an answer
   * that shows a secret once: the route needs `access.webhookSecrets`, and its handler hands routeEndpoint the seal.
   */
  readonly idempotency?: 'stored' | 'sealed';
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

/** One row of an area's rows by its id. */
export function rowOf<Row extends HttpRoute, Id extends Row['id']>(rows: readonly Row[], id: Id): Extract<Row, { id: Id }> {
  const row = rows.find((candidate) => candidate.id === id);
  if (!row) throw new Error(`no route ${id}`);
  return row as Extract<Row, { id: Id }>;
}

/** API Gateway's route key, e.g. "POST /api/v1/ingest/batches". */
export function routeKey(route: Pick<HttpRoute, 'method' | 'path'>): string {
  return `${route.method} ${route.path}`;
}

/**
 * A path template as a pattern of the paths it serves, and its parameters' names in order: `{name}` takes one segment,
 * a greedy `{name+}` (API Gateway's proxy form) the rest of the path, slashes and all.
 */
export function pathPattern(template: string): { readonly pattern: RegExp; readonly names: readonly string[] } {
  const names: string[] = [];
  const source = template
    .split('/')
    .map((segment) => {
      const param = /^\{([^}+]+)(\+?)\}$/.exec(segment);
      if (!param?.[1]) return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      names.push(param[1]);
      return param[2] ? '(.+)' : '([^/]+)';
    })
    .join('/');
  return { pattern: new RegExp(`^${source}$`), names };
}

/** The methods the rows serve at a path, in the order of HTTP's methods; none for a path no row serves. */
export function methodsAt(rows: ReadonlyArray<Pick<HttpRoute, 'path'> & { readonly method: string }>, path: string): string[] {
  const served = new Set(rows.filter((row) => pathPattern(row.path).pattern.test(path)).map((row) => row.method));
  if (served.has('GET')) served.add('HEAD');
  return ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'].filter((method) => served.has(method));
}

/**
 * HEAD is served wherever GET is, by the GET row's own function (the stack gives each GET row a HEAD route too, and
 * local mode routes a HEAD to the GET row): the GET row's key for a HEAD route key, any other as it is.
 */
export function servingRouteKey(routeKey: string): string {
  return routeKey.startsWith('HEAD ') ? `GET ${routeKey.slice('HEAD '.length)}` : routeKey;
}

/** A HEAD is answered as its GET, with the headers and status and without the body. */
export function answerForMethod<Result extends { body?: string | undefined; isBase64Encoded?: boolean | undefined }>(
  method: string,
  result: Result,
): Result {
  return method === 'HEAD' ? { ...result, body: '', isBase64Encoded: false } : result;
}

/** The access of the open routes: they serve what is public and may touch nothing. */
export const noAccess: RouteAccess = {};
